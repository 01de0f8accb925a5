#!/bin/bash
# vx run --dry=json (issue 42 item 9): Turborepo's document, for scripts and
# CI jobs written against `turbo run --dry=json`. turbo 2.11.13 from npm is
# the oracle: every task has the same fields of the same types, and the
# same values wherever the value is no hash (task ids, packages, commands,
# directories, dependencies and dependents, outputs, the input files'
# names, the cache status, the resolved definition, the environment
# variables specified). vx's own --dry-run=json is unchanged.
. "$(dirname "$0")/lib.sh"

npm_tool turbo-2.11.13 turbo@2.11.13
turbo=$(find "$npm_tool_dir/node_modules/@turbo" -path '*/bin/turbo' -type f | head -n 1)
[ -x "$turbo" ] || { echo "# turbo's binary is not in $npm_tool_dir"; exit 1; }
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

setup() {
	git init -q . && git checkout -qb main &&
	echo '{"name": "root", "private": true, "packageManager": "npm@10.0.0", "workspaces": ["apps/*", "packages/*"], "scripts": {"fmt": "echo fmt"}}' >package.json &&
	cat >turbo.json <<-'EOF' &&
	{"tasks": {
	  "build": {"dependsOn": ["^build"], "outputs": ["dist/**", "!dist/cache/**"], "inputs": ["src/**", "package.json"], "env": ["API_URL"]},
	  "test": {"dependsOn": ["build"], "passThroughEnv": ["CI_TOKEN"], "cache": false},
	  "//#fmt": {}
	}}
	EOF
	write_file apps/web/package.json <<<'{"name": "web", "version": "1.0.0", "scripts": {"build": "echo web", "test": "echo test"}, "dependencies": {"ui": "*"}}' &&
	write_file apps/web/src/a.ts <<<'export const a = 1' &&
	write_file packages/ui/package.json <<<'{"name": "ui", "version": "1.0.0", "scripts": {"build": "echo ui"}}' &&
	write_file packages/ui/src/b.ts <<<'export const b = 1' &&
	write_file packages/ui/README.md <<<'not an input' &&
	cat >package-lock.json <<-'EOF' &&
	{"name": "root", "lockfileVersion": 3, "requires": true, "packages": {
	  "": {"name": "root", "workspaces": ["apps/*", "packages/*"]},
	  "apps/web": {"name": "web", "version": "1.0.0", "dependencies": {"ui": "*"}},
	  "packages/ui": {"name": "ui", "version": "1.0.0"},
	  "node_modules/ui": {"resolved": "packages/ui", "link": true},
	  "node_modules/web": {"resolved": "apps/web", "link": true}}}
	EOF
	printf "node_modules\n.turbo\n.vx\n" >.gitignore &&
	git add -A && git commit -qm init
}

# The document of TOOL for ARGS... as the values that carry no hash, one
# task per line, sorted.
comparable='{packages, envMode, tasks: [.tasks[] | {taskId, task, package, command,
	directory, cliArguments, outputs, excludedOutputs, with, framework, envMode,
	dependencies: (.dependencies | sort), dependents: (.dependents | sort),
	inputs: (.inputs | keys), cache: .cache.status,
	def: (.resolvedTaskDefinition | {outputs, cache, dependsOn, persistent, env, passThroughEnv}),
	env: .environmentVariables.specified}] | sort_by(.taskId)}'
# Every path of the document with its value's type, for the shape.
shape='[paths(true) as $p | {p: ($p | map(if type == "number" then "N" else . end) | join(".")), t: (getpath($p) | type)}] | unique | map(select(.p | test("^tasks\\.N\\.inputs\\.|^tasks\\.N\\.environmentVariables\\.(configured|inferred)\\.") | not))'

# (The documents are kept outside the workspace: a root task keys it all.)
# A resolved definition's inputs are vx's: the written ones and the
# package.json and turbo.json Turborepo keys anyway, so turbo's are a part.
same() {
	local d=$TEST_DIR
	"$turbo" run "$@" --dry=json 2>/dev/null >"$d/turbo.doc" &&
	"$VX" run "$@" --dry=json >"$d/vx.doc" &&
	jq -S "$comparable" "$d/turbo.doc" >"$d/turbo.values" &&
	jq -S "$comparable" "$d/vx.doc" >"$d/vx.values" &&
	jq -s -e "[.[0].tasks, .[1].tasks] | transpose | map((.[0].resolvedTaskDefinition.inputs - .[1].resolvedTaskDefinition.inputs) == []) | all" \
		<(jq "{tasks: (.tasks | sort_by(.taskId))}" "$d/turbo.doc") \
		<(jq "{tasks: (.tasks | sort_by(.taskId))}" "$d/vx.doc") >/dev/null &&
	if ! cmp -s "$d/turbo.values" "$d/vx.values"; then
		echo "vx run $* --dry=json says other values than turbo's:"
		diff "$d/turbo.values" "$d/vx.values"
		return 1
	fi
	jq -S "[.tasks[] | $shape]" "$d/turbo.doc" | jq -S "add | unique" >"$d/turbo.shape" &&
	jq -S "[.tasks[] | $shape]" "$d/vx.doc" | jq -S "add | unique" >"$d/vx.shape" &&
	if ! cmp -s "$d/turbo.shape" "$d/vx.shape"; then
		echo "vx run $* --dry=json has another shape than turbo's:"
		diff "$d/turbo.shape" "$d/vx.shape"
		return 1
	fi
}

test_expect_success '--dry=json is turbo'"'"'s document: the same fields, types and values but hashes' '
	setup &&
	same build &&
	same test &&
	same build --filter=ui &&
	API_URL=x CI_TOKEN=y same test
'

test_expect_success '--dry=json names the root'"'"'s own task //#task, as Turborepo; --dry-run=json keeps vx'"'"'s shape' '
	setup &&
	same fmt &&
	run_vx 0 run fmt --dry=json &&
	jq -e ".tasks[0].taskId == \"//#fmt\" and .tasks[0].package == \"//\"" "$OUT" &&
	run_vx 0 run build --dry-run=json &&
	jq -e ".version == 1 and (.tasks[0] | has(\"id\") and has(\"key\") and has(\"inputFiles\"))" "$OUT" &&
	run_vx 0 run build --dry &&
	test_grep "would run" "$OUT" &&
	run_vx 2 run build --dry=yaml
'

test_expect_success '--dry=json: a file'"'"'s hash changes with it, the cache status follows the cache' '
	setup &&
	run_vx 0 run build --dry=json &&
	before=$(jq -r ".tasks[] | select(.taskId == \"ui#build\") | .inputs[\"src/b.ts\"]" "$OUT") &&
	echo "export const b = 2" >packages/ui/src/b.ts &&
	run_vx 0 run build --dry=json &&
	after=$(jq -r ".tasks[] | select(.taskId == \"ui#build\") | .inputs[\"src/b.ts\"]" "$OUT") &&
	test -n "$before" && test "$before" != "$after" &&
	jq -e "[.tasks[].cache.status] | unique == [\"MISS\"]" "$OUT" &&
	run_vx 0 run build &&
	run_vx 0 run build --dry=json &&
	jq -e ".tasks[] | select(.taskId == \"ui#build\") | .cache | .status == \"HIT\" and .local == true and .source == \"LOCAL\"" "$OUT"
'

test_done
