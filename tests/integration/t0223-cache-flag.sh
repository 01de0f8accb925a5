#!/bin/bash
# --cache=local:[r][w],remote:[r][w] (issue 42 item 7): Turborepo's one flag
# for what a run reads and writes, local and remote apart; a source left out
# is off. Against the real turborepo-remote-cache server from npm: CI that
# keeps no local cache (remote:rw), pull requests that read the shared cache
# and never write it (local:rw,remote:r, --remote-cache-read-only), a run
# that writes only the remote (local:r,remote:rw).
. "$(dirname "$0")/lib.sh"

remote_cache_start
store=$remote_store

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p a/src && echo a-1 >a/src/x.txt &&
	ws_project a a <<-EOF
	  build:
	    command: "mkdir -p dist && cat src/x.txt > dist/out.txt && echo built-a"
	EOF
	rm -f "$store"/*
}

# How many entries the local store (a save: a manifest; a remote hit: a
# bundle) and the server hold.
local_entries() { find .vx/cache \( -name "*.json" -o -name "*.vxe" \) -path "*/[0-9a-f][0-9a-f]/*" 2>/dev/null | wc -l; }
remote_entries() { ls "$store" 2>/dev/null | wc -l; }

test_expect_success '--cache=local:rw: the remote is neither read nor written' '
	setup &&
	run_vx 0 run build --cache=local:rw &&
	test_grep "a#build: built-a" "$OUT" &&
	test $(remote_entries) = 0 && test $(local_entries) = 1 &&
	run_vx 0 run build --cache=local:rw &&
	test_grep "a#build: cache hit, replaying output" "$OUT"
'

test_expect_success '--cache=remote:rw: nothing is kept locally, the remote answers the next run' '
	setup &&
	run_vx 0 run build --cache=remote:rw &&
	test_grep "a#build: built-a" "$OUT" &&
	test $(remote_entries) = 1 && test $(local_entries) = 0 &&
	rm -rf a/dist &&
	run_vx 0 run build --cache=remote:rw &&
	test_grep "a#build: remote cache hit, replaying output" "$OUT" &&
	test "$(cat a/dist/out.txt)" = a-1 &&
	test $(local_entries) = 0
'

test_expect_success '--cache=local:r,remote:rw: written to the remote only; a local entry is still read' '
	setup &&
	run_vx 0 run build --cache=local:r,remote:rw &&
	test $(remote_entries) = 1 && test $(local_entries) = 0 &&
	rm -rf a/dist &&
	run_vx 0 run build &&
	test_grep "a#build: remote cache hit" "$OUT" &&
	test $(local_entries) = 1 &&
	rm -f "$store"/* && rm -rf a/dist &&
	run_vx 0 run build --cache=local:r,remote:rw &&
	test_grep "a#build: cache hit, replaying output" "$OUT"
'

test_expect_success '--cache=local:rw,remote:r and --remote-cache-read-only: the remote is read, never written' '
	setup &&
	run_vx 0 run build --cache=local:rw,remote:r &&
	test_grep "a#build: built-a" "$OUT" &&
	test $(remote_entries) = 0 && test $(local_entries) = 1 &&
	echo a-2 >a/src/x.txt &&
	run_vx 0 run build --remote-cache-read-only &&
	test_grep "a#build: built-a" "$OUT" &&
	test $(remote_entries) = 0 &&
	run_vx 0 run build --cache=remote:rw &&
	test $(remote_entries) = 1 &&
	rm -rf .vx/cache a/dist &&
	run_vx 0 run build --cache=local:rw,remote:r &&
	test_grep "a#build: remote cache hit" "$OUT"
'

test_expect_success '--cache=local:w,remote:w reads nothing (as --force); local:,remote: neither reads nor writes' '
	setup &&
	run_vx 0 run build &&
	run_vx 0 run build --cache=local:w,remote:w &&
	test_grep "a#build: built-a" "$OUT" &&
	rm -rf .vx/cache && rm -f "$store"/* &&
	run_vx 0 run build --cache=local:,remote: &&
	test_grep "a#build: built-a" "$OUT" &&
	test $(remote_entries) = 0 && test $(local_entries) = 0
'

test_expect_success '--cache with a word it does not know: exit 2, nothing run' '
	setup &&
	run_vx 2 run build --cache=lokal:rw &&
	test_grep "vx: --cache: .lokal:rw. is not local:\[r\]\[w\] or remote:\[r\]\[w\]" "$ERR" &&
	run_vx 2 run build --cache=local:rx &&
	test_grep "vx: --cache: .local:rx." "$ERR" &&
	test ! -e a/dist
'

test_done
