#!/bin/bash
# The cache never replays a wrong output, round two (issue 37): each test
# is a stale hit, or a false failure, that the code before its fix gave.
. "$(dirname "$0")/lib.sh"

setup() {
	ws_root <<-'EOF2'
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF2
}

# Item 2: the key is computed from one content, the outputs are built from
# another, and the entry paired them: undoing the edit then hit and
# replayed output built from the other source.
test_expect_success 'an input edited while its task runs is not saved, and the undo does not hit' '
	setup &&
	write_file app/src/a.txt <<<"v1" &&
	ws_project app app <<-'\''EOF2'\'' &&
	  build:
	    command: "sleep 1; mkdir -p dist; cat src/a.txt > dist/out"
	EOF2
	{ (sleep 0.3; echo v2 >app/src/a.txt) & } &&
	run_vx 0 run app#build &&
	test "$(cat app/dist/out)" = v2 &&
	test_grep "app#build: not saved to the cache: its input app/src/a.txt changed while it ran" "$ERR" &&
	run_vx 0 cache stats &&
	test_grep "^entries: 0$" "$OUT" &&
	echo v1 >app/src/a.txt &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test "$(cat app/dist/out)" = v1 &&
	run_vx 0 run app#build &&
	test_grep "cache hit" "$OUT" && test "$(cat app/dist/out)" = v1
'

# Item 3: two `vx run` at once in one workspace both exited 0 with wrong
# outputs saved under correct keys (a dependent copied its dependency's
# output while the other run was rewriting it). The second run waits.
test_expect_success 'a second run in the workspace waits for the first, and every entry is a clean build'"'"'s' '
	setup &&
	write_file lib/src/a.txt <<<"lib-content" &&
	ws_project lib lib <<-'\''EOF2'\'' &&
	  build:
	    command: "mkdir -p dist; : > dist/out; sleep 0.5; cat src/a.txt > dist/out"
	EOF2
	ws_project app app lib <<-'\''EOF2'\'' &&
	  build:
	    command: "mkdir -p dist; cat ../lib/dist/out > dist/out"
	EOF2
	for trial in 1 2 3; do
		rm -rf lib/dist app/dist .vx/cache &&
		{ "$VX" run build --force >out.a 2>err.a & a=$!; } &&
		sleep 0.2 &&
		"$VX" run build --force >out.b 2>err.b &&
		wait $a &&
		test_grep "another vx holds this workspace (pid $a, vx run, since" err.b &&
		test "$(cat app/dist/out)" = lib-content || return 1
	done &&
	rm -rf lib/dist app/dist &&
	run_vx 0 run build &&
	test_grep "app#build: cache hit" "$OUT" &&
	test "$(cat app/dist/out)" = lib-content
'

test_expect_success 'a vx a task of the running vx starts does not wait for it' '
	setup &&
	ws_project lib lib <<-'\''EOF2'\'' &&
	  build:
	    command: "echo inner-ran"
	    cache: false
	EOF2
	ws_project app app <<-EOF2 &&
	  build:
	    command: "timeout 20 $VX run lib#build"
	    cache: false
	EOF2
	run_vx 0 run app#build &&
	test_grep "inner-ran" "$OUT" &&
	test_grep ! "another vx holds" "$ERR"
'

# Item 12: a file a late daemon added to an output directory after its
# task ended survived every later run as a hit once the run took the fast
# path (the in-place record held the outputs' own stats, not their
# directories').
test_expect_success 'the fast hit notices a file added to an output directory' '
	setup &&
	ws_project app app <<-'\''EOF2'\'' &&
	  build:
	    command: "mkdir -p dist/sub; echo a > dist/a; echo b > dist/sub/b"
	EOF2
	run_vx 0 run app#build &&
	sleep 1.1 &&
	run_vx 0 run app#build && run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	echo late >app/dist/sub/late &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	test_path_is_missing app/dist/sub/late &&
	test "$(cat app/dist/sub/b)" = b
'

test_done
