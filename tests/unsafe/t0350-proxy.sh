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

test_done
