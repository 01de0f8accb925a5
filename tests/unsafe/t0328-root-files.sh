#!/bin/bash
# The workspace root's own files (issue 40 item 5, issue 41 item 5): tools
# walk up to the root's package.json, lockfile, turbo.json, .gitignore,
# .npmrc, tsconfig*.json and .env* (Vite, Next, tsc's extends, ESLint,
# corepack, dotenv); hidden, they failed or went to the network. They are
# readable to every sandboxed task, read-only, judged against the key when
# read; a link there is not followed out, a .npmrc holding a credential
# stays hidden, and the rest of the root stays hidden.
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
	project "\"cat ../package.json ../.env ../tsconfig.base.json ../.gitignore\"" "sandbox: {}" &&
	run_vx 1 run app#build --report json &&
	jq -e ".tasks[0].violations | map(select(.op == \"read-unkeyed\")) | length == 4" "$OUT" &&
	jq -e ".tasks[0].fix.inputs.workspaceFiles == [\".env\", \".gitignore\", \"package.json\", \"tsconfig.base.json\"]" "$OUT" &&
	run_vx 0 sandbox learn app#build &&
	test_grep "workspaceFiles: \[\".env\", \".gitignore\", \"package.json\", \"tsconfig.base.json\"\]" app/vx.yaml &&
	test_grep ! "allow" app/vx.yaml &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	test_grep "app#build: API_URL=one" "$OUT" &&
	echo "API_URL=two" >.env &&
	run_vx 0 run app#build &&
	test_grep "app#build: API_URL=two" "$OUT" &&
	test_grep ! "cache hit" "$OUT"
'

test_expect_success 'an uncached task reads them with no violation; the rest of the root stays hidden' '
	setup &&
	project "\"cat ../.env && test -f ../package.json && ! cat ../root.txt && ! ls ../app/../root.txt\"" "cache: false" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: API_URL=one" "$OUT" &&
	test_grep ! "root secret" "$OUT" &&
	test_grep ! "violation" "$ERR"
'

test_expect_success 'they are read-only: a write fails with EROFS and the host file is unchanged' '
	setup &&
	project "\"echo evil >> ../package.json; echo evil > ../.env; true\"" "cache: false" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep "cannot create ../package.json: Read-only file system" "$OUT" &&
	test_grep "cannot create ../.env: Read-only file system" "$OUT" &&
	test_grep ! "evil" package.json &&
	test "$(cat .env)" = "API_URL=one"
'

test_expect_success 'a root file that is a link is not followed out: the secret it points at is never printed' '
	setup &&
	echo "home secret" >"$TEST_DIR/secret" &&
	rm .env && ln -s "$TEST_DIR/secret" .env &&
	project "\"cat ../.env; true\"" "cache: false" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep ! "home secret" "$OUT"
'

test_expect_success 'a root .npmrc that writes out a token stays hidden; one that names a variable is readable' '
	setup &&
	printf "registry=https://registry.example/\n//registry.example/:_authToken=npm_LITERAL\n" >.npmrc &&
	project "\"cat ../.npmrc; true\"" "cache: false" "sandbox: {}" &&
	run_vx 0 run app#build &&
	test_grep ! "npm_LITERAL" "$OUT" &&
	printf "registry=https://registry.example/\n//registry.example/:_authToken=\${NPM_TOKEN}\n" >.npmrc &&
	run_vx 0 run app#build &&
	test_grep "app#build: registry=https://registry.example/" "$OUT"
'

test_expect_success 'one decision for both platforms: vx sandbox show and the Seatbelt profile name the same files' '
	setup &&
	printf "//r/:_auth=LITERAL\n" >.npmrc &&
	project "true" "sandbox: {}" &&
	run_vx 0 sandbox show app#build &&
	ws=$(pwd -P) &&
	for f in .env .gitignore package.json tsconfig.base.json; do test_grep "^$ws/$f\$" "$OUT" || exit 1; done &&
	test_grep ! "root.txt\|\.npmrc" "$OUT" &&
	run_vx 0 sandbox show app#build --platform darwin &&
	for f in .env .gitignore package.json tsconfig.base.json; do test_grep "(literal \".*/ws/$f\")" "$OUT" || exit 1; done &&
	test_grep ! "root.txt\|\.npmrc" "$OUT"
'

test_done
