#!/bin/bash
# A remote body is held to what the cache may hold (issue 57 item 1): a
# server declaring 4 GB of zeros had 3815 MB written under a cache of
# cache.maxSize 1MiB before the body was refused as no entry, and the next
# GET on its connection failed "Unsupported protocol". Each lie below is a
# server of the test's own (node, raw sockets: it says exactly the bytes it
# means). vx runs under `ulimit -f` (2 MiB): a write past that fails (the
# download's thread blocks SIGXFSZ: EFBIG, "cannot write the download"),
# so what vx writes is asserted in bytes, and the server counts what it
# could send before vx hung up. Each test failed before the fix.
. "$(dirname "$0")/lib.sh"

cat >"$TEST_TMP/liar.js" <<'EOF'
// node liar.js PORT MODE LOG
//   declared: GET answers Content-Length 4000000000, zeros until hung up
//   close:    GET answers no length (the body ends with the connection):
//             an entry's head line, then zeros until hung up
//   chunked:  the same, chunked
//   garbage:  GET answers Content-Length 536870912 beginning "garbage!",
//             zeros after it
//   more:     a store (PUT keeps a body, GET gives it or 404), every GET's
//             answer followed by 65536 zero bytes more than it declared,
//             sent as the connection's next request comes in (before its
//             answer), and said in LOG ("junk")
// Each streamed answer logs "sent N" once its connection is gone.
const net = require("net"), fs = require("fs");
const [port, mode, log] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
const store = new Map();
const zeros = Buffer.alloc(65536, 0);
const say = (s) => fs.appendFileSync(log, s + "\n");
net.createServer((sock) => {
	let buf = Buffer.alloc(0), owes = false, streaming = false;
	sock.on("error", () => {});
	sock.on("data", (d) => {
		buf = Buffer.concat([buf, d]);
		while (!streaming) {
			const end = buf.indexOf("\r\n\r\n");
			if (end < 0) return;
			const lines = buf.subarray(0, end).toString().split("\r\n");
			const [method, url] = lines[0].split(" ");
			const cl = lines.find((l) => /^content-length:/i.test(l));
			const len = cl ? Number(cl.split(":")[1]) : 0;
			if (buf.length < end + 4 + len) return;
			const body = buf.subarray(end + 4, end + 4 + len);
			buf = buf.subarray(end + 4 + len);
			if (owes) {
				say("junk before " + method + " " + url);
				sock.write(zeros);
				owes = false;
			}
			answer(method, url.split("?")[0], body);
		}
	});
	const reply = (status, body) =>
		sock.write(Buffer.concat([Buffer.from(`HTTP/1.1 ${status} X\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
	function stream(head, first, chunked) {
		streaming = true;
		let sent = 0;
		const piece = chunked ? Buffer.concat([Buffer.from("10000\r\n"), zeros, Buffer.from("\r\n")]) : zeros;
		sock.write(head);
		sock.write(first);
		sent += first.length;
		const pump = () => {
			while (!sock.destroyed) {
				sent += zeros.length;
				if (!sock.write(piece)) return;
			}
		};
		sock.on("drain", pump);
		sock.on("close", () => say("sent " + sent));
		pump();
	}
	function answer(method, url, body) {
		owes = mode === "more" && method === "GET";
		if (url === "/v8/artifacts/status")
			return reply(200, Buffer.from('{"status":"enabled"}'));
		if (mode === "more") {
			if (method === "PUT") {
				store.set(url, Buffer.from(body));
				return reply(200, Buffer.from("{}"));
			}
			const got = store.get(url);
			return reply(got ? 200 : 404, got || Buffer.alloc(0));
		}
		if (method !== "GET")
			return reply(200, Buffer.from("{}"));
		if (mode === "declared")
			return stream("HTTP/1.1 200 OK\r\nContent-Length: 4000000000\r\n\r\n", Buffer.alloc(0));
		// an entry's head, then zeros: only the bound stops them
		const head = Buffer.from("vx-entry 1 100\n{");
		if (mode === "close")
			return stream("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", head);
		if (mode === "chunked") {
			const c = Buffer.concat([Buffer.from(head.length.toString(16) + "\r\n"), head, Buffer.from("\r\n")]);
			return stream("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", c, true);
		}
		if (mode === "garbage")
			return stream("HTTP/1.1 200 OK\r\nContent-Length: 536870912\r\n\r\n", Buffer.from("garbage!"));
	}
}).listen(port, "127.0.0.1");
EOF

# every server started, stopped when the script ends (a failed body leaves
# its own running)
trap 'kill $(cat "$TEST_TMP/pids" 2>/dev/null) 2>/dev/null; rm -rf "$TEST_TMP"' EXIT

# liar_start MODE: the server above on a free port, its log in $liar_log;
# VX_REMOTE_CACHE_URL set to it.
liar_start() {
	free_port liar_port
	liar_log=$TEST_DIR/liar-$1.log
	: >"$liar_log"
	node "$TEST_TMP/liar.js" $liar_port $1 "$liar_log" &
	liar_pid=$!
	echo $liar_pid >>"$TEST_TMP/pids"
	test_wait_http $liar_port 100 || return 1
	export VX_REMOTE_CACHE_URL=http://127.0.0.1:$liar_port
}

two_tasks() {
	ws_root <<-EOF
	  cache:
	    maxSize: $1
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	for p in a b; do
		ws_project $p $p <<-EOF || return 1
		  build:
		    command: "mkdir -p dist && echo $p-built > dist/out && echo made-$p"
		EOF
	done
}

# vx run build with no file of it larger than 2 MiB (past it: SIGXFSZ, or
# EFBIG where the signal is blocked).
bounded_vx() {
	local rc=0
	(ulimit -f 2048 && exec "$VX" run build) >"$OUT" 2>"$ERR" </dev/null || rc=$?
	if [ $rc != 0 ]; then
		echo "vx run build under ulimit -f 2048: exit $rc"
		return 1
	fi
}

# The bound held: both tasks ran, nothing of a download is left in the
# store, and the server could send each GET at most 64 MiB (the socket
# buffers; 4 GB without the bound) before vx hung up. Stops the server.
bound_held() {
	local rc=0
	{
		test_grep "a#build: made-a" "$OUT" &&
		test_grep "b#build: made-b" "$OUT" &&
		! test_grep "cannot write" "$ERR" &&
		test -z "$(find .vx/cache -name '.tmp-*')" &&
		test_wait_lines "^sent " 2 "$liar_log" &&
		awk '/^sent / && $2 > 67108864 { print "sent " $2 " bytes"; bad = 1 } END { exit bad }' "$liar_log"
	} || rc=1
	kill $liar_pid
	return $rc
}

test_expect_success 'a declared length past cache.maxSize is refused at the headers' '
	two_tasks 1MiB && liar_start declared &&
	bounded_vx &&
	bound_held &&
	test $(grep -c "refused at its headers: it declares 4000000000 bytes, more than the cache may hold (cache.maxSize, 1048576 bytes); a miss" "$ERR") = 2 &&
	! test_grep "Unsupported protocol" "$ERR"
'

test_expect_success 'a body with no length is cut off at cache.maxSize, close-delimited or chunked' '
	two_tasks 1MiB &&
	for mode in close chunked; do
		rm -rf .vx */dist && liar_start $mode &&
		bounded_vx &&
		bound_held &&
		test $(grep -c "cut off at [0-9]* bytes, all the cache may hold (cache.maxSize), with no length declared; a miss" "$ERR") = 2 ||
		exit 1
	done
'

test_expect_success 'a body that does not begin as an entry is dropped at its first bytes' '
	two_tasks 1GiB && liar_start garbage &&
	bounded_vx &&
	bound_held &&
	test $(grep -c "not a vx cache entry (it begins \"garbage!.*\"): dropped at its first bytes; a miss" "$ERR") = 2
'

clone() {
	rm -rf "$1" && mkdir -p "$1" && (cd "$TEST_DIR/ws" && tar cf - --exclude=.vx --exclude=dist .) |
		(cd "$1" && tar xf -)
}

# The second GET's "Unsupported protocol": bytes past a Content-Length stay
# on the kept connection, and curl read them as the next answer's head.
test_expect_success 'bytes past a declared length spoil no later request: it is made again on a new connection' '
	two_tasks 1GiB && liar_start more &&
	bounded_vx &&
	test_grep "a#build: made-a" "$OUT" &&
	! test_grep "warning" "$ERR" &&
	clone "$TEST_DIR/c2" && cd "$TEST_DIR/c2" &&
	bounded_vx && kill $liar_pid &&
	test_grep "a#build: remote cache hit" "$OUT" &&
	test_grep "b#build: remote cache hit" "$OUT" &&
	test "$(cat a/dist/out)" = a-built &&
	! test_grep "warning" "$ERR" &&
	test_grep "^junk before GET /v8/artifacts/" "$liar_log"
'

test_done
