#!/bin/bash
# vx run --dry=json (issue 42 item 9): Turborepo's document, for scripts and
# CI jobs written against `turbo run --dry=json`. turbo 2.11.13 from npm is
# the oracle: every task has the same fields of the same types, and the
# same values wherever the value is no hash (task ids, packages, commands,
# directories, dependencies and dependents, outputs, the input files'
# names, the cache status, the resolved definition, the environment
# variables specified), and at the top the global inputs' names, the
# user and the commit and branch (issue 56 item 4: globalCacheInputs, scm,
# user). vx's own --dry-run=json is unchanged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_turbo.sh"

# The document of TOOL for ARGS... as the values that carry no hash, one
# task per line, sorted.
comparable='{version, monorepo, packages, envMode, frameworkInference, user, scm,
	global: (.globalCacheInputs | {files: (.files | keys), hashOfInternalDependencies,
		env: .environmentVariables.specified, engines}),
	tasks: [.tasks[] | {taskId, task, package, command,
	directory, cliArguments, outputs, excludedOutputs, with, framework, envMode,
	dependencies: (.dependencies | sort), dependents: (.dependents | sort),
	inputs: (.inputs | keys), cache: .cache.status,
	def: (.resolvedTaskDefinition | {outputs, cache, dependsOn, persistent, env, passThroughEnv}),
	env: .environmentVariables.specified}] | sort_by(.taskId)}'
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
	agree "the values of vx run $* --dry=json" "$d/turbo.values" "$d/vx.values" &&
	jq -S "$shape" "$d/turbo.doc" >"$d/turbo.shape" &&
	jq -S "$shape" "$d/vx.doc" >"$d/vx.shape" &&
	agree "the shape of vx run $* --dry=json" "$d/turbo.shape" "$d/vx.shape"
}

test_expect_success '--dry=json is turbo'"'"'s document: the same fields, types and values but hashes' '
	setup &&
	same build &&
	same test &&
	same build --filter=ui &&
	API_URL=x CI_TOKEN=y same test
'

test_expect_success '--dry=json'"'"'s top is turbo'"'"'s: the global inputs, the user, the commit and branch (a CI'"'"'s, else git'"'"'s)' '
	setup &&
	jq ". + {globalDependencies: [\"config/*.json\"], globalEnv: [\"DEPLOY_ENV\"], globalPassThroughEnv: [\"KEEP_*\"]}" turbo.json >../t.json &&
	mv ../t.json turbo.json &&
	write_file config/base.json <<<"{}" &&
	git add -A && git commit -qm global &&
	same build &&
	DEPLOY_ENV=prod KEEP_ME=1 same build &&
	jq -e ".globalCacheInputs.files | keys == [\"config/base.json\"]" "$TEST_DIR/vx.doc" &&
	jq -e ".scm.sha == \"$(git rev-parse HEAD)\" and .scm.branch == \"main\" and .user == \"\"" "$TEST_DIR/vx.doc" &&
	git checkout -q --detach &&
	same build &&
	CI=true GITHUB_ACTIONS=true GITHUB_SHA=0123abcd GITHUB_REF_NAME=feature/x GITHUB_ACTOR=octocat same build &&
	jq -e ".scm.sha == \"0123abcd\" and .scm.branch == \"feature/x\" and .user == \"octocat\"" "$TEST_DIR/vx.doc"
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
