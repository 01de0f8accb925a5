#!/bin/bash
# The remote cache's transfers (issue 16): a 200 MiB artifact goes up and
# comes down streamed (vx's RSS stays under 64 MiB both ways, against the
# real turborepo-remote-cache); a body cut off mid-transfer, either way, is
# a warning and the task runs, with nothing of it in the store; the real
# server killed with kill -9 in the middle of a run costs warnings only.
. "$(dirname "$0")/lib.sh"

remote_cache_start BODY_LIMIT=1073741824

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p big/src
	echo "seed $RANDOM$RANDOM" >big/src/seed
	ws_project big big <<-EOF
	  build:
	    command: "mkdir -p dist && head -c 209715200 /dev/urandom > dist/blob && cp src/seed dist/seed && echo made"
	EOF
}

clone() {
	rm -rf "$1" && mkdir -p "$1" && (cd "$TEST_DIR/ws" && tar cf - --exclude=.vx --exclude=dist .) |
		(cd "$1" && tar xf -)
}

# Peak RSS in KiB of "$VX" ARGS..., stdout/stderr to $OUT/$ERR.
rss_vx() {
	/usr/bin/time -f "%M" -o "$TEST_DIR/rss" "$VX" "$@" >"$OUT" 2>"$ERR" </dev/null || return 1
	cat "$TEST_DIR/rss"
}

# The sanitizers' shadow memory is not vx's: the bound holds for the normal build.
asan=false
ldd "$VX" | grep -q libasan && asan=true

test_expect_success 'a 200 MiB output goes up and comes down under 64 MiB of RSS' '
	setup &&
	up=$(rss_vx run build) &&
	test_grep "big#build: made" "$OUT" &&
	! test_grep "warning" "$ERR" &&
	echo "upload run: $up KiB" &&
	test $(find "$remote_store" -type f -size +190M | wc -l) = 1 &&
	clone "$TEST_DIR/c2" && cd "$TEST_DIR/c2" &&
	down=$(rss_vx run build) &&
	echo "download run: $down KiB" &&
	test_grep "big#build: remote cache hit" "$OUT" &&
	cmp big/dist/blob "$TEST_DIR/ws/big/dist/blob" &&
	if ! $asan; then test "$up" -lt 65536 && test "$down" -lt 65536; fi
'

# A server that answers every GET with a 200 and a length, sends half the
# body and drops the connection, and drops every PUT after 64 KiB: the
# transfer a dying server leaves.
cat >"$TEST_TMP/torn.js" <<'EOF'
const http = require("http");
http.createServer((req, res) => {
	if (req.url.startsWith("/v8/artifacts/status")) {
		res.writeHead(200, {"content-type": "application/json"});
		return res.end("{\"status\":\"enabled\"}");
	}
	if (req.method === "GET") {
		res.writeHead(200, {"content-length": "1048576", "content-type": "application/octet-stream"});
		res.write(Buffer.alloc(524288, 7));
		return setTimeout(() => req.socket.destroy(), 50);
	}
	let got = 0;
	req.on("data", (c) => { got += c.length; if (got > 65536) req.socket.destroy(); });
	req.on("end", () => { res.writeHead(200); res.end("{}"); });
}).listen(Number(process.argv[2]), "127.0.0.1");
EOF

test_expect_success 'a body cut off mid-transfer either way is a warning: the task runs, the store holds only its own save' '
	free_port torn &&
	{ node "$TEST_TMP/torn.js" $torn & } &&
	torn_pid=$! &&
	test_wait_http $torn &&
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p a && ws_project a a <<-EOF &&
	  build:
	    command: "mkdir -p dist && head -c 1048576 /dev/urandom > dist/out && echo built-a"
	EOF
	VX_REMOTE_CACHE_URL=http://127.0.0.1:$torn run_vx 0 run build &&
	kill $torn_pid &&
	test_grep "a#build: built-a" "$OUT" &&
	test_grep "warning: remote cache: GET" "$ERR" &&
	test_grep "warning: remote cache: PUT" "$ERR" &&
	test $(ls .vx/cache/*/*.manifest 2>/dev/null | wc -l) -le 1 &&
	rm -rf a/dist && run_vx 0 run build --no-remote &&
	test_grep "a#build: cache hit" "$OUT" &&
	! test_grep "warning" "$ERR"
'

# A server whose team cache is disabled: it answers the status and counts
# every other request in a file.
cat >"$TEST_TMP/disabled.js" <<'EOF'
const http = require("http"), fs = require("fs");
http.createServer((req, res) => {
	if (req.url.startsWith("/v8/artifacts/status")) {
		res.writeHead(200, {"content-type": "application/json"});
		return res.end(JSON.stringify({status: process.argv[3]}));
	}
	fs.appendFileSync(process.argv[4], req.method + " " + req.url + "\n");
	res.writeHead(404);
	res.end();
}).listen(Number(process.argv[2]), "127.0.0.1");
EOF

test_expect_success 'a team cache the server calls disabled or over its limit is said once and never asked' '
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	for p in p1 p2 p3; do
		mkdir -p $p && ws_project $p $p <<-EOF || exit 1
		  build:
		    command: "mkdir -p dist && echo $p > dist/out"
		EOF
	done &&
	for st in disabled over_limit; do
		free_port dport &&
		{ node "$TEST_TMP/disabled.js" $dport $st "$TEST_DIR/asked-$st" & } &&
		dpid=$! &&
		test_wait_http $dport &&
		rm -rf .vx */dist &&
		VX_REMOTE_CACHE_URL=http://127.0.0.1:$dport run_vx 0 run build &&
		kill $dpid &&
		test_grep "Tasks: 3 succeeded" "$OUT" &&
		test $(grep -c "remote cache" "$ERR") = 1 &&
		test_grep "for this team: it is off" "$ERR" &&
		test ! -s "$TEST_DIR/asked-$st" || exit 1
	done &&
	test_grep "over its usage limit" "$ERR"
'

# A server slow to answer: every artifact GET waits 3 s, then 404.
cat >"$TEST_TMP/slow.js" <<'EOF'
const http = require("http");
http.createServer((req, res) => {
	if (req.url.startsWith("/v8/artifacts/status")) {
		res.writeHead(200, {"content-type": "application/json"});
		return res.end("{\"status\":\"enabled\"}");
	}
	/* argv[3] "put": PUTs are the slow ones (each 2 s), GETs answer at once */
	const put = process.argv[3] === "put";
	req.resume();
	setTimeout(() => { res.writeHead(put && req.method === "PUT" ? 200 : 404); res.end(); },
		req.method === (put ? "PUT" : "GET") ? (put ? 2000 : 3000) : 0);
}).listen(Number(process.argv[2]), "127.0.0.1");
EOF

# Issue 41 item 6: a server that accepts and never answers held the first
# task a minute (the status request's 30 s timeout, then a GET's) before
# anything ran. A GET or status that receives nothing for 5 s is given up,
# and the first such turns the remote off, said once. (timeout 25 only
# catches the old minute-long hang; no time is asserted.)
cat >"$TEST_TMP/mute.js" <<'EOF'
require("http").createServer((req, res) => { req.resume(); }).listen(Number(process.argv[2]), "127.0.0.1");
EOF

test_expect_success 'a server that accepts and never answers: off after its first silence, said once; the run goes on' '
	free_port mport &&
	{ node "$TEST_TMP/mute.js" $mport & } &&
	mpid=$! &&
	for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$mport) 2>/dev/null && break; sleep 0.1; done &&
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p m && ws_project m m <<-EOF &&
	  build:
	    command: "mkdir -p dist && echo m > dist/out"
	EOF
	rc=0 && VX_REMOTE_CACHE_URL=http://127.0.0.1:$mport timeout -k 5 25 "$VX" run build >"$OUT" 2>"$ERR" || rc=$? &&
	kill $mpid &&
	test $rc = 0 &&
	test_grep "Tasks: 1 succeeded" "$OUT" &&
	test $(grep -c "warning" "$ERR") = 1 &&
	test_grep "no answer in time (.*): it is off for the rest of this run" "$ERR"
'

# The bug: the lookups' thread took the SIGCHLD of a task that ended while
# it waited on the network, and the run waited for that task forever (seen
# when a task closes its output before it exits: the end of its pipe is no
# sign that it is gone).
test_expect_success 'tasks that end while the remote lookups are in flight are seen to end' '
	free_port sport &&
	{ node "$TEST_TMP/slow.js" $sport & } &&
	spid=$! &&
	test_wait_http $sport &&
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	for p in q1 q2 q3; do
		mkdir -p $p && ws_project $p $p <<-EOF || exit 1
		  build:
		    cache: false
		    command: "echo quick-$p; exec >/dev/null 2>&1; sleep 0.5"
		EOF
	done &&
	mkdir -p slow && ws_project slow slow <<-EOF &&
	  build:
	    command: "mkdir -p dist && echo s > dist/out"
	EOF
	rc=0 && VX_REMOTE_CACHE_URL=http://127.0.0.1:$sport timeout -k 5 30 "$VX" run build >"$OUT" 2>"$ERR" || rc=$? &&
	kill $spid &&
	test $rc = 0 &&
	test_grep "Tasks: 4 succeeded" "$OUT"
'

# Issue 58 item 4: a task whose key the prefetch was still asking the
# remote for was asked again every 2 ms, a wake-up of the loop each time
# (1500 in the 3 s this server takes to answer). Waiting is a loop event:
# the prefetch says when a key is settled. Counted as the loop's poll(2)
# calls on vx's main thread, not as a time.
test_expect_success 'a task waiting on its prefetch wakes the loop when it is answered, not every 2 ms' '
	command -v strace >/dev/null || { echo "strace is not installed"; exit 1; } &&
	free_port sport &&
	{ node "$TEST_TMP/slow.js" $sport & } &&
	spid=$! &&
	test_wait_http $sport &&
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p slow && ws_project slow slow <<-EOF &&
	  build:
	    command: "mkdir -p dist && echo s > dist/out"
	EOF
	# LeakSanitizer cannot run under ptrace: off for this one run (ASan build)
	rc=0 && VX_REMOTE_CACHE_URL=http://127.0.0.1:$sport ASAN_OPTIONS=detect_leaks=0 timeout -k 5 30 \
		strace -o "$TEST_DIR/polls" -e trace=poll,ppoll -qq "$VX" run build >"$OUT" 2>"$ERR" || rc=$? &&
	kill $spid &&
	test $rc = 0 &&
	test_grep "Tasks: 1 succeeded" "$OUT" &&
	polls=$(grep -c "poll" "$TEST_DIR/polls") &&
	echo "poll calls on the main thread: $polls" &&
	test "$polls" -lt 300
'

test_expect_success 'the run waits a bounded time for its uploads at its end, and says how many it left' '
	free_port sport &&
	{ node "$TEST_TMP/slow.js" $sport put & } &&
	spid=$! &&
	test_wait_http $sport &&
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	# 12 saves, 8 uploaders (REMOTE_UPLOADERS): 8 PUTs of 2 s start at
	# once, the 4 queued behind them are left when the 1 s grace is over
	for p in u1 u2 u3 u4 u5 u6 u7 u8 u9 u10 u11 u12; do
		mkdir -p $p && ws_project $p $p <<-EOF || exit 1
		  build:
		    command: "mkdir -p dist && echo $p > dist/out"
		EOF
	done &&
	VX_TEST_UPLOAD_GRACE_MS=1000 VX_REMOTE_CACHE_URL=http://127.0.0.1:$sport run_vx 0 run build -j4 &&
	kill $spid &&
	test_grep "Tasks: 12 succeeded" "$OUT" &&
	test_grep "4 uploads not made: the run.s end waited 1s for them" "$ERR" &&
	rm -rf */dist && run_vx 0 run build --no-remote &&
	test_grep "Tasks: 0 succeeded, 12 cached" "$OUT"
'

test_expect_success 'the real server killed with kill -9 during a run costs warnings, never the run' '
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	for p in p1 p2 p3 p4 p5 p6; do
		mkdir -p $p && ws_project $p $p <<-EOF || exit 1
		  build:
		    command: "sleep 0.3; mkdir -p dist && echo $p-$RANDOM > dist/out && echo built-$p"
		EOF
	done &&
	{ ("$VX" run build -j1 >"$OUT" 2>"$ERR"; echo $? >rc) & } &&
	test_wait_lines "built-p" 1 "$OUT" &&
	kill -9 $remote_pid 2>/dev/null &&
	for i in $(seq 600); do [ -s rc ] && break; sleep 0.1; done &&
	test "$(cat rc)" = 0 &&
	test_grep "Tasks: 6 succeeded" "$OUT" &&
	test_grep "warning: remote cache" "$ERR" &&
	test $(grep -c "remote cache" "$ERR") -le 4
'

test_done
