#!/bin/bash
# Network walls (issue 14, SPEC §4 Network), first slice: a sandboxed task
# with no network grant reaches nothing of the host, not even a server on
# its loopback or an abstract UNIX socket (both live in the host's network
# namespace; the task has its own). The same command run without sandbox:
# reaches both, so the test fails if the servers were not really up.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
command -v socat >/dev/null || { echo "socat is not installed (apt-get install socat)" >&2; exit 1; }

free_port port
abs=vx-net-test-$$
socat -u TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork OPEN:"$TEST_TMP/tcp-hit",creat,append &
tcp_pid=$!
socat -u ABSTRACT-LISTEN:$abs,fork OPEN:"$TEST_TMP/abs-hit",creat,append &
abs_pid=$!
trap 'kill $tcp_pid $abs_pid 2>/dev/null' EXIT

REACH="echo hi | socat -u - TCP:127.0.0.1:$port && echo reached-tcp; echo hi | socat -u - ABSTRACT-CONNECT:$abs && echo reached-abstract; echo end"

setup() {
	ws_root <<-'EOF'
	tasks:
	  build:
	EOF
	ws_project app app <<-EOF
	  build:
	    command: '$REACH'
	    cache: false
	    $1
	EOF
}

test_expect_success 'unsandboxed, the task reaches the host loopback and abstract socket' '
	setup "" &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		run_vx 0 run app#build &&
		grep -q reached-abstract "$OUT" && grep -q reached-tcp "$OUT" && break
		sleep 0.2
	done &&
	test_grep "app#build: reached-tcp" "$OUT" &&
	test_grep "app#build: reached-abstract" "$OUT" &&
	test -s "$TEST_TMP/tcp-hit" && test -s "$TEST_TMP/abs-hit"
'

test_expect_success 'sandboxed with no network grant, it reaches neither' '
	rm -f "$TEST_TMP/tcp-hit" "$TEST_TMP/abs-hit" &&
	setup "sandbox: {allow: {read: [\".\"]}}" &&
	{ "$VX" run app#build >"$OUT" 2>"$ERR" </dev/null || echo "exit $?"; } &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "app#build: reached-tcp" "$OUT" &&
	test_grep ! "app#build: reached-abstract" "$OUT" &&
	test_path_is_missing "$TEST_TMP/tcp-hit" &&
	test_path_is_missing "$TEST_TMP/abs-hit"
'

# Issue 54 item 7: the violation named the resolver it could not reach
# (network 10.255.255.53:53), never what was looked up. The sandbox's
# resolv.conf names its own loopback, where nothing answers: the query is
# sent and refused at once, and the trace names the host.
test_expect_success 'a name the task looks up itself is a violation naming the host, not the resolver' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	EOF
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "grep -v \"^#\" /etc/resolv.conf; getent hosts registry.example.test || echo no-answer; getent hosts localhost >/dev/null && echo localhost-ok"
	    cache: false
	    sandbox: {}
	EOF
	run_vx 1 run app#build &&
	test_grep "app#build: nameserver 127.0.0.1$" "$OUT" &&
	test_grep "app#build: no-answer" "$OUT" &&
	test_grep "app#build: localhost-ok" "$OUT" &&
	test_grep "^app#build: violation: network registry.example.test (a DNS lookup of its own: a sandboxed task has no DNS)$" "$ERR" &&
	test_grep ! "violation: network .*:53 " "$ERR" &&
	test_grep ! "localhost" "$ERR" &&
	run_vx 1 run app#build --report json &&
	jq -e ".tasks[0].violations | length == 1 and .[0].op == \"network\" and .[0].path == \"registry.example.test\"" "$OUT" &&
	# ignore.network silences it, as it does a connection
	sed -i "s|sandbox: {}|sandbox: {ignore: {network: [\"*.example.test\"]}}|" app/vx.yaml &&
	run_vx 0 run app#build &&
	test_grep ! "violation" "$ERR"
'

# Issue 54 item 7: a tool that npx-installs at build time asked for a
# registry grant. The note names the package to add to the project; the
# fix grants no registry. (The proxy refuses: no registry is reached.)
test_expect_success 'npx fetching a package as the task runs: a note naming the package, no registry grant' '
	command -v npx >/dev/null || { echo "npx is not installed (apt-get install npm)"; false; } &&
	mkdir -p "$HOME/.npm" &&
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	EOF
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "npx --yes vx-no-such-tool-zz@1.0.0 --version"
	    cache: false
	    sandbox: {allow: {network: ["example.com"], write: ["~/.npm/"]}}
	EOF
	run_vx 1 run app#build --report json &&
	jq -e ".tasks[0].violations | map(select(.op == \"network\" and .path == \"registry.npmjs.org:443\")) | length == 1" "$OUT" &&
	jq -e ".tasks[0].fix.allow.network == null" "$OUT" &&
	jq -e ".tasks[0].notes | map(select(.kind == \"installs-at-build\" and .path == \"vx-no-such-tool-zz\")) | length == 1" "$OUT" &&
	run_vx 1 run app#build &&
	test_grep "app#build: note: the task installs vx-no-such-tool-zz from the npm registry as it runs" "$ERR" &&
	test_grep ! "allow.network: \[\"registry.npmjs.org\"\]" "$ERR"
'

test_done
