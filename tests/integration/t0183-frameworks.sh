#!/bin/bash
# Framework inference (issue 42 item 1), against turbo 2.11.13 from npm as
# the oracle: a package that depends on a framework has that framework's
# public variables in its tasks' keys. With NEXT_PUBLIC_API_URL=a, then
# =b, turbo's hash of a Next app's build changed and vx's key did not,
# while vx passed the variable to the task: a bundle built with one value
# replayed for another. One package per framework of turbo's table (and
# the cases of its rules: devDependencies and optionalDependencies count,
# peerDependencies do not, the first framework of the table wins, "some"
# takes any one of its packages), compared task by task.
. "$(dirname "$0")/lib.sh"

turbo_oracle

# pkg NAME KIND DEP...: a package whose package.json has DEPs of KIND
# ("dependencies", ...), and a build script that prints NEXT_PUBLIC_API_URL.
pkg() {
	local name=$1 kind=$2
	shift 2
	mkdir -p "apps/$name"
	node -e 'const [name, kind, ...deps] = process.argv.slice(1);
		const j = {name, version: "1.0.0", scripts: {build: "echo url=$NEXT_PUBLIC_API_URL"}};
		if (deps.length) j[kind] = Object.fromEntries(deps.map((d) => [d, "1.0.0"]));
		console.log(JSON.stringify(j, null, 2))' "$name" "$kind" "$@" >"apps/$name/package.json"
}

setup() {
	echo '{"name": "root", "private": true, "workspaces": ["apps/*"], "packageManager": "npm@9.2.0"}' >package.json
	echo '{"name": "root", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "root", "workspaces": ["apps/*"]}}}' >package-lock.json
	echo '{"$schema": "https://turbo.build/schema.json", "tasks": {"build": {"outputs": ["dist/**"]}}}' >turbo.json
	pkg app-astro dependencies astro
	pkg app-blitz dependencies blitz
	pkg app-cra devDependencies react-dev-utils
	pkg app-expo optionalDependencies expo
	pkg app-gatsby dependencies gatsby
	pkg app-next dependencies next
	pkg app-nitro dependencies nitro
	pkg app-nuxt dependencies nuxt3
	pkg app-redwood dependencies @redwoodjs/core
	pkg app-remix devDependencies @remix-run/serve
	pkg app-sanity dependencies @sanity/cli
	pkg app-solid dependencies solid-js solid-start
	pkg app-solid-half dependencies solid-js
	pkg app-kit devDependencies @sveltejs/kit
	pkg app-vite devDependencies vite
	pkg app-vue dependencies @vue/cli-service
	pkg app-peer peerDependencies gatsby
	pkg app-first dependencies vite @sveltejs/kit next
	pkg app-plain dependencies left-pad
	# a workspace package named like a framework is no framework
	pkg react-scripts dependencies left-pad
	pkg app-internal dependencies react-scripts
	printf "node_modules/\n.turbo/\n.vx/\n" >.gitignore
	git init -q && git add -A && git commit -qm init
}

# The variables every framework of the table reads, set, and two it does not.
vars() {
	env PUBLIC_A=1 NEXT_PUBLIC_API_URL="$1" NEXT_DEPLOYMENT_ID=d REACT_APP_A=1 EXPO_PUBLIC_A=1 \
		GATSBY_A=1 NITRO_A=1 SERVER_A=1 NETLIFY=1 NUXT_A=1 NUXT_ENV_A=1 LAUNCH_EDITOR=1 \
		REDWOOD_ENV_A=1 REMIX_A=1 SANITY_STUDIO_A=1 VITE_A=1 VUE_APP_A=1 \
		VERCEL_SKEW_PROTECTION_ENABLED=1 VERCEL_DEPLOYMENT_ID=v OTHER_A=1 "${@:2}"
}

# same TURBO_JSON VX_JSON: the same framework and the same inferred names per task.
cat >"$TEST_TMP/same.js" <<'JS'
const fs = require("fs");
const turbo = JSON.parse(fs.readFileSync(process.argv[2]));
const vx = JSON.parse(fs.readFileSync(process.argv[3]));
const T = {}, V = {};
for (const t of turbo.tasks)
	T[t.taskId] = t.framework + " " + (t.environmentVariables.inferred || []).map((e) => e.split("=")[0]).sort().join(",");
for (const t of vx.tasks) V[t.id] = t.framework + " " + [...t.inferredEnv].sort().join(",");
let bad = 0;
for (const id of new Set([...Object.keys(T), ...Object.keys(V)]))
	if (T[id] !== V[id]) { console.log(`${id}: turbo "${T[id]}", vx "${V[id]}"`); bad = 1; }
if (!bad) console.log(`${Object.keys(T).length} tasks alike`);
process.exit(bad);
JS

test_expect_success 'each package'"'"'s framework and the variables it adds are turbo'"'"'s' '
	setup &&
	vars a "$turbo" run build --dry=json >turbo.json.out 2>/dev/null &&
	vars a "$VX" run build --dry-run=json >vx.json.out &&
	node "$TEST_TMP/same.js" turbo.json.out vx.json.out &&
	test_grep "\"id\":\"app-next#build\".*\"framework\":\"nextjs\",\"inferredEnv\":\[\"NEXT_DEPLOYMENT_ID\",\"NEXT_PUBLIC_API_URL\",\"VERCEL_DEPLOYMENT_ID\"\]" vx.json.out
'

test_expect_success 'a framework variable'"'"'s value is in the key: a new value misses, as in turbo' '
	setup &&
	vars a "$VX" run build >out1 &&
	test_grep "url=a" out1 &&
	vars a "$VX" run build >out2 &&
	test_grep "Tasks: 0 succeeded, 21 cached" out2 &&
	vars b "$VX" run app-next#build app-plain#build >out3 &&
	test_grep "app-next#build: url=b" out3 &&
	test_grep "Tasks: 1 succeeded, 1 cached" out3 &&
	vars a "$turbo" run app-next#build --dry=json 2>/dev/null | jq -r ".tasks[0].hash" >ta &&
	vars b "$turbo" run app-next#build --dry=json 2>/dev/null | jq -r ".tasks[0].hash" >tb &&
	! cmp -s ta tb
'

test_expect_success '--framework-inference=false and a "!" env entry leave them out, as in turbo' '
	setup &&
	vars a "$turbo" run build --dry=json --framework-inference=false >turbo.json.out 2>/dev/null &&
	vars a "$VX" run build --dry-run=json --framework-inference=false >vx.json.out &&
	node "$TEST_TMP/same.js" turbo.json.out vx.json.out &&
	echo "{\"tasks\": {\"build\": {\"outputs\": [\"dist/**\"], \"env\": [\"!NEXT_PUBLIC_*\", \"!VITE_*\"]}}}" >turbo.json &&
	git commit -qam exclude &&
	vars a "$turbo" run build --dry=json >turbo.json.out 2>/dev/null &&
	vars a "$VX" run build --dry-run=json >vx.json.out &&
	node "$TEST_TMP/same.js" turbo.json.out vx.json.out &&
	test_grep "\"id\":\"app-vite#build\".*\"framework\":\"vite\",\"inferredEnv\":\[\]" vx.json.out
'

test_done
