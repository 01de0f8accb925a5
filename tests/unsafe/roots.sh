# roots.sh - the install tests' clean Debian systems (t0510-deb.sh,
# t0520-portable.sh), sourced after tests/integration/lib.sh.
#
#   roots_require           root, debootstrap and a working bwrap, or the
#                           script skips saying which (in CI: fails; a
#                           missing debootstrap is installed there)
#   roots_release WHAT      scripts/release.sh --only WHAT into
#                           $TEST_TMP/dist: the artifact the release makes
#   roots_unpack SUITE DIR [--download PKGS]
#                           DIR: a fresh copy of the cached minbase root of
#                           SUITE (scripts/debian-root.sh make, which makes
#                           it when absent: the script's cold cost)
#   roots_tarball_layout TARBALL
#                           (in a test body) the release tarball holds what
#                           cmake --install puts in a prefix, under
#                           vx-VERSION/ (t0520, t0530)
#   in_root DIR CMD...      CMD as root in DIR
#   as_user DIR SCRIPT      SCRIPT (bash) as the user "dev" in DIR, in its
#                           home, PATH as a login's plus ~/.local/bin
#
# Each step's time is printed as a "# time:" line.

ROOTS_SCRIPT=$VX_SOURCE_DIR/scripts/debian-root.sh
VERSION=$(sed -n 's/^project(vx VERSION \([0-9.]*\).*/\1/p' "$VX_SOURCE_DIR/CMakeLists.txt")

roots_skip_() {
	test_skip_all "$1"
}

roots_require() {
	[ "$(id -u)" = 0 ] || roots_skip_ "debootstrap and apt-get in a root need root"
	require_sandbox strace
	if ! command -v debootstrap >/dev/null; then
		if [ -n "${VX_TEST_IN_CI:-}" ]; then
			{ apt-get install -y -q debootstrap ||
				{ apt-get update -q && apt-get install -y -q debootstrap; }; } \
				>"$TEST_TMP/apt.log" 2>&1 || true
		fi
		command -v debootstrap >/dev/null ||
			roots_skip_ "debootstrap is not installed (scripts/install-deps.sh test installs it)"
	fi
}

roots_time_() {
	local what=$1 t0=$SECONDS
	shift
	"$@" || return
	echo "# time: $what: $((SECONDS - t0))s"
}

roots_release() {
	local t0=$SECONDS
	mkdir -p "$TEST_TMP/dist"
	bash "$VX_SOURCE_DIR/scripts/release.sh" --only "$1" --out "$TEST_TMP/dist" \
		>"$TEST_TMP/release.log" 2>&1 || {
		echo "not ok - scripts/release.sh --only $1 failed:"
		tail -n 30 "$TEST_TMP/release.log" | sed 's/^/    /'
		echo "0 passed, 1 failed"
		exit 1
	}
	echo "# time: release.sh --only $1: $((SECONDS - t0))s"
	sed -n 's/^== release.sh: /# release.sh: /p' "$TEST_TMP/release.log"
}

roots_unpack() {
	local suite=$1 dir=$2 tar t0=$SECONDS
	shift 2
	tar=$(bash "$ROOTS_SCRIPT" make "$suite" "$@" 2>"$TEST_TMP/root-$suite.log") || {
		sed 's/^/    /' "$TEST_TMP/root-$suite.log"
		roots_skip_ "no $suite root: debootstrap or the Debian archive failed (above)"
	}
	if grep -q "making" "$TEST_TMP/root-$suite.log"; then
		echo "# time: root $suite made (cold): $((SECONDS - t0))s"
	fi
	mkdir -p "$dir"
	roots_time_ "unpack $suite" tar -C "$dir" -xf "$tar"
}

roots_tarball_layout() {
	tar -tzf "$1" >list &&
		for f in bin/vx libexec/vx/vx-sandbox-init share/man/man1/vx.1 share/man/man1/vx-run.1 \
			share/bash-completion/completions/vx share/zsh/vendor-completions/_vx \
			share/fish/vendor_completions.d/vx.fish share/doc/vx/README.md share/doc/vx/docs/install.md; do
			test_grep -x "vx-$VERSION/$f" list || return 1
		done &&
		test_grep ! -v "^vx-$VERSION/" list
}

in_root() {
	local dir=$1
	shift
	bash "$ROOTS_SCRIPT" run "$dir" -- "$@"
}

as_user() {
	bash "$ROOTS_SCRIPT" run "$1" --user dev -- bash -c "export PATH=\$HOME/.local/bin:\$PATH; $2"
}

# example DIR: the bundled example monorepo, as committed, in the user's
# home of DIR (~/example); no cache, no outputs.
roots_example() {
	mkdir -p "$1/tmp/vx-example"
	(cd "$VX_SOURCE_DIR" && git archive HEAD examples 2>/dev/null || tar -cf - examples) |
		tar -C "$1/tmp/vx-example" -xf - &&
		rm -rf "$1/tmp/vx-example/examples/.vx" &&
		find "$1/tmp/vx-example/examples" -name dist -type d -prune -exec rm -rf {} + &&
		chmod -R a+rX "$1/tmp/vx-example" &&
		as_user "$1" 'rm -rf example && cp -R /tmp/vx-example/examples example'
}
