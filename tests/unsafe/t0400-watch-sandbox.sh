#!/bin/bash
# Sandboxed servers under vx watch (issue 15): a persistent task with
# sandbox: and localBinding serves the host, restarts when its input
# changes (the old run's port is released before the new one binds it),
# and a kill -9 of the watch leaves no process, listener or socket file. A
# sandboxed persistent task runs untraced (vx sandbox show says so); when
# it fails on its own, vx prints the walls it ran under and the grant its
# last line asks for.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
command -v socat >/dev/null || { echo "socat is not installed (apt-get install socat)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not installed (apt-get install curl)" >&2; exit 1; }
command -v ss >/dev/null && command -v pgrep >/dev/null || { echo "ss or pgrep is not installed (apt-get install iproute2 procps)" >&2; exit 1; }

free_port bport

# curl until the host's port answers WANT (10 s at most).
answers() {
	local want=$1 got="" i
	for i in $(seq 100); do
		got=$(curl -sS -m 2 --http0.9 http://127.0.0.1:$bport/ 2>/dev/null) && [ "$got" = "$want" ] && return 0
		sleep 0.1
	done
	echo "127.0.0.1:$bport answered \"$got\", not \"$want\""
	return 1
}

setup() {
	ws_root <<-EOF
	tasks:
	  dev:
	EOF
	mkdir -p web/src
	echo v1 >web/src/msg.txt
	ws_project web web <<-EOF
	  dev:
	    command: "v=\$(cat src/msg.txt); exec socat TCP-LISTEN:$bport,bind=127.0.0.1,fork,reuseaddr SYSTEM:\"echo \$v\""
	    persistent: true
	    restart: on-input-change # it reads src/ once, as it starts
	    inputs:
	      files: ["src/**"]
	    sandbox:
	      allow: {localBinding: [$bport]}
	EOF
}

test_expect_success 'a sandboxed server serves the host, restarts on an input change, and kill -9 of the watch leaves nothing' '
	setup &&
	mkdir -p "$TEST_DIR/tmp" &&
	{ TMPDIR=$TEST_DIR/tmp "$VX" watch dev >"$OUT" 2>"$ERR" </dev/null & watch_pid=$!; } &&
	answers v1 &&
	echo v2 >web/src/msg.txt &&
	answers v2 &&
	test_wait_lines "web#dev restarted" 1 "$OUT" &&
	test_grep ! "held by" "$OUT" "$ERR" &&
	test -n "$(find "$TEST_DIR/tmp" -name "ctl.sock")" &&
	runs=$(pgrep -f -- "--served-by=$watch_pid") &&
	kill -9 $watch_pid && { wait $watch_pid || true; } &&
	for i in $(seq 80); do
		pgrep -f "^socat TCP-LISTEN:$bport" >/dev/null || pgrep -f -- "--served-by=$watch_pid" >/dev/null ||
			pgrep -f "^[^ ]*/\.vx-netd __netd .*-l $bport" >/dev/null || break
		sleep 0.1
	done &&
	! pgrep -fa "^socat TCP-LISTEN:$bport" &&
	! pgrep -fa -- "--served-by=$watch_pid" &&
	! ss -ltn | grep -E "[:.]$bport\b" &&
	test -z "$(find "$TEST_DIR/tmp" -name "*.sock")"
'

test_expect_success 'a sandboxed persistent task is untraced, and vx sandbox show says so' '
	setup &&
	run_vx 0 sandbox show web#dev &&
	test_grep "^# untraced: a persistent task" "$OUT" &&
	! grep -v "^#" "$OUT" | grep strace
'

test_expect_success 'a sandboxed server that fails prints its walls and the grant its last line asks for' '
	setup &&
	mkdir -p "$HOME/.config" &&
	echo "{}" >"$HOME/.config/devtool.json" &&
	ws_project web web <<-EOF &&
	  dev:
	    command: "cat $HOME/.config/devtool.json 2>/dev/null || { echo \"error: cannot open $HOME/.config/devtool.json\"; exit 5; }"
	    persistent: true
	    sandbox:
	      allow: {localBinding: [$bport], write: [tmp]}
	EOF
	run_vx 5 run dev &&
	test_grep "web#dev: it ran untraced in its sandbox (a persistent task), where it could read: the project, what it depends on; write: tmp; network: serving port $bport" "$ERR" &&
	test_grep "~/.config/devtool.json" "$ERR" &&
	test_grep "allow.read: \[\"~/.config/devtool.json\"\]" "$ERR"
'

test_done
