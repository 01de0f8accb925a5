#!/bin/bash
# persistent: true, a server: its output is streamed as it comes, and its
# exit ends the run with its verdict.
. "$(dirname "$0")/lib.sh"

test_expect_success 'a persistent task that exits 3: vx exits 3 (its status), its output shown' '
	ws_root </dev/null &&
	ws_project srv srv <<-EOF &&
	  dev: { persistent: true, command: "echo up; exit 3" }
	EOF
	run_vx 3 run dev -j2 &&
	up=$(grep -n -x "srv#dev: up" "$OUT" | cut -d: -f1) &&
	end=$(grep -n -x "srv#dev: failed (exit 3) in [0-9.]*s" "$OUT" | cut -d: -f1) &&
	test -n "$up" && test -n "$end" && test "$up" -lt "$end" &&
	test_grep "1 failed" "$OUT"
'

test_expect_success 'its lines are streamed while it runs, even with -j2 and no terminal' '
	ws_root </dev/null &&
	ws_project srv srv <<-EOF &&
	  dev:
	    persistent: true
	    command: |
	      echo up
	      i=0
	      while [ ! -e ../seen ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
	      [ -e ../seen ] && echo saw-the-reader
	      exit 3
	EOF
	# The reader acknowledges "up" while the task is still waiting for it.
	{ "$VX" run dev -j2 2>"$ERR"; echo "exit $?" >vx-status; } |
	while IFS= read -r line; do
		echo "$line" >>"$OUT"
		if [ "$line" = "srv#dev: up" ]; then touch seen; fi
	done &&
	echo "exit 3" >expect &&
	test_cmp expect vx-status &&
	test_grep -x "srv#dev: saw-the-reader" "$OUT"
'

test_expect_success 'when a persistent task exits, the other running tasks are stopped' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  dev: { persistent: true, command: "sleep 0.5; exit 3" }
	EOF
	ws_project b b <<-EOF &&
	  dev: { persistent: true, command: "echo \$\$ > ../pid-b; sleep 60; touch ../finished-b" }
	EOF
	run_vx 3 run dev -j2 &&
	test_grep -x "a#dev: failed (exit 3) in .*" "$OUT" &&
	test_grep -x "b#dev: failed (stopped: a persistent task exited) in .*" "$OUT" &&
	test_path_is_missing finished-b &&
	test_process_gone "$(cat pid-b)"
'

test_expect_success 'a persistent task that exits 0 ends the run with 0' '
	ws_root </dev/null &&
	ws_project srv srv <<-EOF &&
	  dev: { persistent: true, command: "echo up" }
	EOF
	run_vx 0 run dev
'

test_done
