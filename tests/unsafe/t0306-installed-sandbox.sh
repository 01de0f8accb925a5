#!/bin/bash
# An installed vx (issue 55 item 1) is whole: run from PATH or through a
# relative symlink as npm links node_modules/.bin, it finds its init in its
# ../libexec/vx/ and a sandboxed task runs traced, its violation reported
# with the fix (t0240 checks the install itself, without the sandbox).
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

prefix=$TEST_TMP/prefix
cmake --install "$(dirname "$VX")" --prefix "$prefix" >"$TEST_TMP/install.log" 2>&1 ||
	{ cat "$TEST_TMP/install.log"; exit 1; }

# app reads what it was granted, and a file of app/vendor, a nested project
# the sandbox hides, that it was not (t0310's first case)
setup() {
	ws_root </dev/null &&
	write_file app/src/a.txt <<<"app source" &&
	write_file app/vendor/vx.yaml <<<"name: vendor" &&
	echo "notes" >app/vendor/notes.txt &&
	ws_project app app <<-'EOF' &&
	  build:
	    command: "mkdir -p dist; cat src/a.txt > dist/a.txt; cat vendor/notes.txt || echo fallback"
	    outputs: ["dist/**"]
	    sandbox:
	      allow:
	        read: ["src/"]
	        write: ["dist/"]
	EOF
	# npm's layout: the package holds bin/ and libexec/, .bin links it relatively
	mkdir -p node_modules/.bin node_modules/vx &&
	cp -R "$prefix/bin" "$prefix/libexec" node_modules/vx/ &&
	ln -s ../vx/bin/vx node_modules/.bin/vx
}

test_expect_success 'the installed vx, from PATH: violation reports are available' '
	PATH=$prefix/bin:$PATH vx info >info &&
	test_grep "^sandbox init: $(cd "$prefix" && pwd -P)/libexec/vx/vx-sandbox-init$" info &&
	test_grep "^strace: works" info &&
	test_grep "^violation reports: available" info
'

test_expect_success 'through node_modules/.bin: a sandboxed task runs traced, its violation and fix said' '
	setup &&
	PATH=$PWD/node_modules/.bin:$PATH &&
	rc=0 && vx run app#build >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	test_grep ! "untraced" err &&
	test_grep "app#build: failed (1 sandbox violation)" out &&
	test_grep "^app#build: violation: read app/vendor/notes.txt (openat ENOENT)$" err &&
	test_grep "^app#build: fix: add to app/vx.yaml tasks.build.sandbox.allow.read: \[\"vendor/notes.txt\"\]$" err
'

test_expect_success 'through node_modules/.bin: the task without the stray read passes, then hits' '
	setup &&
	sed -i "s|cat vendor/notes.txt .. echo fallback|true|" app/vx.yaml &&
	PATH=$PWD/node_modules/.bin:$PATH &&
	vx run app#build >out 2>err &&
	test_grep ! "untraced" err &&
	test "$(cat app/dist/a.txt)" = "app source" &&
	vx run app#build >out 2>err &&
	test_grep "app#build: cache hit" out
'

test_done
