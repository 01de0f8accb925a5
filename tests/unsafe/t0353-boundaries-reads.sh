#!/bin/bash
# vx boundaries' runtime source (issue 56 item 5) with a real traced run:
# app's build reads lib's file through cat, which no import shows. The
# verdict keeps what it read of other packages in .vx/reads; vx boundaries
# reports lib undeclared, with the edit; declared, it is clean; a run
# that reads no other package removes the record.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

setup() {
	git init -q . &&
	ws_root </dev/null &&
	printf ".vx\ndist\n" >.gitignore &&
	write_file app/package.json <<<'{"name": "app", "version": "1.0.0"}' &&
	write_file lib/package.json <<<'{"name": "lib", "version": "1.0.0"}' &&
	echo data >lib/data.txt &&
	ws_project lib lib </dev/null &&
	ws_project app app <<-'EOF' &&
	  build:
	    command: "mkdir -p dist; cat ../lib/data.txt > dist/o.txt"
	    outputs: ["dist/**"]
	    inputs: {workspaceFiles: ["lib/data.txt"]}
	    sandbox:
	      allow: {read: ["../lib/data.txt"], write: ["dist/"]}
	EOF
	git add -A && git commit -qm init
}

test_expect_success 'a traced task read another package: kept, and reported until declared' '
	setup &&
	run_vx 0 boundaries &&
	run_vx 0 run app#build &&
	test_grep "^read lib/data.txt$" ".vx/reads/app%23build" &&
	run_vx 1 boundaries &&
	test_grep "^app/package.json:1:1: app#build read lib/data.txt when it ran traced, but app does not declare lib$" "$OUT" &&
	test_grep "^app/package.json:1:1: fix: add \"lib\": \"\\*\" to \"dependencies\" in app/package.json$" "$OUT" &&
	write_file app/package.json <<<"{\"name\": \"app\", \"version\": \"1.0.0\", \"dependencies\": {\"lib\": \"*\"}}" &&
	run_vx 0 boundaries
'

test_expect_success 'a run that reads no other package removes its record' '
	setup &&
	run_vx 0 run app#build &&
	test -f ".vx/reads/app%23build" &&
	sed -i "s|cat ../lib/data.txt > dist/o.txt|echo own > dist/o.txt|" app/vx.yaml &&
	run_vx 0 run app#build &&
	test ! -e ".vx/reads/app%23build" &&
	run_vx 0 boundaries
'

# A review: .vx/reads planted as a link (a repository can commit one)
# sent the record, and its removal, wherever it pointed.
test_expect_success '.vx/reads planted as a link: nothing is written through it, said once' '
	setup &&
	mkdir -p .vx "$TEST_DIR/elsewhere" &&
	ln -s "$TEST_DIR/elsewhere" .vx/reads &&
	run_vx 0 run app#build &&
	test_grep "reads is not a directory (a link?): the reads of app#build are not kept" "$ERR" &&
	test -z "$(ls -A "$TEST_DIR/elsewhere")"
'

test_done
