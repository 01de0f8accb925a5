#!/bin/bash
# The cache never replays a wrong output, round two (issue 37), where the
# trace judges what a sandboxed task read: each test failed before its fix.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

# Item 4: create-turbo's next build reads packages/typescript-config's
# files; that package has no build task (Turborepo: <NONEXISTENT>), and its
# files were judged read-unkeyed, so the starter failed out of the box.
test_expect_success 'a dependency with no command keys its files for its dependents' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	write_file tscfg/package.json <<<"{\"name\": \"tscfg\"}" &&
	write_file tscfg/base.json <<<"{\"strict\": true}" &&
	ws_project app app tscfg <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat ../tscfg/base.json > dist/o"
	    sandbox: {allow: {read: ["../tscfg/"], write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	test_grep ! "read-unkeyed" "$ERR" &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	write_file tscfg/base.json <<<"{\"strict\": false}" &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test_grep "false" app/dist/o
'

test_done
