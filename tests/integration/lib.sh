# lib.sh - the integration tests' harness, after git's t/test-lib.sh.
#
# A test script sources this file, calls test_expect_success 'what' 'body'
# once per test and ends with test_done. Each body runs in a subshell under
# `set -e`, in a fresh directory $TEST_DIR/ws (the workspace to build), with
# stdin from /dev/null; what it prints is shown only when it fails. ctest
# runs every script with VX (the binary) and VX_SOURCE_DIR (the repository
# root) in the environment.
#
# Helpers for bodies:
#   run_vx CODE ARGS...      vx ARGS, stdout to $OUT, stderr to $ERR; fails
#                            unless it exits CODE
#   write_file PATH          stdin into PATH, making its directories
#   ws_root                  a workspace vx.yaml whose projects are every
#                            directory up to two levels down (stdin appended)
#   ws_project DIR NAME [DEPS...]
#                            DIR/vx.yaml naming NAME, depending on DEPS, with
#                            stdin as the body of its tasks: mapping
#   test_grep [!] GREP-ARGS... FILE
#   test_cmp EXPECTED ACTUAL, test_path_is_file, test_path_is_missing
#   test_before FILE A B     lines A and B (whole, fixed) each occur once, A first
#   test_wait_for PATH [SECONDS]   polls for PATH to appear (default 10 s)
#   test_wait_staged PROJ/GRANT/FILE   polls for a file a sandboxed task
#                            writes in a top-level grant, in its stage
#                            (.vx/stage/*/task-*/GRANT/FILE) or back in place
#   test_process_gone PID    the process is gone (or a zombie left to init)
#   test_wait_lines PATTERN N FILE   polls until FILE has N lines matching
#                            PATTERN (20 s at most)
#   watch_start ARGS...      vx watch ARGS in the background, stdout to $OUT,
#                            stderr to $ERR, stdin /dev/null; its pid in
#                            $watch_pid
#   watch_stop               Ctrl-C to it; waits and says its exit status
#   remote_cache_start [VAR=VALUE...]   the real turborepo-remote-cache on
#                            loopback (see below); the VX_REMOTE_CACHE_* set

set -u

if [ -z "${VX:-}" ] || [ ! -x "$VX" ]; then
	echo "lib.sh: VX must name the vx binary (ctest sets it)" >&2
	exit 2
fi
if [ -z "${VX_SOURCE_DIR:-}" ] || [ ! -d "$VX_SOURCE_DIR" ]; then
	echo "lib.sh: VX_SOURCE_DIR must name the repository root (ctest sets it)" >&2
	exit 2
fi
# The tests compare vx's text: no colour, no status line, no locale, and
# none of the variables vx or a task reads from the caller.
export LC_ALL=C NO_COLOR=1 TERM=dumb
# CI itself is kept as VX_TEST_IN_CI: a test's own tool install must fail
# there, never skip (npm_tool)
VX_TEST_IN_CI=${VX_TEST_IN_CI:-${CI:-}}
unset VX_CACHE_DIR CI APP_ENV GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=vx GIT_AUTHOR_EMAIL=vx@example.com \
	GIT_COMMITTER_NAME=vx GIT_COMMITTER_EMAIL=vx@example.com

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/vx-it.XXXXXX") || exit 2
# HOME too: a test's git must not read the user's ~/.gitconfig.
export HOME=$TEST_TMP/home
mkdir -p "$HOME"
trap 'rm -rf "$TEST_TMP"' EXIT

test_count=0
test_passed=0
test_failed=0
test_known=0

# Runs body $1 in a fresh $TEST_DIR; returns its status. Output goes to
# $TEST_DIR/log so that only a failure shows it.
test_run_() {
	TEST_DIR=$TEST_TMP/t$test_count
	OUT=$TEST_DIR/out
	ERR=$TEST_DIR/err
	mkdir -p "$TEST_DIR/ws"
	(
		cd "$TEST_DIR/ws" || exit 1
		set -e
		eval "$1"
	) >"$TEST_DIR/log" 2>&1 </dev/null
}

# Shows a failed test's output, and vx's last stdout and stderr, indented.
test_show_() {
	sed 's/^/    /' "$TEST_DIR/log"
	local f
	for f in out err; do
		if [ -s "$TEST_DIR/$f" ]; then
			echo "    --- vx std$f:"
			sed 's/^/    | /' "$TEST_DIR/$f"
		fi
	done
}

# test_expect_success 'what' 'body'
test_expect_success() {
	test_count=$((test_count + 1))
	test_run_ "$2"
	local rc=$?
	if [ "$rc" -eq 0 ]; then
		test_passed=$((test_passed + 1))
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		test_show_
	fi
}

# test_known_bug 'the bug, in one line' 'what' 'body': a test that pins a
# bug not fixed yet. Its failure is shown but does not fail the script; its
# success says the bug is gone and this should become test_expect_success.
test_known_bug() {
	test_count=$((test_count + 1))
	echo "# KNOWN BUG: $1"
	test_run_ "$3"
	local rc=$?
	if [ "$rc" -eq 0 ]; then
		test_passed=$((test_passed + 1))
		echo "ok $test_count - $2 # the known bug is fixed: make this test_expect_success"
	else
		test_known=$((test_known + 1))
		echo "not ok $test_count - $2 # TODO known bug"
		test_show_
	fi
}

test_done() {
	if [ "$test_known" -gt 0 ]; then
		echo "# $test_known known bug(s) not counted as failures"
	fi
	echo "$test_passed passed, $test_failed failed"
	[ "$test_failed" -eq 0 ]
	exit
}

# --- helpers for bodies ---------------------------------------------------

run_vx() {
	local want=$1 got=0
	shift
	"$VX" "$@" >"$OUT" 2>"$ERR" </dev/null || got=$?
	if [ "$got" -ne "$want" ]; then
		echo "vx $*: exit $got, wanted $want"
		return 1
	fi
}

write_file() {
	mkdir -p "$(dirname "$1")"
	cat >"$1"
}

ws_root() {
	{
		printf 'workspace:\n  projects: ["*", "*/*"]\n'
		cat
	} >vx.yaml
}

ws_project() {
	local dir=$1 name=$2 deps=""
	shift 2
	mkdir -p "$dir"
	{
		printf 'name: "%s"\n' "$name"
		if [ $# -gt 0 ]; then
			deps=$(printf '"%s", ' "$@")
			printf 'dependsOn: [%s]\n' "${deps%, }"
		fi
		printf 'tasks:\n'
		cat
	} >"$dir/vx.yaml"
}

test_grep() {
	local negate=false
	if [ "$1" = "!" ]; then
		negate=true
		shift
	fi
	local file
	eval "file=\${$#}"
	if [ ! -f "$file" ]; then
		echo "test_grep: no file $file"
		return 1
	fi
	if $negate; then
		if grep "$@" >/dev/null; then
			echo "test_grep: found, and should not have: grep $*"
			return 1
		fi
	elif ! grep "$@" >/dev/null; then
		echo "test_grep: not found: grep $*"
		return 1
	fi
}

test_cmp() {
	diff -u "$1" "$2"
}

test_path_is_file() {
	if [ ! -f "$1" ]; then
		echo "missing file: $1"
		return 1
	fi
}

test_path_is_missing() {
	if [ -e "$1" ]; then
		echo "should not exist: $1"
		return 1
	fi
}

# The line number of the only line of $1 that is exactly $2.
test_line_of_() {
	local n
	n=$(grep -c -x -F -e "$2" "$1" || true)
	if [ "$n" != 1 ]; then
		echo "test_before: \"$2\" occurs $n times in $1, wanted once" >&2
		return 1
	fi
	grep -n -x -F -e "$2" "$1" | cut -d: -f1
}

test_before() {
	local a b
	a=$(test_line_of_ "$1" "$2") || return 1
	b=$(test_line_of_ "$1" "$3") || return 1
	if [ "$a" -ge "$b" ]; then
		echo "test_before: \"$2\" (line $a) is not before \"$3\" (line $b) in $1:"
		cat "$1"
		return 1
	fi
}

test_wait_for() {
	local tries=$((${2:-10} * 20))
	while [ ! -e "$1" ]; do
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			echo "test_wait_for: $1 never appeared"
			return 1
		fi
		sleep 0.05
	done
}

# Waits until an HTTP server answers on 127.0.0.1:$1 (any status), for at
# most $2 tenths of a second (50); fails, saying so, when it never does.
test_wait_http() {
	local tries=${2:-50}
	until curl -s -o /dev/null "http://127.0.0.1:$1/v8/artifacts/status"; do
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			echo "test_wait_http: nothing answered on port $1"
			return 1
		fi
		sleep 0.1
	done
}

# While a sandboxed task runs, its top-level write grants live in its stage
# under the workspace's .vx/stage (docs/sandbox.md); they are moved back
# when it ends. $1 is PROJ/GRANT/FILE.
test_wait_staged() {
	local proj=${1%%/*} rest=${1#*/} tries=$(( ${2:-10} * 20 ))
	while [ ! -e "$1" ] && ! ls .vx/stage/*/task-*/"$rest" >/dev/null 2>&1; do
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			echo "test_wait_staged: $1 never appeared (in $proj or its stage)"
			return 1
		fi
		sleep 0.05
	done
}

# A killed process reparented to a slow init can linger as a zombie for a
# moment: a zombie runs nothing, so it counts as gone.
test_process_gone() {
	local tries=40 state
	while kill -0 "$1" 2>/dev/null; do
		state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
		if [ "$state" = Z ] || [ -z "$state" ]; then
			return 0
		fi
		tries=$((tries - 1))
		if [ "$tries" -le 0 ]; then
			echo "process $1 still runs:"
			ps -o pid,pgid,stat,args -p "$1" || true
			return 1
		fi
		sleep 0.05
	done
}

# require_sandbox [strace]: the unsafe tests' gate. When bwrap (and, with
# "strace", strace) cannot run here, the script skips with the reason, or,
# under VX_REQUIRE_SANDBOX=1 (CI), fails: a missing capability must never
# pass silently where it is expected.
# free_port VAR: sets VAR to a TCP port no process listens on now, on any
# address, and not handed out before by this script (the network tests run
# side by side: a port derived from $$ alone collided). A race with
# another process remains possible; the listener that loses it fails loudly.
test_wait_lines() {
	local pattern=$1 n=$2 file=$3 i
	for i in $(seq 200); do
		[ "$(grep -c -- "$pattern" "$file" 2>/dev/null)" -ge "$n" ] && return 0
		sleep 0.1
	done
	echo "test_wait_lines: fewer than $n lines of '$pattern' in $file:"
	sed 's/^/    | /' "$file"
	return 1
}

watch_start() {
	{ "$VX" watch "$@" >"$OUT" 2>"$ERR" </dev/null & watch_pid=$!; }
}

watch_stop() {
	kill -INT $watch_pid 2>/dev/null
	local rc=0
	wait $watch_pid || rc=$?
	echo "vx watch exit: $rc"
	return 0
}

free_port() {
	local p lo=32768
	# below the kernel's ephemeral range: a port from it can be taken as
	# the source port of any outgoing connection between this check and
	# the listen (t0221 met EADDRINUSE so)
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
	[ "$lo" -gt 12000 ] || lo=32768
	while :; do
		p=$((10000 + (RANDOM * 32768 + RANDOM) % (lo - 10000)))
		case " ${_free_ports:-} " in *" $p "*) continue ;; esac
		ss -Htln "sport = :$p" 2>/dev/null | grep -q . && continue
		_free_ports="${_free_ports:-} $p"
		printf -v "$1" '%s' "$p"
		return 0
	done
}

# test_skip_all REASON: the whole script is skipped, saying why; in CI or
# under VX_REQUIRE_SANDBOX=1 it fails instead (a test that cannot run
# there has found a broken runner, not a machine without the tool).
test_skip_all() {
	if [ -n "${VX_TEST_IN_CI:-}" ] || [ "${VX_REQUIRE_SANDBOX:-0}" = 1 ]; then
		echo "not ok - $1"
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "# SKIP: $1"
	echo "0 passed, 0 failed"
	exit 0
}

require_sandbox() {
	local missing=""
	bwrap --unshare-all --die-with-parent --ro-bind / / true 2>/dev/null || missing="bwrap"
	if [ "${1:-}" = strace ] && ! strace -f -q -e trace=execve -o /dev/null true 2>/dev/null; then
		missing="${missing:+$missing and }strace"
	fi
	[ -z "$missing" ] && return 0
	if [ "${VX_REQUIRE_SANDBOX:-0}" = 1 ]; then
		echo "not ok - $missing cannot run here, and VX_REQUIRE_SANDBOX=1"
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "# SKIP: $missing cannot run on this machine (set VX_REQUIRE_SANDBOX=1 to fail instead)"
	echo "0 passed, 0 failed"
	exit 0
}

# npm_tool DIR PACKAGE@VERSION...: the packages installed from npm into
# /var/tmp/vx-test-npm-UID/DIR once per machine (the normal and the
# sanitizer builds share it: CI pays once); sets npm_tool_dir. Outside CI a
# machine without npm or the registry skips the script, saying why; in CI
# that is a failure.
npm_tool() {
	npm_tool_dir=/var/tmp/vx-test-npm-$(id -u)/$1
	shift
	[ -f "$npm_tool_dir/.installed" ] && return 0
	mkdir -p "$npm_tool_dir"
	if command -v npm >/dev/null &&
		(cd "$npm_tool_dir" && timeout 600 npm install --no-audit --no-fund --silent "$@" >npm.log 2>&1); then
		touch "$npm_tool_dir/.installed"
		return 0
	fi
	echo "# cannot install $* from npm (no npm, or no registry)"
	if [ -n "${VX_TEST_IN_CI:-}" ] || [ "${VX_REQUIRE_SANDBOX:-0}" = 1 ]; then exit 1; fi
	echo "# skipped"
	test_done
	exit 0
}

# turbo_oracle: turbo 2.11.13 from npm, the oracle vx's Turborepo tests
# compare with (installed once per machine by npm_tool); sets $turbo and
# turns turbo's telemetry off.
turbo_oracle() {
	npm_tool turbo-2.11.13 turbo@2.11.13
	turbo=$(find "$npm_tool_dir/node_modules/@turbo" -path '*/bin/turbo' -type f | head -n 1)
	[ -x "$turbo" ] || { echo "# turbo's binary is not in $npm_tool_dir"; exit 1; }
	export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
}

# realbuild_js_tools: the real JavaScript tools of the sandboxed builds
# (t0330, t0332: typescript, eslint, tsup, vitest, vite, jest, next, react)
# installed once into $NPM_CACHE beside the vx binary (outside /tmp: a
# sandbox's /tmp is its own); sets have_npm. Without the registry the
# JavaScript cases are skipped with the reason, never in CI.
realbuild_js_tools() {
	NPM_CACHE=$(cd "$(dirname "$VX")" && pwd -P)/realbuild-npm
	case $NPM_CACHE in
	/tmp/*) NPM_CACHE=/var/tmp/vx-realbuild-npm-$(id -u) ;;
	esac
	have_npm=1
	# One install at a time (t0330 and t0332 run side by side under
	# ctest -j2: two npm installs into one directory left it without
	# eslint's lib/cli.js, ENOTEMPTY), and a tree counts only once its
	# install finished (.installed), else it is made again from nothing.
	mkdir -p "$NPM_CACHE" && (
		flock 9
		[ -e "$NPM_CACHE/.installed" ] && exit 0
		rm -rf "$NPM_CACHE/node_modules"
		command -v npm >/dev/null &&
			(cd "$NPM_CACHE" && npm install --no-audit --no-fund --loglevel=error \
				typescript@5.6 eslint@9 tsup@8 vitest@2 vite@5 jest@29 next@14 react@18 react-dom@18) \
				>"$NPM_CACHE/install.log" 2>&1 &&
			touch "$NPM_CACHE/.installed"
	) 9>"$NPM_CACHE/.lock" && return 0
	if [ "${VX_REQUIRE_SANDBOX:-0}" = 1 ]; then
		echo "not ok - npm could not install the JavaScript tools into $NPM_CACHE (CI must have them):"
		sed 's/^/    /' "$NPM_CACHE/install.log" 2>/dev/null
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "# SKIP the JavaScript cases: npm could not install typescript, eslint, tsup and vitest (no registry?)"
	have_npm=0
}

# remote_cache_start: the real turborepo-remote-cache server from npm
# (v2.12, npm_tool) started on a free loopback port with local storage
# under $TEST_TMP/server. Sets remote_port, remote_token, remote_pid,
# remote_store (team1's artifact files) and exports
# VX_REMOTE_CACHE_URL/TOKEN/TEAM; stopped when the script ends. Extra
# VAR=VALUE arguments go to the server's environment (BODY_LIMIT=...).
remote_cache_start() {
	npm_tool turborepo-remote-cache-2.12 turborepo-remote-cache@2.12
	local server=$npm_tool_dir/node_modules/.bin/turborepo-remote-cache
	remote_token="tok-$RANDOM-s3cr3t-$RANDOM"
	free_port remote_port
	mkdir -p "$TEST_TMP/server"
	env PORT=$remote_port TURBO_TOKEN=$remote_token STORAGE_PROVIDER=local STORAGE_PATH=store \
		TMPDIR="$TEST_TMP/server" LOG_LEVEL=warn "$@" "$server" >"$TEST_TMP/server.log" 2>&1 &
	remote_pid=$!
	disown $remote_pid # a kill -9 of it is a test's, not news for this shell
	trap 'kill $remote_pid 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
	local i
	for i in $(seq 100); do
		[ "$(curl -s -o /dev/null -w "%{http_code}" -H "Authorization: Bearer $remote_token" \
			http://127.0.0.1:$remote_port/v8/artifacts/status)" = 200 ] && break
		sleep 0.1
	done
	remote_store=$TEST_TMP/server/store/team1
	export VX_REMOTE_CACHE_URL=http://127.0.0.1:$remote_port VX_REMOTE_CACHE_TOKEN=$remote_token \
		VX_REMOTE_CACHE_TEAM=team1
}
