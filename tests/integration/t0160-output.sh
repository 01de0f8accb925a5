#!/bin/bash
# What a run shows: every line under its task's prefix, and --output-logs.
. "$(dirname "$0")/lib.sh"

# ok prints two lines (one on stderr, one without a newline); bad prints one
# and fails.
setup() {
	ws_root </dev/null
	ws_project ok ok <<-EOF
	  build: { command: "echo ok-out; echo ok-err >&2; printf ok-partial" }
	EOF
	ws_project bad bad <<-EOF
	  build: { command: "echo bad-out; exit 1" }
	EOF
}

# What vx showed but the start lines, which quote the command.
shown() {
	grep -v ": running: " "$OUT" >shown || true
}

test_expect_success 'full (the default): each line under "project#task: ", in order' '
	setup &&
	run_vx 1 run build -j1 --continue &&
	cat >expect <<-\EOF &&
	bad#build: running: echo bad-out; exit 1
	bad#build: bad-out
	bad#build: failed (exit 1) in X
	ok#build: running: echo ok-out; echo ok-err >&2; printf ok-partial
	ok#build: ok-out
	ok#build: ok-err
	ok#build: ok-partial
	ok#build: done in X
	Tasks: 1 succeeded, 0 cached, 1 failed, 0 skipped (of 2) in X
	EOF
	sed -E "s/ in [0-9]+\.[0-9]{2}s\$/ in X/" "$OUT" >actual &&
	test_cmp expect actual &&
	test ! -s "$ERR"
'

test_expect_success 'every line but the summary carries a prefix, also with -j2' '
	setup &&
	ws_project more more <<-EOF &&
	  build: { command: "seq 1 50" }
	EOF
	run_vx 1 run build -j2 --continue &&
	grep -v "^Tasks: " "$OUT" >lines &&
	test_grep ! -v -E "^(ok|bad|more)#build: " lines &&
	test $(grep -c "^more#build: [0-9]*\$" lines) -eq 50
'

test_expect_success '--output-logs none: no line of the tasks'"'"' own, start and end stay' '
	setup &&
	run_vx 1 run build -j1 --continue --output-logs none &&
	shown &&
	test_grep ! -e "-out" shown &&
	test_grep ! -e "-err" shown &&
	test_grep ! -e "-partial" shown &&
	test_grep -x "ok#build: done in [0-9.]*s" "$OUT" &&
	test_grep -x "bad#build: failed (exit 1) in [0-9.]*s" "$OUT" &&
	run_vx 1 run build -j1 --continue --output-logs none &&
	test_grep ! "cache hit" "$OUT" &&
	test_grep "Tasks: 0 succeeded, 1 cached, 1 failed" "$OUT"
'

test_expect_success '--output-logs errors-only: only the failing task'"'"'s lines' '
	setup &&
	run_vx 1 run build -j1 --continue --output-logs errors-only &&
	shown &&
	test_grep -x "bad#build: bad-out" shown &&
	test_grep ! "ok-out" shown &&
	test_grep ! "ok-err" shown &&
	test_grep ! "ok-partial" shown &&
	test_grep -x "ok#build: done in [0-9.]*s" "$OUT"
'

test_expect_success '--output-logs hash-only hides the lines too (no cache yet)' '
	setup &&
	run_vx 1 run build -j1 --continue --output-logs hash-only &&
	shown &&
	test_grep ! "ok-out" shown &&
	test_grep ! "bad-out" shown
'

test_expect_success '--output-logs with a bad mode: exit 2' '
	setup &&
	run_vx 2 run build --output-logs some &&
	test_grep "output-logs" "$ERR"
'

test_expect_success 'with -j2 and no terminal, a task'"'"'s lines come as one block' '
	ws_root </dev/null &&
	for p in a b; do
		other=$([ $p = a ] && echo b || echo a)
		ws_project $p $p <<-EOF || exit 1
		  build:
		    command: |
		      echo $p-1
		      touch ../$p-1
		      i=0
		      while [ ! -e ../$other-1 ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
		      echo $p-2
		EOF
	done &&
	run_vx 0 run build -j2 &&
	for p in a b; do
		one=$(grep -n -x "$p#build: $p-1" "$OUT" | cut -d: -f1) &&
		two=$(grep -n -x "$p#build: $p-2" "$OUT" | cut -d: -f1) &&
		done=$(grep -n -x "$p#build: done in [0-9.]*s" "$OUT" | cut -d: -f1) &&
		test $((one + 1)) -eq "$two" && test $((two + 1)) -eq "$done" || exit 1
	done
'

test_expect_success 'a reader that goes away (| head) does not kill vx or the run' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { command: "seq 1 20000; touch ../finished" }
	EOF
	{ "$VX" run build 2>"$ERR"; echo "exit $?" >vx-status; } | head -n 1 >first &&
	echo "exit 0" >expect &&
	test_cmp expect vx-status &&
	test_path_is_file finished &&
	test_grep -x "a#build: running: .*" first
'

test_done
