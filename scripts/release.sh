#!/usr/bin/env bash
# release.sh - every artifact of a vx release, at the version of
# `project(vx VERSION ...)` in CMakeLists.txt, into dist/ (docs/install.md):
#
#   vx-VERSION-linux-ARCH.tar.gz   the portable tree (bin/vx, libexec/vx/,
#                                  share/: man pages, completions, docs),
#                                  built against Debian 11's glibc
#   vx_VERSION-1_ARCH.deb          the Debian 12 package (CPack)
#   *.tgz                          the npm packages (scripts/npm-pack.sh, of
#                                  the portable build), when that script exists
#   SHA256SUMS                     of the files above (sha256sum -c SHA256SUMS)
#
#   scripts/release.sh [--out DIR] [--only tarball|deb|npm]...
#
# Builds in build-dist/ (portable/, its sysroot/, deb/), again only what
# changed; one release.sh at a time per checkout (the install tests call it
# too). Needs root the first time (the Debian 11 sysroot is made by
# scripts/debian-root.sh, cached in /var/tmp/vx-roots-UID), clang, dpkg-dev,
# and the Debian archive until the sysroot is made.
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
		tarball | deb | npm) only+=("$2") ;;
		*)
			echo "release.sh: --only takes tarball, deb or npm" >&2
			exit 2
			;;
		esac
		shift 2
		;;
	*)
		echo "usage: scripts/release.sh [--out DIR] [--only tarball|deb|npm]..." >&2
		exit 2
		;;
	esac
done
if [ ${#only[@]} -eq 0 ]; then
	only=(tarball deb)
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

# The sysroot the portable vx is built against (cmake/sysroot.cmake):
# Debian 11 with its glibc 2.31, GCC 10's runtime and the static libyaml,
# xxHash, zstd, ncursesw and libtinfo; from this machine's Debian, unpacked beside them, the
# headers of what vx opens at run time (libcurl 4, OpenSSL 3: Debian 11
# has OpenSSL 1.1), the kernel's headers (the ones every other build of
# vx sees), and cJSON's headers and source (Debian ships no libcjson.a).
sysroot() {
	local root=$work/sysroot tar stamp
	tar=$(bash "$src/scripts/debian-root.sh" make bullseye \
		--install "libc6-dev libgcc-10-dev libyaml-dev libxxhash-dev libzstd-dev libncurses-dev")
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
	local deb cjson
	for deb in "$work/sysroot-debs"/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	cjson=$(dpkg-deb -f "$work/sysroot-debs"/libcjson-dev_*.deb Version)
	mkdir -p "$root/usr/src/cjson"
	(cd "$work/sysroot-debs" && apt_host source "cjson=$cjson" >/dev/null 2>&1) || {
		echo "release.sh: apt-get source cjson=$cjson failed" >&2
		return 1
	}
	cp "$work/sysroot-debs"/cjson-*/cJSON.[ch] "$root/usr/src/cjson/"
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
	name=vx-$version-linux-$arch
	stage=$work/stage
	rm -rf "$stage"
	cmake --install "$work/portable" --prefix "$stage/vx-$version" >/dev/null
	# binutils' strip: clang's toolchain names llvm-strip, and llvm-strip 14
	# refuses the static init ("Link field value 27 in section .rela.plt is
	# not a symbol table")
	strip "$stage/vx-$version/bin/vx" "$stage/vx-$version/libexec/vx/vx-sandbox-init"
	for f in LICENSE LICENSE.md COPYING; do
		[ -f "$src/$f" ] && cp "$src/$f" "$stage/vx-$version/"
	done
	tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="@$SOURCE_DATE_EPOCH" -cf - "vx-$version" | gzip -n9 >"$out/$name.tar.gz"
	rm -rf "$stage"
	made+=("$name.tar.gz")
	step "$out/$name.tar.gz in ${SECONDS}s"
fi

if wants deb; then
	SECONDS=0
	configure_build "$work/deb" -DCMAKE_INSTALL_PREFIX=/usr
	rm -f "$work/deb"/vx_*.deb
	(cd "$work/deb" && cpack -G DEB >cpack.log 2>&1) || {
		tail -n 20 "$work/deb/cpack.log" >&2
		exit 1
	}
	deb=$(cd "$work/deb" && ls vx_"$version"-*.deb)
	mv "$work/deb/$deb" "$out/"
	made+=("$deb")
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
	done < <(bash "$src/scripts/npm-pack.sh" "$work/portable" "$out" "$version")
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
