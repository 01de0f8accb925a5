#!/bin/bash
# -j N runs up to N independent tasks at once, and never more.
. "$(dirname "$0")/lib.sh"

# x and y each log their start and end. With -j2 each waits (up to 5 s) for
# the other to start before it ends, so the order is fixed when they run at
# once, and broken (an end before the other's start) when they do not.
setup_pair() {
	ws_root </dev/null
	for p in x y; do
		other=$([ $p = x ] && echo y || echo x)
		ws_project $p $p <<-EOF
		  work:
		    command: |
		      echo start-$p >> ../log
		      touch ../started-$p
		      i=0
		      while [ "\$WAIT" = yes ] && [ ! -e ../started-$other ] && [ \$i -lt 100 ]; do
		        sleep 0.05; i=\$((i + 1))
		      done
		      sleep 0.5
		      echo end-$p >> ../log
		EOF
	done
}

test_expect_success '-j2: both tasks start before either ends' '
	setup_pair &&
	WAIT=yes run_vx 0 run work -j2 &&
	test $(wc -l <log) -eq 4 &&
	for s in start-x start-y; do
		for e in end-x end-y; do
			test_before log $s $e || exit 1
		done
	done
'

test_expect_success '-j1: one task at a time, never interleaved' '
	setup_pair &&
	WAIT=no run_vx 0 run work -j1 &&
	test $(wc -l <log) -eq 4 &&
	if [ "$(head -n 1 log)" = start-x ]; then
		printf "start-x\nend-x\nstart-y\nend-y\n" >expect
	else
		printf "start-y\nend-y\nstart-x\nend-x\n" >expect
	fi &&
	test_cmp expect log
'

test_expect_success '-j2 with three tasks: never three at once' '
	ws_root </dev/null &&
	for p in a b c; do
		ws_project $p $p <<-EOF || exit 1
		  work:
		    command: |
		      echo start >> ../log
		      sleep 0.3
		      echo end >> ../log
		EOF
	done &&
	run_vx 0 run work -j2 &&
	test $(grep -c start log) -eq 3 &&
	max=$(awk "/start/ { n++; if (n > max) max = n } /end/ { n-- } END { print max }" log) &&
	test "$max" -le 2
'

test_expect_success '-j rejects zero and words (usage error, exit 2)' '
	ws_root </dev/null &&
	run_vx 2 run work -j0 &&
	test_grep "concurrency" "$ERR" &&
	run_vx 2 run work -j many
'

test_done
