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

# Issue 57 item 8: a read-only cache no writer ever used (no locks/ in it)
# warned "cannot lock the workspace (…: No such file or directory)": the
# ENOENT of opening locks/, not why it could not be made.
test_expect_success 'a read-only cache'"'"'s lock warning names the real reason' '
	mkdir -p .vx/cache && require_ro_mount &&
	two_projects &&
	ro_run "$VX" run build >"$OUT" 2>"$ERR" &&
	test_grep "a#build: running" "$OUT" &&
	test_grep "warning: cannot lock the workspace (.*/.vx/cache/locks/[0-9a-f]*.lock: Read-only file system): this run is not kept apart from another one" "$ERR" &&
	! test_grep "No such file" "$ERR" &&
	test -z "$(ls -A .vx/cache)"
'

# Item 6: a directory at an entry's name, a file at a shard's name or a
# bad .lock made every later run rebuild with "not saved", forever; a
# killed save's .tmp-KEY-* stayed for an hour and prune kept it. The
# in-place record goes first: a hit with its outputs in place opens no
# entry (the two keys may share a shard: then only the manifest is hurt).
test_expect_success 'a damaged store is repaired by the next save, saying what it removed' '
	two_projects &&
	run_vx 0 run build &&
	man=$(cd .vx/cache && ls ??/*.json | head -1) &&
	shard=$(cd .vx/cache && ls -d ?? | grep -vx "${man%%/*}" | head -1) &&
	rm .vx/cache/$man && mkdir -p .vx/cache/$man/sub && echo x >.vx/cache/$man/sub/f &&
	{ test -z "$shard" || { rm -rf .vx/cache/$shard && echo junk >.vx/cache/$shard; }; } &&
	rm -f .vx/cache/.lock && mkdir .vx/cache/.lock &&
	rm .vx/cache/inplace &&
	run_vx 0 run build &&
	test_grep "removed .*/.vx/cache/.lock: a directory where the cache keeps a file" "$ERR" &&
	{ test -z "$shard" ||
	  test_grep "removed .*/.vx/cache/$shard: a file where the cache keeps a directory" "$ERR"; } &&
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
	{ flock -x .vx/cache/$sh/.tmp-$key-live01 sleep 60 & lockpid=$!; } &&
	n=0 && while flock -n .vx/cache/$sh/.tmp-$key-live01 true && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done &&
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

# full_run DIR KIB FREE CMD...: runs CMD with a tmpfs of KIB KiB mounted at
# DIR, filled but for FREE KiB, in a mount namespace that ends with CMD.
full_run() {
	local dir=$1 kib=$2 free=$3 u=-m
	shift 3
	[ "$(id -u)" = 0 ] || u=-rm
	unshare $u sh -c 'mount -t tmpfs -o size=$1k tmpfs "$0" && head -c $(( ($1 - $2) * 1024 )) /dev/zero >"$0/fill" && shift 2 && exec "$@"' "$dir" "$kib" "$free" "$@"
}

# Item 7: on a full disk the archive's line named no task and no file and
# lacked "warning:"; --summarize made a fully cached run exit 2; with
# TMPDIR full the log spill fell back to memory unbounded (90 MB of RSS
# for 30 MB of output) and opened a new O_TMPFILE for every chunk (1707).
test_expect_success 'a full disk costs one line naming the task and the file; the status is the tasks'"'"'' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["out.bin"]
	EOF
	ws_project a a <<-'\''EOF'\'' &&
	  build: {command: "head -c 3000000 /dev/urandom > out.bin"}
	EOF
	mkdir -p .vx/cache &&
	full_run .vx/cache 2048 100 "$VX" run build >"$OUT" 2>"$ERR" &&
	test "$(wc -l <"$ERR")" = 1 &&
	test_grep "^vx: warning: a#build: not saved to the cache: cannot write .*/.vx/cache/../.tmp-[0-9a-f]*-.*: No space left on device; the run goes on$" "$ERR" &&
	run_vx 0 run build &&
	run_vx 0 run build &&
	test_grep "a#build: cache hit" "$OUT" &&
	mkdir -p sums &&
	full_run sums 200 0 "$VX" run build --summarize=sums/run.json >"$OUT" 2>"$ERR" &&
	test_grep "a#build: cache hit" "$OUT" &&
	test_grep "^vx: warning: cannot write the run summary .*/sums/run.json: No space left on device$" "$ERR"
'

test_expect_success 'a full TMPDIR keeps a long log'"'"'s head and tail, says so once, and saves nothing' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["out.txt"]
	EOF
	ws_project a a <<-'\''EOF'\'' &&
	  build: {command: "head -c 30000000 /dev/zero | tr \"\\\\0\" x; echo; echo END; echo ok > out.txt"}
	EOF
	mkdir -p tmp &&
	full_run tmp 1024 100 env TMPDIR="$PWD/tmp" strace -f -qq -e trace=openat -o trace.log python3 -c "import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open(\"$ERR\", \"w\"))
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(\"exit\", r.returncode, \"rss\", rss, \"KiB\")
sys.exit(0 if r.returncode == 0 and rss < 60 * 1024 else 1)" "$VX" run build &&
	test "$(grep -c O_TMPFILE trace.log)" = 1 &&
	test "$(wc -l <"$ERR")" = 1 &&
	test_grep "^vx: warning: a#build: cannot keep its output past 8 MiB in .*/tmp/vx-.* (No space left on device): only its first 8 MiB and its last 64 KiB are kept, and it is not saved to the cache$" "$ERR" &&
	run_vx 0 run build &&
	test_grep "a#build: running" "$OUT" &&
	test_grep "^a#build: END$" "$OUT"
'

test_done
