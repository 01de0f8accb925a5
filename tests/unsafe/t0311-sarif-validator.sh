#!/bin/bash
# vx's SARIF as GitHub's own validator takes it (issue 41 item 3): the
# SARIF Multitool from npm (@microsoft/sarif-multitool-linux 5), with
# GitHub's rules and SARIF's, reports no error on a report of violations
# in a project whose path holds a space and a '%' (an artifactLocation.uri
# must be an RFC 3986 reference: it was "my app%x/vx.yaml", SARIF1002).
# A fix is data (properties.fix) and words (the message), never a fixes[]
# edit: the one vx wrote inserted "sandbox.allow.read: [...]" at the
# sandbox: line, YAML no parser takes.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
npm_tool sarif-multitool-5 @microsoft/sarif-multitool-linux@5
mt=$npm_tool_dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
[ -x "$mt" ] || { echo "# the Multitool is not in $npm_tool_dir"; exit 1; }

test_expect_success 'a SARIF report of violations: zero errors from the Multitool (GitHub and SARIF rules), the uri escaped, no fixes[]' '
	ws_root </dev/null &&
	mkdir -p "my app%x/src" "other dir" &&
	echo o >"other dir/x%y.txt" &&
	cat >"my app%x/vx.yaml" <<-\EOF &&
	name: app
	tasks:
	  build:
	    command: "cat \"../other dir/x%y.txt\"; cat vendor/notes.txt; mkdir -p dist; exit 1"
	    sandbox:
	      allow:
	        read: ["src/"]
	        write: ["dist/"]
	EOF
	mkdir -p "my app%x/vendor/sub" && echo n >"my app%x/vendor/notes.txt" &&
	echo "name: nested" >"my app%x/vendor/vx.yaml" &&
	run_vx 1 run build --report sarif &&
	cp "$OUT" report.sarif &&
	jq -e "(.runs[0].results | length) >= 1" report.sarif &&
	jq -e "[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri == \"my%20app%25x/vx.yaml\"] | all" report.sarif &&
	jq -e "[.runs[0].results[] | has(\"fixes\") | not] | all" report.sarif &&
	jq -e "[.runs[0].results[] | .properties.fix.allow | length > 0] | any" report.sarif &&
	"$mt" validate --rule-kind "Gh;Sarif" -o validation.sarif report.sarif >validate.out 2>&1 ||
		{ cat validate.out; false; } &&
	cat validate.out &&
	test_grep "1 files scanned" validate.out &&
	test_grep ! ": error " validate.out &&
	jq -e "[.runs[].results[]? | select(.level == \"error\")] | length == 0" validation.sarif
'

test_done
