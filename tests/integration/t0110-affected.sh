#!/bin/bash
# --affected: only the projects with files changed since a git ref, and
# their dependents.
. "$(dirname "$0")/lib.sh"
# These tests are about which tasks run, not about the cache: --no-cache.

if ! command -v git >/dev/null; then
	echo "# skipped: no git"
	test_done
fi

# lib <- ui <- app, and lib <- docs, in a git repository whose main branch
# holds one commit; WS_INPUTS, if set, is a workspace input glob. The log
# lives outside the work tree: it is no change.
setup() {
	write_file vx.yaml <<-EOF
	workspace:
	  projects: ["*/*"]
	  inputs:
	    workspaceFiles: ["${WS_INPUTS:-none}"]
	tasks:
	  lint:
	    command: echo "\$VX_PROJECT" >> "\$VX_WORKSPACE_ROOT/../tasks.log"
	EOF
	ws_project packages/lib lib </dev/null
	ws_project packages/ui ui lib </dev/null
	ws_project apps/app app ui </dev/null
	ws_project apps/docs docs lib </dev/null
	for p in packages/lib packages/ui apps/app apps/docs; do
		echo one >$p/file.txt
	done
	mkdir shared && echo one >shared/notes.txt
	git init -q -b main
	git add -A
	git commit -qm base
}

ran() {
	if [ $# -gt 0 ]; then printf "%s\n" "$@"; fi | sort >../expect
	touch ../tasks.log
	sort ../tasks.log >../actual
	rm ../tasks.log
	test_cmp ../expect ../actual
}

test_expect_success 'a commit on a branch: that project and its dependents' '
	setup &&
	git checkout -q -b feature &&
	echo two >packages/ui/file.txt &&
	git commit -qam "change ui" &&
	run_vx 0 run --no-cache lint --affected &&
	ran ui app
'

test_expect_success 'unstaged, staged and untracked changes count' '
	setup &&
	git checkout -q -b feature &&
	echo two >apps/docs/file.txt &&
	run_vx 0 run --no-cache lint --affected &&
	ran docs &&
	git add apps/docs/file.txt &&
	run_vx 0 run --no-cache lint --affected &&
	ran docs &&
	git reset -q --hard &&
	echo new >packages/lib/new.txt &&
	run_vx 0 run --no-cache lint --affected &&
	ran lib ui app docs
'

test_expect_success 'no change: nothing runs, and that is success' '
	setup &&
	git checkout -q -b feature &&
	run_vx 0 run --no-cache lint --affected &&
	ran
'

test_expect_success '--affected=REF compares with REF' '
	setup &&
	echo two >apps/app/file.txt &&
	git commit -qam "change app" &&
	echo two >apps/docs/file.txt &&
	git commit -qam "change docs" &&
	run_vx 0 run --no-cache lint --affected=HEAD~1 &&
	ran docs &&
	run_vx 0 run --no-cache lint --affected=HEAD~2 &&
	ran app docs &&
	run_vx 0 run --no-cache lint --affected=HEAD &&
	ran
'

test_expect_success 'a change outside every project affects none of them...' '
	setup &&
	git checkout -q -b feature &&
	echo two >shared/notes.txt &&
	run_vx 0 run --no-cache lint --affected &&
	ran
'

test_expect_success '...unless it is a workspace input: then it affects them all' '
	WS_INPUTS="shared/*.txt" setup &&
	git checkout -q -b feature &&
	echo two >shared/notes.txt &&
	run_vx 0 run --no-cache lint --affected &&
	ran lib ui app docs
'

test_expect_success 'a change to the workspace vx.yaml affects every project' '
	setup &&
	git checkout -q -b feature &&
	echo "# comment" >>vx.yaml &&
	run_vx 0 run --no-cache lint --affected &&
	ran lib ui app docs
'

test_expect_success '--affected narrows what --filter selected' '
	setup &&
	git checkout -q -b feature &&
	echo two >packages/ui/file.txt &&
	run_vx 0 run --no-cache lint --affected -F "!app" &&
	ran ui
'

test_expect_success 'a ref git does not know is an error, and nothing runs' '
	setup &&
	run_vx 2 run --no-cache lint --affected=no-such-ref &&
	test_grep "no-such-ref" "$ERR" &&
	ran
'

test_done
