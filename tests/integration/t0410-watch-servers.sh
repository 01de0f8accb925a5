#!/bin/bash
# vx watch with persistent tasks (issue 15): each Turborepo watch bug as a
# scenario. A server starts after its dependencies' first run
# (turborepo#8673); it restarts only when what it sees changed: its own
# inputs, or its upstream tasks' outputs (a rebuild that writes the same
# bytes restarts nothing); a server the change did not reach is never
# signalled (#9421); a change outside its inputs neither stops it nor
# leaves it dead (#13115); restartable and restart: never servers together
# start (#12433). Plus: a server that exits is said and started again by an
# edit, a dependency that fails keeps it from starting until fixed, a plan
# that drops it stops it, --interrupt cancels a cycle, q stops, and Ctrl-C
# or kill -9 of the watch leaves no process.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

# A server: prints what it serves, records each start and each signal in
# $TEST_DIR (outside the workspace, so the record is not a change).
server_cmd() {
	local name=$1
	echo "trap 'echo INT >>$TEST_DIR/$name.signals; exit 0' INT TERM; echo \$\$ >>$TEST_DIR/$name.pids; echo serving-$name \$(cat ../lib/dist/out.txt 2>/dev/null); while :; do sleep 0.05; done"
}

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	for p in lib other web admin; do
		mkdir -p $p/src
		echo "$p-1" >$p/src/a.txt
	done
	# lib's build drops comment lines: a comment edit rebuilds it with
	# byte-identical outputs
	ws_project lib lib <<-EOF
	  build:
	    command: "sleep 0.5; mkdir -p dist && grep -vh '^#' src/*.txt > dist/out.txt && echo built-lib"
	EOF
	ws_project other other <<-EOF
	  build:
	    command: "mkdir -p dist && cat src/*.txt > dist/out.txt"
	EOF
	ws_project web web lib <<-EOF
	  dev:
	    dependsOn: ["^build"]
	    command: "$(server_cmd web)"
	    persistent: true
	    inputs:
	      files: ["src/**"]
	EOF
	ws_project admin admin other <<-EOF
	  dev:
	    dependsOn: ["^build"]
	    command: "$(server_cmd admin)"
	    persistent: true
	    inputs:
	      files: ["src/**"]
	EOF
}

starts() { cat "$TEST_DIR/$1.pids" 2>/dev/null | wc -l; }
signals() { cat "$TEST_DIR/$1.signals" 2>/dev/null | wc -l; }

test_expect_success 'a server starts after its dependency'"'"'s first run, and serves what it built (#8673)' '
	setup &&
	watch_start dev &&
	test_wait_lines "serving-web lib-1" 1 "$OUT" &&
	test_wait_lines "serving-admin" 1 "$OUT" &&
	watch_stop &&
	built=$(grep -n "lib#build: built-lib" "$OUT" | head -1 | cut -d: -f1) &&
	started=$(grep -n "web#dev: started; vx watch keeps it running" "$OUT" | cut -d: -f1) &&
	test "$built" -lt "$started" &&
	test "$(starts web)" = 1 && test "$(signals web)" = 1 &&
	test "$(starts admin)" = 1 && test "$(signals admin)" = 1
'

test_expect_success 'a change upstream restarts only the servers it reaches (#9421)' '
	setup &&
	watch_start dev &&
	test_wait_lines "watching" 1 "$OUT" &&
	test_wait_lines "serving-admin" 1 "$OUT" &&
	echo lib-2 >lib/src/a.txt &&
	test_wait_lines "serving-web lib-2" 1 "$OUT" &&
	test_wait_lines "watching" 2 "$OUT" &&
	test "$(starts web)" = 2 && test "$(signals web)" = 1 &&
	test "$(starts admin)" = 1 && test "$(signals admin)" = 0 &&
	kill -0 $(tail -1 "$TEST_DIR/admin.pids") &&
	kill -0 $(tail -1 "$TEST_DIR/web.pids") &&
	test_grep "vx watch: 1 file changed (lib/src/a.txt) → 1 task" "$OUT" &&
	test_grep ! "admin#dev: restarting" "$OUT" &&
	test_grep "Tasks: 1 succeeded, 0 cached, 0 failed, 0 skipped (of 1; 1 server vx watch keeps; 2 unchanged since the last run)" "$OUT" &&
	watch_stop
'

test_expect_success 'a change outside a server'"'"'s inputs neither stops it nor leaves it dead (#13115)' '
	setup &&
	watch_start web#dev &&
	test_wait_lines "watching" 1 "$OUT" &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	echo notes >web/README.md &&
	test_wait_lines "watching" 2 "$OUT" &&
	sleep 0.5 &&
	test "$(starts web)" = 1 && test "$(signals web)" = 0 &&
	kill -0 $(tail -1 "$TEST_DIR/web.pids") &&
	watch_stop
'

# Issue 41 item 4: Vite was restarted (2 s, its HMR state lost) for every
# save of its own source, which it reloads itself.
test_expect_success 'by default (restart: auto) a server keeps running through an edit of its own sources, and restarts for its config' '
	setup &&
	watch_start web#dev &&
	test_wait_lines "watching" 1 "$OUT" &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	echo web-2 >web/src/a.txt &&
	test_wait_lines "watching" 2 "$OUT" &&
	test_grep "web#dev: running: only its own sources changed, which it reloads itself (restart: auto)" "$OUT" &&
	sleep 0.5 &&
	test "$(starts web)" = 1 && test "$(signals web)" = 0 &&
	ws_project web web lib <<-EOF &&
	  dev:
	    dependsOn: ["^build"]
	    command: "$(server_cmd web)"
	    persistent: true
	    env: {define: {PORT: "4001"}}
	    inputs:
	      files: ["src/**"]
	EOF
	test_wait_lines "serving-web" 2 "$OUT" &&
	test_grep "web#dev: restarting: what it cannot reload itself changed (its config, env or upstream outputs)" "$OUT" &&
	test "$(starts web)" = 2 && test "$(signals web)" = 1 &&
	test_grep "web#dev: stopped by vx watch in " "$OUT" &&
	test_grep ! "failed (interrupted)" "$OUT" &&
	watch_stop &&
	test_grep ! "failed (interrupted)" "$OUT"
'

test_expect_success 'restart: on-input-change restarts a server for its own sources too (Turborepo'"'"'s interruptible: true)' '
	setup &&
	ws_project web web lib <<-EOF &&
	  dev:
	    dependsOn: ["^build"]
	    command: "$(server_cmd web)"
	    persistent: true
	    restart: on-input-change
	    inputs:
	      files: ["src/**"]
	EOF
	watch_start web#dev &&
	test_wait_lines "watching" 1 "$OUT" &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	echo web-2 >web/src/a.txt &&
	test_wait_lines "watching" 2 "$OUT" &&
	test_wait_lines "serving-web" 2 "$OUT" &&
	test_grep "web#dev: restarting: its inputs changed" "$OUT" &&
	test "$(starts web)" = 2 && test "$(signals web)" = 1 &&
	kill -0 $(tail -1 "$TEST_DIR/web.pids") &&
	watch_stop
'

test_expect_success 'a rebuild upstream with byte-identical outputs restarts nothing' '
	setup &&
	watch_start web#dev &&
	test_wait_lines "watching" 1 "$OUT" &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	printf "# a comment\nlib-1\n" >lib/src/a.txt &&
	test_wait_lines "watching" 2 "$OUT" &&
	sleep 0.5 &&
	test $(grep -c "^lib#build: built-lib$" "$OUT") = 2 &&
	test_grep "web#dev: running; its inputs did not change" "$OUT" &&
	test "$(starts web)" = 1 && test "$(signals web)" = 0 &&
	watch_stop
'

test_expect_success 'restart: never keeps a server through a change; a restartable one beside it restarts (#12433)' '
	setup &&
	ws_project admin admin lib <<-EOF &&
	  dev:
	    dependsOn: ["^build"]
	    command: "$(server_cmd admin)"
	    persistent: true
	    restart: never
	EOF
	watch_start dev &&
	test_wait_lines "watching" 1 "$OUT" &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	test_wait_lines "serving-admin" 1 "$OUT" &&
	echo lib-2 >lib/src/a.txt &&
	test_wait_lines "serving-web lib-2" 1 "$OUT" &&
	test_wait_lines "watching" 2 "$OUT" &&
	test_grep "admin#dev: kept running: its inputs changed, and it has restart: never" "$OUT" &&
	test "$(starts admin)" = 1 && test "$(signals admin)" = 0 &&
	test "$(starts web)" = 2 &&
	watch_stop &&
	test "$(signals admin)" = 1
'

test_expect_success 'restart: takes auto, on-input-change or never, at its line' '
	setup &&
	ws_project web web lib <<-EOF &&
	  dev:
	    command: "true"
	    persistent: true
	    restart: sometimes
	EOF
	run_vx 2 watch dev &&
	test_grep "web/vx.yaml:7:14: restart is \"sometimes\": write auto, on-input-change or never" "$ERR"
'

test_expect_success 'a server that exits is said; an edit of its inputs starts it again' '
	setup &&
	ws_project web web lib <<-EOF &&
	  dev:
	    dependsOn: ["^build"]
	    command: "echo \$\$ >>$TEST_DIR/web.pids; echo up; exit 3"
	    persistent: true
	EOF
	watch_start web#dev &&
	test_wait_lines "web#dev exited with status 3; it starts again when its inputs change" 1 "$OUT" &&
	echo notes >lib/README.md &&
	test_wait_lines "watching" 2 "$OUT" &&
	test_grep "web#dev: not running (it exited); it starts again when its inputs change" "$OUT" &&
	test "$(starts web)" = 1 &&
	echo web-2 >web/src/a.txt &&
	test_wait_lines "web#dev: started again: its inputs changed" 1 "$OUT" &&
	test_wait_lines "exited with status 3" 2 "$OUT" &&
	test "$(starts web)" = 2 &&
	watch_stop
'

test_expect_success 'a failed dependency keeps a server from starting until it is fixed' '
	setup &&
	echo broken >lib/src/broken &&
	ws_project lib lib <<-EOF &&
	  build:
	    command: "test ! -e src/broken && mkdir -p dist && cat src/*.txt > dist/out.txt"
	EOF
	watch_start web#dev &&
	test_wait_lines "watching" 1 "$OUT" &&
	test_grep "web#dev: skipped (dependency failed)" "$OUT" &&
	test "$(starts web)" = 0 &&
	rm lib/src/broken &&
	test_wait_lines "serving-web lib-1" 1 "$OUT" &&
	test "$(starts web)" = 1 &&
	watch_stop
'

test_expect_success 'a plan that drops a server stops it' '
	setup &&
	watch_start dev &&
	test_wait_lines "serving-admin" 1 "$OUT" &&
	test_wait_lines "watching" 1 "$OUT" &&
	ws_project admin admin other <<-EOF &&
	  build:
	    command: "true"
	EOF
	test_wait_lines "admin#dev is no longer in the plan: stopping it" 1 "$OUT" &&
	test_wait_lines "watching" 2 "$OUT" &&
	test_process_gone $(tail -1 "$TEST_DIR/admin.pids") &&
	test "$(signals admin)" = 1 &&
	kill -0 $(tail -1 "$TEST_DIR/web.pids") &&
	watch_stop
'

test_expect_success 'Ctrl-C stops every server through its own trap and exits 130' '
	setup &&
	watch_start dev &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	test_wait_lines "serving-admin" 1 "$OUT" &&
	kill -INT $watch_pid &&
	rc=0 && { wait $watch_pid || rc=$?; } &&
	test "$rc" = 130 &&
	test "$(signals web)" = 1 && test "$(signals admin)" = 1 &&
	test_process_gone $(tail -1 "$TEST_DIR/web.pids") &&
	test_process_gone $(tail -1 "$TEST_DIR/admin.pids") &&
	test_grep "vx watch: stopping 2 servers" "$OUT"
'

test_expect_success 'kill -9 of the watch leaves no server and no run of one' '
	setup &&
	watch_start dev &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	test_wait_lines "serving-admin" 1 "$OUT" &&
	runs=$(pgrep -f -- "--served-by=$watch_pid") &&
	test -n "$runs" &&
	kill -9 $watch_pid &&
	{ wait $watch_pid || true; } &&
	for pid in $runs $(tail -1 "$TEST_DIR/web.pids") $(tail -1 "$TEST_DIR/admin.pids"); do
		test_process_gone $pid || exit 1
	done &&
	test "$(signals web)" = 1 && test "$(signals admin)" = 1
'

test_expect_success 'q and Enter stop the watch (exit 0), servers first' '
	setup &&
	mkfifo "$TEST_DIR/in" &&
	{ "$VX" watch web#dev <"$TEST_DIR/in" >"$OUT" 2>"$ERR" & watch_pid=$!; } &&
	exec 7>"$TEST_DIR/in" &&
	test_wait_lines "serving-web" 1 "$OUT" &&
	test_wait_lines "q and Enter or Ctrl-C stops" 1 "$OUT" &&
	echo q >&7 &&
	rc=0 && { wait $watch_pid || rc=$?; } &&
	exec 7>&- &&
	test "$rc" = 0 &&
	test "$(signals web)" = 1 &&
	test_process_gone $(tail -1 "$TEST_DIR/web.pids")
'

test_expect_success '--interrupt cancels a running cycle at a change and runs again at once' '
	setup &&
	ws_project other other <<-EOF &&
	  build:
	    command: "cat src/a.txt >>$TEST_DIR/starts; sleep 4; mkdir -p dist && cat src/*.txt > dist/out.txt"
	EOF
	watch_start other#build --interrupt &&
	test_wait_lines "^other-1$" 1 "$TEST_DIR/starts" &&
	echo other-2 >other/src/a.txt &&
	test_wait_lines "other#build: failed (cancelled: files changed)" 1 "$OUT" &&
	test_wait_lines "watching" 1 "$OUT" &&
	watch_stop &&
	test "$(cat other/dist/out.txt)" = other-2 &&
	test "$(cat $TEST_DIR/starts)" = "$(printf "other-1\nother-2")" &&
	test_grep "vx watch: 1 file changed (other/src/a.txt) → 1 task" "$OUT"
'

test_done
