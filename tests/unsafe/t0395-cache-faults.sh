#!/bin/bash
# A damaged or read-only cache costs speed, never correctness or hits
# (issue 39): each case failed before its fix. A read-only cache is a real
# read-only bind mount in a mount namespace of the test's own (unshare).
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

# ro_run CMD...: runs CMD with the workspace's cache bound read-only over
# itself, in a mount namespace that ends with CMD.
ro_run() {
	local u=-m
	[ "$(id -u)" = 0 ] || u=-rm
	unshare $u sh -c 'mount --bind .vx/cache .vx/cache && mount -o remount,ro,bind .vx/cache && exec "$@"' ro "$@"
}

require_ro_mount() {
	ro_run true 2>/dev/null && return 0
	if [ "${VX_REQUIRE_SANDBOX:-0}" = 1 ]; then
		echo "not ok - no mount namespace here (unshare -m), and VX_REQUIRE_SANDBOX=1"
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "# SKIP: no mount namespace here (unshare -m): a read-only cache cannot be made"
	echo "0 passed, 0 failed"
	exit 0
}

two_projects() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    outputs: ["out.txt"]
	EOF
	for p in a b; do
		ws_project $p $p <<-EOF || return 1
		  build: {command: "echo $p-built > out.txt"}
		EOF
	done
}

# Item 5: every task rebuilt, "cannot open …/.lock: Read-only file system"
# twenty times, and vx cache clean/prune exited 2, though every entry was there.
test_expect_success 'a read-only cache restores its hits, saves nothing, and says so once' '
	mkdir -p .vx/cache && require_ro_mount &&
	two_projects &&
	run_vx 0 run build &&
	rm a/out.txt b/out.txt &&
	(cd .vx/cache && find . -printf "%p %s %T@\n" | sort) >before &&
	ro_run "$VX" run build >"$OUT" 2>"$ERR" &&
	test_grep "a#build: cache hit" "$OUT" &&
	test_grep "b#build: cache hit" "$OUT" &&
	test "$(cat a/out.txt)" = a-built &&
	test "$(wc -l <"$ERR")" = 1 &&
	test_grep "warning: the cache .*/.vx/cache is read-only (Read-only file system): its hits are restored, and nothing is saved to it" "$ERR" &&
	echo "c" >a/extra && ws_project a a <<-EOF &&
	  build: {command: "echo a-rebuilt > out.txt"}
	EOF
	ro_run "$VX" run build >"$OUT" 2>"$ERR" &&
	test_grep "a#build: running" "$OUT" &&
	test "$(wc -l <"$ERR")" = 1 &&
	(cd .vx/cache && find . -printf "%p %s %T@\n" | sort) >after &&
	test_cmp before after &&
	ro_run "$VX" cache prune >"$OUT" 2>"$ERR" &&
	test_grep "evicted 0 entries to fit .* is read-only" "$OUT" &&
	rc=0 && ro_run "$VX" cache clean >"$OUT" 2>"$ERR" || rc=$? &&
	test "$rc" = 2 &&
	test "$(wc -l <"$ERR")" = 1 &&
	test_grep "the cache .* is read-only (Read-only file system): nothing in it can be removed" "$ERR"
'

# Item 6: a directory at an entry's name, a file at a shard's name or a
# bad .lock made every later run rebuild with "not saved", forever; a
# killed save's .tmp-KEY-* stayed for an hour and prune kept it.
test_expect_success 'a damaged store is repaired by the next save, saying what it removed' '
	two_projects &&
	run_vx 0 run build &&
	man=$(cd .vx/cache && ls ??/*.json | head -1) && shard=$(cd .vx/cache && ls -d ?? | sed -n 2p) &&
	rm .vx/cache/$man && mkdir -p .vx/cache/$man/sub && echo x >.vx/cache/$man/sub/f &&
	rm -rf .vx/cache/$shard && echo junk >.vx/cache/$shard &&
	rm -f .vx/cache/.lock && mkdir .vx/cache/.lock &&
	run_vx 0 run build &&
	test_grep "removed .*/.vx/cache/.lock: a directory where the cache keeps a file" "$ERR" &&
	test_grep "removed .*/.vx/cache/$shard: a file where the cache keeps a directory" "$ERR" &&
	test_grep "removed .*/.vx/cache/$man: a directory where the cache keeps a file" "$ERR" &&
	test_grep "is damaged (.*); running the task and replacing it" "$ERR" &&
	test_grep ! "not saved" "$ERR" &&
	run_vx 0 run build &&
	test_grep "a#build: cache hit" "$OUT" &&
	test_grep "b#build: cache hit" "$OUT" &&
	test ! -s "$ERR"
'

test_expect_success 'a killed save'"'"'s temporary file goes with the next save of its key or a prune; a live one stays' '
	two_projects &&
	run_vx 0 run build &&
	man=$(cd .vx/cache && ls ??/*.json | head -1) && key=$(basename $man .json) && sh=${man%%/*} &&
	head -c 300000 /dev/urandom >.vx/cache/$sh/.tmp-$key-dead01 &&
	head -c 1000 /dev/urandom >.vx/cache/$sh/.tmp-$key-live01 &&
	touch -d "-30 seconds" .vx/cache/$sh/.tmp-$key-dead01 .vx/cache/$sh/.tmp-$key-live01 &&
	{ flock -x .vx/cache/$sh/.tmp-$key-live01 sleep 60 & lockpid=$!; } && sleep 0.3 &&
	run_vx 0 run build --force &&
	test_grep "removed 1 temporary file (300000 bytes) a killed save of $key left in" "$ERR" &&
	test_path_is_missing .vx/cache/$sh/.tmp-$key-dead01 &&
	test_path_is_file .vx/cache/$sh/.tmp-$key-live01 &&
	head -c 500 /dev/urandom >.vx/cache/$sh/.tmp-$key-dead02 &&
	touch -d "-30 seconds" .vx/cache/$sh/.tmp-$key-dead02 &&
	run_vx 0 cache prune &&
	test_grep "cache: removed .*/$sh/.tmp-$key-dead02 (500 bytes): a killed save" "$OUT" &&
	test_path_is_missing .vx/cache/$sh/.tmp-$key-dead02 &&
	test_path_is_file .vx/cache/$sh/.tmp-$key-live01 &&
	{ kill $lockpid; wait $lockpid || true; }
'

test_done
