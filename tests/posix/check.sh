#!/bin/bash
# check.sh - compiles every source as a POSIX system that is not Linux
# would (macOS): strict POSIX.1-2008 with XSI, no _GNU_SOURCE, __linux__
# undefined, plus only the BSD extensions of bsd_ext.h; and fails on a
# Linux-only header reached outside an `#ifdef __linux__`. No Mac builds
# vx's CI, so this is where a Linux-only call creeping into shared code
# is caught (issue 19, docs/seatbelt.md). The sources below are Linux's
# alone, each for its reason: what a macOS port replaces.
# Usage: check.sh CC [CFLAGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../src" && pwd)
cc=${1:-cc}
shift || true
declare -A linux_only=(
	[sandbox/request.c]="the bwrap plan: binds by O_PATH descriptor"
	[sandbox/seccomp.c]="the seccomp filter bwrap loads (memfd, linux/seccomp.h)"
	[sandbox/netd.c]="runs inside bwrap's network namespace (accept4, close_range)"
	[sandbox/bridge.c]="netd's control socket to vx (accept4)"
	[sandbox/proxy.c]="accepts with accept4(2)"
	[util/loop.c]="the event loop's signals arrive by signalfd"
	[util/fswatch.c]="vx watch hears the tree by inotify"
	[orchestrator/run/run.c]="a subreaper (prctl PR_SET_CHILD_SUBREAPER)"
)
flags=(-std=c11 -D_XOPEN_SOURCE=700 -U__linux__ -U__gnu_linux__ -DVX_VERSION='"0"'
	-include "$here/bsd_ext.h" -Wall -Wextra -Werror -Wno-unused-parameter -I"$src")
# glibc's own headers pull in these two on any program: not vx's doing
linux_headers='/(linux|asm)/|sys/(signalfd|epoll|inotify|prctl|syscall|mount|sendfile|sysmacros)\.h'
glibc_own='/linux/(errno|limits)\.h|/asm/errno|/asm-generic/errno'
failed=0 n=0
for path in "$src"/*/*.c "$src"/orchestrator/*/*.c; do
	f=${path#"$src"/}
	[ -z "${linux_only[$f]:-}" ] || continue
	n=$((n + 1))
	if ! "$cc" "${flags[@]}" "$@" -fsyntax-only "$path"; then
		echo "not POSIX-clean: src/$f" >&2
		failed=1
		continue
	fi
	hdrs=$("$cc" "${flags[@]}" "$@" -E "$path" | grep -oE '^# [0-9]+ "[^"]+"' |
		awk '{print $3}' | grep -E "$linux_headers" | grep -vE "$glibc_own" | sort -u || true)
	if [ -n "$hdrs" ]; then
		echo "src/$f includes Linux-only headers outside #ifdef __linux__: $hdrs" >&2
		failed=1
	fi
done
# The macOS seam is compiled nowhere else: here with __APPLE__ defined
# (against glibc's headers, with GNU names: what macOS's declare), so a
# typo or a missing include in it cannot wait for the first Mac.
for f in sandbox/seatbelt_darwin.c violations/seatbelt_reader.c orchestrator/cli/info.c; do
	if ! "$cc" -std=c11 -D_GNU_SOURCE -D__APPLE__ -DVX_VERSION='"0"' -Wall -Wextra -Werror \
		-Wno-unused-parameter -I"$src" "$@" -fsyntax-only "$src/$f"; then
		echo "does not compile as macOS would: src/$f" >&2
		failed=1
	fi
done
[ "$failed" -eq 0 ] && echo "posix: $n shared sources compile as a POSIX system that is not Linux; ${#linux_only[@]} are Linux's alone"
exit "$failed"
