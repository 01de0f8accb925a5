#!/bin/bash
# vx run --summarize (issue 56 item 4) writes Turborepo's run summary, for
# tools that read turbo's .turbo/runs/ID.json: turbo 2.11.13 from npm runs
# the same repository and its summary is the oracle. Every path turbo
# writes is in vx's with the same type (vx's own fields stand beside), and
# every value that is no hash and no time is the same: the tasks that
# started, their ids, packages, commands, directories, dependencies and
# dependents, outputs, input files' names, cache status and source, exit
# codes; the run's counts, command, packages, envMode, user and scm. Times
# are checked for sense only, against the run's own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_turbo.sh"

# A summary as the values both tools must agree on. A run's exit status is
# each tool's own (turbo exits with the failed task's, vx with 1: SPEC §5),
# so only whether it is 0 is compared; a command says "turbo run" or "vx
# run"; expandedOutputs without turbo's own log files.
values='{version, monorepo, packages, envMode, frameworkInference, user, scm,
	execution: (.execution | {command: (.command | sub("^(turbo|vx) "; "")), repoPath,
		success, failed, cached, attempted, ok: (.exitCode == 0)}),
	global: (.globalCacheInputs | {files: (.files | keys), hashOfInternalDependencies,
		env: .environmentVariables.specified, engines}),
	tasks: [.tasks[] | {taskId, task, package, command, directory, cliArguments, outputs,
		excludedOutputs, with, framework, envMode,
		dependencies: (.dependencies | sort), dependents: (.dependents | sort),
		inputs: (.inputs | keys), cache: (.cache | {local, remote, status, source}),
		expandedOutputs: (.expandedOutputs | map(select(test("(^|/)[.]turbo/") | not))),
		exitCode: .execution.exitCode, error: (.execution | has("error")),
		def: (.resolvedTaskDefinition | {outputs, cache, dependsOn, persistent, env, passThroughEnv}),
		env: .environmentVariables.specified}] | sort_by(.taskId)}'
# Times that make sense: each task's within the run's, none ending before
# it starts, and the run's of this minute.
sane='.execution as $r | ($r.startTime <= $r.endTime) and
	($r.startTime > (now - 600) * 1000) and ($r.endTime < (now + 60) * 1000) and
	all(.tasks[].execution; .startTime <= .endTime and
		.startTime >= $r.startTime - 1 and .endTime <= $r.endTime + 1)'

# The newest summary turbo wrote, and vx's (each moved out of the
# workspace: a root task keys it all).
newest() {
	ls -t "$1"/*.json | head -n 1
}

# summarized CODE ARGS...: turbo and vx run ARGS with --summarize, vx
# exiting CODE; their summaries must agree (values, shape, times).
summarized() {
	local code=$1 d=$TEST_DIR
	shift
	"$turbo" run "$@" --summarize >"$d/turbo.out" 2>&1 || true
	mv "$(newest .turbo/runs)" "$d/turbo.doc" &&
	run_vx "$code" run "$@" --summarize &&
	mv "$(newest .vx/runs)" "$d/vx.doc" &&
	jq -S "$values" "$d/turbo.doc" >"$d/turbo.values" &&
	jq -S "$values" "$d/vx.doc" >"$d/vx.values" &&
	agree "the values of vx run $* --summarize" "$d/turbo.values" "$d/vx.values" &&
	# every path of turbo's in vx's, with its type; but a hit's
	# "sha" (the commit its entry was saved at: vx's entries do not
	# record it, docs/turborepo.md), and expandedOutputs' entries, values
	# above (turbo lists its own log file even for a task that has none)
	jq -S "$shape | map(select(.p != \"tasks.N.cache.sha\" and .p != \"tasks.N.expandedOutputs.N\"))" \
		"$d/turbo.doc" >"$d/turbo.shape" &&
	jq -S "$shape" "$d/vx.doc" >"$d/vx.shape" &&
	jq -s -e ".[0] - .[1] == []" "$d/turbo.shape" "$d/vx.shape" >/dev/null || {
		echo "vx run $* --summarize lacks what turbo's has (path, type):"
		jq -s -c ".[0] - .[1] | .[]" "$d/turbo.shape" "$d/vx.shape"
		return 1
	}
	jq -e "$sane" "$d/turbo.doc" >/dev/null &&
	jq -e "$sane" "$d/vx.doc" >/dev/null
}

test_expect_success 'the summary of a build is turbo'"'"'s: its fields, types and values but hashes and times, a miss and a hit' '
	setup &&
	summarized 0 build &&
	jq -e "[.tasks[].cache.status] == [\"MISS\", \"MISS\"] and .execution.success == 2" "$TEST_DIR/vx.doc" &&
	jq -e "[.tasks[].expandedOutputs[]] | sort == [\"apps/web/dist\", \"apps/web/dist/web.js\", \"packages/ui/dist\", \"packages/ui/dist/ui.js\"]" "$TEST_DIR/vx.doc" &&
	cp "$TEST_DIR/vx.doc" "$TEST_DIR/miss.doc" &&
	summarized 0 build &&
	jq -e "[.tasks[].cache | .status + .source] == [\"HITLOCAL\", \"HITLOCAL\"] and .execution.cached == 2" "$TEST_DIR/vx.doc" &&
	jq -e "[.tasks[].execution.exitCode] == [0, 0]" "$TEST_DIR/vx.doc" &&
	jq -s -e "[.[0].tasks, .[1].tasks] | transpose | all(.[0].durationMs == .[1].cache.timeSaved)" \
		"$TEST_DIR/miss.doc" "$TEST_DIR/vx.doc" &&
	jq -e ".tasks[] | select(.taskId == \"ui#build\") | .cache.timeSaved >= 100" "$TEST_DIR/vx.doc"
'

test_expect_success 'several tasks, a root task, a filter, the environment: the same summary' '
	setup &&
	summarized 0 test fmt &&
	jq -e "[.tasks[].taskId] | sort == [\"//#fmt\", \"ui#build\", \"web#build\", \"web#test\"]" "$TEST_DIR/vx.doc" &&
	API_URL=x CI_TOKEN=y summarized 0 build test --filter=web &&
	summarized 0 build --filter=ui
'

test_expect_success 'a failed task: only the tasks that started, its error and exit code; vx lists the others beside' '
	setup &&
	write_file packages/ui/package.json <<<"{\"name\": \"ui\", \"version\": \"1.0.0\", \"scripts\": {\"build\": \"exit 3\"}}" &&
	git commit -qam "ui fails" &&
	summarized 1 build test &&
	jq -e ".execution | .failed == 1 and .exitCode == 1" "$TEST_DIR/vx.doc" &&
	jq -e ".tasks[] | select(.taskId == \"ui#build\") | .execution | .exitCode == 3 and (.error | test(\"exit 3\"))" "$TEST_DIR/vx.doc" &&
	jq -e "[.tasksNotStarted[] | .id + \" \" + .status] | sort == [\"ui#test skipped\", \"web#build skipped\", \"web#test skipped\"]" "$TEST_DIR/vx.doc" &&
	jq -e ".tasksNotStarted[] | select(.id == \"web#build\") | .inputs | keys == [\"package.json\", \"src/a.ts\"]" "$TEST_DIR/vx.doc"
'

test_expect_success 'a CI'"'"'s variables name the commit, branch and user, as turbo'"'"'s' '
	setup &&
	CI=true GITHUB_ACTIONS=true GITHUB_SHA=0123abcd GITHUB_REF_NAME=feature/x GITHUB_ACTOR=octocat \
		summarized 0 build &&
	jq -e ".user == \"octocat\" and .scm == {type: \"git\", sha: \"0123abcd\", branch: \"feature/x\"}" "$TEST_DIR/vx.doc"
'

test_expect_success 'vx'"'"'s fields stand beside: ids unique and in run order, --shard-timings reads the summaries' '
	setup &&
	run_vx 0 run build --summarize &&
	run_vx 0 run build --summarize &&
	run_vx 0 run build --summarize=../named.json &&
	test_path_is_file ../named.json &&
	ls .vx/runs >../names &&
	test $(wc -l <../names) = 2 &&
	for f in $(cat ../names); do jq -e --arg f "$f" ".id + \".json\" == \$f" ".vx/runs/$f"; done &&
	first=$(head -n 1 ../names) &&
	jq -e "[.tasks[].cache.status] == [\"MISS\", \"MISS\"]" ".vx/runs/$first" &&
	jq -e ".tasks[0] | has(\"id\") and has(\"project\") and has(\"name\") and has(\"key\") and .status == \"succeeded\" and .cacheStatus == \"miss\" and (.durationMs | type) == \"number\"" ".vx/runs/$first" &&
	jq -e ".vxVersion and .workspace and .exitCode == 0 and (.hashMs | type) == \"number\"" ".vx/runs/$first" &&
	run_vx 0 run build --shard 1/2 --shard-timings=.vx/runs --dry-run
'

test_done
