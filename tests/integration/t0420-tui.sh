#!/bin/bash
# --ui=tui (issue 56 item 1): on a terminal, `vx run` draws a task list
# beside the selected task's output, driven here under tmux (send-keys,
# capture-pane): twenty tasks at once, one failing, a persistent server
# that reads what is typed to it, scrolling, the all-tasks view, a resize
# and the two quits; piped, the output stays what stream mode prints.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	if [ -n "$VX_TEST_IN_CI" ] || [ -n "${VX_REQUIRE_SANDBOX:-}" ]; then
		echo "not ok - tmux is missing (scripts/install-deps.sh test installs it)"
		exit 1
	fi
	echo "tmux is missing: scripts/install-deps.sh test" >&2
	exit 1
fi

# tmux servers of this test's own, each on a socket of its own: a new
# one on the socket of a server just killed can find it still going away
# ("server exited unexpectedly").
TMUX_SOCK=
unset TMUX
tmx() {
	tmux -S "$TMUX_SOCK" "$@"
}
trap 'for s in "$TEST_TMP"/tmux-*.sock; do [ -S "$s" ] && tmux -S "$s" kill-server; done 2>/dev/null
	rm -rf "$TEST_TMP"' EXIT

# The screen, as text.
screen() {
	tmx capture-pane -p -t vx >screen
}

# Captures the screen until CMD... succeeds (20 s at most).
screen_until() {
	local tries=400
	while :; do
		screen
		if "$@" >/dev/null; then
			return 0
		fi
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			echo "screen_until: never true: $*"
			cat screen
			return 1
		fi
		sleep 0.05
	done
}

# Until grep ARGS... finds something on the screen.
wait_screen() {
	screen_until grep "$@" screen
}

# Runs vx ARGS... in a new tmux server's window "vx", 120x40, in the
# workspace, with TERM=screen and $VX_ENV, under $VX_WRAP (a command that
# runs vx) if set; when vx ends, its exit status
# is written to ../status (the terminal's modes then to ../stty) and the
# window stays.
tmux_vx() {
	if [ -n "$TMUX_SOCK" ]; then
		tmx kill-server 2>/dev/null || true
	fi
	TMUX_SOCK=$(mktemp -u "$TEST_TMP/tmux-XXXXXX.sock")
	rm -f ../status
	tmx -f /dev/null new-session -d -s vx -x 120 -y 40 \
		"cd '$PWD' && TERM=screen ${VX_ENV:-} ${VX_WRAP:-} '$VX' $*; echo \$? >../status.tmp; stty -a >../stty; mv ../status.tmp ../status; exec sleep 600"
}

# p01..p18: 40 lines each, then wait for ../go; bad: fails at once; srv:
# a persistent server answering each line it reads.
setup() {
	ws_root </dev/null
	for i in $(seq -w 1 18); do
		ws_project "p$i" "p$i" <<-EOF
		  dev:
		    command: |
		      n=1; while [ \$n -le 40 ]; do echo "p$i line \$n"; n=\$((n + 1)); done
		      k=0; while [ ! -e ../go ] && [ \$k -lt 600 ]; do sleep 0.05; k=\$((k + 1)); done
		      echo "p$i finished"
		EOF
	done
	ws_project bad bad <<-EOF
	  dev: { command: "echo bad-out; echo bad-err >&2; exit 3" }
	EOF
	ws_project srv srv <<-EOF
	  dev:
	    persistent: true
	    command: |
	      trap 'echo "srv: not yet"' INT
	      echo "srv ready"
	      while :; do
	        if read -r line; then echo "srv got: \$line"; else sleep 0.1; fi
	      done
	EOF
}

# The screen is $1 rows, the last the key help.
footer_on() {
	[ "$(wc -l <screen)" -eq "$1" ] && tail -n 1 screen | grep -q "q quit"
}

# The row of the list whose task is $1 (1-based screen row), and the
# selected row (the one marked ">").
row_of() {
	grep -n -E "^. $1 " screen | head -n1 | cut -d: -f1
}
selected_row() {
	grep -n -E "^> " screen | head -n1 | cut -d: -f1
}

# Presses j or k until task $1 is selected.
select_task() {
	local want sel key n
	screen
	want=$(row_of "$1")
	sel=$(selected_row)
	test -n "$want" && test -n "$sel"
	if [ "$want" -gt "$sel" ]; then key=j n=$((want - sel)); else key=k n=$((sel - want)); fi
	while [ "$n" -gt 0 ]; do
		tmx send-keys -t vx "$key"
		n=$((n - 1))
	done
	wait_screen -E "^> $1 "
}

test_expect_success 'the list, the pane, typing to a server, scrolling, all, a resize and two quits' '
	setup &&
	tmux_vx run dev -j20 --continue &&
	# the list: every task with its state, the header with the counts
	wait_screen -E "^. bad#dev +failed" &&
	wait_screen -E "^. srv#dev +running [0-9]+\.[0-9]s" &&
	wait_screen -E "^. p18#dev +running" &&
	test "$(grep -c -E "^. [a-z0-9]+#dev " screen)" -eq 20 &&
	grep "vx run  \[done/running/queued\] " screen &&
	grep "q quit" screen &&
	# the first task is selected, its output beside the list
	sel=$(selected_row) && test "$sel" -eq 2 &&

	# the failure: its output and how it ended
	select_task "bad#dev" &&
	wait_screen -F "bad#dev  failed (exit 3) in" &&
	grep -F "bad-out" screen && grep -F "bad-err" screen &&

	# the server: typed lines go to its stdin, ctrl-z stops typing
	select_task "srv#dev" &&
	wait_screen -F "srv ready" &&
	wait_screen -F "(i: type to it)" &&
	tmx send-keys -t vx i &&
	wait_screen -F "typing to srv#dev" &&
	tmx send-keys -t vx -l "hello there" &&
	wait_screen -F "> hello there" &&
	tmx send-keys -t vx Enter &&
	wait_screen -F "srv got: hello there" &&
	tmx send-keys -t vx C-z &&
	wait_screen -F "q quit" &&
	# j is a key again, not text for the server
	tmx send-keys -t vx k &&
	wait_screen -E "^> p18#dev " &&
	! grep -F "srv got: k" screen &&

	# scrolling: p01 printed 40 lines into 37 rows; the pane follows the
	# newest, u goes up (line 1 shows), f follows again
	select_task "p01#dev" &&
	wait_screen -F "p01 line 40" &&
	! grep -E "p01 line 1\$|p01 line 1 " screen &&
	tmx send-keys -t vx u &&
	wait_screen -F "[scrolled]" &&
	tmx send-keys -t vx g &&
	wait_screen -E "p01 line 1 *\$" &&
	! grep -F "p01 line 40" screen &&
	tmx send-keys -t vx f &&
	wait_screen -F "p01 line 40" &&

	# all: every task lines under its prefix
	tmx send-keys -t vx a &&
	wait_screen -F "all tasks" &&
	wait_screen -F "srv#dev: srv got: hello there" &&
	tmx send-keys -t vx a &&
	wait_screen -F "p01#dev  running" &&

	# a resize: the frame is drawn again to the new size, its help line
	# on the last row
	tmx resize-window -t vx -x 80 -y 24 &&
	screen_until footer_on 24 &&
	head -n 1 screen | grep "^ vx run " &&
	grep -E "^> p01#dev" screen &&
	test "$(grep -c -E "^. [a-z0-9]+#dev " screen)" -eq 20 &&

	# the others end; the server keeps the run going
	touch go &&
	wait_screen -E "^. p18#dev +done" &&
	test ! -e ../status &&
	# q: the tasks are asked to stop (SIGINT); the server traps it and
	# goes on, the run with it; a second q kills it
	select_task "srv#dev" &&
	tmx send-keys -t vx q &&
	wait_screen -F "srv: not yet" &&
	wait_screen -F "stopping: q again kills" &&
	test ! -e ../status &&
	tmx send-keys -t vx q &&
	test_wait_for ../status 20 &&
	echo 130 >expect && test_cmp expect ../status &&

	# the normal screen again: the failed task output, the summary
	wait_screen -F "Tasks: " &&
	grep -x "bad#dev: bad-out" screen &&
	grep -x "bad#dev: bad-err" screen &&
	grep -E "^bad#dev: failed \(exit 3\) in [0-9.]+s\$" screen &&
	grep -E "^Tasks: 18 succeeded, 0 cached, 2 failed, 0 skipped \(of 20\) in " screen &&
	! grep -F "running: " screen &&
	! grep -F "srv#dev: srv ready" screen
'

test_expect_success 'a task ended by ctrl-c in the TUI is said as in stream mode; the terminal is given back' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  dev: { persistent: true, command: "echo up; sleep 600" }
	EOF
	tmux_vx run dev &&
	wait_screen -F "a#dev  running" &&
	wait_screen -E " up\$" &&
	tmx send-keys -t vx C-c &&
	test_wait_for ../status 20 &&
	echo 130 >expect && test_cmp expect ../status &&
	wait_screen -F "Tasks: 0 succeeded, 0 cached, 1 failed" &&
	! grep -F "[done/running/queued]" screen &&
	# the shell gets its terminal back as it was: echo, canonical input
	grep -E "(^| )echo( |\$)" ../stty && grep -E "(^| )icanon( |\$)" ../stty
'

# A task kept vx's controlling terminal under the TUI (the session 29
# review): it could write over the frame through /dev/tty, or read the
# keys meant for vx. Each task now starts a session of its own.
test_expect_success 'under the TUI a task has no terminal: /dev/tty fails; q still stops it' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  dev:
	    persistent: true
	    command: |
	      if (echo scribbled-on-the-frame >/dev/tty) 2>/dev/null; then echo "tty: opened"; else echo "tty: refused"; fi
	      if (true </dev/tty) 2>/dev/null; then echo "tty in: opened"; else echo "tty in: refused"; fi
	      echo up; sleep 600
	EOF
	tmux_vx run dev &&
	wait_screen -E " up\$" &&
	test_grep -F "tty: refused" screen &&
	test_grep -F "tty in: refused" screen &&
	test_grep ! -F "scribbled-on-the-frame" screen &&
	tmx send-keys -t vx q &&
	test_wait_for ../status 20 &&
	echo 130 >expect && test_cmp expect ../status &&
	wait_screen -F "Tasks: 0 succeeded, 0 cached, 1 failed"
'

# The TUI kept where every line of every task started, for the whole run
# (8 bytes a line, 16 more for the all view: the session 29 review):
# four million empty lines cost vx 108 MB of RSS. It keeps the last
# 10000 lines of each task now.
test_expect_success 'a task printing four million lines: the index kept is bounded' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build:
	    command: |
	      yes "" | head -n 4000000
	      echo printed-all
	EOF
	VX_WRAP="/usr/bin/time -o ../rss -f %M" tmux_vx run build &&
	test_wait_for ../status 120 &&
	echo 0 >expect && test_cmp expect ../status &&
	rss=$(tail -n 1 ../rss) &&
	echo "vx max RSS: $rss KiB" &&
	if ldd "$VX" | grep -q libasan; then
		# test_tui_index counts what is kept, under ASan too
		echo "# the RSS bound is not checked: AddressSanitizer quarantines freed memory (256 MiB)"
	else
		test "$rss" -lt 40000
	fi
'

test_expect_success 'scrolled past the lines kept, the pane says how many went' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  dev:
	    persistent: true
	    command: |
	      seq -f "line %.0f" 1 25000
	      echo up; sleep 600
	EOF
	tmux_vx run dev &&
	wait_screen -E " up\$" &&
	tmx send-keys -t vx g &&
	wait_screen -F "[15001 earlier lines not kept: the TUI keeps the last 10000 a task]" &&
	test_grep -E "line 15002 *\$" screen &&
	test_grep ! -E "line 15001 *\$" screen &&
	tmx send-keys -t vx a &&
	wait_screen -F "all tasks" &&
	tmx send-keys -t vx g &&
	wait_screen -F "[15001 earlier lines not kept: the all view keeps the last 10000]" &&
	test_grep -E "a#dev: line 15002 *\$" screen &&
	tmx send-keys -t vx q &&
	test_wait_for ../status 20 &&
	echo 130 >expect && test_cmp expect ../status
'

test_expect_success 'stream when asked, under CI, with a dumb or unknown TERM' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { command: "echo a-out" }
	EOF
	tmux_vx run build --ui=stream &&
	test_wait_for ../status 20 &&
	wait_screen -x "a#build: a-out" &&
	VX_ENV=CI=true tmux_vx run build --force &&
	test_wait_for ../status 20 &&
	wait_screen -x "a#build: a-out" &&
	VX_ENV=TERM=no-such-terminal tmux_vx run build --force &&
	test_wait_for ../status 20 &&
	wait_screen -x "a#build: a-out" &&
	grep -F "vx: no terminal UI: no terminfo entry for TERM" screen
'

# The normalised run: times and the run order (-j20 finishes in any order)
# aside, each line as printed.
normalise() {
	sed -E -e "s/ in [0-9]+(\.[0-9]+s|m[0-9]+s)/ in X/" -e "s/ after [0-9]+(ms|s|m)/ after X/" "$1" |
		sort
}

test_expect_success 'piped, the output is byte for byte what --ui=stream prints' '
	setup &&
	rm -r srv &&
	touch go &&
	{ "$VX" run dev -j20 --continue --force --ui=stream </dev/null >streamed 2>stream-err || true; } &&
	{ "$VX" run dev -j20 --continue --force </dev/null 2>piped-err || true; } | cat >piped &&
	normalise streamed >a && normalise piped >b && test_cmp a b &&
	test_cmp stream-err piped-err &&
	! grep -q "$(printf "\\033")" piped &&
	grep -x "bad#dev: bad-out" piped
'

test_done
