#!/usr/bin/env bash
# install-deps.sh - installs everything vx needs to build, test and fuzz on
# Debian 12. Idempotent: when every package is already installed it touches
# nothing (no apt-get update), so scripts/demo.sh and scripts/test.sh can call
# it on every run for free.
set -euo pipefail

packages=(
	build-essential cmake ninja-build pkg-config git ca-certificates
	libyaml-dev libcjson-dev libxxhash-dev xxhash libzstd-dev zstd
	libcurl4-openssl-dev libssl-dev
	bubblewrap strace socat util-linux iproute2 procps curl
	jq python3 python3-yaml time graphviz
	zsh fish scdoc man-db
	clang libclang-rt-14-dev clang-format
)

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
# from npm themselves; npm is Debian's unless a node with npm is there.
if ! command -v npm >/dev/null 2>&1; then
	missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages already installed"
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
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
