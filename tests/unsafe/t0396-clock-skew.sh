#!/bin/bash
# vx's clock is not the file system's (issue 57 item 5): an input rewritten,
# same size, in the second vx hashed it replayed the old output 20 times in
# 20 with vx's clock a year ahead, and every time at +2 s and +5 s (NFS, a
# VM, a skewed container). The racy rule now takes "now" from a file vx
# stamps in its cache directory. On ext4 made with 128-byte inodes
# (one-second timestamps), in a loop mount of the test's own; libfaketime
# skews vx's clock only: NO_FAKE_STAT=1 leaves the file times as the kernel
# stamped them, which is what a skewed clock sees.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

[ "$(id -u)" = 0 ] || test_skip_all "a loop mount needs root"
if ! command -v faketime >/dev/null && [ -n "${VX_TEST_IN_CI:-}" ]; then
	{ apt-get install -y -q faketime ||
		{ apt-get update -q && apt-get install -y -q faketime; }; } >"$TEST_TMP/apt.log" 2>&1 || true
fi
command -v faketime >/dev/null ||
	test_skip_all "faketime is not installed (scripts/install-deps.sh test installs it)"

IMG=$TEST_TMP/ext4.img
MNT=$TEST_TMP/mnt
trap 'umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
mkdir -p "$MNT"
truncate -s 64M "$IMG" && mkfs.ext4 -q -I 128 "$IMG" 2>/dev/null ||
	test_skip_all "mkfs.ext4 cannot make $IMG"
mount -o loop "$IMG" "$MNT" 2>"$TEST_TMP/mount.err" ||
	test_skip_all "cannot loop-mount an ext4 image: $(cat "$TEST_TMP/mount.err")"

# skewed SKEW CODE ARGS...: vx ARGS with its clock SKEW off the kernel's
# (faketime -f), its monotonic clock and every file time left alone.
skewed() {
	local skew=$1 want=$2 got=0
	shift 2
	NO_FAKE_STAT=1 FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f "$skew" "$VX" "$@" \
		>"$OUT" 2>"$ERR" </dev/null || got=$?
	if [ "$got" -ne "$want" ]; then
		echo "vx $* (clock $skew): exit $got, wanted $want"
		return 1
	fi
}

# A fresh workspace on the one-second file system; the test's own
# directory (cleaned with $TEST_TMP) is left for $OUT and $ERR.
clock_ws() {
	local ws=$MNT/$(basename "$TEST_DIR")
	mkdir -p "$ws" && cd "$ws" &&
		ws_root <<-'EOF' &&
		tasks:
		  build:
		    outputs: ["out.txt"]
		EOF
		ws_project a a <<-'EOF'
		  build: {command: "cp in.txt out.txt"}
		EOF
}

# Sleeps to the start of the next second (the file system's and the
# kernel's: NO_FAKE_STAT, and this shell is not skewed).
next_second() {
	local ns
	ns=$(date +%N)
	sleep "$(printf '0.%09d' $((1000000000 - 10#$ns)))"
}

# same_second_trials SKEW N: N times, in.txt written, hashed by a build
# under SKEW and rewritten with the same size, all in one second (its mtime
# and ctime as they were); the next build under SKEW must rebuild. A trial
# the machine's load spread over two seconds tests nothing and is done
# again (at most 3 N attempts). Each content is new to the cache: a skew
# and a try number.
same_second_trials() {
	local skew=$1 n=$2 done=0 tries=0 before after
	while [ "$done" -lt "$n" ]; do
		tries=$((tries + 1))
		if [ "$tries" -gt $((3 * n)) ]; then
			echo "only $done of $n trials fell within one second in $((tries - 1)) tries"
			return 1
		fi
		next_second
		printf '%s %03d old\n' "$skew" "$tries" >a/in.txt
		before=$(stat -c '%Y %Z %i' a/in.txt)
		skewed "$skew" 0 run build || return 1
		test "$(cat a/out.txt)" = "$(printf '%s %03d old' "$skew" "$tries")" || {
			echo "the first build under $skew did not build"
			return 1
		}
		printf '%s %03d new\n' "$skew" "$tries" >a/in.txt
		after=$(stat -c '%Y %Z %i' a/in.txt)
		if [ "$before" != "$after" ]; then
			echo "# trial $tries under $skew spread over two seconds: again"
			continue
		fi
		skewed "$skew" 0 run build || return 1
		if [ "$(cat a/out.txt)" != "$(printf '%s %03d new' "$skew" "$tries")" ]; then
			echo "trial $tries under $skew: the old output replayed ($(cat a/out.txt))"
			cat "$OUT"
			return 1
		fi
		test_grep "a#build: running" "$OUT"
		done=$((done + 1))
	done
}

test_expect_success 'vx a year ahead of the file system: a same-second rewrite rebuilds, 10 of 10' '
	clock_ws && same_second_trials +365d 10
'

test_expect_success 'vx 2 s and 5 s ahead: a same-second rewrite rebuilds, 5 of 5 each' '
	clock_ws && same_second_trials +2s 5 && same_second_trials +5s 5
'

test_expect_success 'vx behind the file system: a same-second rewrite rebuilds' '
	clock_ws && same_second_trials -2s 3 && same_second_trials -365d 3
'

# The reverse skew must not make every file racy: one written a second
# before the run is kept (its path is in the stat cache file), so the next
# run does not read it. Before: a file younger than vx's clock was racy, so
# under -365d every file of the last year was hashed on every run.
test_expect_success 'vx behind the file system: a file a second old is kept in the stat cache' '
	clock_ws &&
	for skew in -2s -365d; do
		rm -rf .vx &&
		echo "kept" >a/in.txt &&
		next_second && sleep 0.1 &&
		skewed $skew 0 run build &&
		test_grep "a#build: running" "$OUT" &&
		test_grep -qaF "$PWD/a/in.txt" .vx/cache/statcache || exit 1
	done
'

# The same with vx ahead: a file written a second ago is kept too (the
# clock ahead made every file look old, so this passed before; the stamp
# must not make it racy).
test_expect_success 'vx ahead of the file system: a file a second old is kept in the stat cache' '
	clock_ws &&
	echo "kept" >a/in.txt &&
	next_second && sleep 0.1 &&
	skewed +365d 0 run build &&
	test_grep -qaF "$PWD/a/in.txt" .vx/cache/statcache
'

test_done
