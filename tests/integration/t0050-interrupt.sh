#!/bin/bash
# SIGINT to vx: every task's process group gets it, vx waits for them, kills
# what is left, and exits 130.
. "$(dirname "$0")/lib.sh"

# A failing test must not leave vx or a task behind: vx, then the task's
# group. Runs under set -e: nothing in it may fail.
kill_leftovers() {
	kill -KILL "$1" 2>/dev/null || :
	if [ -s pid ]; then kill -KILL -- "-$(cat pid)" 2>/dev/null || :; fi
}

test_expect_success 'SIGINT: exit 130, the task saw SIGINT, none of its processes remain' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  serve:
	    command: |
	      trap "echo got-int > ../got-int; exit 0" INT
	      sleep 60 &
	      echo \$! > ../child
	      echo \$\$ > ../pid
	      wait
	EOF
	ws_project b b <<-EOF &&
	  serve: { command: "sleep 60; touch ../ran-b" }
	EOF
	ws_project c c <<-EOF &&
	  serve: { command: "touch ../ran-c" }
	EOF
	# A background job of a script ignores SIGINT unless job control is on.
	set -m
	"$VX" run serve -j2 >"$OUT" 2>"$ERR" &
	vx=$!
	trap "kill_leftovers $vx" EXIT
	test_wait_for pid &&
	kill -INT $vx &&
	rc=0 && wait $vx || rc=$?
	set +m
	test "$rc" -eq 130 &&
	test_path_is_file got-int &&
	test_path_is_missing ran-b &&
	test_path_is_missing ran-c &&
	test_process_gone "$(cat pid)" &&
	test_process_gone "$(cat child)"
'

test_expect_success 'SIGTERM: the same, with SIGTERM passed on' '
	ws_root </dev/null &&
	ws_project a a <<-EOF
	  serve:
	    command: |
	      trap "echo got-term > ../got-term; exit 0" TERM
	      echo \$\$ > ../pid
	      sleep 60 &
	      wait
	EOF
	# (no "&&" above: it would take the lines before into the background job)
	"$VX" run serve >"$OUT" 2>"$ERR" &
	vx=$!
	trap "kill_leftovers $vx" EXIT
	test_wait_for pid &&
	kill -TERM $vx &&
	rc=0 && wait $vx || rc=$?
	test "$rc" -eq 130 &&
	test_path_is_file got-term &&
	test_process_gone "$(cat pid)"
'

# Issue 39, item 1: vx died by SIGHUP (a closed terminal or SSH session) or
# SIGQUIT, and every task ran on and wrote after it. Each is handled as
# SIGTERM: the tasks' groups get SIGTERM, vx waits for them, exits 130.
for sig in HUP QUIT; do
test_expect_success "SIG$sig: the tasks stop with vx, and nothing writes after it" '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  serve:
	    command: |
	      (sleep 2; echo late > ../late-'$sig') &
	      echo \$\$ > ../pid
	      sleep 60
	EOF
	set -m
	"$VX" run serve >"$OUT" 2>"$ERR" &
	vx=$!
	trap "kill_leftovers $vx" EXIT
	test_wait_for pid &&
	kill -'$sig' $vx &&
	rc=0 && wait $vx || rc=$?
	set +m
	test "$rc" -eq 130 &&
	sleep 2.5 &&
	test_path_is_missing late-'$sig' &&
	! kill -0 "$(cat pid)" 2>/dev/null
'
done

# Issue 39, item 1: after a kill -9 of vx its unsandboxed tasks ran on and
# wrote dist/ after the next run had finished. The reaper vx runs around
# each task SIGKILLs the task's group when vx dies.
test_expect_success 'kill -9 of vx: nothing of its tasks runs after it' '
	ws_root </dev/null &&
	ws_project a a <<-EOF
	  serve:
	    command: |
	      (sleep 2; echo late > ../late-kill) &
	      echo \$! > ../child
	      echo \$\$ > ../pid
	      sleep 60
	EOF
	"$VX" run serve >"$OUT" 2>"$ERR" &
	vx=$!
	trap "kill_leftovers $vx" EXIT
	test_wait_for pid &&
	kill -KILL $vx && { wait $vx || true; } &&
	sleep 2.5 &&
	test_path_is_missing late-kill &&
	for p in "$(cat pid)" "$(cat child)"; do
		# gone, or a zombie nobody reaps (a container'"'"'s pid 1 may not)
		! kill -0 "$p" 2>/dev/null || grep -q "^State:.*Z" /proc/$p/status || return 1
	done
'

test_done
