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

test_done
