#!/usr/bin/env bash
# release.sh - every artifact of a vx release, at the version of
# `project(vx VERSION ...)` in CMakeLists.txt, into dist/ (docs/install.md):
#
#   vx-VERSION-linux-ARCH.tar.gz   the portable tree (bin/vx, libexec/vx/,
#                                  share/: man pages, completions, docs),
#                                  built against Debian 11's glibc
#   vx_VERSION-1_ARCH.deb          the Debian 12 package (CPack)
#   vx-VERSION-linux-aarch64.tar.gz, vx_VERSION-1_arm64.deb
#                                  the same for arm64 (--only arm64): one
#                                  portable build, cross-compiled by clang
#                                  against a Debian 11 arm64 sysroot
#   *.tgz                          the npm packages (scripts/npm-pack.sh, of
#                                  both portable builds), when that script
#                                  exists
#   SHA256SUMS                     of the files above (sha256sum -c SHA256SUMS)
#
#   scripts/release.sh [--out DIR] [--only tarball|deb|arm64|npm]...
#
# Builds in build-dist/ (portable/, its sysroot/, deb/; arm64/, its
# sysroot-arm64/), again only what changed; one release.sh at a time per
# checkout (the install tests call it too). Needs root the first time (the
# Debian 11 sysroot is made by scripts/debian-root.sh, cached in
# /var/tmp/vx-roots-UID), clang, dpkg-dev, for arm64 (and npm) what
# `scripts/install-deps.sh cross` installs, and the Debian archive until
# the sysroots are made.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
out=$src/dist
only=()
while [ $# -gt 0 ]; do
	case $1 in
	--out)
		out=$2
		shift 2
		;;
	--only)
		case $2 in
		tarball | deb | arm64 | npm) only+=("$2") ;;
		*)
			echo "release.sh: --only takes tarball, deb, arm64 or npm" >&2
			exit 2
			;;
		esac
		shift 2
		;;
	*)
		echo "usage: scripts/release.sh [--out DIR] [--only tarball|deb|arm64|npm]..." >&2
		exit 2
		;;
	esac
done
if [ ${#only[@]} -eq 0 ]; then
	only=(tarball deb arm64)
	[ -f "$src/scripts/npm-pack.sh" ] && only+=(npm)
fi
wants() {
	[[ " ${only[*]} " == *" $1 "* ]]
}

version=$(sed -n 's/^[[:space:]]*project([[:space:]]*vx[[:space:]][^)]*VERSION[[:space:]]\{1,\}\([0-9][0-9.]*\).*/\1/p' \
	"$src/CMakeLists.txt" | head -n1)
[ -n "$version" ] || {
	echo "release.sh: no project(vx VERSION ...) in CMakeLists.txt" >&2
	exit 1
}
arch=$(uname -m)
jobs=$(nproc)
work=$src/build-dist
mkdir -p "$work" "$out"
out=$(cd "$out" && pwd)
exec 9>"$work/.lock"
flock 9

# The archives' times: the commit's, so that one commit makes the same bytes.
SOURCE_DATE_EPOCH=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH

step() {
	echo "== release.sh: $*" >&2
}

# apt_host ARGS...: apt-get on this machine's Debian release, from a state of
# its own in the roots' cache (indexes and downloads), with source indexes:
# the host's apt sources are left as they are.
apt_host() {
	local codename state
	codename=$(. /etc/os-release && [ "${ID:-}" = debian ] && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || {
		echo "release.sh: the portable build takes headers from Debian's packages: run it on Debian" >&2
		return 1
	}
	state=${VX_ROOTS:-/var/tmp/vx-roots-$(id -u)}/apt-$codename
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	local m=${VX_DEBIAN_MIRROR:-http://deb.debian.org/debian} k=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "deb [signed-by=$k] $m $codename main"
		echo "deb [signed-by=$k] ${m%/debian}/debian-security $codename-security main"
		echo "deb-src [signed-by=$k] $m $codename main"
		echo "deb-src [signed-by=$k] ${m%/debian}/debian-security $codename-security main"
	} >"$state/sources.list"
	apt-get -q -o Dir::Etc::SourceList="$state/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache" \
		-o APT::Sandbox::User="$(id -un)" "$@"
}

# Debian 11's packages a portable build links against, in both sysroots
sysroot_packages="libc6-dev libgcc-10-dev libyaml-dev libxxhash-dev libzstd-dev libncurses-dev"

# The sysroot the portable vx is built against (cmake/sysroot.cmake):
# Debian 11 with its glibc 2.31, GCC 10's runtime and the static libyaml,
# xxHash, zstd, ncursesw and libtinfo; from this machine's Debian, unpacked beside them, the
# headers of what vx opens at run time (libcurl 4, OpenSSL 3: Debian 11
# has OpenSSL 1.1), the kernel's headers (the ones every other build of
# vx sees), and cJSON's headers and source (Debian ships no libcjson.a).
sysroot() {
	local root=$work/sysroot tar stamp
	tar=$(bash "$src/scripts/debian-root.sh" make bullseye \
		--install "$sysroot_packages")
	stamp="$tar $(stat -c %Y "$tar")"
	if [ -f "$root/.vx-sysroot" ] && [ "$(cat "$root/.vx-sysroot")" = "$stamp" ]; then
		return 0
	fi
	step "sysroot: $tar"
	rm -rf "$root" "$work/sysroot-debs"
	mkdir -p "$root" "$work/sysroot-debs"
	tar -C "$root" -xf "$tar"
	apt_host update >/dev/null
	(cd "$work/sysroot-debs" &&
		apt_host download libcurl4-openssl-dev libssl-dev libcjson-dev linux-libc-dev >/dev/null)
	local deb
	for deb in "$work/sysroot-debs"/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	cjson_source "$root" "$(dpkg-deb -f "$work/sysroot-debs"/libcjson-dev_*.deb Version)"
	# An absolute link (/usr/lib64/ld-linux-x86-64.so.2 ->
	# /lib/x86_64-linux-gnu/ld-2.31.so) would name this machine's file.
	local l
	(cd "$root" && find usr/lib usr/lib64 usr/include -xdev -type l -lname '/*' -print0) |
		while IFS= read -r -d '' l; do
			ln -sfr "$root$(readlink "$root/$l")" "$root/$l"
		done
	rm -rf "$work/sysroot-debs"
	echo "$stamp" >"$root/.vx-sysroot"
}

# cjson_source ROOT VERSION: cJSON.c and cJSON.h of Debian's cjson VERSION
# (the version of the headers in ROOT) into ROOT/usr/src/cjson.
cjson_source() {
	local dir=$work/cjson-source
	rm -rf "$dir"
	mkdir -p "$dir" "$1/usr/src/cjson"
	(cd "$dir" && apt_host source "cjson=$2" >/dev/null 2>&1) || {
		echo "release.sh: apt-get source cjson=$2 failed" >&2
		return 1
	}
	cp "$dir"/cjson-*/cJSON.[ch] "$1/usr/src/cjson/"
	rm -rf "$dir"
}

# The arm64 sysroot, as the x86_64 one: Debian 11's arm64 glibc, GCC 10's
# runtime and static libraries (ncursesw and libtinfo among them), with Debian 12's arm64 headers of libcurl,
# OpenSSL 3, cJSON and the kernel. Not a debootstrap root (an arm64 one
# could not run its maintainer scripts here without binfmt's qemu) nor
# multiarch (the host's arm64 -dev packages are Debian 12's, glibc 2.36: a
# floor of GLIBC_2.34, and a change to the machine's dpkg): the packages'
# files, unpacked by scripts/debian-root.sh files, which needs no root.
sysroot_arm64() {
	local root=$work/sysroot-arm64 base heads stamp
	base=$(bash "$src/scripts/debian-root.sh" files bullseye arm64 --deps "$sysroot_packages")
	heads=$(bash "$src/scripts/debian-root.sh" files bookworm arm64 \
		"libcurl4-openssl-dev libssl-dev libcjson-dev linux-libc-dev")
	stamp="$base $(stat -c %Y "$base") $heads $(stat -c %Y "$heads")"
	if [ -f "$root/.vx-sysroot" ] && [ "$(cat "$root/.vx-sysroot")" = "$stamp" ]; then
		return 0
	fi
	step "sysroot-arm64: $base, $heads"
	rm -rf "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$base"
	tar -C "$root" -xf "$heads" --exclude=./.vx-packages
	cjson_source "$root" "$(tar -xOf "$heads" ./.vx-packages | sed -n 's/^libcjson-dev //p')"
	echo "$stamp" >"$root/.vx-sysroot"
}

# configure_build DIR CMAKE-ARGS...: configures DIR (once) and builds what
# `cmake --install` installs: vx, its init, the completions, the man pages.
configure_build() {
	local dir=$1
	shift
	cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON "$@" >/dev/null
	local targets=(vx vx-sandbox-init vx-completions)
	if cmake --build "$dir" --target help | grep '\bvx-man\b' >/dev/null; then
		targets+=(vx-man)
	fi
	cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >"$dir/build.log" 2>&1 || {
		tail -n 40 "$dir/build.log" >&2
		return 1
	}
}

made=()

# tarball BUILD ARCH STRIP: vx-VERSION-linux-ARCH.tar.gz of BUILD's install
# tree into OUT.
tarball() {
	local name=vx-$version-linux-$2 stage=$work/stage
	rm -rf "$stage"
	cmake --install "$1" --prefix "$stage/vx-$version" >/dev/null
	# binutils' strip: clang's toolchain names llvm-strip, and llvm-strip 14
	# refuses the static init ("Link field value 27 in section .rela.plt is
	# not a symbol table")
	"$3" "$stage/vx-$version/bin/vx" "$stage/vx-$version/libexec/vx/vx-sandbox-init"
	for f in LICENSE LICENSE.md COPYING; do
		[ -f "$src/$f" ] && cp "$src/$f" "$stage/vx-$version/"
	done
	tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="@$SOURCE_DATE_EPOCH" -cf - "vx-$version" | gzip -n9 >"$out/$name.tar.gz"
	rm -rf "$stage"
	made+=("$name.tar.gz")
}

# cpack_deb BUILD: its .deb (CPack, cmake/package.cmake) into OUT, named
# in $deb.
cpack_deb() {
	rm -f "$1"/vx_*.deb
	(cd "$1" && cpack -G DEB >cpack.log 2>&1) || {
		tail -n 20 "$1/cpack.log" >&2
		return 1
	}
	deb=$(cd "$1" && ls vx_"$version"-*.deb)
	mv "$1/$deb" "$out/"
	made+=("$deb")
}

if wants tarball || wants npm; then
	SECONDS=0
	sysroot
	configure_build "$work/portable" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/sysroot.cmake" \
		-DVX_SYSROOT="$work/sysroot" -DVX_PORTABLE=ON -DVX_CJSON_SOURCE="$work/sysroot/usr/src/cjson"
	# The glibc floor: the newest symbol version vx asks of it.
	floor=$(objdump -T "$work/portable/vx" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1)
	step "portable vx built in ${SECONDS}s; needs $floor"
fi

if wants tarball; then
	SECONDS=0
	tarball "$work/portable" "$arch" strip
	step "$out/vx-$version-linux-$arch.tar.gz in ${SECONDS}s"
fi

# arm64: needed by the npm packages too (the main one names both platforms)
if wants arm64 || wants npm; then
	SECONDS=0
	for tool in ninja qemu-aarch64 aarch64-linux-gnu-ld aarch64-linux-gnu-strip aarch64-linux-gnu-objdump clang; do
		command -v "$tool" >/dev/null || {
			echo "release.sh: the arm64 build needs $tool: scripts/install-deps.sh cross" >&2
			exit 1
		}
	done
	sysroot_arm64
	step "arm64 sysroot ready in ${SECONDS}s"
	SECONDS=0
	# prefix /usr for the .deb; the tarball is installed with --prefix.
	# Ninja: t0530 builds the unit tests in this tree, and make, asked
	# for 52 of them by name, took 70 s to find nothing to do (Ninja 0.2 s).
	configure_build "$work/arm64" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
		-DVX_SYSROOT="$work/sysroot-arm64" -DVX_PORTABLE=ON \
		-DVX_CJSON_SOURCE="$work/sysroot-arm64/usr/src/cjson" -DCMAKE_INSTALL_PREFIX=/usr
	floor=$(aarch64-linux-gnu-objdump -T "$work/arm64/vx" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1)
	step "arm64 vx built in ${SECONDS}s; needs $floor"
fi

if wants arm64; then
	SECONDS=0
	tarball "$work/arm64" aarch64 aarch64-linux-gnu-strip
	cpack_deb "$work/arm64"
	step "$out/vx-$version-linux-aarch64.tar.gz, $out/$deb in ${SECONDS}s"
fi

if wants deb; then
	SECONDS=0
	configure_build "$work/deb" -DCMAKE_INSTALL_PREFIX=/usr
	cpack_deb "$work/deb"
	step "$out/$deb in ${SECONDS}s"
fi

if wants npm; then
	SECONDS=0
	[ -f "$src/scripts/npm-pack.sh" ] || {
		echo "release.sh: no scripts/npm-pack.sh" >&2
		exit 1
	}
	while IFS= read -r tgz; do
		made+=("$(basename "$tgz")")
	done < <(bash "$src/scripts/npm-pack.sh" --with "$work/arm64" "$work/portable" "$out" "$version")
	step "npm packages in ${SECONDS}s"
fi

# SHA256SUMS: what this run made, and what an earlier run left in OUT (a
# --only run adds to the list, and drops only a file that is gone)
(
	cd "$out"
	{
		if [ -f SHA256SUMS ]; then
			while read -r sum file; do
				[[ " ${made[*]} " == *" $file "* ]] || [ ! -f "$file" ] || echo "$sum  $file"
			done <SHA256SUMS
		fi
		sha256sum "${made[@]}"
	} | sort -k2 >SHA256SUMS.tmp
	mv SHA256SUMS.tmp SHA256SUMS
)
for f in "${made[@]}" SHA256SUMS; do
	echo "$out/$f"
done
