#!/bin/bash
# Turborepo's flags a user's scripts pass (issue 42 item 7, in part): each
# was "unknown option", exit 2. `vx build` as `vx run build`; -j N% of the
# CPUs; --cache-dir; --log-order; --token/--team over the environment
# against the real turborepo-remote-cache; --ui and --daemon accepted and
# said once.
. "$(dirname "$0")/lib.sh"

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	    command: "mkdir -p dist && echo one && sleep 0.2 && echo two > dist/out.txt && echo three"
	EOF
	local p
	for p in a b c; do
		mkdir -p $p/src && echo $p >$p/src/x.txt
		ws_project $p $p <<-EOF
		  build: {}
		EOF
	done
}

test_expect_success 'vx build is vx run build, options and all' '
	setup &&
	run_vx 0 build --no-cache &&
	test_grep "Tasks: 3 succeeded" "$OUT" &&
	run_vx 0 build -F a &&
	test_grep "Tasks: 1 succeeded" "$OUT" &&
	run_vx 2 nosuchtask &&
	test_grep "no project of the workspace has a task \"nosuchtask\"" "$ERR" &&
	run_vx 2 --bogus &&
	test_grep "unknown option --bogus" "$ERR"
'

test_expect_success '--concurrency N% is a share of the CPUs, at least one; a bad one is an error' '
	setup &&
	run_vx 0 run build --concurrency=50% --no-cache &&
	run_vx 0 run build -j 1% --no-cache &&
	run_vx 0 run build --concurrency=100% --no-cache &&
	run_vx 2 run build --concurrency=0% &&
	test_grep "write N (1 to 4096), or N% of the CPUs" "$ERR" &&
	run_vx 2 run build --concurrency=150% &&
	run_vx 2 run build -j x
'

test_expect_success '--cache-dir moves the local cache (under the workspace root when relative)' '
	setup &&
	run_vx 0 run build --cache-dir=.cache/vx &&
	test -n "$(ls .cache/vx)" &&
	test_path_is_missing .vx/cache &&
	rm -rf */dist &&
	run_vx 0 run build --cache-dir=.cache/vx &&
	test_grep "Tasks: 0 succeeded, 3 cached" "$OUT"
'

test_expect_success '--log-order grouped holds a task'"'"'s lines together; stream does not' '
	setup &&
	run_vx 0 run build --no-cache -j3 --log-order=grouped -F a -F b -F c &&
	for p in a b c; do
		n=$(grep -n "^$p#build: one" "$OUT" | cut -d: -f1) &&
		test "$(sed -n "$((n + 1))p" "$OUT")" = "$p#build: three" || exit 1
	done &&
	run_vx 0 run build --no-cache -j3 --log-order=stream &&
	n=$(grep -n "#build: one" "$OUT" | head -1 | cut -d: -f1) &&
	sed -n "$((n + 1))p" "$OUT" | grep -q "#build: one"
'

test_expect_success '--ui and --daemon are accepted, and said once' '
	setup &&
	run_vx 0 run build --ui=stream --no-daemon &&
	test_grep "vx has no daemon" "$ERR" &&
	test $(grep -c "daemon" "$ERR") = 1 &&
	run_vx 0 run build --ui=tui --daemon &&
	# no terminal here: the TUI (t0420) is not drawn, and that is said
	test_grep -x "vx: no terminal UI: it needs a terminal on stdin and stdout; streaming" "$ERR" &&
	run_vx 2 run build --ui=fancy
'

test_expect_success '--token and --team reach the remote cache over the environment, and no task sees them' '
	remote_cache_start &&
	token=$VX_REMOTE_CACHE_TOKEN &&
	unset VX_REMOTE_CACHE_TOKEN VX_REMOTE_CACHE_TEAM &&
	setup &&
	ws_project a a <<-EOF &&
	  build:
	    command: "mkdir -p dist && env > dist/env.txt"
	EOF
	run_vx 0 run build --token="$token" --team=team1 &&
	test_grep ! "$token" a/dist/env.txt &&
	rm -rf .vx */dist &&
	run_vx 0 run build --token="$token" --team=team1 &&
	test_grep "Tasks: 0 succeeded, 3 cached" "$OUT" &&
	test_grep "remote cache hit" "$OUT"
'

# --continue takes Turborepo's values: never, dependencies-successful
# (vx's bare --continue), always (a failed task's dependents run too, and
# are never saved: what they made was built on a failure).
continue_setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["out.txt"]
	EOF
	ws_project lib lib <<-EOF
	  build: {command: "echo lib-ran; exit 1"}
	EOF
	ws_project app app lib <<-EOF
	  build: {command: "echo app-ran > out.txt; echo app-ran"}
	EOF
	ws_project other other <<-EOF
	  build: {command: "sleep 0.3; echo other-ran > out.txt; echo other-ran"}
	EOF
}

test_expect_success '--continue=never|dependencies-successful|always, as Turborepo; always never saves what a failure fed' '
	continue_setup &&
	run_vx 1 run build --continue=never -j1 &&
	test_grep "lib#build: failed" "$OUT" &&
	test_grep ! "app-ran" "$OUT" &&
	run_vx 1 run build --continue=dependencies-successful &&
	test_grep "other#build: other-ran" "$OUT" &&
	test_grep ! "app#build: app-ran" "$OUT" &&
	test_grep "app#build: skipped (dependency failed)" "$OUT" &&
	run_vx 1 run build --continue &&
	test_grep "app#build: skipped (dependency failed)" "$OUT" &&
	run_vx 1 run build --continue=always &&
	test_grep "app#build: app-ran" "$OUT" &&
	test_grep "vx: app#build: not saved to the cache: a task it depends on failed" "$ERR" &&
	test_grep "Tasks: 1 succeeded, 1 cached, 1 failed" "$OUT" &&
	run_vx 1 run build --continue=always &&
	test_grep "app#build: app-ran" "$OUT" &&
	test_grep ! "app#build: cache hit" "$OUT" &&
	run_vx 2 run build --continue=sometimes &&
	test_grep "continue takes never, dependencies-successful or always" "$ERR"
'

test_expect_success '--graph[=FILE]: the graph the run would build, in the format FILE names; nothing runs' '
	setup &&
	ws_project b b a <<-EOF &&
	  build: {}
	EOF
	run_vx 0 run build --graph &&
	test_grep "^digraph vx {$" "$OUT" &&
	test_grep "\"b#build\" -> \"a#build\";" "$OUT" &&
	test_path_is_missing a/dist &&
	run_vx 0 run build --graph=g.json &&
	jq -e ".edges == [{\"from\": \"b#build\", \"to\": \"a#build\"}]" g.json &&
	test_grep "the task graph is in g.json" "$ERR" &&
	run_vx 0 build -F b --graph=g.mermaid &&
	test_grep "^graph LR$" g.mermaid &&
	test "$(grep -c "\[" g.mermaid)" = 2 &&
	test_grep -- "--> " g.mermaid &&
	run_vx 0 run build --graph=g.svg &&
	test_grep "<svg" g.svg &&
	test_grep "b#build" g.svg &&
	run_vx 0 run build --graph=g.html &&
	test_grep "^<!doctype html>" g.html &&
	test_grep "<svg" g.html &&
	run_vx 2 run build --graph=g.txt &&
	test_grep "name a .dot, .gv, .json" "$ERR" &&
	rc=0 && { PATH=/nonexistent "$VX" run build --graph=g2.png 2>err2 || rc=$?; } &&
	test $rc = 2 &&
	test_grep "needs graphviz" err2 &&
	test_path_is_missing g2.png &&
	test_path_is_missing a/dist
'

test_expect_success '--log-prefix=none prints a task'"'"'s lines as it printed them; vx'"'"'s own keep theirs' '
	setup &&
	run_vx 0 run build --no-cache --log-prefix=none -j1 &&
	test_grep "^one$" "$OUT" &&
	test_grep "^a#build: running: " "$OUT" &&
	test_grep ! "^a#build: one$" "$OUT" &&
	run_vx 0 run build --no-cache --log-prefix=task -j1 &&
	test_grep "^a#build: one$" "$OUT" &&
	run_vx 2 run build --log-prefix=bogus
'

test_expect_success '--global-deps keys a workspace file in every task, as globalDependencies' '
	setup &&
	echo v1 >shared.cfg &&
	run_vx 0 run build --global-deps=shared.cfg &&
	run_vx 0 run build --global-deps=shared.cfg &&
	test "$(grep -c "cache hit" "$OUT")" = 3 &&
	echo v2 >shared.cfg &&
	run_vx 0 run build --global-deps=shared.cfg &&
	test "$(grep -c "cache hit" "$OUT")" = 0 &&
	run_vx 0 run build --dry-run=json --global-deps="*.cfg" &&
	jq -e "[.tasks[].inputFiles | index(\"shared.cfg\") != null] | all" "$OUT" &&
	run_vx 2 run build --global-deps="[z-a]" &&
	test_grep "global-deps \[z-a\]" "$ERR"
'

test_expect_success '--parallel runs the named tasks only, ignoring the graph, and says so' '
	setup &&
	ws_project b b a <<-EOF &&
	  build: {}
	EOF
	run_vx 0 run b#build --parallel &&
	test_grep "parallel runs the named tasks only" "$ERR" &&
	test_grep "b#build: running" "$OUT" &&
	test_grep ! "a#build" "$OUT"
'

test_expect_success '--profile=FILE writes the run as a Chrome trace: a complete event per task, overlapping ones on their own lanes' '
	setup &&
	run_vx 0 run build -j3 --profile=prof.json &&
	jq -e "[.traceEvents[] | select(.ph == \"X\")] | length == 3" prof.json &&
	jq -e "[.traceEvents[] | select(.ph == \"X\") | .name] | sort == [\"a#build\", \"b#build\", \"c#build\"]" prof.json &&
	jq -e "[.traceEvents[] | select(.ph == \"X\") | .dur >= 200000] | all" prof.json &&
	jq -e "[.traceEvents[] | select(.ph == \"X\") | .tid] | unique | length == 3" prof.json &&
	run_vx 0 run build -j3 --profile=prof.json &&
	jq -e "[.traceEvents[] | select(.ph == \"X\") | .args.cache] | unique == [\"hit\"]" prof.json
'

test_done
