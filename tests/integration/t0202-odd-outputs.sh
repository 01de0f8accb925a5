#!/bin/bash
# An output vx cannot archive (a fifo, a socket) is never dropped silently
# (issue 57 item 6): matched by a glob or named exactly it was left out, the
# entry saved, and after `rm -rf dist` the hit restored the rest (or
# nothing); only `outputs: ["dist"]` warned. One rule on every spelling:
# the task succeeds, its save fails naming the file, nothing is cached.
. "$(dirname "$0")/lib.sh"

# one project whose build makes dist/out and the special file $2
# (mkfifo, or a listening unix socket's file), outputs: $1
odd_project() {
	ws_root <<-EOF
	tasks:
	  build:
	    outputs: $1
	EOF
	ws_project app app <<-EOF
	  build:
	    command: "echo run >> ../runs; mkdir -p dist && echo out > dist/out && $2 && echo made"
	EOF
}

FIFO="mkfifo dist/odd"
SOCKET="python3 -c \\\"import socket; socket.socket(socket.AF_UNIX).bind('dist/odd')\\\""

for spelling in '["dist/**"]' '["dist"]' '["dist/*"]' '["dist/out", "dist/odd"]' '["dist/odd"]'; do
	for kind in fifo socket; do
		test_expect_success "a $kind in outputs $spelling fails the save, said; nothing is cached" '
			if [ '$kind' = fifo ]; then make=$FIFO; else make=$SOCKET; fi &&
			odd_project '"'$spelling'"' "$make" &&
			run_vx 0 run build &&
			test_grep "app#build: made" "$OUT" &&
			test_grep "Tasks: 1 succeeded" "$OUT" &&
			test "$(grep -c warning "$ERR")" = 1 &&
			test_grep "warning: app#build: not saved to the cache: cannot archive dist/odd: it is a '$kind' (an entry holds files, directories and symlinks); leave it out of outputs" "$ERR" &&
			test -z "$(find .vx/cache -name "*.json" -path "*/??/*")" &&
			rm -rf app/dist &&
			run_vx 0 run build &&
			test "$(wc -l <runs)" = 2 &&
			! test_grep "cache hit" "$OUT" &&
			test -f app/dist/out
		'
	done
done

# The rule is about what outputs match: a fifo beside them is no output.
test_expect_success 'a fifo the outputs do not match is left alone, and the rest is saved' '
	odd_project "[\"dist/*.txt\", \"dist/out\"]" "$FIFO" &&
	run_vx 0 run build &&
	! test_grep warning "$ERR" &&
	rm -f app/dist/out &&
	run_vx 0 run build &&
	test_grep "app#build: cache hit" "$OUT" &&
	test "$(cat app/dist/out)" = out &&
	test "$(wc -l <runs)" = 1
'

test_done
