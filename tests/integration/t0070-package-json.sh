#!/bin/bash
# A task with no command: in vx.yaml runs the project's package.json script
# of the same name, as `npm run` would.
. "$(dirname "$0")/lib.sh"

# stub DIR NAME: an executable DIR/NAME that logs "DIR NAME" to ./calls
# (the task's working directory).
stub() {
	mkdir -p "$1"
	printf '#!/bin/sh\necho "%s %s" >> calls\n' "$1" "$2" >"$1/$2"
	chmod +x "$1/$2"
}

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	EOF
	write_file p/package.json <<-EOF
	{
	  "name": "@x/p",
	  "scripts": {
	    "build": "projtool && roottool && both && echo \"\$npm_package_name \$npm_lifecycle_event\" > ev && pwd -P > cwd && echo \"\$0\" > shell",
	    "lint": "echo lint-ran > lint"
	  }
	}
	EOF
	write_file q/package.json <<-EOF
	{"name": "@x/q", "scripts": {"test": "echo q-test > tested"}}
	EOF
	stub p/node_modules/.bin projtool
	stub p/node_modules/.bin both
	stub node_modules/.bin roottool
	stub node_modules/.bin both
	# Decoys later on PATH: the node_modules/.bin ones must win.
	stub "$TEST_DIR/bin" roottool
	stub "$TEST_DIR/bin" both
	stub "$TEST_DIR/bin" projtool
}

test_expect_success 'scripts.build runs in the project dir, node_modules/.bin first on PATH' '
	setup &&
	PATH="$TEST_DIR/bin:$PATH" run_vx 0 run build -j1 &&
	printf "%s\n" "p/node_modules/.bin projtool" "node_modules/.bin roottool" \
		"p/node_modules/.bin both" >expect &&
	test_cmp expect p/calls &&
	echo "$(pwd -P)/p" >expect &&
	test_cmp expect p/cwd &&
	echo /bin/sh >expect &&
	test_cmp expect p/shell &&
	test_path_is_missing calls &&
	test_grep -F "@x/p#build: running: projtool && roottool" "$OUT"
'

test_expect_success 'a command: task of a project with a package.json gets node_modules/.bin too (vitest: not found)' '
	setup &&
	write_file p/vx.yaml <<-EOF &&
	tasks:
	  check:
	    command: "projtool && roottool"
	EOF
	PATH="$TEST_DIR/bin:$PATH" run_vx 0 run @x/p#check &&
	printf "%s\n" "p/node_modules/.bin projtool" "node_modules/.bin roottool" >expect &&
	test_cmp expect p/calls
'

test_expect_success 'the project bin comes before the root bin' '
	setup &&
	run_vx 0 run build &&
	test_grep -x "p/node_modules/.bin both" p/calls &&
	test_grep ! -x "node_modules/.bin both" p/calls
'

test_expect_success 'npm_package_name and npm_lifecycle_event are set' '
	setup &&
	run_vx 0 run build &&
	echo "@x/p build" >expect &&
	test_cmp expect p/ev
'

test_expect_success 'a project with neither command nor script is skipped, not failed' '
	setup &&
	run_vx 0 run build -j1 &&
	test_grep ! "@x/q#build: running" "$OUT" &&
	test_grep ! "failed (" "$OUT" &&
	test_grep "0 failed" "$OUT" &&
	run_vx 0 run test &&
	test_path_is_file q/tested &&
	test_grep ! "@x/p#test" "$OUT"
'

test_expect_success 'a vx.yaml command: wins over the package.json script' '
	setup &&
	write_file p/vx.yaml <<-EOF &&
	tasks:
	  lint: { command: echo yaml-ran > lint }
	EOF
	run_vx 0 run lint &&
	echo yaml-ran >expect &&
	test_cmp expect p/lint
'

test_expect_success 'an explicit project#task neither has is exit 2' '
	setup &&
	run_vx 2 run "@x/p#nope" &&
	test_grep "project \"@x/p\" has no task \"nope\"" "$ERR" &&
	test_path_is_missing p/calls
'

test_expect_success 'a script sees what its package manager would give it: version, script, INIT_CWD, the user agent' '
	cat >vx.yaml <<-EOF &&
	workspace: {}
	EOF
	write_file package.json <<-EOF &&
	{"name": "root", "private": true, "packageManager": "pnpm@9.12.1"}
	EOF
	write_file pnpm-workspace.yaml <<-EOF &&
	packages: ["apps/*"]
	EOF
	write_file apps/web/package.json <<-EOF &&
	{"name": "web", "version": "2.3.4",
	 "scripts": {"build": "env | grep -E \"^(npm_|INIT_CWD)\" | sort > env.txt"}}
	EOF
	run_vx 0 run build &&
	test_grep "^npm_package_name=web\$" apps/web/env.txt &&
	test_grep "^npm_package_version=2.3.4\$" apps/web/env.txt &&
	test_grep "^npm_lifecycle_event=build\$" apps/web/env.txt &&
	test_grep "^npm_lifecycle_script=env | grep" apps/web/env.txt &&
	test_grep "^npm_package_json=$PWD/apps/web/package.json\$" apps/web/env.txt &&
	test_grep "^INIT_CWD=$PWD/apps/web\$" apps/web/env.txt &&
	test_grep "^npm_config_user_agent=pnpm/9.12.1 " apps/web/env.txt &&
	run_vx 0 info &&
	test_grep "^workspace: $PWD (its root by vx.yaml workspace:; 1 projects, from pnpm-workspace.yaml packages)" "$OUT" &&
	test_grep "^package manager: pnpm 9.12.1 (packageManager in package.json)" "$OUT"
'

# lifecycle PM: a workspace run as PM ("npm", "pnpm@9.1.0", "yarn@1.22.22",
# "yarn@4.1.0") whose build has pre and post scripts logging their event.
lifecycle() {
	cat >vx.yaml <<-EOF
	workspace: {}
	EOF
	printf '{"name": "root", "workspaces": ["p"]%s}\n' \
		"$([ "$1" = npm ] || printf ', "packageManager": "%s"' "$1")" >package.json
	write_file p/package.json <<-EOF
	{"name": "p", "scripts": {
	  "prebuild": "echo \"pre \$npm_lifecycle_event\" >> log",
	  "build": "echo \"main \$npm_lifecycle_event \$*\" >> log; echo main-args",
	  "postbuild": "echo \"post \$npm_lifecycle_event\" >> log"}}
	EOF
}

test_expect_success 'npm and Yarn classic run pre and post scripts around a script, with their own event; -- ARGS go to the script' '
	for pm in npm yarn@1.22.22; do
		rm -f p/log && lifecycle $pm &&
		run_vx 0 run build --no-cache -- --flag &&
		printf "pre prebuild\nmain build\npost postbuild\n" >want &&
		sed "s/ *\$//" p/log >got && test_cmp want got &&
		test_grep "main-args --flag" "$OUT" || exit 1
	done
'

test_expect_success 'a failing pre script stops the script and its post' '
	lifecycle npm &&
	sed -i "s/\"prebuild\": \"/\"prebuild\": \"exit 3; /" p/package.json &&
	run_vx 1 run build &&
	test_path_is_missing p/log
'

test_expect_success 'pnpm 8 and Yarn berry run neither (as they do), and a lockfile says which manager it is' '
	for pm in pnpm@8.15.9 yarn@4.1.0; do
		rm -f p/log && lifecycle $pm &&
		run_vx 0 run build --no-cache &&
		echo "main build" >want && sed "s/ *\$//" p/log >got && test_cmp want got || exit 1
	done &&
	lifecycle npm && rm -f p/log && printf "# yarn lockfile v1\n" >yarn.lock &&
	run_vx 0 run build --no-cache && test $(wc -l <p/log) = 3 &&
	rm -f p/log yarn.lock && echo "lockfileVersion: \"9.0\"" >pnpm-lock.yaml &&
	run_vx 0 run build --no-cache && test $(wc -l <p/log) = 3 &&
	rm -f p/log && echo "enable-pre-post-scripts=false" >.npmrc &&
	run_vx 0 run build --no-cache && test $(wc -l <p/log) = 1 && rm .npmrc
'

# Issue 42 item 4: a pnpm repository's postbuild (pagefind) never ran
# under vx, where turbo ran it: pnpm 9 runs pre and post scripts unless
# .npmrc says enable-pre-post-scripts=false. The real pnpm 9 (from npm) is
# the oracle: the same log from `pnpm run build` and from vx, with the
# setting absent, on, off, and from the environment.
test_expect_success 'pnpm 9 runs pre and post scripts exactly when the real pnpm 9 does: by default, and as .npmrc or the environment say' '
	npm_tool pnpm-9 pnpm@9.15.9 &&
	pnpm=$npm_tool_dir/node_modules/.bin/pnpm &&
	lifecycle pnpm@9.15.9 &&
	printf "packages:\n  - p\n" >pnpm-workspace.yaml &&
	for rc in "enable-pre-post-scripts=true" "# none" "enable-pre-post-scripts = false" "enable-pre-post-scripts=false"; do
		printf "%s\n" "$rc" >.npmrc &&
		rm -f p/log && (cd p && "$pnpm" run build >/dev/null 2>&1) && mv p/log want &&
		run_vx 0 run build --no-cache && sed "s/ *\$//" p/log >got && sed -i "s/ *\$//" want &&
		echo "$rc: $(wc -l <got) lines" && test_cmp want got || exit 1
	done &&
	printf "enable-pre-post-scripts=false\n" >.npmrc &&
	rm -f p/log && (cd p && npm_config_enable_pre_post_scripts=true "$pnpm" run build >/dev/null 2>&1) && mv p/log want &&
	npm_config_enable_pre_post_scripts=true "$VX" run build --no-cache >/dev/null &&
	test $(wc -l <want) = 3 && test_cmp want p/log
'

test_done
