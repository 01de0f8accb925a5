#!/bin/bash
# The portable tarball (issue 55 item 2, docs/install.md): the one
# scripts/release.sh makes, unpacked by a user in a clean Debian 13 root and
# a clean Debian 11 one (glibc 2.31, Ubuntu 20.04's) with only bubblewrap
# and strace installed from Debian: the bundled example built, then all
# hits; a sandboxed task's stray read traced and reported with its fix; no
# libcurl there, so a configured remote cache costs one line, never a crash.
# $VX (the build under test) is not used: the release's vx is.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"
. "$VX_SOURCE_DIR/tests/unsafe/roots.sh"

roots_require
roots_release tarball
TARBALL=$TEST_TMP/dist/vx-$VERSION-linux-$(uname -m).tar.gz

test_expect_success 'the tarball holds what cmake --install puts in a prefix, under vx-VERSION/' '
	roots_tarball_layout "$TARBALL"
'

test_expect_success 'its vx links the C library alone, and asks nothing newer of it than GLIBC_2.31' '
	tar -xzf "$TARBALL" &&
	readelf -d vx-$VERSION/bin/vx | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1/p" | sort >needed &&
	printf "%s\n" libc.so.6 libdl.so.2 libm.so.6 libpthread.so.0 >allowed &&
	test "$(comm -23 needed allowed)" = "" &&
	floor=$(objdump -T vx-$VERSION/bin/vx | grep -o "GLIBC_[0-9.]*" | sort -uV | tail -n1) &&
	echo "glibc floor: $floor" &&
	test "$(printf "%s\n" "$floor" GLIBC_2.31 | sort -V | tail -n1)" = GLIBC_2.31 &&
	readelf -l vx-$VERSION/libexec/vx/vx-sandbox-init >init &&
	test_grep ! "INTERP" init
'

# install_in DIR: bubblewrap and strace from apt, as root (from the root's
# cache: debian-root.sh downloaded them); the tarball into ~/.local by the
# user, as its README says.
install_in() {
	in_root "$1" apt-get install -y -q bubblewrap strace >"$TEST_TMP/apt-$2.log" 2>&1 || {
		sed 's/^/    /' "$TEST_TMP/apt-$2.log"
		return 1
	}
	cp "$TARBALL" "$1/tmp/" &&
		as_user "$1" "mkdir -p ~/.local && tar -C ~/.local -xzf /tmp/$(basename "$TARBALL") --strip-components=1" &&
		roots_example "$1"
}

# stray_read DIR: the example's api build reads shared/banner.txt, which
# its sandbox does not grant (the first line of its command).
stray_read() {
	sed -i "s|^\( *\)sed 's/^/route /' src/routes.txt|\1cat ../../shared/banner.txt\n&|" \
		"$1/home/dev/example/apps/api/vx.yaml" &&
		grep -q "cat ../../shared/banner.txt" "$1/home/dev/example/apps/api/vx.yaml"
}

# --- Debian 13 ---------------------------------------------------------
T=$TEST_TMP/trixie
roots_unpack trixie "$T" --download "bubblewrap strace"
roots_time_ "trixie: apt-get install bubblewrap strace, the tarball unpacked" install_in "$T" trixie

test_expect_success 'Debian 13: the tarball'"'"'s vx runs from ~/.local/bin, its sandbox traced' '
	as_user "$T" "vx --version && vx info" >out 2>err &&
	test_grep -x "vx $VERSION" out &&
	test_grep "^sandbox init: /home/dev/.local/libexec/vx/vx-sandbox-init$" out &&
	test_grep "^violation reports: available" out
'

test_expect_success 'Debian 13: the example builds, then every task is a hit' '
	as_user "$T" "cd example && vx run build && vx run build" >out 2>err &&
	test_grep "^Tasks: 7 succeeded, 0 cached, 0 failed" out &&
	test_grep "^Tasks: 0 succeeded, 7 cached, 0 failed" out
'

test_expect_success 'Debian 13: a sandboxed task'"'"'s stray read is a violation, traced, with its fix' '
	stray_read "$T" &&
	rc=0 && as_user "$T" "cd example && vx run @acme/api#build" >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	test_grep ! "untraced" err &&
	test_grep "^@acme/api#build: failed" out &&
	test_grep "^@acme/api#build: violation: read shared/banner.txt (openat ENOENT)$" err &&
	test_grep "^@acme/api#build: fix: add to apps/api/vx.yaml tasks.build.sandbox.allow.read: \[\"../../shared/banner.txt\"\]$" err
'

test_expect_success 'Debian 13: no libcurl: a remote cache is one line, and the run goes on' '
	test_path_is_missing "$T/usr/lib/$(uname -m)-linux-gnu/libcurl.so.4" &&
	as_user "$T" "cd example && VX_REMOTE_CACHE_URL=http://127.0.0.1:9 vx run build --force --filter=@acme/tokens" >out 2>err &&
	test_grep -x "vx: remote cache: libcurl does not start: libcurl.so.4: cannot open shared object file: No such file or directory" err &&
	test_grep "^Tasks: 1 succeeded, 0 cached, 0 failed" out
'
rm -rf "$T"

# --- Debian 11 ---------------------------------------------------------
# bubblewrap 0.4.1 and strace 5.10: older than vx's sandbox needs (bwrap
# 0.5.0's --perms and --clearenv, strace 5.15's --decode-pids=pidns;
# docs/install.md), so the sandboxed task is refused, and the rest runs.
B=$TEST_TMP/bullseye
roots_unpack bullseye "$B" --download "bubblewrap strace"
roots_time_ "bullseye: apt-get install bubblewrap strace, the tarball unpacked" install_in "$B" bullseye

test_expect_success 'Debian 11: the tarball'"'"'s vx runs on glibc 2.31' '
	as_user "$B" "ldd --version | head -n1; vx --version" >out 2>err &&
	test_grep "GLIBC 2.31" out &&
	test_grep -x "vx $VERSION" out
'

test_expect_success 'Debian 11: vx info says why violations cannot be reported there (strace 5.10)' '
	as_user "$B" "vx info" >out 2>err &&
	test_grep "^strace: present but not working (/usr/bin/strace, strace -- version 5.10)" out &&
	test_grep "^violation reports: unavailable" out
'

test_expect_success 'Debian 11: the example but its sandboxed task builds, then every task is a hit' '
	as_user "$B" "cd example && vx run build --filter=\"!@acme/api\" && vx run build --filter=\"!@acme/api\"" >out 2>err &&
	test_grep "^Tasks: 6 succeeded, 0 cached, 0 failed" out &&
	test_grep "^Tasks: 0 succeeded, 6 cached, 0 failed" out
'

test_expect_success 'Debian 11: no libcurl: a remote cache is one line, and the run goes on' '
	test_path_is_missing "$B/usr/lib/$(uname -m)-linux-gnu/libcurl.so.4" &&
	as_user "$B" "cd example && VX_REMOTE_CACHE_URL=http://127.0.0.1:9 vx run build --force --filter=@acme/tokens" >out 2>err &&
	test_grep -x "vx: remote cache: libcurl does not start: libcurl.so.4: cannot open shared object file: No such file or directory" err &&
	test_grep "^Tasks: 1 succeeded, 0 cached, 0 failed" out
'

test_expect_success 'Debian 11: a sandboxed task is refused, naming bwrap 0.4.1 and the version vx needs' '
	rc=0 && as_user "$B" "cd example && vx run @acme/api#build" >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test_grep ! "Unknown option" err &&
	test_grep "0\.4\.1" err &&
	test_grep "0\.10" err
'
rm -rf "$B"

test_done
