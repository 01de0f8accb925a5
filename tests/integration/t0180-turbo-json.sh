#!/bin/bash
# turbo.json as configuration (issue 17): a Turborepo repository with no
# vx.yaml runs under vx as Turborepo runs it (dependsOn, outputs, cache,
# pkg#task), a vx.yaml beside it overlays it per task and field, and a key
# vx does not read is one warning at its place.
. "$(dirname "$0")/lib.sh"

# A Turborepo repository: gen-monorepo's, without its vx.yaml files, each
# build concatenating its dependencies' outputs (so the order shows).
setup() {
	bash "$VX_SOURCE_DIR/bench/gen-monorepo" --command 'mkdir -p dist && cat src/* > dist/out.txt && echo built-$npm_package_name' 4 . >/dev/null &&
	rm -f vx.yaml packages/*/vx.yaml &&
	cat >turbo.json <<-\EOF
	{
	  // Turborepo accepts comments and trailing commas
	  "$schema": "https://turbo.build/schema.json",
	  "ui": "stream",
	  "tasks": {
	    "build": {
	      "dependsOn": ["^build"],
	      "outputs": ["dist/**"],
	    },
	    "p3#build": {"dependsOn": ["^build"], "cache": false},
	  },
	}
	EOF
}

test_expect_success 'a repository with turbo.json and no vx.yaml runs in dependency order, caches, restores' '
	setup &&
	run_vx 0 run build &&
	test_grep "Tasks: 4 succeeded" "$OUT" &&
	test_before "$OUT" "p0#build: built-p0" "p1#build: built-p1" &&
	test_before "$OUT" "p1#build: built-p1" "p2#build: built-p2" &&
	rm -rf packages/*/dist &&
	run_vx 0 run build &&
	test_grep "Tasks: 1 succeeded, 3 cached" "$OUT" &&
	test_grep "p3#build: running" "$OUT" &&
	test_path_is_file packages/p0/dist/out.txt &&
	run_vx 0 info &&
	test_grep "its root by turbo.json, configured by turbo.json" "$OUT"
'

test_expect_success 'a key vx does not read is one warning at its FILE:LINE:COL, once per file; one that changes nothing, none' '
	setup &&
	run_vx 0 run build --dry-run &&
	test_grep ! "ui" "$ERR" &&
	cat >turbo.json <<-\EOF &&
	{
	  "ui": "tui", "daemon": false, "cacheDir": ".cache/turbo",
	  "tasks": {
	    "build": {"dependsOn": ["^build"], "interactive": false, "outputMode": "full"},
	    "test": {"interactive": false, "outputMode": "full"},
	    "dev": {"interactive": true, "persistent": true, "cache": false}
	  }
	}
	EOF
	mv turbo.json turbo.jsonc &&
	run_vx 0 run build --dry-run &&
	test $(grep -c "warning" "$ERR") = 3 &&
	test_grep "turbo.jsonc:2:33: \"cacheDir\" is not read by vx (ignored)" "$ERR" &&
	test $(grep -c "\"outputMode\" is turbo.json.s schema 1" "$ERR") = 1 &&
	test_grep "turbo.jsonc:6:13: \"interactive\": true is not read by vx: a task gets no terminal input" "$ERR" &&
	run_vx 0 info &&
	test_grep "its root by turbo.jsonc, configured by turbo.jsonc" "$OUT"
'

test_expect_success 'a vx.yaml beside turbo.json overlays it per task and field' '
	setup &&
	cat >vx.yaml <<-\EOF &&
	tasks:
	  build:
	    command: "mkdir -p dist && echo from-vx > dist/out.txt && echo vx-$VX_PROJECT"
	EOF
	run_vx 0 run build &&
	test_before "$OUT" "p0#build: vx-p0" "p2#build: vx-p2" &&
	test "$(cat packages/p1/dist/out.txt)" = from-vx &&
	rm -rf packages/*/dist && run_vx 0 run build &&
	test_grep "Tasks: 1 succeeded, 3 cached" "$OUT"
'

test_expect_success 'a turbo.json that is not JSON is exit 2 at its place, and nothing runs' '
	setup &&
	printf "{\n  \"tasks\": {\"build\": {\"outputs\" [\"x\"]}}\n}\n" >turbo.json &&
	run_vx 2 run build &&
	test_grep "turbo.json:2:" "$ERR" &&
	test ! -e packages/p0/dist
'

test_expect_success 'a key given twice in one object is exit 2 at the second (a fuzz finding leaked the first)' '
	setup &&
	printf "{\n  \"tasks\": {\n    \"build\": {\"interruptible\": true, \"interruptible\": false},\n  }\n}\n" >turbo.json &&
	run_vx 2 run build &&
	test_grep "turbo.json:3:38: duplicate key \"interruptible\" (first at line 3)" "$ERR" &&
	printf "{\"tasks\": {\"build\": {}},\n \"tasks\": {}}\n" >turbo.json &&
	run_vx 2 run build &&
	test_grep "turbo.json:2:2: duplicate key \"tasks\"" "$ERR" &&
	test ! -e packages/p0/dist
'

test_expect_success 'with: a task'"'"'s siblings run alongside it, with no edge; a missing one is exit 2' '
	setup &&
	cat >turbo.json <<-\EOF &&
	{
	  "tasks": {
	    "check": {"with": ["lint", "p0#stamp"], "cache": false},
	    "lint": {"cache": false},
	    "stamp": {"cache": false}
	  }
	}
	EOF
	node -e "for (const p of [\"p0\", \"p1\"]) { const f = \"packages/\" + p + \"/package.json\", j = JSON.parse(require(\"fs\").readFileSync(f));
		j.scripts.check = \"echo checked-\" + p; j.scripts.lint = \"echo linted-\" + p; j.scripts.stamp = \"echo stamped-\" + p;
		require(\"fs\").writeFileSync(f, JSON.stringify(j)); }" &&
	run_vx 0 run check --filter p1 &&
	test_grep "p1#check: checked-p1" "$OUT" &&
	test_grep "p1#lint: linted-p1" "$OUT" &&
	test_grep "p0#stamp: stamped-p0" "$OUT" &&
	test_grep "Tasks: 3 succeeded" "$OUT" &&
	run_vx 0 graph check --filter p1 --format json &&
	node -e "const j = JSON.parse(require(\"fs\").readFileSync(process.argv[1]));
		if (j.nodes.length !== 3 || j.edges.length) process.exit(1);" "$OUT" &&
	sed -i "s/\"p0#stamp\"/\"p0#nothing\"/" turbo.json &&
	run_vx 2 run check --filter p1 &&
	test_grep "turbo.json:3:32: with \"p0#nothing\": project \"p0\" has no task \"nothing\"" "$ERR"
'

test_expect_success 'outputLogs per task: new-only replays no hit, errors-only hides a success; --output-logs wins' '
	setup &&
	sed -i "s|\"outputs\": \[\"dist/\*\*\"\],|\"outputs\": [\"dist/**\"], \"outputLogs\": \"new-only\",|" turbo.json &&
	run_vx 0 run build &&
	test_grep "p0#build: built-p0" "$OUT" &&
	run_vx 0 run build &&
	test_grep "p0#build: cache hit$" "$OUT" &&
	test_grep ! "p0#build: built-p0" "$OUT" &&
	run_vx 0 run build --output-logs=full &&
	test_grep "p0#build: cache hit, replaying output" "$OUT" &&
	test_grep "p0#build: built-p0" "$OUT" &&
	sed -i "s|\"new-only\"|\"errors-only\"|" turbo.json &&
	run_vx 0 run build --force &&
	test_grep ! "p0#build: built-p0" "$OUT" &&
	test_grep "p0#build: done in" "$OUT" &&
	sed -i "s|\"errors-only\"|\"some\"|" turbo.json &&
	run_vx 2 run build &&
	test_grep "turbo.json:[0-9]*:[0-9]*: turbo.json \"outputLogs\" is \"full\"" "$ERR"
'

test_expect_success 'a package turbo.json extends the root'"'"'s: its outputs replace the root'"'"'s for that package' '
	setup &&
	printf "{\"extends\": [\"//\"], \"tasks\": {\"build\": {\"outputs\": [\"lib/**\"]}}}\n" >packages/p1/turbo.json &&
	(cd packages/p1 && run_vx 0 run build --dry-run) &&
	test_grep "^2 tasks" "$OUT" &&
	run_vx 0 run build &&
	test_grep "Tasks: 4 succeeded" "$OUT" &&
	run_vx 0 run build --dry-run=json &&
	node -e "const j = JSON.parse(require(\"fs\").readFileSync(process.argv[1]));
		const o = Object.fromEntries(j.tasks.map((t) => [t.id, t.outputs.join()]));
		if (o[\"p1#build\"] !== \"lib/**\" || o[\"p0#build\"] !== \"dist/**\") { console.log(o); process.exit(1); }" "$OUT" &&
	rm -rf packages/*/dist &&
	run_vx 0 run build &&
	test_grep "Tasks: 1 succeeded, 3 cached" "$OUT" &&
	test_path_is_file packages/p0/dist/out.txt &&
	test_path_is_missing packages/p1/dist/out.txt
'

test_expect_success '"$TURBO_EXTENDS$" puts the root'"'"'s list first; a task of the package alone runs there alone' '
	setup &&
	printf "{\"extends\": [\"//\"], \"tasks\": {\"build\": {\"outputs\": [\"\$TURBO_EXTENDS\$\", \"lib/**\"]}, \"deploy\": {\"dependsOn\": [\"build\"], \"cache\": false}}}\n" >packages/p2/turbo.json &&
	node -e "const f = \"packages/p2/package.json\", j = JSON.parse(require(\"fs\").readFileSync(f));
		j.scripts.deploy = \"echo deployed\"; require(\"fs\").writeFileSync(f, JSON.stringify(j))" &&
	run_vx 0 run build --dry-run=json &&
	node -e "const j = JSON.parse(require(\"fs\").readFileSync(process.argv[1]));
		const t = j.tasks.find((t) => t.id === \"p2#build\");
		if (t.outputs.join() !== \"dist/**,lib/**\") { console.log(t.outputs); process.exit(1); }" "$OUT" &&
	run_vx 0 run deploy &&
	test_grep "p2#deploy: deployed" "$OUT" &&
	test_grep "Tasks: 4 succeeded" "$OUT"
'

test_expect_success 'a package turbo.json breaking Turborepo'"'"'s rules is exit 2 at its place' '
	setup &&
	printf "{\"tasks\": {\"build\": {}}}\n" >packages/p1/turbo.json &&
	run_vx 2 run build &&
	test_grep "p1/turbo.json:1:1: a package.s turbo.json must extend the root.s" "$ERR" &&
	printf "{\"extends\": [\"p0\"], \"tasks\": {}}\n" >packages/p1/turbo.json &&
	run_vx 2 run build &&
	test_grep "p1/turbo.json:1:13: a package.s turbo.json extends the root.s alone" "$ERR" &&
	printf "{\"extends\": [\"//\"], \"tasks\": {\"p1#build\": {}}}\n" >packages/p1/turbo.json &&
	run_vx 2 run build &&
	test_grep "names its own tasks: \"build\", not \"p1#build\"" "$ERR" &&
	printf "{\"extends\": [\"//\"],\n \"globalEnv\": [\"X\"]}\n" >packages/p1/turbo.json &&
	run_vx 2 run build &&
	test_grep "p1/turbo.json:2:2: \"globalEnv\" belongs in the root turbo.json" "$ERR" &&
	test_path_is_missing packages/p0/dist
'

test_expect_success 'only a top-level "extends" makes a turbo.json a package'"'"'s: a task named extends does not' '
	setup &&
	printf "{\"tasks\": {\"build\": {\"dependsOn\": [\"^build\", \"extends\"], \"outputs\": [\"dist/**\"]}, \"extends\": {}}}\n" >turbo.json &&
	run_vx 0 run build &&
	test_grep "Tasks: 4 succeeded" "$OUT" &&
	run_vx 0 info &&
	test_grep "its root by turbo.json" "$OUT"
'

test_expect_success 'a package input reaching up (../../x, $TURBO_ROOT$/x) is named once, from the root' '
	setup &&
	echo "shared" >tsup.config.base.ts &&
	echo "{\"extends\": [\"//\"], \"tasks\": {\"build\": {\"inputs\": [\"src/**\", \"../../tsup.config.base.ts\", \"\$TURBO_ROOT\$/tsup.config.base.ts\"]}}}" >packages/p0/turbo.json &&
	run_vx 0 run build --filter=p0 --dry-run=json &&
	jq -e "[.tasks[] | select(.id == \"p0#build\") | .inputFiles[] | select(test(\"tsup\"))] == [\"tsup.config.base.ts\"]" "$OUT" &&
	run_vx 0 run build --filter=p0 -v &&
	test_grep ! "\.\./" "$OUT" "$ERR"
'

test_expect_success 'the root vx.yaml names one package'"'"'s task (PROJECT#TASK): it overlays that package'"'"'s layer field by field; turbo.json'"'"'s replaces' '
	setup &&
	cat >vx.yaml <<-\EOF &&
	tasks:
	  p1#build:
	    outputs: ["dist/**", "extra/**"]
	  p3#build:
	    env:
	      define: {P3: "yes"}
	EOF
	run_vx 0 run build --dry=json &&
	# p1: turbo.json'"'"'s generic build (its dependsOn) under the overlay
	jq -e ".tasks[] | select(.taskId == \"p1#build\") | .resolvedTaskDefinition | (.outputs == [\"dist/**\", \"extra/**\"]) and (.dependsOn == [\"^build\"])" "$OUT" &&
	# p0 has only the generic task
	jq -e ".tasks[] | select(.taskId == \"p0#build\") | .resolvedTaskDefinition.outputs == [\"dist/**\"]" "$OUT" &&
	# p3: turbo.json'"'"'s p3#build replaced the generic one (no outputs, no
	# cache); the vx.yaml overlay adds to that, not to the generic
	jq -e ".tasks[] | select(.taskId == \"p3#build\") | .resolvedTaskDefinition | (.outputs == []) and (.cache == false)" "$OUT" &&
	run_vx 0 run build &&
	test_path_is_file packages/p1/dist/out.txt
'

test_expect_success 'a PROJECT#TASK that names no project, or sits in a project'"'"'s vx.yaml, is an error at its place' '
	setup &&
	printf "tasks:\n  p11#build:\n    cache: false\n" >vx.yaml &&
	run_vx 2 run build &&
	test_grep "vx.yaml:2:3: \"p11#build\": no project is named \"p11\" (did you mean \"p1\"?)" "$ERR" &&
	rm vx.yaml &&
	printf "name: p2\ntasks:\n  p2#build:\n    cache: false\n" >packages/p2/vx.yaml &&
	run_vx 2 run build &&
	test_grep "packages/p2/vx.yaml:3:3: \"p2#build\": a project.s vx.yaml names its own tasks (\"build\"); PROJECT#TASK belongs in the root.s" "$ERR" &&
	printf "name: p2\ntasks:\n  //#build:\n    cache: false\n" >packages/p2/vx.yaml &&
	run_vx 2 run build &&
	test_grep "packages/p2/vx.yaml:3:3: \"//#build\": a \"//#\" task belongs in the workspace root.s vx.yaml" "$ERR"
'

test_expect_success 'an unknown key in turbo.json is refused at its place with the closest key, as turbo refuses it; nothing runs' '
	setup &&
	sed -i "s/\"dependsOn\": \[\"^build\"\],/\"dependson\": [\"^build\"],/" turbo.json &&
	run_vx 2 run build &&
	test_grep "^vx: .*turbo.json:7:7: unknown task key \"dependson\" (did you mean \"dependsOn\"?)$" "$ERR" &&
	test $(wc -l <"$ERR") = 1 &&
	test ! -e packages/p0/dist
'

test_expect_success 'an unknown top-level key in turbo.json is refused too' '
	setup &&
	sed -i "s/\"ui\": \"stream\",/\"globalEnvv\": [\"CI\"],/" turbo.json &&
	run_vx 2 run build &&
	test_grep "turbo.json:4:3: unknown key \"globalEnvv\" (did you mean \"globalEnv\"?)" "$ERR"
'

test_expect_success 'create-turbo'"'"'s inputs, $TURBO_DEFAULT$ with no "!" beside it, say nothing' '
	setup &&
	sed -i "s|\"outputs\": \[\"dist/\*\*\"\],|\"outputs\": [\"dist/**\"], \"inputs\": [\"\$TURBO_DEFAULT\$\", \".env*\"],|" turbo.json &&
	run_vx 0 run build &&
	test_grep ! "warning" "$ERR" &&
	sed -i "s|\".env\*\"\]|\".env*\", \"!README.md\"]|" turbo.json &&
	run_vx 0 run build &&
	test_grep "TURBO_DEFAULT\\$ keys every file of the package" "$ERR"
'

test_done
