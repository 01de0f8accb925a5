#!/bin/bash
# vx version (issue 55 item 6): the one version number of CMakeLists.txt,
# the commit built, the build and what is built in.
. "$(dirname "$0")/lib.sh"

build_dir=$(dirname "$VX")

test_expect_success 'vx --version and vx version say the same' '
	run_vx 0 --version && mv "$OUT" dashed &&
	run_vx 0 version &&
	test_cmp dashed "$OUT"
'

test_expect_success 'the version is project(VERSION) of CMakeLists.txt' '
	want=$(sed -n "s/^project(vx VERSION \([0-9.]*\) .*/\1/p" "$VX_SOURCE_DIR/CMakeLists.txt") &&
	test -n "$want" &&
	run_vx 0 version &&
	test "$(head -n 1 "$OUT")" = "vx $want"
'

test_expect_success 'the commit is one of the source tree history (unknown outside git)' '
	run_vx 0 version &&
	commit=$(sed -n "s/^commit: //p" "$OUT") &&
	if git -C "$VX_SOURCE_DIR" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		echo "$commit" | grep -Eq "^[0-9a-f]{7,}$" &&
		git -C "$VX_SOURCE_DIR" merge-base --is-ancestor "$commit" HEAD
	else
		test "$commit" = unknown
	fi
'

test_expect_success 'the build and features: the sandbox, the remote cache, sanitizers as configured' '
	run_vx 0 version &&
	# CMakeLists.txt makes an unset build type RelWithDebInfo
	build_type=$(sed -n "s/^CMAKE_BUILD_TYPE:[A-Z]*=//p" "$build_dir/CMakeCache.txt") &&
	test_grep "^build: ${build_type:-RelWithDebInfo}, [A-Za-z]* [0-9.]*, Linux " "$OUT" &&
	test_grep "^features: linux-sandbox (bwrap, strace), remote-cache (libcurl.so.4 and libcrypto.so.3, opened at first use)" "$OUT" &&
	if grep -q "^VX_SANITIZE:BOOL=ON" "$build_dir/CMakeCache.txt"; then
		test_grep "sanitizers (address, undefined)$" "$OUT"
	else
		test_grep ! "sanitizers" "$OUT"
	fi
'

test_expect_success 'vx version takes no operand' '
	run_vx 2 version extra &&
	test_grep "unexpected \"extra\"" "$ERR"
'

test_done
