#!/bin/bash
# timeout: ends a task that runs too long, even one that ignores SIGTERM.
. "$(dirname "$0")/lib.sh"

test_expect_success 'a task over its timeout fails (exit 1), says so, and leaves no process' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build:
	    timeout: 1s
	    command: |
	      echo \$\$ > ../pid
	      trap "" TERM
	      sleep 30 &
	      echo \$! > ../child
	      wait \$!
	      touch ../finished
	EOF
	run_vx 1 run build &&
	test_grep -x "a#build: timed out after 1s" "$OUT" &&
	test_grep "1 failed" "$OUT" &&
	test_path_is_missing finished &&
	test_process_gone "$(cat pid)" &&
	test_process_gone "$(cat child)"
'

test_expect_success 'a task within its timeout succeeds' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { timeout: 250ms, command: "true" }
	EOF
	run_vx 0 run build
'

test_done
