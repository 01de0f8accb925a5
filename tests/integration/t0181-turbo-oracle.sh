#!/bin/bash
# The oracle (issue 17): on a Turborepo repository configured by turbo.json
# alone, `turbo run --dry=json` (turbo 2.11.13 from npm) and `vx run
# --dry-run=json` must agree, per task: the same tasks, the same
# dependencies, the same input files, the same outputs, the same env names
# in the key, cache on or off, persistent or not. A difference fails the
# test, unless docs/turborepo.md lists it as a deliberate divergence.
. "$(dirname "$0")/lib.sh"

npm_tool turbo-2.11.13 turbo@2.11.13
turbo=$(find "$npm_tool_dir/node_modules/@turbo" -path '*/bin/turbo' -type f | head -n 1)
[ -x "$turbo" ] || { echo "# turbo's binary is not in $npm_tool_dir"; exit 1; }
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

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
		env: sorted(t.resolvedTaskDefinition.env),
		cache: t.resolvedTaskDefinition.cache,
		persistent: t.resolvedTaskDefinition.persistent,
	};
}
for (const t of vx.tasks) {
	if (t.command === null) continue;
	const prefix = t.project === "." ? "" : t.project + "/";
	V[t.id] = {
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

test_done
