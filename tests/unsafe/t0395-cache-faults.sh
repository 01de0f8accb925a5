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

test_done
