#!/bin/bash
# The workspace root's own files (issue 40 item 5, issue 41 item 5): tools
# walk up to the root's package.json, lockfile, turbo.json, .gitignore,
# .npmrc, tsconfig*.json and .env* (Vite, Next, tsc's extends, ESLint,
# corepack, dotenv); hidden, they failed or went to the network. They are
# readable to every sandboxed task, read-only, judged against the key when
# read; a link there is not followed out, and the rest of the root stays
# hidden. Issue 53 item 6: a root .env* is readable only to a task that
# names it (its inputs.workspaceFiles or an allow.read grant), and a
# .npmrc only when every setting in it is a harmless one.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

setup() {
	ws_root </dev/null
	echo '{"name": "root", "private": true, "packageManager": "npm@10.0.0"}' >package.json
	echo "API_URL=one" >.env
	echo '{"compilerOptions": {"strict": true}}' >tsconfig.base.json
	echo "dist" >.gitignore
	echo "root secret" >root.txt
	write_file app/src/a.txt <<<"app source"
}

# app#build running COMMAND, with more lines under the task.
project() {
	local cmd=$1
	shift
	{
		printf '  build:\n    command: %s\n' "$cmd"
		for l in "$@"; do printf '    %s\n' "$l"; done
	} | ws_project app app
}

test_expect_success 'a cached task reads the root files: readable, held against its key, the fix keys them, an edit misses' '
	setup &&
	project "\"cat ../package.json ../tsconfig.base.json ../.gitignore\"" "sandbox: {}" &&
	run_vx 1 run app#build --report json &&
	jq -e ".tasks[0].violations | map(select(.op == \"read-unkeyed\")) | length == 3" "$OUT" &&
	jq -e ".tasks[0].fix.inputs.workspaceFiles == [\".gitignore\", \"package.json\", \"tsconfig.base.json\"]" "$OUT" &&
	run_vx 0 sandbox learn app#build &&
	test_grep "workspaceFiles: \[\".gitignore\", \"package.json\", \"tsconfig.base.json\"\]" app/vx.yaml &&
	test_grep ! "allow" app/vx.yaml &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	test_grep "app#build: dist" "$OUT" &&
	echo "build" >>.gitignore &&
	run_vx 0 run app#build &&
	test_grep "app#build: build" "$OUT" &&
	test_grep ! "cache hit" "$OUT"
'

# Issue 53 item 6: every sandboxed task of every project read the root
# .env, .env.local and .env.keys, exit 0, no violation.
test_expect_success 'a root .env* is hidden from a task that does not name it: no bytes, and a cached reader fails with the fix' '
	setup &&
	echo "SECRET_LOCAL=sekrit-local" >.env.local &&
	echo "DOTENV_PRIVATE_KEY=sekrit-keys" >.env.keys &&
	project "\"cat ../.env; cat ../.env.local; cat ../.env.keys; test -f ../package.json && echo end\"" "cache: false" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	test_grep "No such file" "$OUT" &&
	test_grep ! "API_URL\|sekrit" "$OUT" &&
	project "\"cat ../.env\"" "sandbox: {}" &&
	run_vx 1 run app#build &&
	test_grep ! "API_URL" "$OUT" &&
	test_grep "violation: read .env" "$ERR" &&
	run_vx 0 sandbox show app#build &&
	test_grep ! "/ws/\.env" "$OUT"
'

test_expect_success 'a root .env is readable to a task that names it: an allow.read grant, or its inputs.workspaceFiles (keyed: an edit misses)' '
	setup &&
	echo "SECRET_LOCAL=sekrit-local" >.env.local &&
	project "\"cat ../.env; cat ../.env.local; true\"" "cache: false" "sandbox: {allow: {read: [\"../.env\"]}}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: API_URL=one" "$OUT" &&
	test_grep ! "sekrit" "$OUT" &&
	project "\"cat ../.env; cat ../.env.local; true\"" "inputs: {workspaceFiles: [\".env\"]}" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: API_URL=one" "$OUT" &&
	test_grep ! "sekrit" "$OUT" &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	echo "API_URL=two" >.env &&
	run_vx 0 run app#build &&
	test_grep "app#build: API_URL=two" "$OUT" &&
	test_grep ! "cache hit" "$OUT"
'

test_expect_success 'an uncached task reads them with no violation; the rest of the root stays hidden' '
	setup &&
	project "\"cat ../.gitignore && test -f ../package.json && ! cat ../root.txt && ! cat ../app/../root.txt && test ! -s ../root.txt\"" "cache: false" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: dist" "$OUT" &&
	test_grep ! "root secret" "$OUT" &&
	test_grep ! "violation" "$ERR"
'

# Issue 54 item 5: esbuild resolves tsup's `../tsup.config.base` by listing
# the root, where the name was missing: "Could not resolve", no refusal in
# the trace, nothing to learn. The root's other files show as names that
# refuse every open: the read is traced and judged, with its grant. No
# byte of them is shown; the .env files and .npmrc stay absent.
test_expect_success 'a hidden root file shows as a name that refuses its open: a failed task gets the read grant' '
	setup &&
	echo "export default {}" >tsup.config.base.ts &&
	echo "always-auth=true" >.npmrc &&
	project "\"ls -a .. && cat ../tsup.config.base.ts\"" "cache: false" "sandbox: {}" &&
	run_vx 1 run app#build --report json &&
	jq -e ".tasks[0].violations == [{\"op\": \"read\", \"path\": \"tsup.config.base.ts\", \"syscall\": \"openat\", \"errno\": \"EACCES\"}]" "$OUT" &&
	jq -e ".tasks[0].fix.allow.read == [\"../tsup.config.base.ts\"]" "$OUT" &&
	run_vx 1 run app#build &&
	test_grep "^app#build: tsup.config.base.ts$" "$OUT" &&
	test_grep "^app#build: root.txt$" "$OUT" &&
	test_grep ! "^app#build: \.env$" "$OUT" &&
	test_grep ! "^app#build: \.npmrc$" "$OUT" &&
	test_grep ! "export default" "$OUT" &&
	sed -i "s|sandbox: {}|sandbox: {allow: {read: [\"../tsup.config.base.ts\"]}}|" app/vx.yaml &&
	run_vx 0 run app#build &&
	test_grep "app#build: export default {}" "$OUT"
'

test_expect_success 'they are read-only: a write fails with EROFS and the host file is unchanged' '
	setup &&
	project "\"echo evil >> ../package.json; echo evil > ../.env; true\"" "cache: false" "sandbox: {allow: {read: [\"../.env\"]}}" &&
	run_vx 0 run app#build &&
	test_grep "cannot create ../package.json: Read-only file system" "$OUT" &&
	test_grep "cannot create ../.env: Read-only file system" "$OUT" &&
	test_grep ! "evil" package.json &&
	test "$(cat .env)" = "API_URL=one"
'

test_expect_success 'a root file that is a link is not followed out: the secret it points at is never printed' '
	setup &&
	echo "home secret" >"$TEST_DIR/secret" &&
	rm .gitignore && ln -s "$TEST_DIR/secret" .gitignore &&
	project "\"cat ../.gitignore; true\"" "cache: false" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep ! "home secret" "$OUT"
'

# Issue 53 item 6: a .npmrc with an inline private key (key=), which the
# credential filter missed, was readable to every task. Only a .npmrc whose
# every setting is on a list of harmless ones is shown.
test_expect_success 'a root .npmrc is shown only when every setting in it is a harmless one' '
	setup &&
	project "\"cat ../.npmrc; true\"" "cache: false" "sandbox: {}" &&
	for bad in "key=-----BEGIN PRIVATE KEY-----sekrit" \
		"//registry.npmjs.org/:_authToken=sekrit" \
		"//registry.example/:_authToken=\${NPM_TOKEN_sekrit}" \
		"cert=sekrit" "email=sekrit@example.com" "username=sekrit" "_auth=sekrit" \
		"[section]sekrit"; do
		printf "registry=https://registry.example/\n%s\n" "$bad" >.npmrc &&
		run_vx 0 run app#build &&
		test_grep ! "sekrit\|registry.example" "$OUT" || exit 1
	done &&
	printf "# the team registry\nregistry=https://registry.example/\n\n; pnpm\nauto-install-peers=true\n@acme:registry = https://npm.acme.example/\npublic-hoist-pattern[]=*eslint*\n" >.npmrc &&
	run_vx 0 run app#build &&
	test_grep "app#build: registry=https://registry.example/" "$OUT" &&
	test_grep "app#build: auto-install-peers=true" "$OUT" &&
	test_grep "app#build: public-hoist-pattern\[\]=\*eslint\*" "$OUT"
'

test_expect_success 'one decision for both platforms: vx sandbox show and the Seatbelt profile name the same files' '
	setup &&
	printf "//r/:_auth=LITERAL\n" >.npmrc &&
	project "true" "sandbox: {}" &&
	run_vx 0 sandbox show app#build &&
	ws=$(pwd -P) &&
	for f in .gitignore package.json tsconfig.base.json; do test_grep "^$ws/$f\$" "$OUT" || exit 1; done &&
	test_grep ! "\.npmrc\|\.env" "$OUT" &&
	# root.txt only as a name that refuses its open (an empty mode-0000
	# file), as macOS shows every name and refuses the open
	test "$(grep -B4 "^$ws/root.txt\$" "$OUT" | head -n 3 | tr "\n" " ")" = "--perms 0000 --ro-bind-data " &&
	run_vx 0 sandbox show app#build --platform darwin &&
	for f in .gitignore package.json tsconfig.base.json; do test_grep "(literal \".*/ws/$f\")" "$OUT" || exit 1; done &&
	test_grep ! "root.txt\|\.npmrc\|\.env" "$OUT" &&
	project "true" "inputs: {workspaceFiles: [\".env\"]}" "sandbox: {}" &&
	run_vx 0 sandbox show app#build &&
	test_grep "^$ws/.env\$" "$OUT" &&
	run_vx 0 sandbox show app#build --platform darwin &&
	test_grep "(literal \".*/ws/.env\")" "$OUT"
'

test_done
