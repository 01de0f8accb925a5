#!/bin/bash
# A failing task fails the run (exit 1), skips its dependents, and stops the
# run from starting more unless --continue.
. "$(dirname "$0")/lib.sh"

# a-fail fails; b-dependent depends on it; c-independent does not. Projects
# sort by directory, so with -j1 a-fail is the first task to start.
setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	EOF
	ws_project a-fail a-fail <<-EOF
	  build: { command: "echo failing; exit 3" }
	EOF
	ws_project b-dependent b-dependent a-fail <<-EOF
	  build: { command: touch ../ran-b }
	EOF
	ws_project c-independent c-independent <<-EOF
	  build: { command: touch ../ran-c }
	EOF
}

test_expect_success 'a failure: exit 1, the dependent never ran and is reported skipped' '
	setup &&
	run_vx 1 run build -j1 &&
	test_path_is_missing ran-b &&
	test_grep -x "a-fail#build: failed (exit 3) in [0-9.]*s" "$OUT" &&
	test_grep -x "b-dependent#build: skipped (dependency failed)" "$OUT" &&
	test_grep "1 failed" "$OUT"
'

test_expect_success 'without --continue, a queued independent task does not start' '
	setup &&
	run_vx 1 run build -j1 &&
	test_path_is_missing ran-c &&
	test_grep ! "c-independent#build: running" "$OUT" &&
	test_grep -x "c-independent#build: skipped (.*)" "$OUT" &&
	test_grep "Tasks: 0 succeeded, 0 cached, 1 failed, 2 skipped (of 3)" "$OUT"
'

test_expect_success 'with --continue, it does; the dependent is still skipped' '
	setup &&
	run_vx 1 run build -j1 --continue &&
	test_path_is_file ran-c &&
	test_path_is_missing ran-b &&
	test_grep "Tasks: 1 succeeded, 0 cached, 1 failed, 1 skipped (of 3)" "$OUT"
'

test_expect_success 'a task already running when another fails is left to finish' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { command: "sleep 0.5; exit 1" }
	EOF
	ws_project b b <<-EOF &&
	  build: { command: "sleep 1; touch ../ran-b" }
	EOF
	run_vx 1 run build -j2 &&
	test_path_is_file ran-b &&
	test_grep -x "b#build: done in [0-9.]*s" "$OUT"
'

test_expect_success 'a command killed by a signal fails the task' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { command: "kill -KILL \$\$" }
	EOF
	run_vx 1 run build &&
	test_grep -x "a#build: failed (signal 9) in [0-9.]*s" "$OUT"
'

test_done
