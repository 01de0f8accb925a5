#!/usr/bin/env bash
# debian-root.sh - clean Debian roots, made once per machine and cached, for
# the release's build (scripts/release.sh) and the install tests
# (tests/unsafe/t0510-deb.sh, t0520-portable.sh).
#
#   scripts/debian-root.sh make SUITE [--install PKGS] [--download PKGS]
#       Prints the path of a tarball of a `debootstrap --variant=minbase`
#       root of SUITE (bullseye, bookworm, trixie), its apt sources the
#       suite's own, -updates and -security, their indexes fetched. PKGS
#       (a space-separated list) are installed in it (--install), or only
#       downloaded into apt's cache (--download), so that the test's own
#       `apt-get install` needs no network once the root is made. Made when
#       absent or older than VX_ROOT_MAX_DAYS (30) days: an old root's cached
#       packages install as well, but its indexes name versions the archive
#       has dropped.
#       Each is made from SUITE's base root (below), itself made once.
#   scripts/debian-root.sh base SUITE...
#       Makes each SUITE's base root ahead of need: debootstrap, the
#       sources, the indexes and the upgrade, the slow part of every root
#       of the suite (scripts/test.sh starts it in the background on a
#       fresh machine, while vx builds and the other tests run).
#   scripts/debian-root.sh files SUITE ARCH [--deps] PKGS
#       Prints the path of a tarball of the files of PKGS (a space-separated
#       list; with --deps, and of every package they depend on) for ARCH
#       (arm64, amd64) from SUITE, its -updates and -security: each .deb
#       unpacked (dpkg-deb -x), nothing configured, no maintainer script
#       run, so no emulator and no root are needed. A sysroot to build
#       against, or the libraries qemu-user's -L runs a program with
#       (scripts/release.sh, tests/unsafe/t0530-arm64.sh); not a system to
#       run. Its ./.vx-packages lists "PACKAGE VERSION" of each. apt works
#       on a state of its own (an empty dpkg status, ARCH its only
#       architecture) beside the roots: this machine's apt is not touched.
#       When the mirror fails SUITE-security's packages (this machine's
#       proxy answers 404 for bullseye-security's arm64 ones), the
#       point release's are taken, and it says so. Made again after
#       VX_ROOT_MAX_DAYS, as a root.
#   scripts/debian-root.sh run ROOT [--user USER] [--env VAR=VALUE]... -- CMD...
#       Runs CMD in the unpacked root ROOT, as root or as USER (made when
#       absent), ROOT being mounted as / by bwrap, with this machine's
#       /proc, network and resolv.conf and a /dev: bwrap rather than chroot,
#       so that a sandbox inside (vx's bwrap) can make its user namespaces,
#       which the kernel refuses a chrooted process (unshare(2): EPERM); the
#       host's /proc, not a new one, which bwrap covers in part (/proc/sys),
#       and the kernel then refuses the sandbox inside a /proc of its own
#       ("Can't mount proc on /newroot/proc: Operation not permitted").
#
# The cache is /var/tmp/vx-roots-UID (VX_ROOTS overrides it); debootstrap
# and apt need root. The Debian archive is deb.debian.org (VX_DEBIAN_MIRROR).
set -euo pipefail

roots=${VX_ROOTS:-/var/tmp/vx-roots-$(id -u)}
mirror=${VX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${mirror%/debian}/debian-security
max_days=${VX_ROOT_MAX_DAYS:-30}

die() {
	echo "debian-root.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '6,48p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# in_root ROOT CMD...: CMD as root in ROOT (see the header).
in_root() {
	local root=$1
	shift
	bwrap --bind "$root" / --bind /proc /proc --dev /dev \
		--ro-bind /etc/resolv.conf /etc/resolv.conf \
		--unshare-ipc --unshare-uts --hostname vx-root \
		--die-with-parent --cap-add ALL \
		--clearenv --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		--setenv HOME /root --setenv LC_ALL C.UTF-8 --setenv DEBIAN_FRONTEND noninteractive \
		"$@"
}

# base_tar SUITE: the path of SUITE's base root (minbase, its sources,
# upgraded, apt's cache empty), made when absent or older than max_days;
# the slow part of every root of SUITE (debootstrap: minutes on a fresh
# machine), made once for all of them, and ahead of need by `base`.
base_tar() {
	local suite=$1 tar=$roots/$1-base.tar
	mkdir -p "$roots"
	(
		flock 9
		if [ -f "$tar" ] && [ -z "$(find "$tar" -mtime +"$max_days")" ]; then
			exit 0
		fi
		local dir=$roots/$suite-base.tmp
		rm -rf "$dir"
		echo "debian-root.sh: making $tar (debootstrap $suite)" >&2
		# debootstrap's downloads kept per suite: made again after
		# max_days, the base fetches only what changed
		mkdir -p "$roots/debs-$suite"
		debootstrap --variant=minbase --cache-dir="$roots/debs-$suite" "$suite" "$dir" "$mirror" \
			>"$dir.log" 2>&1 ||
			{ tail -n 20 "$dir.log" >&2; die "debootstrap $suite failed (log: $dir.log)"; }
		{
			echo "deb $mirror $suite main"
			echo "deb $mirror $suite-updates main"
			echo "deb $security $suite-security main"
		} >"$dir/etc/apt/sources.list"
		rm -rf "$dir/etc/apt/sources.list.d"/*
		# The security updates as a user's system has them; a package the
		# mirror lacks (this machine's proxy answered 404 for a few) is
		# held back rather than failing the root.
		in_root "$dir" sh -ec "
			apt-get update -q
			apt-get upgrade -y -q --fix-missing || echo 'debian-root.sh: upgrade incomplete'
			apt-get clean -q
		" >>"$dir.log" 2>&1 ||
			{ tail -n 20 "$dir.log" >&2; die "apt-get in the $suite root failed (log: $dir.log)"; }
		tar -C "$dir" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
		rm -rf "$dir" "$dir.log"
	) 9>"$roots/$suite-base.lock" || exit 1
	echo "$tar"
}

need_root_tools() {
	[ "$(id -u)" = 0 ] || die "making a root needs root (debootstrap, apt-get)"
	command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
	command -v bwrap >/dev/null || die "bwrap is not installed (apt-get install bubblewrap)"
}

cmd_base() {
	need_root_tools
	local suite
	for suite in "$@"; do
		base_tar "$suite" >/dev/null
	done
}

cmd_make() {
	local suite=$1 install="" download=""
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--install)
			install=$2
			shift 2
			;;
		--download)
			download=$2
			shift 2
			;;
		*) usage ;;
		esac
	done
	need_root_tools

	# one tarball per suite and package lists, from the suite's base
	local key tar base
	key=$(printf '%s\n' "$suite" "$install" "$download" | sha256sum | cut -c1-8)
	tar=$roots/$suite-$key.tar
	mkdir -p "$roots"
	# a root no longer asked for (another package list) goes when it would
	# have been made again
	find "$roots" -maxdepth 1 -name '*.tar' -mtime +"$max_days" -delete
	(
		flock 9
		if [ -f "$tar" ] && [ -z "$(find "$tar" -mtime +"$max_days")" ]; then
			exit 0
		fi
		base=$(base_tar "$suite")
		local dir=$roots/$suite-$key.tmp
		rm -rf "$dir"
		echo "debian-root.sh: making $tar ($suite${install:+, installing $install}${download:+, downloading $download})" >&2
		mkdir -p "$dir"
		tar -C "$dir" -xf "$base"
		in_root "$dir" sh -ec "
			${install:+apt-get install -y -q --no-install-recommends $install}
			apt-get clean -q
			${download:+apt-get install -y -q --download-only $download}
		" >"$dir.log" 2>&1 ||
			{ tail -n 20 "$dir.log" >&2; die "apt-get in the $suite root failed (log: $dir.log)"; }
		tar -C "$dir" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
		rm -rf "$dir" "$dir.log"
	) 9>"$roots/$suite-$key.lock" || exit 1
	echo "$tar"
}

# apt_files STATE SUITE ARCH SECURITY ARGS...: apt-get for ARCH's packages of
# SUITE on the state STATE (sources, indexes, downloads, an empty dpkg
# status), with SUITE-security when SECURITY is 1.
apt_files() {
	local state=$1 suite=$2 arch=$3 sec=$4 k=/usr/share/keyrings/debian-archive-keyring.gpg
	shift 4
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	: >"$state/status"
	{
		echo "deb [signed-by=$k] $mirror $suite main"
		echo "deb [signed-by=$k] $mirror $suite-updates main"
		[ "$sec" = 0 ] || echo "deb [signed-by=$k] $security $suite-security main"
	} >"$state/sources.list"
	apt-get -q -o Dir::Etc::SourceList="$state/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts=/nonexistent \
		-o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache" \
		-o Dir::State::status="$state/status" -o APT::Architecture="$arch" \
		-o APT::Architectures::="$arch" -o APT::Sandbox::User="$(id -un)" "$@"
}

cmd_files() {
	[ $# -ge 3 ] || usage
	local suite=$1 arch=$2 deps=0
	shift 2
	if [ "$1" = --deps ]; then
		deps=1
		shift
	fi
	[ $# -eq 1 ] || usage
	local pkgs=$1
	command -v dpkg-deb >/dev/null || die "dpkg-deb is not installed"
	local key tar
	key=$(printf '%s\n' files "$suite" "$arch" "$deps" "$pkgs" | sha256sum | cut -c1-8)
	tar=$roots/$suite-$arch-files-$key.tar
	mkdir -p "$roots"
	find "$roots" -maxdepth 1 -name '*.tar' -mtime +"$max_days" -delete
	(
		flock 9
		if [ -f "$tar" ] && [ -z "$(find "$tar" -mtime +"$max_days")" ]; then
			exit 0
		fi
		local state=$roots/apt-$suite-$arch dir=$roots/$suite-$arch-files-$key.tmp
		local log=$dir.log sec=1
		rm -rf "$dir" "$state/cache/archives"/*.deb
		mkdir -p "$dir"
		local what="the files of $pkgs"
		[ "$deps" = 0 ] || what="$what and their dependencies"
		echo "debian-root.sh: making $tar ($what, $suite $arch)" >&2
		# shellcheck disable=SC2086 # PKGS: a list
		get() {
			apt_files "$state" "$suite" "$arch" "$sec" update >>"$log" 2>&1 || return
			if [ "$deps" = 1 ]; then
				apt_files "$state" "$suite" "$arch" "$sec" install -y --download-only \
					--no-install-recommends $pkgs >>"$log" 2>&1
			else
				(cd "$dir" && apt_files "$state" "$suite" "$arch" "$sec" download $pkgs >>"$log" 2>&1)
			fi
		}
		if ! get; then
			sec=0
			echo "debian-root.sh: warning: $suite-security failed for $arch ($(grep -m1 '^E: ' "$log" || tail -n1 "$log")): $suite and $suite-updates alone" >&2
			rm -f "$dir"/*.deb "$state/cache/archives"/*.deb
			get || { tail -n 20 "$log" >&2; die "apt-get for $suite $arch failed (log: $log)"; }
		fi
		if [ "$deps" = 1 ]; then
			mv "$state/cache/archives"/*.deb "$dir/"
		fi
		local deb
		for deb in "$dir"/*.deb; do
			dpkg-deb -x "$deb" "$dir" || die "dpkg-deb -x $deb failed"
			dpkg-deb -f "$deb" Package Version | paste -d' ' - - | sed 's/^Package: //; s/ Version: / /' \
				>>"$dir/.vx-packages"
		done
		rm -f "$dir"/*.deb
		sort -o "$dir/.vx-packages" "$dir/.vx-packages"
		# an absolute link (libm.so -> /lib/aarch64-linux-gnu/libm.so.6) would
		# name this machine's file: made relative, inside the tree
		local l
		(cd "$dir" && find . -xdev -type l -lname '/*' -print0) |
			while IFS= read -r -d '' l; do
				ln -sfnr "$dir$(readlink "$dir/$l")" "$dir/$l"
			done
		tar -C "$dir" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
		rm -rf "$dir" "$log"
	) 9>"$roots/$suite-$arch-files-$key.lock"
	echo "$tar"
}

cmd_run() {
	local root=$1 user="" envs=()
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--user)
			user=$2
			shift 2
			;;
		--env)
			envs+=(--setenv "${2%%=*}" "${2#*=}")
			shift 2
			;;
		--)
			shift
			break
			;;
		*) usage ;;
		esac
	done
	[ $# -gt 0 ] || usage
	[ -d "$root/etc" ] || die "$root is not an unpacked root"
	if [ -z "$user" ]; then
		in_root "$root" "${envs[@]}" "$@"
		return
	fi
	# a user of the root's own, with a home: vx and its sandbox as a
	# person runs them, never as root
	if ! grep -q "^$user:" "$root/etc/passwd"; then
		in_root "$root" useradd --create-home --shell /bin/bash "$user"
	fi
	in_root "$root" --setenv HOME "/home/$user" --setenv USER "$user" "${envs[@]}" \
		--chdir "/home/$user" setpriv --reuid="$user" --regid="$user" --init-groups "$@"
}

[ $# -ge 2 ] || usage
verb=$1
shift
case $verb in
base) cmd_base "$@" ;;
make) cmd_make "$@" ;;
files) cmd_files "$@" ;;
run) cmd_run "$@" ;;
*) usage ;;
esac
