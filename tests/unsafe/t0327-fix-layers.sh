#!/bin/bash
# A printed fix never shrinks a key (issue 40 item 2): with inputs from
# turbo.json, the fix "add to vx.yaml tasks.build.inputs.files: [x]",
# written as printed, keyed x alone, and every later edit of the package's
# sources hit stale. The fix is now the task's whole list: applied exactly
# as printed, in the file it names, the key only grows, the task passes,
# and the next run hits.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"
require_sandbox strace

setup() {
	cat >package.json <<-\EOF
	{"name": "root", "private": true, "workspaces": ["packages/*"]}
	EOF
	cat >turbo.json <<-\EOF
	{
	  "tasks": {
	    "build": {
	      "inputs": ["src/**", "$TURBO_ROOT$/config/base.json"],
	      "outputs": ["dist/**"]
	    }
	  }
	}
	EOF
	mkdir -p config && echo '{"compilerOptions": {}}' >config/base.json
	mkdir -p packages/types/src
	cat >packages/types/package.json <<-\EOF
	{"name": "types", "scripts": {"build": "mkdir -p dist && cat tsup.config.ts src/*.ts > dist/index.js"}}
	EOF
	echo "export default {}" >packages/types/tsup.config.ts
	echo "export const a = 1" >packages/types/src/a.ts
	cat >vx.yaml <<-\EOF
	tasks:
	  build:
	    sandbox: {allow: {read: ["../../config/base.json"], write: ["dist/"]}}
	EOF
}

# The task's input files, from --dry-run=json, one per line, sorted.
inputs_of() {
	"$VX" run build --dry-run=json 2>/dev/null |
		jq -r '.tasks[] | select(.id == "types#build") | .inputFiles[]' | sort
}

test_expect_success 'the inputs fix printed for a turbo.json task, applied as printed, only grows its key' '
	setup &&
	inputs_of >before &&
	test_grep "packages/types/src/a.ts" before &&
	test_grep "config/base.json" before &&
	run_vx 1 run build &&
	test_grep "types#build: violation: read-unkeyed packages/types/tsup.config.ts" "$ERR" &&
	line=$(grep "types#build: fix: set in .* tasks.build.inputs.files: " "$ERR") &&
	file=$(printf "%s\n" "$line" | sed -E "s/.*fix: set in ([^ ]*) tasks.*/\1/") &&
	list=$(printf "%s\n" "$line" | sed -E "s/.*inputs\.files: (\[[^]]*\]).*/\1/") &&
	echo "printed: $file: $list" &&
	test "$(printf "%s" "$list" | jq -r "index(\"tsup.config.ts\") != null")" = true &&
	test "$(printf "%s" "$list" | jq -r "index(\"src/**\") != null")" = true &&
	test ! -e "$file" &&
	printf "tasks:\n  build:\n    inputs: {files: %s}\n" "$list" >"$file" &&
	inputs_of >after &&
	comm -23 before after >lost &&
	test ! -s lost &&
	test_grep "packages/types/tsup.config.ts" after &&
	run_vx 0 run build &&
	test_grep "types#build: running" "$OUT" &&
	run_vx 0 run build &&
	test_grep "types#build: cache hit" "$OUT" &&
	echo "export const b = 2" >>packages/types/src/a.ts &&
	run_vx 0 run build &&
	test_grep "types#build: running" "$OUT"
'

# Session 31: the one-line reports spelled the fix for the file the
# sandbox: block is in (the root's vx.yaml, which every package inherits),
# where the text report and `vx sandbox learn` name the package's own.
test_expect_success '--report github and sarif name the file the text fix names; the annotation stays at the sandbox: line' '
	setup &&
	run_vx 1 run build &&
	grep "^types#build: fix: set in .* tasks.build.inputs.files: " "$ERR" | sed -E "s/^types#build: fix: //" >fix.txt &&
	test_grep "^set in packages/types/vx.yaml tasks.build.inputs.files: " fix.txt &&
	text=$(cat fix.txt) &&
	run_vx 1 run build --report github &&
	test_grep "^::error file=vx.yaml,line=3,col=5,title=vx sandbox violation::types#build read-unkeyed " "$OUT" &&
	grep -F -- "$text" "$OUT" | grep -q "Fix: set in packages/types/vx.yaml" &&
	run_vx 1 run build --report sarif &&
	jq -e --arg t "$text" "[.runs[0].results[] | (.message.text | endswith(\$t)) and .locations[0].physicalLocation.artifactLocation.uri == \"vx.yaml\"] | (all and length > 0)" "$OUT"
'

# Found on the way: a task refused before it ran (its key holds a file its
# sandbox hides) left its empty stage behind, and the run's end warned it
# "keeps what could not be moved back".
test_expect_success 'a task refused before it runs leaves no stage and no warning of one' '
	setup &&
	# a write grant outside the project, not there: refused before it runs
	sed -i "s|write: \[\"dist/\"\]|write: [\"dist/\", \"../../nowhere/\"]|" vx.yaml &&
	run_vx 1 run build &&
	test_grep "does not exist, and vx creates missing grants only inside the project" "$ERR" &&
	test_grep ! "could not be moved back" "$ERR" &&
	test -z "$(ls -A .vx/stage 2>/dev/null)"
'

test_done
