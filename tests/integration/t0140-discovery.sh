#!/bin/bash
# Finding the workspace: -C DIR, and the nearest ancestor with workspace:.
. "$(dirname "$0")/lib.sh"
# These tests are about which tasks run, not about the cache: --no-cache.

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    command: echo "\$VX_PROJECT" >> "\$VX_WORKSPACE_ROOT/log"
	EOF
	ws_project packages/lib lib </dev/null
	ws_project apps/app app lib </dev/null
	mkdir -p apps/app/src/deep/er
}

test_expect_success '-C DIR runs there, from outside the workspace' '
	setup &&
	(cd "$TEST_DIR" && run_vx 0 -C ws run --no-cache build) &&
	printf "lib\napp\n" >expect &&
	test_cmp expect log
'

test_expect_success '-C after the verb, and -CDIR, work too' '
	setup &&
	(cd / && run_vx 0 run --no-cache build -C "$TEST_DIR/ws") &&
	(cd / && run_vx 0 "-C$TEST_DIR/ws" run --no-cache build) &&
	printf "lib\napp\nlib\napp\n" >expect &&
	test_cmp expect log
'

test_expect_success 'repeated -C options nest, as in git' '
	setup &&
	(cd "$TEST_DIR" && run_vx 0 -C ws -C apps run --no-cache build) &&
	test_path_is_file log
'

test_expect_success 'from a nested subdirectory vx finds the root, and runs that project and what it needs (package inference)' '
	setup &&
	(cd apps/app/src/deep/er && run_vx 0 run --no-cache build) &&
	printf "lib\napp\n" >expect &&
	test_cmp expect log &&
	rm log && (cd apps && run_vx 0 run --no-cache build) &&
	test_cmp expect log
'

test_expect_success 'a project vx.yaml on the way up is not the root' '
	setup &&
	(cd apps/app/src && run_vx 0 run --no-cache lib#build) &&
	echo lib >expect &&
	test_cmp expect log
'

test_expect_success 'no workspace anywhere above: exit 2' '
	mkdir -p "$TEST_DIR/none/sub" &&
	(cd "$TEST_DIR/none/sub" && run_vx 2 run --no-cache build) &&
	test_grep "no workspace found" "$ERR"
'

test_expect_success '-C a directory that does not exist: exit 2, nothing ran' '
	setup &&
	run_vx 2 -C no/such/dir run --no-cache build &&
	test_grep "no/such/dir" "$ERR" &&
	test_path_is_missing log
'

test_done
