#!/bin/bash
# The remote cache (issue 16) against the real turborepo-remote-cache server
# from npm: a second clone's run is all remote hits with identical outputs
# and replayed logs; a changed input misses and uploads; a wrong token, an
# unreachable server and a corrupted artifact each cost a warning, never
# the run; the token is in no output, summary or task environment.
. "$(dirname "$0")/lib.sh"

remote_cache_start
token=$remote_token
store=$remote_store
free_port dead

# Two projects, b depending on a; each build prints whether it sees a token.
setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	for p in a b; do
		mkdir -p $p/src
		echo "$p-1" >$p/src/x.txt
	done
	ws_project a a <<-EOF
	  build:
	    command: "mkdir -p dist && cat src/*.txt > dist/out.txt && echo built-a tokens=\$(env | grep -cE '^(VX_REMOTE_CACHE_TOKEN|TURBO_TOKEN)=' || true)"
	EOF
	ws_project b b a <<-EOF
	  build:
	    command: "mkdir -p dist && cat src/*.txt ../a/dist/out.txt > dist/out.txt && echo built-b"
	EOF
}

# A second clone of the workspace, with a local cache of its own.
clone() {
	rm -rf "$TEST_DIR/clone" && cp -a . "$TEST_DIR/clone" && rm -rf "$TEST_DIR/clone/.vx" \
		"$TEST_DIR/clone/a/dist" "$TEST_DIR/clone/b/dist"
}

test_expect_success 'a second clone is all remote hits: outputs identical, logs replayed' '
	setup &&
	run_vx 0 run build --summarize=../s1.json &&
	test_grep "a#build: built-a tokens=0" "$OUT" &&
	clone && cd "$TEST_DIR/clone" &&
	run_vx 0 run build --dry-run=json &&
	test $(grep -o "\"cacheSource\":\"remote\"" "$OUT" | wc -l) = 2 &&
	run_vx 0 run build --dry-run &&
	test_grep "a#build: would replay .* cache hit (remote)" "$OUT" &&
	run_vx 0 run build --summarize=../s2.json &&
	test_grep "a#build: remote cache hit, replaying output" "$OUT" &&
	test_grep "b#build: remote cache hit, replaying output" "$OUT" &&
	test_grep "a#build: built-a tokens=0" "$OUT" &&
	test_grep "Tasks: 0 succeeded, 2 cached" "$OUT" &&
	test $(grep -c "\"cacheSource\":[[:space:]]*\"remote\"" ../s2.json) = 2 &&
	test $(grep -c "\"cacheSource\":[[:space:]]*null" ../s1.json) = 2 &&
	cmp a/dist/out.txt "$TEST_DIR/ws/a/dist/out.txt" &&
	cmp b/dist/out.txt "$TEST_DIR/ws/b/dist/out.txt" &&
	! grep -r -- "$token" "$OUT" "$ERR" ../s1.json ../s2.json .vx
'

test_expect_success 'a changed input misses and uploads; the other clone then hits it' '
	setup &&
	run_vx 0 run build &&
	clone &&
	echo a-2 >a/src/x.txt &&
	run_vx 0 run build &&
	test_grep "a#build: running" "$OUT" &&
	cd "$TEST_DIR/clone" && echo a-2 >a/src/x.txt &&
	run_vx 0 run build &&
	test_grep "a#build: remote cache hit" "$OUT" &&
	test "$(cat b/dist/out.txt)" = "$(printf "b-1\na-2")"
'

test_expect_success 'a wrong token warns once, the run succeeds' '
	setup &&
	VX_REMOTE_CACHE_TOKEN=wrong run_vx 0 run build &&
	test $(grep -c "refused the token" "$ERR") = 1 &&
	test_grep "Tasks: 2 succeeded" "$OUT"
'

# Issue 41 item 7: a server that needs a team answered 400, and vx said
# only "HTTP 400", three times, then turned the remote off.
test_expect_success 'a server that needs a team: vx says what to set, once, and the run succeeds' '
	setup &&
	VX_REMOTE_CACHE_TEAM= run_vx 0 run build &&
	test_grep "Tasks: 2 succeeded" "$OUT" &&
	test $(grep -c "the server needs a team (it says: querystring should have required property .team.): set VX_REMOTE_CACHE_TEAM or cache.remote.team" "$ERR") = 1 &&
	test_grep ! "HTTP 400" "$ERR" &&
	test $(grep -c "warning" "$ERR") = 1
'

test_expect_success 'an unreachable server warns and turns the remote off; the run succeeds' '
	setup &&
	for p in c d e; do
		ws_project $p $p <<-EOF || exit 1
		  build:
		    command: "echo built-$p"
		EOF
	done &&
	VX_REMOTE_CACHE_URL=http://127.0.0.1:$dead run_vx 0 run build -j1 &&
	test_grep "Tasks: 5 succeeded" "$OUT" &&
	test $(grep -c "three remote cache requests in a row failed" "$ERR") = 1 &&
	test $(grep -c "remote cache" "$ERR") -le 4
'

test_expect_success 'an artifact corrupted on the server is refused and never restored' '
	setup &&
	run_vx 0 run build &&
	clone &&
	for f in "$store"/*; do
		# in the archive, the body'"'"'s last bytes (the manifest before it
		# changes length with its format)
		printf "garbage" | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 40)) conv=notrunc 2>/dev/null || exit 1
	done &&
	cd "$TEST_DIR/clone" &&
	run_vx 0 run build &&
	test_grep "is refused" "$ERR" &&
	test_grep "a#build: running" "$OUT" &&
	test_grep "b#build: running" "$OUT" &&
	test "$(cat b/dist/out.txt)" = "$(printf "b-1\na-1")"
'

test_expect_success '--no-remote reads and writes nothing remote' '
	setup &&
	for f in "$store"/*; do rm -f "$f"; done &&
	run_vx 0 run build --no-remote &&
	test -z "$(ls "$store")" &&
	clone && cd "$TEST_DIR/clone" &&
	run_vx 0 run build &&
	test_grep "a#build: running" "$OUT"
'

test_done
