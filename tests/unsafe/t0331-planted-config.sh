#!/bin/bash
# A config a sandboxed task makes where none was (issue 53 item 11): an
# untraced persistent task with write: ["./"] created app/package.json with
# a lint script, no violation, and `vx run lint` ran it. A missing file
# cannot be walled by a mount (bwrap would make the mount point on the
# host), so vx records before the task what it could make, fails the task
# when one appeared, and plans from nothing while such a file is there.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

# app with TASK running COMMAND under write: ["./"], and MORE lines.
setup() {
	ws_root <<-'EOF'
	tasks:
	  lint:
	    cache: false
	EOF
	local task=$1 cmd=$2
	shift 2
	{
		printf '  %s:\n    command: %s\n    sandbox: {allow: {write: ["./"]}}\n' "$task" "$cmd"
		for l in "$@"; do printf '    %s\n' "$l"; done
	} | ws_project app app
}

plant="\"printf '{\\\"name\\\": \\\"app\\\", \\\"scripts\\\": {\\\"lint\\\": \\\"touch $TEST_TMP/pwned\\\"}}' > package.json; echo planted\""

test_expect_success 'a persistent task that plants a missing package.json fails, and vx plans from it no more' '
	setup dev "$plant" "persistent: true" &&
	run_vx 1 run app#dev &&
	test_grep "app#dev: planted" "$OUT" &&
	test_grep "app#dev: violation: write app/package.json (a config that was missing when it started" "$ERR" &&
	test_path_is_file app/package.json &&
	run_vx 2 run lint &&
	test_grep "^vx: app/package.json: appeared while app#dev could write there, .*: remove it, or if you made it yourself, remove .vx/guard/rec-" "$ERR" &&
	test_path_is_missing "$TEST_TMP/pwned" &&
	run_vx 2 run lint --dry-run &&
	run_vx 2 run lint --graph &&
	test_path_is_missing "$TEST_TMP/pwned" &&
	rm app/package.json &&
	run_vx 0 run lint &&
	test -z "$(ls -A .vx/guard)" &&
	test_path_is_missing "$TEST_TMP/pwned"
'

test_expect_success 'if the user made it, removing the record lets vx plan from it' '
	setup dev "$plant" "persistent: true" &&
	run_vx 1 run app#dev &&
	rm .vx/guard/rec-* &&
	run_vx 0 run lint &&
	test_path_is_file "$TEST_TMP/pwned" &&
	rm "$TEST_TMP/pwned"
'

# Traced, the write was a violation already, but the file stayed, and the
# next `vx run lint` ran it.
test_expect_success 'a traced task that plants one: its violation, once, and no plan from it' '
	setup build "$plant" "cache: false" &&
	run_vx 1 run app#build &&
	test "$(grep -c "violation: write app/package.json" "$ERR")" = 1 &&
	run_vx 2 run lint &&
	test_grep "^vx: app/package.json: appeared while app#build could write there" "$ERR" &&
	test_path_is_missing "$TEST_TMP/pwned"
'

test_expect_success 'a kill -9 of vx while the task runs: the next plan refuses what it planted' '
	setup dev "\"sleep 1; printf x > turbo.json; sleep 60\"" "persistent: true" &&
	{ "$VX" run app#dev >out 2>err & vx=$!; } &&
	test_wait_for .vx/guard/rec-* 10 &&
	run_vx 0 run lint &&
	test_wait_for app/turbo.json 10 &&
	run_vx 2 run lint &&
	test_grep "^vx: app/turbo.json: appeared while app#dev could write there" "$ERR" &&
	kill -9 $vx && wait $vx || true &&
	run_vx 2 run lint &&
	rm app/turbo.json &&
	run_vx 0 run lint &&
	test -z "$(ls -A .vx/guard)"
'

test_expect_success 'a task that makes nothing leaves no record; a named config is no guard' '
	setup dev "\"echo x > notes.txt\"" "persistent: true" &&
	run_vx 0 run app#dev &&
	test -z "$(ls -A .vx/guard 2>/dev/null)" &&
	setup dev "$plant" "persistent: true" &&
	sed -i "s|write: \[\"./\"\]|write: [\"./\", \"package.json\"]|" app/vx.yaml &&
	run_vx 0 run app#dev &&
	test_path_is_file app/package.json &&
	test -z "$(ls -A .vx/guard 2>/dev/null)"
'

test_done
