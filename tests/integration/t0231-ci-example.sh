#!/bin/bash
# examples/ci/github-actions.yml (issue 16) is a workflow GitHub accepts:
# checked against the workflow schema by action-validator (npm,
# @action-validator/cli 0.6.0; actionlint is in neither Debian nor npm),
# which must also refuse a broken copy; and every vx option it passes is
# one vx run has.
. "$(dirname "$0")/lib.sh"

wf=$VX_SOURCE_DIR/examples/ci/github-actions.yml
npm_tool action-validator-0.6.0 @action-validator/cli@0.6.0 @action-validator/core@0.6.0
validator=$npm_tool_dir/node_modules/.bin/action-validator

test_expect_success 'the workflow passes the schema, and a broken copy does not' '
	"$validator" "$wf" &&
	sed "s/runs-on:/runz-on:/" "$wf" >broken.yml &&
	! "$validator" broken.yml >/dev/null
'

test_expect_success 'it runs a 4-shard matrix with the remote cache, --affected and a SARIF upload' '
	test_grep "shard: \[1, 2, 3, 4\]" "$wf" &&
	test_grep -- "--shard \"\${{ matrix.shard }}/4\"" "$wf" &&
	test_grep -- "--affected=" "$wf" &&
	test_grep "upload-sarif" "$wf" &&
	test_grep "VX_REMOTE_CACHE_TOKEN: \${{ secrets." "$wf" &&
	test_grep "turborepo-remote-cache@2.12" "$wf"
'

test_expect_success 'every option it gives vx run is one vx run has' '
	"$VX" run --help >help &&
	sed -n "/args=(/,/vx run /p" "$wf" >step &&
	grep -oE -- "--[a-z][a-z-]+" step | sort -u >vxopts &&
	test $(wc -l <vxopts) -ge 5 &&
	while read -r o; do
		grep -q -- "$o" help || { echo "vx run has no $o"; exit 1; }
	done <vxopts
'

test_done
