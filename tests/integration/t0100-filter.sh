#!/bin/bash
# --filter selects projects as Turborepo spells it; the tasks a selected
# task depends on still run.
. "$(dirname "$0")/lib.sh"
# These tests are about which tasks run, not about the cache: --no-cache.

# lib <- ui <- app, and lib <- docs. Every task logs its project's name.
setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    command: echo "\$VX_PROJECT" >> "\$VX_WORKSPACE_ROOT/log"
	  lint:
	    command: echo "\$VX_PROJECT" >> "\$VX_WORKSPACE_ROOT/log"
	EOF
	ws_project packages/lib lib </dev/null
	ws_project packages/ui ui lib </dev/null
	ws_project apps/app app ui </dev/null
	ws_project apps/docs docs lib </dev/null
}

# ran NAME...: exactly these projects' tasks ran, once each.
ran() {
	if [ $# -gt 0 ]; then printf "%s\n" "$@"; fi | sort >expect
	touch log
	sort log >actual
	test_cmp expect actual
}

test_expect_success 'a name glob' '
	setup &&
	run_vx 0 run --no-cache lint -F "*p*" &&
	ran app &&
	rm log && run_vx 0 run --no-cache lint --filter=d* &&
	ran docs
'

test_expect_success 'name... adds its dependencies' '
	setup &&
	run_vx 0 run --no-cache lint -F "ui..." &&
	ran ui lib
'

test_expect_success '...name adds its dependents' '
	setup &&
	run_vx 0 run --no-cache lint -F "...lib" &&
	ran lib ui app docs &&
	rm log && run_vx 0 run --no-cache lint -F "...ui" &&
	ran ui app
'

test_expect_success 'name^... and ...^name: the relatives without the project' '
	setup &&
	run_vx 0 run --no-cache lint -F "app^..." &&
	ran ui lib &&
	rm log && run_vx 0 run --no-cache lint -F "...^ui" &&
	ran app
'

test_expect_success '!name takes a project away' '
	setup &&
	run_vx 0 run --no-cache lint -F "!ui" &&
	ran lib app docs &&
	rm log && run_vx 0 run --no-cache lint -F "...lib" -F "!docs" &&
	ran lib ui app
'

test_expect_success 'filters are a union' '
	setup &&
	run_vx 0 run --no-cache lint -F app -F docs &&
	ran app docs
'

test_expect_success './path selects by directory, relative to where vx runs' '
	setup &&
	run_vx 0 run --no-cache lint -F ./apps/docs &&
	ran docs &&
	rm log && run_vx 0 run --no-cache lint -F "./apps/*" &&
	ran app docs &&
	rm log && (cd packages && run_vx 0 run --no-cache lint -F ./ui) &&
	ran ui
'

test_expect_success 'a selected project'"'"'s dependencies still run' '
	setup &&
	run_vx 0 run --no-cache build -F app &&
	test_before log lib ui &&
	test_before log ui app &&
	ran lib ui app
'

test_expect_success 'a filter that matches no project is an error' '
	setup &&
	run_vx 2 run --no-cache lint -F "nothing-like-this" &&
	test_grep "nothing-like-this" "$ERR" &&
	test_path_is_missing log
'

test_done
