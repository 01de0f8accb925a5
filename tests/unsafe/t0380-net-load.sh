#!/bin/bash
# The proxies share vx's one loop (issue 14): a task that feeds its proxy
# slowloris clients and pulls a 100 MiB response through it at a slow read
# does not stop another task's requests from being served, and vx's memory
# stays bounded by the per-connection buffers, not by the response.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
command -v socat >/dev/null || { echo "socat is not installed (apt-get install socat)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not installed (apt-get install curl)" >&2; exit 1; }

free_port port; free_port big
printf 'HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nserved-ok\n' >"$TEST_TMP/resp"
socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork SYSTEM:"cat $TEST_TMP/resp; cat >/dev/null" &
srv=$!
size=$((100 * 1024 * 1024))
cat >"$TEST_TMP/big.sh" <<EOF
printf 'HTTP/1.0 200 OK\\r\\nContent-Length: $size\\r\\n\\r\\n'
head -c $size /dev/zero
EOF
socat TCP-LISTEN:$big,bind=127.0.0.1,reuseaddr,fork EXEC:"sh $TEST_TMP/big.sh" &
srv2=$!
trap 'kill $srv $srv2 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
export VX_TEST_RESOLVE="small.example.test=127.0.0.1,big.example.test=127.0.0.1"
sleep 0.3

test_expect_success 'a slowloris and a slow 100 MiB download in one task do not hold up another task, and vx stays small' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	ws_project hog hog <<-EOF &&
	  build:
	    command: |
	      for i in \$(seq 30); do (printf "GET http://big.example.test:$big/ HTTP/1.1\\r\\nHost: x" ; sleep 8) | socat - TCP:127.0.0.1:3128 >/dev/null 2>&1 & done
	      curl -sS --limit-rate 25M http://big.example.test:$big/ -o /dev/null -w "hog-got=%{size_download}\\n"
	      wait
	    cache: false
	    sandbox:
	      allow:
	        network: ["big.example.test:$big"]
	EOF
	ws_project small small <<-EOF &&
	  build:
	    command: |
	      sleep 1
	      for i in \$(seq 50); do curl -fsS -m 5 http://small.example.test:$port/ >/dev/null || exit 1; done
	      echo small-all-ok
	    cache: false
	    sandbox:
	      allow:
	        network: ["small.example.test:$port"]
	EOF
	{ "$VX" run build -j2 >"$OUT" 2>"$ERR" & vx=$!; } &&
	peak=0 &&
	while kill -0 $vx 2>/dev/null; do
		rss=$(awk "/^VmRSS:/ {print \$2}" /proc/$vx/status 2>/dev/null || echo 0)
		[ "${rss:-0}" -gt "$peak" ] && peak=$rss
		sleep 0.1
	done &&
	wait $vx &&
	echo "vx peak RSS: $peak KiB" &&
	test_grep "small#build: small-all-ok" "$OUT" &&
	test_grep "hog#build: hog-got=$size" "$OUT" &&
	test "$peak" -lt 65536
'

test_done
