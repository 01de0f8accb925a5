#!/bin/bash
# Host UNIX sockets (issue 14): a network namespace does not hide a socket
# with a path (it belongs to the file system), and the read-only "/" showed
# every one under /run: the docker socket, the D-Bus buses, the user's
# runtime dir. /run is now an empty tmpfs in every sandbox; `unixSockets:
# [paths]` binds the sockets named, and nothing else; one inside a
# credential store, or a path that is no socket, refuses the task.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
command -v socat >/dev/null || { echo "socat is not installed (apt-get install socat)" >&2; exit 1; }

rundir=/run/vx-it-sock-$$
mkdir -p "$rundir" "$HOME/.ssh"
socat UNIX-LISTEN:"$rundir/s.sock",fork SYSTEM:"echo sock-ok" &
srv=$!
socat UNIX-LISTEN:"$HOME/.ssh/agent.sock",fork SYSTEM:"echo agent-ok" &
srv2=$!
trap 'kill $srv $srv2 2>/dev/null; rm -rf "$rundir" "$TEST_TMP"' EXIT
sleep 0.3

one_task() {
	ws_root <<-EOF
	tasks:
	  build:
	EOF
	ws_project app app <<-EOF
	  build:
	    command: "socat -u UNIX-CONNECT:$1 - ; ls /run; exit 0"
	    cache: false
	    sandbox:
	$2
	EOF
}

test_expect_success 'a host socket under /run is unreachable without a grant' '
	one_task "$rundir/s.sock" "      allow: {}" &&
	run_vx 0 run build &&
	test_grep "app#build: running" "$OUT" &&
	test_grep ! "sock-ok" "$OUT"
'

test_expect_success 'unixSockets binds the socket named, and only it' '
	one_task "$rundir/s.sock" "      allow: {unixSockets: [\"$rundir/s.sock\"]}" &&
	run_vx 0 run build &&
	test_grep "app#build: sock-ok" "$OUT" &&
	test_grep ! "app#build: dbus" "$OUT"
'

test_expect_success 'a socket in a credential store is refused' '
	one_task "$HOME/.ssh/agent.sock" "      allow: {unixSockets: [\"~/.ssh/agent.sock\"]}" &&
	run_vx 1 run build &&
	test_grep "unixSockets entry .~/.ssh/agent.sock. lies in .*\.ssh, a credential store" "$ERR" &&
	test_grep ! "agent-ok" "$OUT"
'

test_expect_success 'a unixSockets path that is no socket is refused' '
	echo data >"$rundir/file" &&
	one_task "$rundir/file" "      allow: {unixSockets: [\"$rundir/file\"]}" &&
	run_vx 1 run build &&
	test_grep "unixSockets entry .$rundir/file. is not a socket" "$ERR"
'

test_expect_success 'unixSockets: true is a configuration error' '
	one_task "$rundir/s.sock" "      allow: {unixSockets: true}" &&
	run_vx 2 run build &&
	test_grep "unixSockets: true cannot be built" "$ERR"
'

test_done
