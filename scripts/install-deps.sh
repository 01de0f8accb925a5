#!/usr/bin/env bash
# install-deps.sh - installs what vx needs on Debian 12, by purpose:
#
#   scripts/install-deps.sh build   building vx (and `cmake --install`): a C
#                                   compiler, CMake, pkg-config, the -dev
#                                   packages, scdoc for the man pages
#   scripts/install-deps.sh test    building and everything scripts/test.sh,
#                                   scripts/release.sh and the tests run:
#                                   bwrap and strace, clang and its
#                                   sanitizers, clang-format, the shells,
#                                   debootstrap, dpkg-dev, node and npm, ...
#   scripts/install-deps.sh         both (the Quick start's demo.sh, test.sh)
#   scripts/install-deps.sh cross   the arm64 build (scripts/release.sh
#                                   --only arm64, tests/unsafe/t0530-arm64.sh,
#                                   which installs it itself when missing):
#                                   clang, ninja, Debian's arm64 binutils (the
#                                   linker, strip, objdump) and qemu-user,
#                                   which runs arm64 programs here; not in
#                                   build or test: a developer who never
#                                   builds for arm64 needs none of it
#
# Idempotent: when every package is already installed it touches nothing
# (no apt-get update), so demo.sh and test.sh can call it on every run for
# free.
set -euo pipefail

what=${1:-all}

build=(
	build-essential cmake pkg-config git ca-certificates
	libyaml-dev libcjson-dev libxxhash-dev libzstd-dev
	# the terminal UI (src/orchestrator/run/tui.c): ncursesw and libtinfo
	libncurses-dev
	# headers only: vx opens libcurl and libcrypto at first use
	libcurl4-openssl-dev libssl-dev
	scdoc
)
test=(
	ninja-build xxhash zstd
	# the sandbox, and the tests' own servers and clients (socat)
	bubblewrap strace socat util-linux iproute2 procps curl
	jq python3 python3-yaml time graphviz tmux
	# completion and man page tests
	zsh fish man-db
	# the sanitizer, fuzzer and Release builds, the format check
	clang libclang-rt-14-dev clang-format
	# scripts/release.sh (the portable build is clang's; the .deb's
	# dependencies and cJSON's source come by dpkg-dev) and the install
	# tests' clean roots (t0510, t0520)
	debootstrap dpkg-dev binutils
	# t0396 skews vx's clock against the file system's
	faketime
)
# qemu-user, not qemu-user-static: the same qemu-aarch64 (12 MB to download
# against 63 MB), and nothing registered with binfmt_misc (the arm64
# programs are run by name: qemu-aarch64 -L ROOT PROGRAM)
cross=(clang ninja-build binutils-aarch64-linux-gnu qemu-user)

case $what in
build) packages=("${build[@]}") ;;
test | all) packages=("${build[@]}" "${test[@]}") ;;
cross) packages=("${cross[@]}") ;;
*)
	echo "usage: scripts/install-deps.sh [build|test|cross]" >&2
	exit 2
	;;
esac

# dpkg-query prints "installed" only for a package that is fully unpacked and
# configured; a half-installed or removed-but-configured one must be redone.
missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	if [ "$status" != installed ]; then
		missing+=("$p")
	fi
done

# The real-build tests (tests/unsafe/t0330-realbuild.sh) install TypeScript
# from npm themselves, and release.sh packs the npm packages; npm is
# Debian's unless a node with npm is there.
if [ "$what" != build ] && [ "$what" != cross ] && ! command -v npm >/dev/null 2>&1; then
	missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages ($what) already installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo -E bash "$0" "$@"
	fi
	echo "install-deps: missing ${missing[*]}; run as root (or install sudo)" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# another apt (a test's own install, a parallel job) may hold dpkg's lock
apt-get -o DPkg::Lock::Timeout=600 update
apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}"
