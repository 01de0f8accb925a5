#!/bin/bash
# Port grants (issue 14): `localhost:PORT` in allow.network relays that one
# host loopback port into the task's namespace (and only that one; a host
# server listening on [::1] alone is reached through `localhost`);
# `localBinding: [PORT]` bridges the task's own server out to the host's
# 127.0.0.1:PORT, closed after the run; a port the host or another task of
# the run holds refuses the task before it starts, naming the holder; kill
# -9 of vx leaves no task, netd, listener or socket.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
command -v socat >/dev/null || { echo "socat is not installed (apt-get install socat)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not installed (apt-get install curl)" >&2; exit 1; }
command -v ss >/dev/null && command -v pgrep >/dev/null || { echo "ss or pgrep is not installed (apt-get install iproute2 procps)" >&2; exit 1; }

free_port port; free_port other; free_port v6port; free_port bport; free_port held
printf 'HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nserved-ok\n' >"$TEST_TMP/resp"
printf 'HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nserved-v6\n' >"$TEST_TMP/resp6"
socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork SYSTEM:"cat $TEST_TMP/resp; cat >/dev/null" &
srv=$!
socat TCP-LISTEN:$other,bind=127.0.0.1,reuseaddr,fork SYSTEM:"cat $TEST_TMP/resp; cat >/dev/null" &
srv2=$!
has_v6=false srv6=
if [ -e /proc/net/if_inet6 ]; then
	socat TCP6-LISTEN:$v6port,bind=[::1],ipv6only=1,reuseaddr,fork SYSTEM:"cat $TEST_TMP/resp6; cat >/dev/null" 2>/dev/null &
	srv6=$!
fi
trap 'kill $srv $srv2 $srv6 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
sleep 0.3
[ -n "$srv6" ] && kill -0 $srv6 2>/dev/null && has_v6=true

one_task() {
	ws_root <<-EOF
	tasks:
	  build:
	EOF
	ws_project app app <<-EOF
	  build:
	    command: |
	      $1
	    cache: false
	    sandbox:
	$2
	EOF
}

fetch="curl -sS -m 3 http://127.0.0.1:$port/ && echo got-v4; curl -sS -m 3 http://localhost:$port/ && echo got-localhost; curl -sS -m 3 http://[::1]:$port/ && echo got-v6; exit 0"

test_expect_success 'with no grant, a host loopback server is unreachable' '
	one_task "$fetch" "      allow: {}" &&
	run_vx 0 run build &&
	test_grep "app#build: running" "$OUT" &&
	test_grep ! "served-ok" "$OUT"
'

test_expect_success 'a grant of another port does not reach this one' '
	one_task "$fetch" "      allow: {network: [\"localhost:$other\"]}" &&
	run_vx 0 run build &&
	test_grep "app#build: running" "$OUT" &&
	test_grep ! "served-ok" "$OUT"
'

test_expect_success 'localhost:PORT relays the host port in, on 127.0.0.1 and [::1] inside' '
	one_task "$fetch" "      allow: {network: [\"localhost:$port\"]}" &&
	run_vx 0 run build &&
	test_grep "app#build: got-v4" "$OUT" &&
	test_grep "app#build: got-localhost" "$OUT" &&
	if $has_v6; then test_grep "app#build: got-v6" "$OUT"; fi &&
	test $(grep -c "app#build: served-ok" "$OUT") -ge 2 &&
	curl -sS -m 2 http://127.0.0.1:$other/ >/dev/null &&
	test_grep ! "network $other\|violation" "$ERR"
'

test_expect_success 'localhost:PORT reaches a host server that listens on [::1] alone' '
	$has_v6 || { echo "# SKIP: the host has no IPv6 loopback"; return 0; } &&
	one_task "curl -sS -m 3 http://localhost:$v6port/; exit 0" "      allow: {network: [\"localhost:$v6port\"]}" &&
	run_vx 0 run build &&
	test_grep "app#build: served-v6" "$OUT" &&
	one_task "curl -sS -m 3 http://127.0.0.1:$v6port/; exit 0" "      allow: {network: [\"127.0.0.1:$v6port\"]}" &&
	run_vx 0 run build &&
	test_grep ! "served-v6" "$OUT"
'

test_expect_success 'a failed task whose loopback port was refused, which the host serves, gets a note naming the relay grant' '
	one_task "curl -sS -m 3 http://localhost:$port/" "      allow: {}" &&
	run_vx 1 run build &&
	test_grep "app#build: note: the task.s output says localhost port $port refused it; the host listens there.*allow.network: \[\"localhost:$port\"\]" "$ERR" &&
	one_task "curl -sS -m 3 http://localhost:$((port + 100))/" "      allow: {}" &&
	run_vx 1 run build &&
	test_grep ! "note: the task.s output says localhost port" "$ERR"
'

# Issue 40 item 3: with no network grant, a client looks its host up
# itself. Issue 54 item 7: the trace holds its query, so the violation
# names the host (not the name server), and the note names the grant, for a
# person; issue 53 item 4: the task's
# own output is never fix data (the fix is what vx observed: the proxy's
# refusals), so learn cannot be steered by what a task prints.
test_expect_success 'a task with no grant whose host did not resolve: the grant in words, never as fix data' '
	one_task "curl -sS -m 3 http://registry.example.test/" "      allow: {}" &&
	run_vx 1 run build --report json &&
	jq -e ".tasks[0].fix.allow.network == null" "$OUT" &&
	jq -e "[.tasks[0].notes[] | select(.kind == \"unresolved-name\")][0].text | contains(\"allow.network: [\\\"registry.example.test\\\"]\")" "$OUT" &&
	run_vx 1 run build &&
	test_grep ! "fix: add to app/vx.yaml tasks.build.sandbox.allow.network" "$ERR" &&
	test_grep "^app#build: violation: network registry.example.test (a DNS lookup of its own: a sandboxed task has no DNS)$" "$ERR" &&
	test_grep "note: the task looked registry.example.test up itself: a sandboxed task has no DNS" "$ERR" &&
	test $(grep -c "note: .*registry.example.test" "$ERR") = 1
'

test_expect_success 'hostile: a task that prints ENOTFOUND for the metadata service and 0.0.0.0 is offered no grant' '
	one_task "echo getaddrinfo ENOTFOUND 169.254.169.254; echo getaddrinfo ENOTFOUND 0.0.0.0:8080; echo Could not resolve host: 10.0.0.7; exit 1" "      allow: {}" &&
	run_vx 1 run build --report json &&
	jq -e ".tasks[0].fix.allow.network == null" "$OUT" &&
	jq -e "[.tasks[0].notes[] | select(.kind == \"unresolved-name\")] | length >= 1" "$OUT" &&
	jq -e "[.tasks[0].notes[] | select(.text | contains(\"allow.network: [\"))] | length == 0" "$OUT" &&
	run_vx 1 run build &&
	test_grep "169.254.169.254, an address, as not resolving: vx grants no address" "$ERR"
'

test_expect_success 'a failed task whose client resolved an allowed name itself gets a note: it does not use the proxy' '
	one_task "curl -sS -m 3 --noproxy \"*\" http://one.example.test:$port/" "      allow: {network: [\"one.example.test:$port\"]}" &&
	VX_TEST_RESOLVE=one.example.test=127.0.0.1 run_vx 1 run build &&
	test_grep "app#build: violation: network one.example.test (a DNS lookup of its own, which allow.network cannot grant: the proxy resolves the names it allows)" "$ERR" &&
	test_grep "app#build: note: the task looked one.example.test up itself, and allow.network allows it: this client resolves names itself and does not use the proxy" "$ERR"
'

# The task's server answers one request and exits; the host dials it
# through vx's bridge until it answers.
serve_once="printf 'HTTP/1.0 200 OK\\r\\nContent-Length: 12\\r\\n\\r\\nfrom-inside\\n' | timeout 20 socat TCP-LISTEN:$bport,bind=127.0.0.1,reuseaddr STDIO >/dev/null; echo served-once"

test_expect_success 'localBinding: the host reaches the task'"'"'s server, and the port is closed after the run' '
	one_task "$serve_once" "      allow: {localBinding: [$bport]}" &&
	mkdir -p "$TEST_DIR/tmp" &&
	{ TMPDIR=$TEST_DIR/tmp "$VX" run build >out 2>err & vx=$!; } &&
	got="" &&
	for i in $(seq 100); do
		got=$(curl -sS -m 2 http://127.0.0.1:$bport/ 2>/dev/null) && [ -n "$got" ] && break
		sleep 0.1
	done &&
	wait $vx &&
	echo "host got: $got" &&
	test "$got" = from-inside &&
	test_grep "app#build: served-once" out &&
	! ss -ltn | grep -E "[:.]$bport\b" &&
	test -z "$(find "$TEST_DIR/tmp" -name "*.sock")"
'

# The dev server answers without reading, so the host sends nothing: a
# request left unread would make the server's close a reset, which may
# overtake its answer on the way out (curl's "Empty reply from server").
dial() {
	socat -T 3 -u TCP:127.0.0.1:$1 STDOUT
}

test_expect_success 'localBinding: a persistent sandboxed dev server answers the host until Ctrl-C, then nothing is left' '
	ws_root <<-EOF &&
	tasks:
	  dev:
	EOF
	ws_project web web <<-EOF &&
	  dev:
	    command: "exec socat TCP-LISTEN:$bport,bind=127.0.0.1,fork,reuseaddr SYSTEM:\"echo dev-server-up\""
	    persistent: true
	    sandbox:
	      allow: {localBinding: [$bport]}
	EOF
	mkdir -p "$TEST_DIR/tmp" &&
	{ TMPDIR=$TEST_DIR/tmp "$VX" run dev >out 2>err & vx=$!; } &&
	got="" &&
	for i in $(seq 100); do
		got=$(dial $bport 2>/dev/null) && [ -n "$got" ] && break
		sleep 0.1
	done &&
	test "$got" = dev-server-up &&
	got2=$(dial $bport) &&
	test "$got2" = dev-server-up &&
	kill -INT $vx &&
	{ wait $vx; echo "vx exit: $?"; } &&
	for i in $(seq 50); do
		pgrep -f "^socat TCP-LISTEN:$bport" >/dev/null || break
		sleep 0.1
	done &&
	! pgrep -fa "^socat TCP-LISTEN:$bport" &&
	! ss -ltn | grep -E "[:.]$bport\b" &&
	test -z "$(find "$TEST_DIR/tmp" -name "*.sock")"
'

test_expect_success 'localBinding: a port the host holds refuses the task before it starts, naming the holder' '
	socat TCP-LISTEN:$held,bind=127.0.0.1,reuseaddr,fork SYSTEM:true &
	holder=$! &&
	sleep 0.3 &&
	one_task "touch ran" "      allow: {localBinding: [$held], write: [ran]}" &&
	run_vx 1 run build;
	rc=$?; kill $holder; wait $holder 2>/dev/null || true
	test $rc = 0 &&
	test_grep "app#build: cannot listen on the host.s 127.0.0.1:$held: the port is held by pid $holder .socat TCP-LISTEN:$held" "$ERR" &&
	test_path_is_missing app/ran
'

test_expect_success 'localBinding: a port another running task of the run holds refuses the second, naming the first' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	for me in one two; do
		ws_project $me $me <<-EOF || return 1
		  build:
		    command: "sleep 2"
		    cache: false
		    sandbox:
		      allow: {localBinding: [$held]}
		EOF
	done &&
	run_vx 1 run build -j2 --continue &&
	test_grep -E "(one#build: localBinding port $held is held by two#build|two#build: localBinding port $held is held by one#build), which runs now in this run" "$ERR" &&
	! ss -ltn | grep -E "[:.]$held\b"
'

test_expect_success 'kill -9 of vx during a sandboxed server leaves no task, netd, listener or socket' '
	one_task "exec sleep 4747" "      allow: {localBinding: [$bport], network: [\"localhost:$port\"]}" &&
	mkdir -p "$TEST_DIR/tmp" &&
	{ TMPDIR=$TEST_DIR/tmp "$VX" run build >out 2>err & vx=$!; } &&
	for i in $(seq 100); do
		sock=$(find "$TEST_DIR/tmp" -name "ctl.sock" | head -n 1)
		[ -n "$sock" ] && pgrep -f "^sleep 4747" >/dev/null && break
		sleep 0.1
	done &&
	test -S "$sock" &&
	ss -ltn | grep -E "127.0.0.1:$bport\b" &&
	pgrep -f "^[^ ]*/\.vx-netd __netd .*-L $port" >/dev/null &&
	kill -9 $vx && { wait $vx || true; } &&
	for i in $(seq 50); do
		pgrep -f "^sleep 4747" >/dev/null || pgrep -f "exec sleep 4747" >/dev/null || pgrep -f "^[^ ]*/\.vx-netd __netd .*-L $port" >/dev/null || break
		sleep 0.1
	done &&
	! pgrep -f "^sleep 4747" &&
	! pgrep -fa "exec sleep 4747" &&
	! pgrep -f "^[^ ]*/\.vx-netd __netd .*-L $port" &&
	! ss -ltn | grep -E "[:.]$bport\b" &&
	! ss -xl | grep -F "$sock" &&
	touch -d "2 minutes ago" "$(dirname "$(dirname "$sock")")" &&
	one_task "true" "      allow: {}" &&
	TMPDIR=$TEST_DIR/tmp run_vx 0 run build &&
	test_path_is_missing "$sock" &&
	test -z "$(find "$TEST_DIR/tmp" -name "*.sock")"
'

test_done
