#!/bin/bash
# check.sh - compiles the sources macOS shares with Linux (the Seatbelt
# profile and log parser, the grants, walls and judge they use, and the
# utilities under them) as strict POSIX.1-2008 with XSI, without
# _GNU_SOURCE, plus only the BSD extensions of bsd_ext.h: a Linux-only
# call that creeps into shared code fails here (issue 19; no Mac builds
# vx's CI, docs/seatbelt.md). Usage: check.sh CC [CFLAGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../src" && pwd)
cc=${1:-cc}
shift || true
shared=(
	sandbox/seatbelt.c sandbox/grants.c sandbox/walls.c
	sandbox/denies.c sandbox/env.c
	violations/seatbelt_log.c violations/judge.c
	util/glob.c util/path.c util/strbuf.c util/vec.c util/die.c util/strmap.c
)
failed=0
for f in "${shared[@]}"; do
	if ! "$cc" -std=c11 -D_XOPEN_SOURCE=700 -include "$here/bsd_ext.h" -Wall -Wextra -Werror \
		-Wno-unused-parameter -fsyntax-only -I"$src" "$@" "$src/$f"; then
		echo "not POSIX-clean: src/$f" >&2
		failed=1
	fi
done
[ "$failed" -eq 0 ] && echo "posix: ${#shared[@]} shared sources compile as strict POSIX"
exit "$failed"
