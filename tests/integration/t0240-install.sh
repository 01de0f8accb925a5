#!/bin/bash
# cmake --install (issue 55 item 1): what it puts where, and that vx run
# from there is whole. The build tree is the one ctest runs from: $VX's.
. "$(dirname "$0")/lib.sh"

build_dir=$(dirname "$VX")
prefix=$TEST_TMP/prefix

# install_into LOG CMAKE-INSTALL-ARGS...: the install's output to LOG, and
# its manifest (what it wrote, one absolute path a line) to LOG.manifest.
install_into() {
	local log=$1
	shift
	if ! cmake --install "$build_dir" "$@" >"$log" 2>&1; then
		cat "$log"
		return 1
	fi
	cp "$build_dir/install_manifest.txt" "$log.manifest"
}

test_expect_success 'cmake --install puts vx in bin, its init in libexec/vx, the docs in share/doc/vx' '
	install_into "$TEST_TMP/install.log" --prefix "$prefix" &&
	test -x "$prefix/bin/vx" &&
	test -x "$prefix/libexec/vx/vx-sandbox-init" &&
	test_path_is_file "$prefix/share/doc/vx/README.md" &&
	test_path_is_file "$prefix/share/doc/vx/docs/sandbox.md" &&
	test_path_is_missing "$prefix/bin/vx-sandbox-init" &&
	# every doc the README links is there, beside it
	grep -o "(docs/[a-z-]*\.md)" "$prefix/share/doc/vx/README.md" | tr -d "()" | sort -u >links &&
	test -s links &&
	while read -r doc; do test_path_is_file "$prefix/share/doc/vx/$doc"; done <links
'

test_expect_success 'the completion scripts go where bash-completion, zsh and fish look' '
	share=$prefix/share &&
	"$VX" completion bash >want && test_cmp want "$share/bash-completion/completions/vx" &&
	"$VX" completion zsh >want && test_cmp want "$share/zsh/vendor-completions/_vx" &&
	"$VX" completion fish >want && test_cmp want "$share/fish/vendor_completions.d/vx.fish"
'

# (a build without scdoc has no man pages: t0243 says whether that is a skip)
test_expect_success 'the man pages go in share/man/man1, where man finds them by name' '
	if grep -q "^SCDOC:FILEPATH=.*-NOTFOUND" "$build_dir/CMakeCache.txt" && [ -z "${CI:-}" ]; then
		echo "# no scdoc: no man pages to install" && exit 0
	fi &&
	for page in vx vx-run vx-watch vx-sandbox vx-cache; do
		test_path_is_file "$prefix/share/man/man1/$page.1" &&
		MANPATH=$prefix/share/man MANPAGER=cat man "$page" >rendered 2>err &&
		! test -s err &&
		test_grep "^ *$page - " rendered || exit 1
	done
'

test_expect_success 'the installed vx runs a workspace from PATH' '
	ws_root </dev/null &&
	ws_project app app <<-EOF &&
	  build: { command: "echo built-by-installed-vx" }
	EOF
	PATH=$prefix/bin:$PATH vx run app#build >out 2>err &&
	test_grep "built-by-installed-vx" out &&
	PATH=$prefix/bin:$PATH vx --version >installed.version &&
	"$VX" --version >built.version &&
	test_cmp built.version installed.version
'

test_expect_success 'with DESTDIR, nothing is written outside it, and the tree is the --prefix one' '
	dest=$TEST_TMP/dest &&
	outside=/opt/vx-install-test-$$ &&
	DESTDIR=$dest install_into "$TEST_TMP/destdir.log" --prefix "$outside" &&
	test_path_is_missing "$outside" &&
	test -x "$dest$outside/bin/vx" &&
	# the manifest names each file as installed, DESTDIR left out
	! grep -v "^$outside/" "$TEST_TMP/destdir.log.manifest" &&
	(cd "$dest" && find . -mindepth 1 -maxdepth 1) >top &&
	echo "./${outside#/}" | cut -d/ -f1-2 >top.want &&
	test_cmp top.want top &&
	(cd "$dest$outside" && find . ! -type d | sort) >dest.files &&
	(cd "$prefix" && find . ! -type d | sort) >prefix.files &&
	test_cmp prefix.files dest.files
'

# Issue 55 item 1: vx finds its init from its own binary, resolved, never
# from PATH: beside it (the build tree), else in its ../libexec/vx/.
test_expect_success 'the build tree vx finds its init beside it' '
	"$VX" info >info &&
	test_grep "^sandbox init: $(cd "$build_dir" && pwd -P)/vx-sandbox-init$" info
'

init_line() {
	echo "sandbox init: $(cd "$prefix" && pwd -P)/libexec/vx/vx-sandbox-init"
}

test_expect_success 'the installed vx, from PATH, finds its init in ../libexec/vx' '
	PATH=$prefix/bin:$PATH vx info >info &&
	test_grep -x "$(init_line)" info
'

test_expect_success 'through an absolute symlink on PATH too' '
	mkdir links &&
	ln -s "$prefix/bin/vx" links/vx &&
	PATH=$PWD/links:$PATH vx info >info &&
	test_grep -x "$(init_line)" info
'

test_expect_success 'and through a relative one, as npm links node_modules/.bin' '
	mkdir -p node_modules/.bin node_modules/vx &&
	cp -R "$prefix/bin" "$prefix/libexec" node_modules/vx/ &&
	ln -s ../vx/bin/vx node_modules/.bin/vx &&
	ws_root </dev/null &&
	PATH=$PWD/node_modules/.bin:$PATH vx info >info &&
	test_grep -x "sandbox init: $(pwd -P)/node_modules/vx/libexec/vx/vx-sandbox-init" info
'

test_expect_success 'a vx alone names both places it looked, and no init on PATH stands in' '
	mkdir -p alone/bin decoy &&
	cp "$prefix/bin/vx" alone/bin/vx &&
	cp "$prefix/libexec/vx/vx-sandbox-init" decoy/ &&
	PATH=$PWD/decoy:$PATH alone/bin/vx info >info &&
	test_grep -x "sandbox init: missing: neither $(pwd -P)/alone/bin/vx-sandbox-init nor $(pwd -P)/alone/libexec/vx/vx-sandbox-init" info
'

test_done
