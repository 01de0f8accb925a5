#!/bin/bash
# The npm packages (issue 55 item 3, docs/npm.md): scripts/npm-pack.sh packs
# the vx under test into @vx-build/linux-x64 and @vx-build/vx; a Turborepo
# starter installs the main tarball with npm (its optionalDependency taken
# from the local platform tarball through an override, never from a
# registry), and `npx vx` runs it: a build twice (the second all hits), a
# sandboxed task traced with the init inside the package, exit codes and
# signals through the JavaScript shim, `vx watch` in a terminal (tmux);
# then the same install and build under pnpm 9 and Yarn 4 (node-modules
# and PnP).
#
# The starter has the shape of create-turbo's with-vite example (apps/web
# and apps/docs built by `tsc && vite build`, packages/ui by tsc,
# packages/typescript-config, a root turbo.json), written here: create-turbo
# 2.x downloads its examples from GitHub at run time, which these machines
# cannot reach (docs/npm.md). Its tools are the real ones from npm.
#
# Caches (per machine, /var/tmp/vx-test-npm-UID/t0500): npm's cache, the
# pnpm store and metadata, Yarn's global cache and a yarn.lock; pnpm and
# Yarn themselves are npm_tool's (pnpm-9, yarn-4.18.1). Cold, they need the
# npm registry: outside CI a machine without it skips, in CI it fails.
ci=${CI:-} # lib.sh unsets CI
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
for tool in node npm perl pgrep; do
	command -v $tool >/dev/null || {
		echo "not ok - $tool is not installed"
		echo "0 passed, 1 failed"
		exit 1
	}
done

CACHE=/var/tmp/vx-test-npm-$(id -u)/t0500
mkdir -p "$CACHE"
export npm_config_cache=$CACHE/npm-cache npm_config_audit=false npm_config_fund=false \
	npm_config_update_notifier=false npm_config_yes=false npm_config_loglevel=error
export YARN_GLOBAL_FOLDER=$CACHE/yarn YARN_ENABLE_GLOBAL_CACHE=1 YARN_ENABLE_TELEMETRY=0 \
	YARN_ENABLE_IMMUTABLE_INSTALLS=0 YARN_ENABLE_PROGRESS_BARS=0
PNPM_VERSION=9.15.9
YARN_VERSION=4.18.1
PNPM_FLAGS="--store-dir $CACHE/pnpm-store --cache-dir $CACHE/pnpm-cache --reporter=append-only"
TMUX_SOCKET=$TEST_TMP/tmux.sock # removed with TEST_TMP
trap 'tmux -S "$TMUX_SOCKET" kill-server 2>/dev/null; rm -rf "$TEST_TMP"' EXIT

# The caches are warm once a run has passed ($CACHE/.warm); until then the
# npm registry is needed: outside CI a machine without it skips the
# script, saying so; in CI it fails.
if [ ! -e "$CACHE/.warm" ] && ! timeout 30 npm ping >/dev/null 2>&1; then
	if [ -n "$ci" ]; then
		echo "not ok - the npm registry cannot be reached, and the caches in $CACHE are cold"
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "# SKIP: the npm registry cannot be reached, and the caches in $CACHE are cold"
	echo "0 passed, 0 failed"
	exit 0
fi

# pnpm and Yarn, installed from npm once per machine (npm_tool; CI given
# back to it, which lib.sh took away).
CI=$ci npm_tool pnpm-9 pnpm@$PNPM_VERSION
PATH=$npm_tool_dir/node_modules/.bin:$PATH
CI=$ci npm_tool yarn-$YARN_VERSION @yarnpkg/cli-dist@$YARN_VERSION
export PATH=$npm_tool_dir/node_modules/.bin:$PATH

if ! command -v tmux >/dev/null; then
	{ apt-get install -y -q tmux || { apt-get update -q && apt-get install -y -q tmux; }; } >"$TEST_TMP/apt.log" 2>&1 || {
		echo "not ok - tmux is not installed, and apt-get install tmux failed:"
		sed 's/^/    /' "$TEST_TMP/apt.log"
		echo "0 passed, 1 failed"
		exit 1
	}
fi

DIST=$TEST_TMP/dist
VERSION=$(sed -n 's/^project(vx VERSION \([0-9.]*\).*/\1/p' "$VX_SOURCE_DIR/CMakeLists.txt")
MAIN_TGZ=$DIST/vx-build-vx-$VERSION.tgz
X64_TGZ=$DIST/vx-build-linux-x64-$VERSION.tgz

# starter DIR npm|pnpm|yarn: a Turborepo of create-turbo's with-vite shape,
# its workspace dependencies spelled as that package manager wants them.
starter() {
	local dir=$1 pm=$2 ws='*' pmv
	case $pm in
	npm) pmv=npm@$(npm --version) ;;
	pnpm) pmv=pnpm@$PNPM_VERSION ws='workspace:*' ;;
	yarn) pmv=yarn@$YARN_VERSION ws='workspace:*' ;;
	esac
	mkdir -p "$dir" && cd "$dir" || return 1
	write_file package.json <<-EOF
	{
	  "name": "starter",
	  "private": true,
	  "workspaces": ["apps/*", "packages/*"],
	  "scripts": {
	    "build": "turbo run build",
	    "dev": "turbo run dev"
	  },
	  "devDependencies": {
	    "turbo": "2.11.4",
	    "typescript": "5.6.3"
	  },
	  "packageManager": "$pmv"
	}
	EOF
	write_file turbo.json <<-'EOF'
	{
	  "$schema": "https://turborepo.dev/schema.json",
	  "tasks": {
	    "build": { "dependsOn": ["^build"], "outputs": ["dist/**"] },
	    "dev": { "cache": false, "persistent": true }
	  }
	}
	EOF
	if [ "$pm" = pnpm ]; then
		printf 'packages:\n  - "apps/*"\n  - "packages/*"\n' >pnpm-workspace.yaml
	fi
	write_file packages/typescript-config/package.json <<-'EOF'
	{ "name": "@repo/typescript-config", "version": "0.0.0", "private": true }
	EOF
	write_file packages/typescript-config/base.json <<-'EOF'
	{
	  "compilerOptions": {
	    "target": "ES2020", "module": "ESNext", "moduleResolution": "Bundler",
	    "strict": true, "declaration": true, "skipLibCheck": true, "isolatedModules": true
	  }
	}
	EOF
	write_file packages/ui/package.json <<-EOF
	{
	  "name": "@repo/ui",
	  "version": "0.0.0",
	  "private": true,
	  "type": "module",
	  "main": "./dist/index.js",
	  "types": "./dist/index.d.ts",
	  "scripts": { "build": "tsc" },
	  "devDependencies": { "@repo/typescript-config": "$ws", "typescript": "5.6.3" }
	}
	EOF
	write_file packages/ui/tsconfig.json <<-'EOF'
	{
	  "extends": "@repo/typescript-config/base.json",
	  "compilerOptions": { "outDir": "dist", "rootDir": "src" },
	  "include": ["src"]
	}
	EOF
	write_file packages/ui/src/index.ts <<-'EOF'
	export function greeting(name: string): string {
	  return `Hello from ${name}`;
	}
	EOF
	local app
	for app in web docs; do
		write_file apps/$app/package.json <<-EOF
		{
		  "name": "$app",
		  "version": "0.0.0",
		  "private": true,
		  "type": "module",
		  "scripts": { "dev": "vite", "build": "tsc && vite build" },
		  "dependencies": { "@repo/ui": "$ws" },
		  "devDependencies": { "@repo/typescript-config": "$ws", "typescript": "5.6.3", "vite": "5.4.9" }
		}
		EOF
		write_file apps/$app/tsconfig.json <<-'EOF'
		{
		  "extends": "@repo/typescript-config/base.json",
		  "compilerOptions": { "noEmit": true, "lib": ["ES2020", "DOM"] },
		  "include": ["src"]
		}
		EOF
		write_file apps/$app/index.html <<-EOF
		<!doctype html>
		<html><head><title>$app</title></head>
		<body><div id="app"></div><script type="module" src="/src/main.ts"></script></body></html>
		EOF
		write_file apps/$app/src/main.ts <<-EOF
		import { greeting } from "@repo/ui";
		document.querySelector<HTMLDivElement>("#app")!.textContent = greeting("$app");
		EOF
	done
}

# json_edit FILE JS: runs JS with `p` the parsed FILE, and writes p back.
json_edit() {
	node -e '
		const fs = require("fs");
		const p = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
		eval(process.argv[2]);
		fs.writeFileSync(process.argv[1], JSON.stringify(p, null, 2) + "\n");
	' "$1" "$2"
}

# run_in CODE CMD...: CMD with stdout to $OUT, stderr to $ERR; fails
# unless it exits CODE.
run_in() {
	local want=$1 got=0
	shift
	"$@" >"$OUT" 2>"$ERR" </dev/null || got=$?
	if [ "$got" -ne "$want" ]; then
		echo "$*: exit $got, wanted $want"
		return 1
	fi
}

# How CMD ended, as its parent sees it: "exit N" or "signal N".
ended() {
	perl -e 'system @ARGV; print(($? & 127) ? "signal " . ($? & 127) : "exit " . ($? >> 8))' -- "$@"
}

# The processes whose working directory is in DIR.
procs_in() {
	local d c
	for d in /proc/[0-9]*; do
		c=$(readlink "$d/cwd" 2>/dev/null) || continue
		case $c/ in "$1"/*) echo "${d#/proc/} $(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)" ;; esac
	done
}

# Polls until no process but the caller works in DIR (10 s); looks from /,
# so that its own subshells do not count.
none_left_in() {
	local i self=$BASHPID
	for i in $(seq 100); do
		[ -z "$(cd / && procs_in "$1" | grep -v "^$self ")" ] && return 0
		sleep 0.1
	done
	echo "still running in $1:"
	(cd / && procs_in "$1" | grep -v "^$self ")
	return 1
}

# tmux_run NAME DIR CMD: CMD in a detached tmux window NAME (a terminal of
# its own), run by bash (which goes on after a command that caught ^C),
# the window kept when CMD ends.
printf 'set -g default-shell /bin/bash\nset -g remain-on-exit on\n' >"$TEST_TMP/tmux.conf"
tmux_run() {
	if tmux -S "$TMUX_SOCKET" has-session 2>/dev/null; then
		tmux -S "$TMUX_SOCKET" new-window -d -n "$1" -c "$2" "$3"
	else
		# the server started from /: it works nowhere under test
		(cd / && tmux -S "$TMUX_SOCKET" -f "$TEST_TMP/tmux.conf" new-session -d -s t0500 -n "$1" -x 160 -y 40 -c "$2" "$3")
	fi
}

# tmux_wait NAME PATTERN: polls the window's screen for PATTERN (30 s).
tmux_wait() {
	local i
	for i in $(seq 300); do
		tmux -S "$TMUX_SOCKET" capture-pane -p -J -t "t0500:$1" -S - >"$TEST_DIR/screen" 2>/dev/null
		grep -q -- "$2" "$TEST_DIR/screen" && return 0
		sleep 0.1
	done
	echo "tmux window $1 never showed \"$2\":"
	sed 's/^/    | /' "$TEST_DIR/screen"
	return 1
}

# wait_file FILE: polls for FILE to be non-empty (20 s).
wait_file() {
	local i
	for i in $(seq 200); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	echo "$1 never appeared"
	return 1
}

NPM_WS=$TEST_TMP/npm-ws

test_expect_success 'npm-pack.sh packs this machine'"'"'s platform package and the main one, at CMakeLists.txt'"'"'s version' '
	bash "$VX_SOURCE_DIR/scripts/npm-pack.sh" "$(dirname "$VX")" "$DIST" >"$OUT" 2>"$ERR" &&
	cat "$OUT" "$ERR" &&
	test "$(cat "$OUT")" = "$X64_TGZ
$MAIN_TGZ" &&
	tar tvzf "$X64_TGZ" >x64.list &&
	grep -E "^-rwxr-xr-x .* package/bin/vx$" x64.list &&
	grep -E "^-rwxr-xr-x .* package/bin/vx-sandbox-init$" x64.list &&
	test "$(wc -l <x64.list)" = 4 &&
	tar xzf "$X64_TGZ" package/package.json package/bin/vx &&
	node -e "
		const p = require(\"./package/package.json\");
		const want = {name: \"@vx-build/linux-x64\", version: \"$VERSION\", os: [\"linux\"], cpu: [\"x64\"],
			libc: [\"glibc\"], preferUnplugged: true};
		for (const k in want) if (JSON.stringify(p[k]) !== JSON.stringify(want[k])) throw k + \": \" + JSON.stringify(p[k]);
		if (p.bin) throw \"a platform package has no bin: it would shadow the main one\";
	" &&
	! readelf -S package/bin/vx | grep -q "\.symtab" &&
	rm -rf package && tar xzf "$MAIN_TGZ" &&
	node -e "
		const p = require(\"./package/package.json\");
		if (p.name !== \"@vx-build/vx\" || p.version !== \"$VERSION\") throw p.name + \"@\" + p.version;
		if (JSON.stringify(p.bin) !== JSON.stringify({vx: \"bin/vx.js\"})) throw JSON.stringify(p.bin);
		if (JSON.stringify(p.optionalDependencies) !== JSON.stringify({\"@vx-build/linux-x64\": \"$VERSION\"}))
			throw JSON.stringify(p.optionalDependencies);
	" &&
	test -x package/bin/vx.js &&
	bash "$VX_SOURCE_DIR/scripts/npm-pack.sh" "$(dirname "$VX")" other 1.2.3-rc.1 >"$OUT" &&
	test_path_is_file other/vx-build-vx-1.2.3-rc.1.tgz &&
	test_path_is_file other/vx-build-linux-x64-1.2.3-rc.1.tgz &&
	! bash "$VX_SOURCE_DIR/scripts/npm-pack.sh" "$(dirname "$VX")" other not-a-version 2>"$ERR" &&
	test_grep "not a version npm takes" "$ERR"
'

test_expect_success 'npm install -D of the tarball in a Turborepo starter: the platform package from its local tarball, offline' '
	starter "$NPM_WS" npm &&
	{ timeout 600 npm install --prefer-offline >"$TEST_DIR/install.log" 2>&1 ||
		{ cat "$TEST_DIR/install.log"; false; }; } &&
	json_edit package.json "p.overrides = {\"@vx-build/linux-x64\": \"file:$X64_TGZ\"}" &&
	run_in 0 npm install -D --offline "$MAIN_TGZ" &&
	test "$(readlink node_modules/.bin/vx)" = ../@vx-build/vx/bin/vx.js &&
	test -x node_modules/@vx-build/linux-x64/bin/vx &&
	test -x node_modules/@vx-build/linux-x64/bin/vx-sandbox-init &&
	node -e "
		const l = require(\"./package-lock.json\").packages;
		const x = l[\"node_modules/@vx-build/linux-x64\"], m = l[\"node_modules/@vx-build/vx\"];
		if (!x.resolved.startsWith(\"file:\") || !x.optional) throw JSON.stringify(x);
		if (!m.resolved.startsWith(\"file:\")) throw JSON.stringify(m);
	"
'

test_expect_success 'npx vx run build twice: every task runs, then every task is a hit' '
	cd "$NPM_WS" &&
	run_in 0 npx vx run build &&
	test_grep "^Tasks: 3 succeeded, 0 cached, 0 failed, 0 skipped (of 3; 1 with no command)" "$OUT" &&
	test_path_is_file apps/web/dist/index.html &&
	test_path_is_file packages/ui/dist/index.d.ts &&
	rm -rf apps/web/dist &&
	run_in 0 npx vx run build &&
	test_grep "^web#build: cache hit" "$OUT" &&
	test_grep "^Tasks: 0 succeeded, 3 cached, 0 failed, 0 skipped (of 3; 1 with no command)" "$OUT" &&
	test_path_is_file apps/web/dist/index.html
'

test_expect_success 'a sandboxed task runs traced, under the vx-sandbox-init inside the package: its violation is reported' '
	cd "$NPM_WS" &&
	write_file packages/ui/vx.yaml <<-EOF &&
	tasks:
	  check:
	    command: "cat src/index.ts >/dev/null; cat package.json >/dev/null; echo checked"
	    inputs:
	      files: ["src/**"]
	    sandbox:
	      allow:
	        read: ["src/"]
	EOF
	run_in 1 npx vx run check &&
	test_grep "^@repo/ui#check: checked" "$OUT" &&
	test_grep "^@repo/ui#check: failed (1 sandbox violation)" "$OUT" &&
	test_grep "^@repo/ui#check: violation: read-unkeyed packages/ui/package.json (openat, read, and not in the task.s cache key)$" "$ERR" &&
	test_grep ! "untraced\|not beside vx\|sandbox init: missing" "$ERR" &&
	run_in 0 npx vx info &&
	test_grep "^sandbox init: $NPM_WS/node_modules/@vx-build/linux-x64/bin/vx-sandbox-init$" "$OUT" &&
	test_grep "^violation reports: available" "$OUT"
'

test_expect_success 'exit codes pass through the shim: a failed task 1, an unknown task what vx says, a death by a signal the same signal' '
	cd "$NPM_WS" &&
	cat >>packages/ui/vx.yaml <<-EOF &&
	  fail:
	    command: "echo failing; exit 3"
	EOF
	run_in 1 npx vx run fail &&
	test_grep "^@repo/ui#fail: failed (exit 3)" "$OUT" &&
	code=0 && node_modules/@vx-build/linux-x64/bin/vx run nosuchtask 2>bare.err || code=$? &&
	test "$code" = 2 &&
	run_in 2 npx vx run nosuchtask &&
	test_cmp bare.err "$ERR" &&
	printf "#!/bin/sh\nkill -TERM \$\$\n" >"$TEST_DIR/term.sh" && chmod +x "$TEST_DIR/term.sh" &&
	test "$(VX_BINARY_PATH=$TEST_DIR/term.sh ended node_modules/.bin/vx)" = "signal 15" &&
	printf "#!/bin/sh\nexit 77\n" >"$TEST_DIR/exit77.sh" && chmod +x "$TEST_DIR/exit77.sh" &&
	test "$(VX_BINARY_PATH=$TEST_DIR/exit77.sh ended node_modules/.bin/vx)" = "exit 77"
'

test_expect_success 'where no platform package fits, the shim names the platforms and the build from source, exit 1' '
	mkdir -p lonely/node_modules/@vx-build &&
	cp -r "$NPM_WS/node_modules/@vx-build/vx" lonely/node_modules/@vx-build/ &&
	run_in 1 node lonely/node_modules/@vx-build/vx/bin/vx.js run build &&
	test_grep "@vx-build/linux-x64, the package with the vx binary for linux-x64, is not installed" "$ERR" &&
	echo "Object.defineProperty(process, \"arch\", {value: \"riscv64\"});" >riscv.js &&
	run_in 1 node -r ./riscv.js lonely/node_modules/@vx-build/vx/bin/vx.js run build &&
	test_grep "no vx binary is published for linux-riscv64" "$ERR" &&
	test_grep "has binaries for: linux-x64, linux-arm64 (glibc)" "$ERR" &&
	test_grep "cmake -S . -B build && cmake --build build" "$ERR" &&
	echo "process.report.getReport = () => ({header: {}});" >musl.js &&
	run_in 1 node -r ./musl.js lonely/node_modules/@vx-build/vx/bin/vx.js run build &&
	test_grep "no glibc (musl?)" "$ERR" &&
	test_grep "cmake -S . -B build" "$ERR"
'

test_expect_success 'kill -INT of the shim while a task runs ends vx and the task; the shim exits with vx'"'"'s 130' '
	cd "$NPM_WS" &&
	cat >>packages/ui/vx.yaml <<-EOF &&
	  long:
	    command: "echo \$\$ > long.pid; exec sleep 300"
	    cache: false
	EOF
	rm -f packages/ui/long.pid &&
	{ setsid node_modules/.bin/vx run @repo/ui#long >"$OUT" 2>"$ERR" </dev/null & shim=$!; } &&
	wait_file packages/ui/long.pid &&
	task=$(cat packages/ui/long.pid) &&
	vx=$(pgrep -P $shim) &&
	test "$(readlink /proc/$vx/exe)" = "$NPM_WS/node_modules/@vx-build/linux-x64/bin/vx" &&
	kill -INT $shim &&
	code=0 && wait $shim || code=$? &&
	test "$code" = 130 &&
	test_process_gone $vx &&
	test_process_gone $task &&
	test_grep "^@repo/ui#long: failed (interrupted)" "$OUT"
'

test_expect_success 'in a terminal (tmux): npx vx watch shows its build, Ctrl-C ends it all; q and Enter exit 0; one Ctrl-C reaches vx once' '
	cd "$NPM_WS" &&
	tmux_run npx "$NPM_WS" "npx vx watch build" &&
	tmux_wait npx "vx watch: watching" &&
	grep "^Tasks: [0-9]* succeeded, [0-9]* cached, 0 failed" "$TEST_DIR/screen" &&
	tmux -S "$TMUX_SOCKET" send-keys -t t0500:npx C-c &&
	none_left_in "$NPM_WS" &&
	test "$(tmux -S "$TMUX_SOCKET" display -p -t t0500:npx "#{pane_dead}")" = 1 &&
	# the shim itself: its exit status is vx'"'"'s
	tmux_run quit "$NPM_WS" "node_modules/.bin/vx watch build; echo \$? >$TEST_DIR/quit.rc" &&
	tmux_wait quit "vx watch: watching" &&
	tmux -S "$TMUX_SOCKET" send-keys -t t0500:quit q Enter &&
	wait_file "$TEST_DIR/quit.rc" && test "$(cat "$TEST_DIR/quit.rc")" = 0 &&
	tmux_run intr "$NPM_WS" "node_modules/.bin/vx watch build; echo \$? >$TEST_DIR/intr.rc" &&
	tmux_wait intr "vx watch: watching" &&
	tmux -S "$TMUX_SOCKET" send-keys -t t0500:intr C-c &&
	wait_file "$TEST_DIR/intr.rc" && test "$(cat "$TEST_DIR/intr.rc")" = 130 &&
	# A task that takes a second to stop on SIGINT: a second SIGINT to vx
	# (the terminal'"'"'s and the shim'"'"'s) would kill it at once.
	cat >>packages/ui/vx.yaml <<-EOF &&
	  graceful:
	    command: "trap '"'"'sleep 1; echo graceful > graceful.txt; exit 0'"'"' INT; echo ready > ready.txt; while :; do sleep 0.1; done"
	    cache: false
	EOF
	rm -f packages/ui/ready.txt packages/ui/graceful.txt &&
	tmux_run grace "$NPM_WS" "node_modules/.bin/vx run @repo/ui#graceful; echo \$? >$TEST_DIR/grace.rc" &&
	wait_file packages/ui/ready.txt &&
	tmux -S "$TMUX_SOCKET" send-keys -t t0500:grace C-c &&
	wait_file "$TEST_DIR/grace.rc" && test "$(cat "$TEST_DIR/grace.rc")" = 130 &&
	test "$(cat packages/ui/graceful.txt)" = graceful &&
	none_left_in "$NPM_WS"
'

PNPM_WS=$TEST_TMP/pnpm-ws
test_expect_success "pnpm $PNPM_VERSION: pnpm add -D -w of the tarball; the platform package is the main one's own dependency; pnpm vx run build twice" '
	starter "$PNPM_WS" pnpm &&
	{ timeout 600 pnpm install --prefer-offline --no-frozen-lockfile $PNPM_FLAGS >"$TEST_DIR/install.log" 2>&1 ||
		{ cat "$TEST_DIR/install.log"; false; }; } &&
	json_edit package.json "p.pnpm = {overrides: {\"@vx-build/linux-x64\": \"file:$X64_TGZ\"}}" &&
	run_in 0 pnpm add -D -w --offline $PNPM_FLAGS "$MAIN_TGZ" &&
	test_path_is_missing node_modules/@vx-build/linux-x64 &&
	test -x node_modules/.pnpm/@vx-build+vx@file*/node_modules/@vx-build/linux-x64/bin/vx &&
	run_in 0 pnpm vx run build &&
	test_grep "^Tasks: 3 succeeded, 0 cached, 0 failed, 0 skipped (of 3; 1 with no command)" "$OUT" &&
	run_in 0 pnpm vx run build &&
	test_grep "^Tasks: 0 succeeded, 3 cached, 0 failed, 0 skipped (of 3; 1 with no command)" "$OUT" &&
	run_in 0 pnpm vx info &&
	test_grep "^sandbox init: $PNPM_WS/node_modules/.pnpm/@vx-build+linux-x64@file.*/node_modules/@vx-build/linux-x64/bin/vx-sandbox-init$" "$OUT"
'

# yarn_starter DIR LINKER: the starter installed by Yarn with LINKER; its
# yarn.lock, kept per machine, makes a warm install need no registry.
yarn_starter() {
	starter "$1" yarn &&
		printf "nodeLinker: %s\nenableGlobalCache: true\n" "$2" >.yarnrc.yml &&
		{ [ ! -f "$CACHE/yarn.lock" ] || cp "$CACHE/yarn.lock" yarn.lock; } &&
		{ timeout 600 yarn install >"$TEST_DIR/install.log" 2>&1 ||
			{ cat "$TEST_DIR/install.log"; false; }; } &&
		cp yarn.lock "$CACHE/yarn.lock.$$" && mv "$CACHE/yarn.lock.$$" "$CACHE/yarn.lock" &&
		json_edit package.json "p.resolutions = {\"@vx-build/linux-x64\": \"file:$X64_TGZ\"}" &&
		YARN_ENABLE_NETWORK=0 run_in 0 yarn add -D "@vx-build/vx@file:$MAIN_TGZ" &&
		grep -A3 "^\"@vx-build/linux-x64@file:" yarn.lock | grep -q "conditions: os=linux & cpu=x64 & libc=glibc"
}

YARN_WS=$TEST_TMP/yarn-ws
test_expect_success "Yarn $YARN_VERSION, nodeLinker: node-modules: yarn add -D of the tarball, offline; yarn vx run build" '
	yarn_starter "$YARN_WS" node-modules &&
	test -x node_modules/@vx-build/linux-x64/bin/vx &&
	run_in 0 yarn vx run build &&
	test_grep "^Tasks: 3 succeeded, 0 cached, 0 failed, 0 skipped (of 3; 1 with no command)" "$OUT" &&
	run_in 0 yarn vx info &&
	test_grep "^sandbox init: $YARN_WS/node_modules/@vx-build/linux-x64/bin/vx-sandbox-init$" "$OUT"
'

test_known_bug 'under yarn, each run has a new /tmp/xfs-*/node on PATH, in every task'"'"'s key' \
	'Yarn node-modules: yarn vx run build again is all hits' '
	cd "$YARN_WS" &&
	run_in 0 yarn vx run build -v &&
	test_grep "^Tasks: 0 succeeded, 3 cached, 0 failed, 0 skipped (of 3; 1 with no command)" "$OUT"
'

PNP_WS=$TEST_TMP/pnp-ws
test_expect_success "Yarn $YARN_VERSION PnP: no node_modules; the platform package unplugged; yarn vx finds its init there and builds @repo/ui" '
	yarn_starter "$PNP_WS" pnp &&
	test_path_is_missing node_modules &&
	test_path_is_file .pnp.cjs &&
	test -x .yarn/unplugged/@vx-build-linux-x64-file-*/node_modules/@vx-build/linux-x64/bin/vx &&
	run_in 0 yarn vx info &&
	test_grep "^sandbox init: $PNP_WS/.yarn/unplugged/@vx-build-linux-x64-file-[^/]*/node_modules/@vx-build/linux-x64/bin/vx-sandbox-init$" "$OUT" &&
	test_grep "^violation reports: available" "$OUT" &&
	run_in 0 yarn vx run @repo/ui#build &&
	test_path_is_file packages/ui/dist/index.js
'

test_known_bug 'under PnP there is no node_modules/.bin: a script that runs its own workspace'"'"'s bin (vite in apps/web) is not found' \
	'Yarn PnP: yarn vx run build builds the apps too' '
	cd "$PNP_WS" &&
	run_in 0 yarn vx run build &&
	test_grep "^Tasks: 3 succeeded" "$OUT"
'

[ "$test_failed" -eq 0 ] && touch "$CACHE/.warm"
test_done
