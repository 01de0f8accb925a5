#!/usr/bin/env bash
# npm-pack.sh - the npm tarballs of vx (docs/npm.md) from built trees.
#
#   scripts/npm-pack.sh [--with BUILD_DIR]... BUILD_DIR OUT_DIR [VERSION]
#
# Each BUILD_DIR holds a built vx and vx-sandbox-init; the platform package
# of its architecture (read from vx's ELF header: x86-64 is linux-x64,
# AArch64 linux-arm64) gets both, stripped, in its bin/. --with adds the
# build of another architecture (an arm64 build beside the host's x64 one).
# The main package @vx-build/vx lists, as optionalDependencies, exactly the
# platform packages packed here, at the same version: a main package never
# names one that was not made with it. VERSION defaults to the one of
# `project(vx VERSION ...)` in CMakeLists.txt. `npm pack` writes each
# tarball into OUT_DIR, the platform packages first (the order to publish
# them in); their paths are printed one per line.
set -euo pipefail

usage() {
	echo "usage: scripts/npm-pack.sh [--with BUILD_DIR]... BUILD_DIR OUT_DIR [VERSION]" >&2
	exit 2
}

src=$(cd "$(dirname "$0")/.." && pwd)
builds=()
while [ $# -gt 0 ]; do
	case $1 in
	--with)
		[ $# -ge 2 ] || usage
		builds+=("$2")
		shift 2
		;;
	-h | --help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] && [ $# -le 3 ] || usage
builds=("$1" "${builds[@]}")
out=$2
version=${3:-}

if [ -z "$version" ]; then
	version=$(sed -n 's/^[[:space:]]*project([[:space:]]*vx[[:space:]][^)]*VERSION[[:space:]]\{1,\}\([0-9][0-9.]*\).*/\1/p' \
		"$src/CMakeLists.txt" | head -n1)
	if [ -z "$version" ]; then
		echo "npm-pack.sh: no project(vx VERSION ...) in $src/CMakeLists.txt: give the VERSION" >&2
		exit 2
	fi
fi
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "npm-pack.sh: $version is not a version npm takes (MAJOR.MINOR.PATCH[-PRE])" >&2
	exit 2
fi
for tool in node npm; do
	command -v $tool >/dev/null || {
		echo "npm-pack.sh: $tool is needed (npm pack)" >&2
		exit 2
	}
done

# The npm cpu name of an ELF executable, from its e_machine.
elf_arch() {
	local magic class machine
	magic=$(od -An -tx1 -N4 "$1" | tr -d ' \n')
	class=$(od -An -tu1 -j4 -N1 "$1" | tr -d ' ')
	machine=$(od -An -tu2 -j18 -N2 --endian=little "$1" | tr -d ' ')
	if [ "$magic" != 7f454c46 ] || [ "$class" != 2 ]; then
		echo "npm-pack.sh: $1 is not a 64-bit ELF executable" >&2
		return 1
	fi
	case $machine in
	62) echo x64 ;;
	183) echo arm64 ;;
	*)
		echo "npm-pack.sh: $1 is for ELF machine $machine: no npm package for it" >&2
		return 1
		;;
	esac
}

# A strip that reads ARCH's ELF files: the host's for its own architecture.
strip_for() {
	local host triple
	case $(uname -m) in
	x86_64) host=x64 ;;
	aarch64) host=arm64 ;;
	*) host= ;;
	esac
	if [ "$1" = "$host" ] && command -v strip >/dev/null; then
		echo strip
		return
	fi
	case $1 in
	x64) triple=x86_64-linux-gnu ;;
	arm64) triple=aarch64-linux-gnu ;;
	esac
	for s in "$triple-strip" llvm-strip; do
		if command -v "$s" >/dev/null; then
			echo "$s"
			return
		fi
	done
	echo "npm-pack.sh: no strip for $1 ($triple-strip or llvm-strip)" >&2
	return 1
}

# json_set FILE VERSION [PKG...]: the version, and when PKGs are given the
# optionalDependencies, each at that version.
json_set() {
	node -e '
		const fs = require("fs");
		const [file, version, ...deps] = process.argv.slice(1);
		const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
		pkg.version = version;
		if (pkg.optionalDependencies) {
			pkg.optionalDependencies = {};
			for (const d of deps) pkg.optionalDependencies[d] = version;
		}
		fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
	' "$@"
}

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/vx-npm-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT

platforms=()
for b in "${builds[@]}"; do
	for f in vx vx-sandbox-init; do
		if [ ! -x "$b/$f" ]; then
			echo "npm-pack.sh: no $f in $b (build it: cmake --build $b)" >&2
			exit 2
		fi
	done
	arch=$(elf_arch "$b/vx")
	init_arch=$(elf_arch "$b/vx-sandbox-init")
	if [ "$init_arch" != "$arch" ]; then
		echo "npm-pack.sh: $b/vx is $arch, its vx-sandbox-init $init_arch" >&2
		exit 2
	fi
	case " ${platforms[*]} " in
	*" linux-$arch "*)
		echo "npm-pack.sh: two builds for linux-$arch" >&2
		exit 2
		;;
	esac
	platforms+=("linux-$arch")
	strip=$(strip_for "$arch")
	dir=$stage/linux-$arch
	cp -r "$src/npm/linux-$arch" "$dir"
	mkdir -p "$dir/bin"
	for f in vx vx-sandbox-init; do
		"$strip" -o "$dir/bin/$f" "$b/$f"
		chmod 755 "$dir/bin/$f"
	done
	# What a user's machine must have besides glibc: a portable build
	# (issue 55 item 2) links the rest in; a plain one does not.
	if command -v readelf >/dev/null; then
		libs=$(readelf -d "$dir/bin/vx" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
			grep -v -E '^(libc|libm|libdl|libpthread|librt|ld-linux[^.]*)\.so' | tr '\n' ' ' || true)
		if [ -n "$libs" ]; then
			echo "npm-pack.sh: warning: $b/vx needs ${libs% }: a machine without them cannot run it" >&2
		fi
	fi
	json_set "$dir/package.json" "$version"
done

names=()
for p in "${platforms[@]}"; do
	names+=("@vx-build/$p")
done
cp -r "$src/npm/vx" "$stage/vx"
json_set "$stage/vx/package.json" "$version" "${names[@]}"

for p in "${platforms[@]}" vx; do
	file=$(cd "$stage/$p" && npm pack --silent --ignore-scripts --pack-destination "$out" | tail -n1)
	echo "$out/$file"
done
