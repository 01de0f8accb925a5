#!/bin/bash
# The oracle (issue 17): on a Turborepo repository configured by turbo.json
# alone, `turbo run --dry=json` (turbo 2.11.13 from npm) and `vx run
# --dry-run=json` must agree, per task: the same tasks, the same
# dependencies, the same input files, the same outputs, the same env names
# in the key, cache on or off, persistent or not; and on the lockfile: a
# dependency bump changes the external-dependency hash of the same tasks.
# A difference fails the test, unless docs/turborepo.md lists it as a
# deliberate divergence.
. "$(dirname "$0")/lib.sh"

turbo_oracle

# 5 packages, each with build, test and lint scripts; a turbo.json using
# the fields vx maps; a git repository, as Turborepo reads inputs from git.
setup() {
	bash "$VX_SOURCE_DIR/bench/gen-monorepo" --command 'mkdir -p dist && echo x > dist/out.txt' 5 . >/dev/null &&
	rm -f vx.yaml packages/*/vx.yaml &&
	for p in packages/*/; do
		node -e 'const f = process.argv[1], j = JSON.parse(require("fs").readFileSync(f));
			j.scripts.test = "echo test"; j.scripts.lint = "echo lint"; j.scripts.dev = "echo dev";
			require("fs").writeFileSync(f, JSON.stringify(j, null, 2))' "$p/package.json" || return 1
		mkdir -p "$p/test" && echo "t" >"$p/test/a.test.txt" && echo "doc" >"$p/README.md"
	done &&
	cat >turbo.json <<-\EOF &&
	{
	  "$schema": "https://turbo.build/schema.json",
	  "tasks": {
	    "build": {"dependsOn": ["^build"], "outputs": ["dist/**", "!dist/tmp/**"]},
	    "test": {"dependsOn": ["build"], "inputs": ["src/**", "test/**"], "env": ["API_URL", "CI_NODE"]},
	    "lint": {"cache": false},
	    "p2#build": {"dependsOn": ["^build"], "outputs": ["lib/**"]},
	    "dev": {"persistent": true, "cache": false}
	  }
	}
	EOF
	cat >packages/p3/turbo.json <<-\EOF &&
	{
	  "extends": ["//"],
	  "tasks": {
	    "build": {"outputs": ["$TURBO_EXTENDS$", "out/**"]},
	    "test": {"inputs": ["src/**"], "env": ["$TURBO_EXTENDS$", "P3_FLAG"]},
	    "lint": {"dependsOn": ["build"]}
	  }
	}
	EOF
	printf "node_modules/\ndist/\n.turbo/\n.vx/\n*.json.out\n" >.gitignore &&
	npm install --offline --no-audit --no-fund >/dev/null 2>&1 &&
	git init -q && git add -A && git commit -qm init
}

# compare TURBO_JSON VX_JSON: prints each difference, fails when any.
cat >"$TEST_TMP/compare.js" <<'EOF'
const fs = require("fs");
const turbo = JSON.parse(fs.readFileSync(process.argv[2]));
const vx = JSON.parse(fs.readFileSync(process.argv[3]));
const sorted = (a) => [...(a || [])].sort();
const T = {}, V = {};
for (const t of turbo.tasks) {
	if (t.command === "<NONEXISTENT>") continue;
	T[t.taskId] = {
		dependencies: sorted(t.dependencies),
		inputs: sorted(Object.keys(t.inputs)),
		outputs: sorted(t.resolvedTaskDefinition.outputs),
		/* the names in the key: those written, and what a wildcard matched
		 * ("configured" holds the variables set, as NAME=hash) */
		env: sorted([...new Set([
			...(t.resolvedTaskDefinition.env || []).filter((e) => !/[*!]/.test(e)),
			...(t.environmentVariables.configured || []).map((e) => e.split("=")[0])])]),
		cache: t.resolvedTaskDefinition.cache,
		persistent: t.resolvedTaskDefinition.persistent,
	};
}
for (const t of vx.tasks) {
	if (t.command === null) continue;
	const prefix = t.project === "." ? "" : t.project + "/";
	V[t.project === "." ? "//#" + t.task : t.id] = {
		dependencies: sorted(t.dependencies),
		inputs: sorted(t.inputFiles.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length))),
		outputs: sorted(t.outputs),
		env: sorted(t.env),
		cache: t.cacheEnabled,
		persistent: t.persistent,
	};
}
let bad = 0;
for (const id of sorted(new Set([...Object.keys(T), ...Object.keys(V)]))) {
	if (!T[id] || !V[id]) { console.log(`${id}: only in ${T[id] ? "turbo" : "vx"}`); bad++; continue; }
	for (const f of Object.keys(T[id])) {
		const a = JSON.stringify(T[id][f]), b = JSON.stringify(V[id][f]);
		if (a !== b) { console.log(`${id} ${f}: turbo ${a}, vx ${b}`); bad++; }
	}
}
console.log(`${Object.keys(T).length} tasks compared, ${bad} differences`);
process.exit(bad ? 1 : 0);
EOF

test_expect_success 'turbo --dry=json and vx --dry-run=json agree on every task of build, test and lint' '
	setup &&
	"$turbo" run build test lint --dry=json >turbo.json.out 2>turbo.err &&
	run_vx 0 run build test lint --dry-run=json &&
	cp "$OUT" vx.json.out &&
	node "$TEST_TMP/compare.js" turbo.json.out vx.json.out
'

test_expect_success 'and on a persistent task' '
	setup &&
	"$turbo" run dev --dry=json >turbo.json.out 2>turbo.err &&
	run_vx 0 run dev --dry-run=json &&
	cp "$OUT" vx.json.out &&
	node "$TEST_TMP/compare.js" turbo.json.out vx.json.out
'

# The lockfile fixture workspace (tests/unit/fixtures/lockfiles: a -> ui,
# b, c; pnpm 9's lockfile), configured by turbo.json, in git.
lock_setup() {
	mkdir -p apps/a apps/b apps/c packages/ui &&
	printf '{"name": "fixture-root", "private": true, "packageManager": "pnpm@9.15.9", "devDependencies": {"kleur": "4.1.5"}}\n' >package.json &&
	printf '{"name": "a", "version": "1.0.0", "scripts": {"build": "echo a"}, "dependencies": {"is-odd": "3.0.1", "ui": "workspace:*"}}\n' >apps/a/package.json &&
	printf '{"name": "b", "version": "1.0.0", "scripts": {"build": "echo b"}, "dependencies": {"left-pad": "1.3.0"}}\n' >apps/b/package.json &&
	printf '{"name": "c", "version": "1.0.0", "scripts": {"build": "echo c"}, "dependencies": {"ms": "2.1.3"}, "devDependencies": {"is-number": "6.0.0"}}\n' >apps/c/package.json &&
	printf '{"name": "ui", "version": "0.1.0", "scripts": {"build": "echo ui"}, "dependencies": {"is-number": "7.0.0"}}\n' >packages/ui/package.json &&
	printf 'packages:\n  - "apps/*"\n  - "packages/*"\n' >pnpm-workspace.yaml &&
	printf '{"tasks": {"build": {"dependsOn": ["^build"]}}}\n' >turbo.json &&
	printf ".vx/\n*.out\n" >.gitignore &&
	cp "$VX_SOURCE_DIR/tests/unit/fixtures/lockfiles/pnpm9/pnpm-lock.yaml" . &&
	git init -q && git add -A && git commit -qm init
}

# Each tool's external-dependency hash per task, one "ID HASH" line each;
# turbo's root closure (its global hash) is folded into every task's, as
# vx folds the root's closure into every project's.
externals() {
	"$turbo" run build --dry=json 2>/dev/null >t.out &&
	node -e 'const j = JSON.parse(require("fs").readFileSync("t.out"));
		for (const t of j.tasks) console.log(t.taskId, t.hashOfExternalDependencies + "+" + j.globalCacheInputs.hashOfExternalDependencies)' | sort >"$1.turbo" &&
	"$VX" run build --dry-run=json >v.out &&
	node -e 'const j = JSON.parse(require("fs").readFileSync("v.out"));
		for (const t of j.tasks) console.log(t.id, t.externals)' | sort >"$1.vx"
}

# changed BEFORE AFTER TOOL: the tasks whose hash differs, on one line.
changed() {
	join "$1.$3" "$2.$3" | awk '$2 != $3 {print $1}' | tr '\n' ' '
}

test_expect_success 'a version bump in the lockfile changes the same tasks'"'"' external hash in turbo and vx' '
	lock_setup &&
	externals before &&
	test $(wc -l <before.vx) = 4 && ! grep -q " null$" before.vx &&
	sed -i -e "s/left-pad@1.3.0/left-pad@1.3.1/" -e "s/version: 1.3.0/version: 1.3.1/" pnpm-lock.yaml &&
	externals left-pad &&
	echo "left-pad: turbo $(changed before left-pad turbo)/ vx $(changed before left-pad vx)" &&
	test "$(changed before left-pad turbo)" = "b#build " &&
	test "$(changed before left-pad vx)" = "b#build " &&
	git checkout -q pnpm-lock.yaml &&
	sed -i -e "s/kleur@4.1.5/kleur@4.1.6/" -e "s/version: 4.1.5/version: 4.1.6/" pnpm-lock.yaml &&
	externals kleur &&
	test "$(changed before kleur turbo)" = "a#build b#build c#build ui#build " &&
	test "$(changed before kleur vx)" = "a#build b#build c#build ui#build "
'

test_expect_success 'a bump in a linked workspace package: vx also changes its dependents (a divergence docs/turborepo.md lists)' '
	lock_setup &&
	externals before &&
	sed -i -e "s/is-number@7.0.0/is-number@7.0.1/" -e "s/version: 7.0.0/version: 7.0.1/" pnpm-lock.yaml &&
	externals bumped &&
	echo "is-number 7: turbo $(changed before bumped turbo)/ vx $(changed before bumped vx)" &&
	test "$(changed before bumped turbo)" = "ui#build " &&
	test "$(changed before bumped vx)" = "a#build ui#build " &&
	grep -q "through workspace links" "$VX_SOURCE_DIR/docs/turborepo.md"
'

# The environment a task sees, as the names each tool gives it, less what
# each adds of its own (npm's npm_*, turbo's TURBO_HASH..., vx's VX_*).
env_of() {
	grep -v -E '^(TURBO_HASH|TURBO_INVOCATION_DIR|INIT_CWD|COLOR|EDITOR|NODE|_)$|^npm_|^VX_' packages/a/env.txt | sort
}

test_expect_success 'envMode: the task sees the same variables under turbo and vx, strict and loose' '
	mkdir -p packages/a &&
	printf "{\"name\": \"root\", \"private\": true, \"packageManager\": \"npm@10.9.0\", \"workspaces\": [\"packages/*\"]}\n" >package.json &&
	printf "{\"name\": \"a\", \"version\": \"1.0.0\", \"scripts\": {\"build\": \"env | cut -d= -f1 | sort >env.txt\"}}\n" >packages/a/package.json &&
	printf "{\"globalPassThroughEnv\": [\"GP_*\"], \"globalEnv\": [\"GE_ONE\"], \"tasks\": {\"build\": {\"cache\": false, \"env\": [\"API_*\", \"!API_SECRET\"], \"passThroughEnv\": [\"PT_X\"]}}}\n" >turbo.json &&
	printf ".vx/\nenv.txt\n" >.gitignore &&
	git init -q && git add -A && git commit -qm init &&
	for mode in strict loose; do
		vars="PATH=$PATH HOME=$HOME TURBO_TELEMETRY_DISABLED=1 FOO=1 API_URL=1 API_SECRET=1 PT_X=1 PT_Y=1 GP_A=1 GE_ONE=1 GE_TWO=1 GITHUB_X=1 LC_ALL=C NODE_ENV=x TZ=UTC LOGNAME=x" &&
		env -i $vars "$turbo" run build --env-mode=$mode >turbo.log 2>&1 &&
		env_of >turbo.env &&
		rm packages/a/env.txt &&
		env -i $vars "$VX" run build --env-mode=$mode >vx.log 2>&1 &&
		env_of >vx.env &&
		echo "$mode: turbo $(tr "\n" " " <turbo.env)" &&
		test_cmp turbo.env vx.env || return 1
	done &&
	grep -q "^FOO$" vx.env
'

# The same workspace for each package manager Turborepo reads, with what
# real repositories have: a pnpm "!" exclusion, a root task, env wildcards,
# globalDependencies.
manager_setup() {
	lock_setup >/dev/null &&
	git rm -q --cached pnpm-lock.yaml pnpm-workspace.yaml && rm -f pnpm-lock.yaml pnpm-workspace.yaml &&
	mkdir -p packages/scratch &&
	printf '{"name": "scratch", "version": "0.0.0", "scripts": {"build": "echo scratch"}}\n' >packages/scratch/package.json &&
	node -e 'const f = "package.json", j = JSON.parse(require("fs").readFileSync(f));
		j.packageManager = process.argv[1]; j.scripts = {format: "echo format"};
		if (process.argv[2] !== "pnpm") j.workspaces = ["apps/*", "packages/ui"];
		require("fs").writeFileSync(f, JSON.stringify(j, null, 2))' "$1" "$2" &&
	cat >turbo.json <<-\EOF &&
	{
	  "globalDependencies": ["tsconfig.json"],
	  "tasks": {
	    "build": {"dependsOn": ["^build"], "outputs": ["dist/**"], "env": ["API_*", "!API_SECRET"]},
	    "//#format": {"cache": false}
	  }
	}
	EOF
	echo "{}" >tsconfig.json &&
	case $2 in
	pnpm) printf 'packages:\n  - "apps/*"\n  - "packages/*"\n  - "!packages/scratch"\n' >pnpm-workspace.yaml &&
		cp "$VX_SOURCE_DIR/tests/unit/fixtures/lockfiles/pnpm9/pnpm-lock.yaml" . ;;
	yarn) cp "$VX_SOURCE_DIR/tests/unit/fixtures/lockfiles/yarn1/yarn.lock" . ;;
	npm) cp "$VX_SOURCE_DIR/tests/unit/fixtures/lockfiles/npm/package-lock.json" . ;;
	esac &&
	git add -A && git commit -qm managers
}

for pm in pnpm@9.15.9:pnpm yarn@1.22.22:yarn npm@10.9.0:npm; do
	test_expect_success "the oracle on a ${pm#*:} workspace: a root task, an exclusion, env wildcards, globalDependencies" '
		manager_setup '"${pm%%:*} ${pm#*:}"' &&
		export API_URL=u API_KEY=k API_SECRET=s &&
		"$turbo" run build format --dry=json >turbo.json.out 2>turbo.err &&
		run_vx 0 run build format --dry-run=json &&
		cp "$OUT" vx.json.out &&
		node "$TEST_TMP/compare.js" turbo.json.out vx.json.out &&
		node -e "const j = JSON.parse(require(\"fs\").readFileSync(\"vx.json.out\"));
			if (j.tasks.some((t) => t.id.startsWith(\"scratch\"))) process.exit(1);
			if (!j.tasks.some((t) => t.project === \".\" && t.task === \"format\")) process.exit(1);"
	'
done

# Issue 42 items 2 and 3: Turborepo's root task keys every file of the
# repository (a package's source too, and what git does not ignore yet);
# vx keyed the root's own files and each package.json, so //#format
# replayed after a package's source changed. And .vx/ was not ignored:
# `git status` listed it and `git add -A` staged the cache.
test_expect_success 'a root task keys every file of the repository, as turbo; .vx/ ignores itself' '
	setup &&
	node -e "const f = \"package.json\", j = JSON.parse(require(\"fs\").readFileSync(f));
		j.scripts = {format: \"echo format\"}; require(\"fs\").writeFileSync(f, JSON.stringify(j, null, 2))" &&
	node -e "const f = \"turbo.json\", j = JSON.parse(require(\"fs\").readFileSync(f));
		j.tasks[\"//#format\"] = {}; require(\"fs\").writeFileSync(f, JSON.stringify(j, null, 2))" &&
	grep -v "^.vx/$" .gitignore >g && mv g .gitignore &&
	git add -A && git commit -qm format &&
	echo "new" >packages/p1/src/untracked.txt &&
	"$turbo" run format --dry=json >turbo.json.out 2>turbo.err &&
	run_vx 0 run format --dry-run=json &&
	node -e "const fs = require(\"fs\");
		const t = JSON.parse(fs.readFileSync(\"turbo.json.out\")).tasks.find((x) => x.taskId === \"//#format\");
		const v = JSON.parse(fs.readFileSync(process.argv[1])).tasks.find((x) => x.project === \".\");
		const a = Object.keys(t.inputs).sort().join(\"\\n\"), b = [...v.inputFiles].sort().join(\"\\n\");
		if (a !== b) { console.log(\"turbo:\\n\" + a + \"\\nvx:\\n\" + b); process.exit(1); }
		if (!b.includes(\"packages/p1/src/untracked.txt\")) process.exit(1);" "$OUT" &&
	test_path_is_missing .vx &&
	run_vx 0 run format &&
	run_vx 0 run format &&
	test_grep "format: cache hit" "$OUT" &&
	git status --porcelain >status &&
	test_grep ! "\.vx" status &&
	printf "# made by vx: its cache and state are this machine'"'"'s\n*\n" >want &&
	test_cmp want .vx/.gitignore &&
	echo "more" >>packages/p3/src/untracked2.txt &&
	run_vx 0 run format &&
	test_grep ! "format: cache hit" "$OUT"
'

test_done
