#!/bin/bash
# The cache never replays a wrong output, round two (issue 37), where the
# trace judges what a sandboxed task read: each test failed before its fix.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

# Item 4: create-turbo's next build reads packages/typescript-config's
# files; that package has no build task (Turborepo: <NONEXISTENT>), and its
# files were judged read-unkeyed, so the starter failed out of the box.
test_expect_success 'a dependency with no command keys its files for its dependents' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	write_file tscfg/package.json <<<"{\"name\": \"tscfg\"}" &&
	write_file tscfg/base.json <<<"{\"strict\": true}" &&
	ws_project app app tscfg <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat ../tscfg/base.json > dist/o"
	    sandbox: {allow: {read: ["../tscfg/"], write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	test_grep ! "read-unkeyed" "$ERR" &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	write_file tscfg/base.json <<<"{\"strict\": false}" &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test_grep "false" app/dist/o
'

# Item 1: a committed symlink in the inputs was keyed by its text, the
# judge lstat'ed it, saw no regular file and skipped it: its target was
# read unkeyed, and after the target changed the next run hit.
test_expect_success 'a read through a link is judged at the file it reached' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	write_file app/config/dev.json <<<"dev-1" &&
	mkdir -p app/src && ln -s ../config/dev.json app/src/config.json &&
	mkdir -p app/lib && echo "notes" >app/lib/notes.txt && ln -s lib app/linkdir &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat src/config.json > dist/o"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/config/dev.json" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat linkdir/notes.txt > dist/o"
	    inputs: {files: ["src/**", "linkdir"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/lib/notes.txt" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat src/config.json > dist/o"
	    inputs: {files: ["src/**", "config/**"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	write_file app/config/dev.json <<<"dev-2" &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test "$(cat app/dist/o)" = dev-2
'

# Item 6: `current -> releases/v1` read with readlink was no input:
# repointed, the next run hit and replayed v1.
test_expect_success 'readlink of a link is a read of the link, judged against the key' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p app/releases/v1 app/releases/v2 app/src && echo s >app/src/a &&
	ln -s releases/v1 app/current &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; readlink current > dist/o"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/current (readlink" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; readlink current > dist/o"
	    inputs: {files: ["src/**", "current"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	ln -sfn releases/v2 app/current &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test "$(cat app/dist/o)" = releases/v2
'

test_done
