#!/bin/bash
# Network grants through the task's own proxy (issue 14): a sandboxed curl
# reaches an allowed name (mapped to a host loopback server through the
# .test resolver seam, VX_TEST_RESOLVE) and is refused, with a violation,
# a failed task, no cache entry and the fix, for an unlisted name and a
# deny.network one; a task with no grant reaches nothing.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
command -v socat >/dev/null || { echo "socat is not installed (apt-get install socat)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not installed (apt-get install curl)" >&2; exit 1; }

free_port port
printf 'HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nserved-ok\n' >"$TEST_TMP/resp"
socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork SYSTEM:"cat $TEST_TMP/resp; cat >/dev/null" &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
export VX_TEST_RESOLVE="api.example.test=127.0.0.1,other.example.test=127.0.0.1,evil.example.test=127.0.0.1"

setup() {
	ws_root <<-'EOF2'
	tasks:
	  build:
	EOF2
	ws_project app app <<-EOF2
	  build:
	    command: 'curl -sS -m 5 http://$1:$port/hello.txt; echo rc=\$?'
	    outputs: []
	    sandbox:
	      allow:
	        network: ["api.example.test:$port", "*.example.test:$port"]
	      deny:
	        network: ["evil.example.test"]
	      ignore:
	        network: [${2:-}]
	EOF2
}

test_expect_success 'an allowed name is reached through the proxy, and the run is cached' '
	setup api.example.test &&
	run_vx 0 run app#build &&
	test_grep "app#build: served-ok" "$OUT" &&
	run_vx 0 run app#build &&
	test_grep "cached" "$OUT"
'

test_expect_success 'a name the wildcard allows that resolves to a private address is refused' '
	setup other.example.test &&
	run_vx 1 run app#build &&
	test_grep ! "app#build: served-ok" "$OUT" &&
	test_grep "app#build: violation: network other.example.test:$port (resolves to 127.0.0.1, a private address" "$ERR" &&
	test_grep "fix: add to app/vx.yaml tasks.build.sandbox.allow.network: \[\"other.example.test:$port\"\]" "$ERR"
'

test_expect_success 'deny.network wins over the wildcard: refused, failed, not cached' '
	setup evil.example.test &&
	run_vx 1 run app#build &&
	test_grep "app#build: violation: network evil.example.test:$port (denied by deny.network)" "$ERR" &&
	run_vx 1 run app#build --report json &&
	test_grep "\"reason\":[[:space:]]*\"denied by deny.network\"" "$OUT" &&
	test_grep ! "\"cache\":[[:space:]]*\"hit\"" "$OUT"
'

test_expect_success 'an unlisted name is refused with the fix naming it' '
	setup unlisted.test &&
	run_vx 1 run app#build &&
	test_grep "violation: network unlisted.test:$port (not in allow.network)" "$ERR" &&
	test_grep "allow.network: \[\"unlisted.test:$port\"\]" "$ERR"
'

test_expect_success 'ignore.network silences a refusal in the report, never in the proxy' '
	setup unlisted.test "\"unlisted.*\"" &&
	run_vx 0 run app#build &&
	test_grep "app#build: vx: unlisted.test:$port refused: not in allow.network" "$OUT" &&
	test_grep ! "violation" "$ERR"
'

# Issue 53 item 9: an address other than 127/8 configured on the loopback
# interface (tests, VPN clients and some hosts do it) is the host's own: a
# service bound to 0.0.0.0 answers there. The proxy refuses it however it
# is named, as it does for the other interfaces' addresses.
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null; then
	ip addr add 203.0.113.9/32 dev lo 2>/dev/null
	ip addr add 10.213.0.1/32 dev lo 2>/dev/null
	trap 'kill $srv $srv_any 2>/dev/null; ip addr del 203.0.113.9/32 dev lo 2>/dev/null; ip addr del 10.213.0.1/32 dev lo 2>/dev/null' EXIT
	free_port aport
	socat TCP-LISTEN:$aport,bind=0.0.0.0,reuseaddr,fork SYSTEM:"cat $TEST_TMP/resp; cat >/dev/null" &
	srv_any=$!
	sleep 0.3
	test_expect_success 'hostile: an address of the host on lo is refused through the proxy (its address named in allow.network)' '
		test "$(curl -sS -m 3 --noproxy "*" http://203.0.113.9:$aport/)" = served-ok &&
		ws_root </dev/null &&
		ws_project app app <<-EOF2 &&
		  build:
		    command: "curl -sS -m 5 http://203.0.113.9:$aport/; curl -sS -m 5 http://10.213.0.1:$aport/; exit 0"
		    cache: false
		    sandbox:
		      allow:
		        network: ["203.0.113.9:$aport", "10.213.0.1:$aport"]
		EOF2
		run_vx 1 run app#build &&
		test_grep ! "served-ok" "$OUT" &&
		test_grep "violation: network 203.0.113.9:$aport (resolves to 203.0.113.9, an address of this machine" "$ERR" &&
		test_grep "violation: network 10.213.0.1:$aport (resolves to 10.213.0.1, an address of this machine" "$ERR"
	'
else
	echo "# skipped: an address on lo needs root and ip(8)" >&2
	[ -z "${VX_REQUIRE_SANDBOX:-}" ] || { echo "VX_REQUIRE_SANDBOX: the lo-address test must run" >&2; exit 1; }
fi

test_done
