#!/bin/bash
# The holes an attack on the sandbox found in round two (issue 36), one test
# per class: each failed on the code before its fix. The task is hostile:
# it runs as whoever runs vx (root in CI), with capabilities dropped.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

setup() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	write_file app/src/a.txt <<<"app source"
}

# project COMMAND SANDBOX-LINE [MORE...]: app's build task.
project() {
	local cmd=$1
	shift
	{
		printf '  build:\n    command: %s\n    cache: false\n' "$cmd"
		for l in "$@"; do printf '    %s\n' "$l"; done
	} | ws_project app app
}

# Item 4: bwrap is pid 1 of the task's pid namespace, and was started with
# vx's whole environment; the task's own is scrubbed, /proc/1/environ was not.
test_expect_success 'nothing of vx'"'"'s environment is readable in any process of the sandbox' '
	setup &&
	project "\"for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr \\\"\\\\\\\\0\\\" \\\"\\\\\\\\n\\\" <\$f; done; echo end\"" \
		"sandbox: {allow: {write: [\"dist/\"]}}" &&
	GITHUB_TOKEN=sekrit-gh AWS_SECRET_ACCESS_KEY=sekrit-aws VX_REMOTE_CACHE_TOKEN=sekrit-vx \
		run_vx 0 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	test_grep "app#build: PATH=" "$OUT" &&
	test_grep ! "sekrit" "$OUT"
'

# Item 10: passThrough ["*"] let the signature keys through ("SIGNATURE_KEY"
# matches no credential pattern); the same task unsandboxed got neither.
test_expect_success 'vx'"'"'s own secrets reach no task, whatever passThrough says' '
	setup &&
	project "\"env; echo end\"" "env: {passThrough: [\"*\"], passThroughSecrets: [\"TURBO_TOKEN\"]}" \
		"sandbox: {allow: {write: [\"dist/\"]}}" &&
	VX_REMOTE_CACHE_SIGNATURE_KEY=sekrit-1 TURBO_REMOTE_CACHE_SIGNATURE_KEY=sekrit-2 \
		TURBO_TOKEN=sekrit-3 VX_REMOTE_CACHE_TOKEN=sekrit-4 PLAIN_ONE=visible \
		run_vx 0 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	test_grep "app#build: PLAIN_ONE=visible" "$OUT" &&
	test_grep ! "sekrit" "$OUT"
'

# Item 5: as root, `chmod 4755` of a file the task wrote left a setuid-root
# shell in the workspace for any local user.
test_expect_success 'a task can make nothing set-user-ID or set-group-ID' '
	setup &&
	cat >setid.c <<-\EOF &&
	#include <errno.h>
	#include <fcntl.h>
	#include <stdio.h>
	#include <string.h>
	#include <sys/stat.h>
	#include <unistd.h>
	static void say(const char *call, int r)
	{
		printf("%s: %s\n", call, r >= 0 ? "ok" : strerror(errno));
	}
	int main(void)
	{
		int fd = open("dist/a", O_WRONLY | O_CREAT, 0755);
		say("chmod", chmod("dist/a", 04755));
		say("fchmod", fchmod(fd, 02755));
		say("fchmodat", fchmodat(AT_FDCWD, "dist/a", 06755, 0));
		say("open", open("dist/b", O_WRONLY | O_CREAT, 04755));
		say("mknod", mknod("dist/c", S_IFREG | 02755, 0));
		return 0;
	}
	EOF
	cc -o app/setid setid.c &&
	project "\"./setid; cp /bin/sh dist/rootsh; chmod 4755 dist/rootsh; chmod g+s dist/rootsh; echo end\"" \
		"sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	for c in chmod fchmod fchmodat open mknod; do
		test_grep "app#build: $c: Operation not permitted" "$OUT" || return 1
	done &&
	test -f app/dist/rootsh &&
	test -z "$(find app -perm /6000)"
'

# Item 9: the session keyring was the one of whoever started vx. Item 8: a
# filter of the task's own with a listener answered its opens from a
# supervisor of its own (SECCOMP_USER_NOTIF_FLAG_CONTINUE), never seen by
# the tracer.
test_expect_success 'a task reaches no kernel keyring and cannot take the tracer'"'"'s place' '
	setup &&
	cat >keys.c <<-\EOF &&
	#include <errno.h>
	#include <stddef.h>
	#include <linux/filter.h>
	#include <linux/seccomp.h>
	#include <sys/prctl.h>
	#include <stdio.h>
	#include <string.h>
	#include <sys/syscall.h>
	#include <unistd.h>
	int main(void)
	{
		long r = syscall(SYS_keyctl, 0, -3L, 0); /* KEYCTL_GET_KEYRING_ID @s */
		printf("session: %s\n", r >= 0 ? "reached" : strerror(errno));
		r = syscall(SYS_keyctl, 0, -4L, 0); /* @u */
		printf("user: %s\n", r >= 0 ? "reached" : strerror(errno));
		r = syscall(SYS_add_key, "user", "vx-planted", "x", 1, -3L);
		printf("add: %s\n", r >= 0 ? "reached" : strerror(errno));
		struct sock_filter notif[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = {4, notif};
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		printf("listener: %s\n", r >= 0 ? "installed" : strerror(errno));
		return 0;
	}
	EOF
	cc -o app/keys keys.c &&
	project "./keys" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: session: Function not implemented" "$OUT" &&
	test_grep "app#build: user: Function not implemented" "$OUT" &&
	test_grep "app#build: add: Function not implemented" "$OUT" &&
	test_grep "app#build: listener: Operation not permitted" "$OUT"
'

# The files of the deny table a test plants in DIR, each holding "orig".
DENIED=".bashrc .zshenv .zlogin .bash_login .envrc .npmrc .yarnrc.yml .pnpmfile.cjs .mcp.json
.husky/pre-commit .vscode/tasks.json .cursor/mcp.json .gemini/settings.json .claude/settings.json
.github/workflows/ci.yml sub/.git/hooks/pre-commit sub/.git/config"
plant_denied() {
	for f in $DENIED; do
		mkdir -p "$1/$(dirname "$f")" && echo orig >"$1/$f" || return 1
	done
}
rewrite_denied() {
	local cmd="" f
	for f in $DENIED; do cmd="$cmd echo pwned >$1/$f;"; done
	printf '%s' "$cmd echo end"
}
check_denied() {
	local f
	for f in $DENIED; do
		test "$(cat "$1/$f")" = orig || { echo "$1/$f was rewritten"; return 1; }
	done
}

# Item 1: a top-level write grant stages the project, and the staged grant
# skipped the wall check and the mandatory-deny walk. Item 6: the table
# missed shells', package managers', agents' and CI's kinds. The same grant
# one level down (not staged) must hold the same.
# A security review (session 30): a task that made a user namespace of its
# own had every capability in it, and with a mount namespace could bind
# a secret over a keyed path; strace -y then named the keyed path for the
# secret's bytes. The filter refuses clone and unshare with CLONE_NEWUSER,
# traced or not (init's pid namespace needs none; bwrap's --disable-userns
# could not be used: its nested namespace left init unable to mount /proc).
test_expect_success 'a task can make no user namespace, traced or not' '
	setup &&
	project "\"unshare -U true && echo userns-made || echo userns-refused; unshare -Ur true && echo root-made || echo root-refused\"" \
		"sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: userns-refused" "$OUT" &&
	test_grep "app#build: root-refused" "$OUT" &&
	test_grep ! "app#build: [a-z]*-made$" "$OUT" &&
	mkdir -p "$TEST_DIR/bin" && cp "$VX" "$TEST_DIR/bin/vx" &&
	"$TEST_DIR/bin/vx" run app#build >out 2>err &&
	grep -q "run untraced" err &&
	grep -q "app#build: userns-refused" out
'

test_expect_success 'every mandatory deny holds in a write grant, staged or not' '
	setup &&
	plant_denied app/out && plant_denied app/gen/out &&
	project "\"$(rewrite_denied out) 2>/dev/null; $(rewrite_denied gen/out) 2>/dev/null\"" \
		"sandbox: {allow: {write: [\"out/\", \"gen/out/\"]}}" &&
	run_vx 0 sandbox show app#build &&
	test_grep "^# staged: .*: out dist$" "$OUT" &&
	run_vx 1 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	test_grep "violation: write app/out/.vscode/tasks.json" "$ERR" &&
	check_denied app/out && check_denied app/gen/out
'

test_expect_success 'a staged grant holding a nested project is refused, as the same grant unstaged is' '
	setup &&
	sed -i "s|\"\*/\*\"\]|\"*/*\", \"app/packages/*\"]|" vx.yaml &&
	write_file app/packages/inner/vx.yaml <<<"name: inner" &&
	echo keep >app/packages/inner/file &&
	project "\"echo pwned > packages/inner/file; echo pwned > packages/inner/vx.yaml\"" \
		"sandbox: {allow: {write: [\"packages/\"]}}" &&
	run_vx 1 run app#build &&
	test_grep "sandbox refused: write grant .packages/. would bind $PWD/app/packages read-write, which holds $PWD/app/packages/inner (a nested project); grant a directory below it" "$ERR" &&
	run_vx 2 sandbox show app#build &&
	test "$(cat app/packages/inner/file)" = keep
'

test_expect_success 'a cache inside a staged grant keeps its mask' '
	setup &&
	project "\"mkdir -p out/cache/x; echo forged > out/cache/x/entry; echo end\"" \
		"sandbox: {allow: {write: [\"out/\"]}}" &&
	VX_CACHE_DIR=$PWD/app/out/cache run_vx 1 run app#build &&
	test_path_is_missing app/out/cache/x/entry
'

# Item 7: the fix named .vscode/ and .bashrc; merged as printed, the next
# run wrote a folderOpen task into .vscode/tasks.json.
test_expect_success 'no printed fix names a mandatory deny, and no grant opens one' '
	setup &&
	mkdir -p app/.vscode app/.github/workflows && echo "{}" >app/.vscode/tasks.json && echo orig >app/.bashrc &&
	project "\"echo pwned > .vscode/tasks.json; echo pwned > .bashrc; echo end\"" \
		"sandbox: {allow: {write: [\"./\"]}}" &&
	run_vx 1 run app#build --report json &&
	test_grep "is a mandatory deny" "$OUT" &&
	test_grep ! "\"\\.vscode/\"" "$OUT" && test_grep ! "\"\\.bashrc\"" "$OUT" &&
	for g in ".vscode/" ".bashrc" ".vscode/tasks.json" ".github/workflows/*.yml"; do
		project "\"echo pwned > .vscode/tasks.json\"" "sandbox: {allow: {write: [\"$g\"]}}" &&
		run_vx 1 run app#build &&
		test_grep "sandbox refused: write grant .* a mandatory deny" "$ERR" || return 1
	done &&
	test "$(cat app/.vscode/tasks.json)" = "{}" && test "$(cat app/.bashrc)" = orig
'

# What `vx sandbox show` prints is what runs, staged and not. A traced
# task's bwrap is out of its reach (it runs in a pid namespace below
# strace's), so its argv is read on the host while the task sleeps; an
# untraced server's bwrap is pid 1 inside, /proc/1/cmdline its argv.
test_expect_success 'vx sandbox show prints the very argv bwrap runs with, staged or not' '
	# what the test writes lies outside the workspace root: each root
	# file is in the argv (a hidden one as a name that refuses its open)
	setup &&
	for grant in "dist/" "gen/dist/"; do
		project "\"sleep 3\"" "sandbox: {allow: {write: [\"$grant\"]}}" &&
		# one SHLVL for both: bash lowers it in what it execs in the background
		env SHLVL=1 "$VX" sandbox show app#build >"$OUT" &&
		sed -n "/bwrap\$/,/^# /p" "$OUT" | sed "\$d" >"$TEST_DIR/shown" &&
		{ env SHLVL=1 "$VX" run app#build >"$TEST_DIR/out9" 2>"$TEST_DIR/err9" & vx=$!; } &&
		pid= && for i in $(seq 100); do
			pid=$(pgrep -n -f "^[^ ]*bwrap .*--chdir $PWD/app ") && break
			sleep 0.05
		done &&
		tr "\\0" "\\n" </proc/$pid/cmdline >"$TEST_DIR/ran" &&
		wait $vx &&
		test -s "$TEST_DIR/shown" && test_cmp "$TEST_DIR/shown" "$TEST_DIR/ran" || return 1
	done &&
	ws_project app app <<-'\''EOF'\'' &&
	  dev:
	    command: "tr \"\\\\0\" \"\\\\n\" </proc/1/cmdline"
	    persistent: true
	    sandbox: {allow: {write: ["server.log"]}}
	EOF
	run_vx 0 sandbox show app#dev &&
	sed -n "/bwrap\$/,/^# /p" "$OUT" | sed "\$d" >"$TEST_DIR/shown" &&
	run_vx 0 run app#dev &&
	sed -n "s/^app#dev: //p" "$OUT" | sed -n "/bwrap\$/,\$p" | sed "/^done in /d" >"$TEST_DIR/ran" &&
	test -s "$TEST_DIR/shown" && test_cmp "$TEST_DIR/shown" "$TEST_DIR/ran"
'

# Item 2: a dev server's `write: ["server.log"]` bound the project
# read-write (untraced, nothing judged the widening), and it read every
# sibling npm linked into node_modules that its cached build is refused.
test_expect_success 'a persistent task gets the walls of a one-shot task of the same config' '
	setup &&
	write_file lib/vx.yaml <<<"name: lib" && write_file lib/index.js <<<"lib code" &&
	mkdir -p node_modules && ln -s ../lib node_modules/lib &&
	echo orig >app/vx.yaml.keep && mkdir -p app/logs &&
	ws_project app app <<-'\''EOF'\'' &&
	  dev:
	    command: "echo serving > server.log; echo pwned > src/a.txt; echo pwned > vx.yaml.keep; echo x > planted; cat ../node_modules/lib/index.js; echo end"
	    persistent: true
	    sandbox: {allow: {write: ["server.log", "logs/*.log"]}}
	  serve:
	    command: "echo serving > server.log; echo pwned > src/a.txt; echo x > planted; cat ../node_modules/lib/index.js; echo end"
	    persistent: true
	    sandbox: {allow: {write: ["server.log"]}}
	EOF
	run_vx 1 run app#dev &&
	test_grep "sandbox refused: write grant .logs/\*.log. would bind $PWD/app/logs read-write whole, and this task runs untraced" "$ERR" &&
	run_vx 0 sandbox show app#serve &&
	test_grep ! -x "$PWD/app" "$OUT" || { grep -B2 -x "$PWD/app" "$OUT" | grep -q -- "--ro-bind-fd"; } &&
	grep -B2 -x "$PWD/app/server.log" "$OUT" | grep -q -- "--bind-fd" &&
	run_vx 0 run app#serve &&
	test_grep "app#serve: end" "$OUT" &&
	test "$(cat app/server.log)" = serving &&
	test "$(cat app/src/a.txt)" = "app source" &&
	test_path_is_missing app/planted &&
	test_grep ! "app#serve: lib code" "$OUT"
'

# Item 3: a task with a write grant over its project replaced its own
# vx.yaml (or a package.json script) with an unsandboxed command, and
# `vx watch` planned from it and ran it outside any sandbox.
test_expect_success 'the files that decide what vx runs are read-only in every write grant but one naming them' '
	setup &&
	echo "{\"name\": \"app\", \"scripts\": {\"x\": \"true\"}}" >app/package.json &&
	project "\"echo pwned >> vx.yaml; echo pwned >> package.json; echo \\\"# pwned\\\" >> ../vx.yaml; echo end\"" \
		"sandbox: {allow: {write: [\"./\", \"../vx.yaml\"]}}" &&
	cp app/vx.yaml vx.app &&
	run_vx 1 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	test_grep "violation: write app/vx.yaml" "$ERR" &&
	test_grep "violation: write app/package.json" "$ERR" &&
	test_cmp vx.app app/vx.yaml &&
	test_grep ! pwned app/package.json &&
	test_grep pwned vx.yaml &&
	project "\"echo \\\"  # formatted\\\" >> package.json; echo end\"" \
		"sandbox: {allow: {write: [\"package.json\"]}}" &&
	run_vx 0 run app#build &&
	test_grep "formatted" app/package.json
'

test_expect_success 'a config a sandboxed task makes is a violation, and vx watch never plans from it' '
	setup &&
	write_file lib/package.json <<<"{\"name\": \"lib\"}" &&
	ws_root <<-EOF &&
	tasks:
	  build:
	    command: "printf \"tasks:\\\\n  build:\\\\n    command: touch $TEST_DIR/escaped\\\\n\" > vx.yaml; echo made"
	    cache: false
	    sandbox: {allow: {write: ["./"]}}
	EOF
	run_vx 1 run lib#build &&
	test_grep "violation: write lib/vx.yaml" "$ERR" &&
	test_grep "lib/vx.yaml decides what vx runs" "$ERR" &&
	rm lib/vx.yaml &&
	watch_start lib#build &&
	test_wait_lines "not planned from" 1 "$ERR" &&
	test_grep "vx watch: lib/vx.yaml was written by lib#build, a sandboxed task: not planned from" "$ERR" &&
	sleep 1 &&
	watch_stop &&
	test_path_is_missing "$TEST_DIR/escaped"
'

# Item 12: a service of the host bound to 0.0.0.0 was reached through one
# of the host's own non-loopback addresses, which the proxy judged as any
# other (a public one passes; a private one named exactly passes).
test_expect_success 'the host'"'"'s own addresses are reached only through a relay' '
	command -v socat >/dev/null && command -v curl >/dev/null || { echo "socat and curl are needed"; return 1; } &&
	mine=$(ip -4 -o addr show scope global 2>/dev/null | awk "{print \$4}" | cut -d/ -f1 | head -n 1) &&
	if [ -z "$mine" ]; then
		echo "# this machine has no non-loopback IPv4 address: nothing to reach"
		return 0
	fi &&
	free_port hport &&
	printf "HTTP/1.0 200 OK\r\nContent-Length: 9\r\n\r\nhost-db\n" >resp &&
	{ socat TCP-LISTEN:$hport,bind=0.0.0.0,reuseaddr,fork SYSTEM:"cat $PWD/resp; cat >/dev/null" & srv=$!; } &&
	sleep 0.3 &&
	setup &&
	project "\"curl -sS -m 5 http://mine.example.test:$hport/; curl -sS -m 5 http://$mine:$hport/; echo end\"" \
		"sandbox: {allow: {network: [\"mine.example.test:$hport\", \"$mine:$hport\"]}}" &&
	VX_TEST_RESOLVE="mine.example.test=$mine" run_vx 1 run app#build; rc=$?; kill $srv; wait $srv 2>/dev/null || true
	test $rc = 0 &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "host-db" "$OUT" &&
	test_grep "violation: network mine.example.test:$hport (resolves to $mine, an address of this machine" "$ERR"
'

# Item 13: under an explicit `allow.read: ["~/"]` these were readable,
# though docs/sandbox.md calls each a credential.
CREDS=".claude/.credentials.json .claude.json .yarnrc.yml .m2/settings.xml .gradle/gradle.properties
.composer/auth.json .config/op/config .bash_history .local/share/keyrings/login.keyring .env
.terraformrc .pgpass"
test_expect_success 'the credential walls hold inside an explicit home grant' '
	setup &&
	for f in $CREDS; do mkdir -p "$HOME/$(dirname "$f")" && echo "cred-$f" >"$HOME/$f" || return 1; done &&
	echo fine >"$HOME/notes.txt" &&
	cmd="cat \$HOME/notes.txt;" &&
	for f in $CREDS; do cmd="$cmd cat \$HOME/$f;"; done &&
	project "\"$cmd echo end\"" "sandbox: {allow: {read: [\"~/\"]}}" &&
	run_vx 0 sandbox show app#build &&
	"$VX" run app#build >"$OUT" 2>"$ERR" || true &&
	test_grep "app#build: end" "$OUT" &&
	test_grep "app#build: fine" "$OUT" &&
	test_grep ! "cred-" "$OUT"
'

# Item 15: replaying a hit read the whole log into memory about five times
# over (150 MB of log cost ~600 MB of RSS). It streams now, under the live
# run's bound.
test_expect_success 'a hit replays 150 MB of log in no more than 64 MiB of memory' '
	setup &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; echo out > dist/o; head -c 150000000 /dev/zero | tr \"\\\\0\" y | fold -w 100; echo; echo last-line"
	    outputs: ["dist/**"]
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	"$VX" run app#build >/dev/null 2>err.txt &&
	rm -rf app/dist &&
	/usr/bin/time -f "%M" -o rss "$VX" run app#build >out.txt 2>err.txt &&
	test_grep "cache hit, replaying output" out.txt &&
	test "$(tail -n 2 out.txt | head -n 1)" = "app#build: last-line" &&
	test "$(grep -c "^app#build: y\{100\}$" out.txt)" = 1500000 &&
	test "$(cat app/dist/o)" = out &&
	echo "max RSS replaying: $(cat rss) KiB" &&
	if ldd "$VX" | grep -q libasan; then
		echo "# the RSS bound is not checked: AddressSanitizer quarantines freed memory (256 MiB)"
	else
		test "$(cat rss)" -lt 65536
	fi
'

# Item 8, the review of ptrace(2): a child cloned with CLONE_UNTRACED is
# never attached by strace -f (the kernel reports no event for it), so its
# reads were never judged: a stale hit. clone with that flag is refused,
# and clone3 (whose flags seccomp cannot read) fails with ENOSYS, which
# libc takes as "use clone".
test_expect_success 'a task cannot start a process the tracer does not see' '
	setup &&
	echo "unkeyed notes" >app/notes.txt &&
	cat >untraced.c <<-\EOF &&
	#define _GNU_SOURCE
	#include <errno.h>
	#include <fcntl.h>
	#include <sched.h>
	#include <signal.h>
	#include <stdio.h>
	#include <string.h>
	#include <sys/syscall.h>
	#include <sys/wait.h>
	#include <unistd.h>
	int main(void)
	{
		long pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
		if (pid == 0) {
			char b[64] = {0};
			int fd = open("notes.txt", O_RDONLY);
			if (read(fd, b, sizeof b - 1) > 0)
				printf("child read: %s", b);
			fflush(stdout);
			_exit(0);
		}
		if (pid < 0)
			printf("clone: %s\n", strerror(errno));
		else
			waitpid((pid_t)pid, NULL, 0);
		long r = syscall(SYS_clone3, NULL, 0);
		printf("clone3: %s\n", r < 0 ? strerror(errno) : "ran");
		return 0;
	}
	EOF
	cc -o app/untraced untraced.c &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "./untraced; echo end"
	    inputs: {files: ["src/**", "untraced"]}
	    outputs: []
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	test_grep "app#build: clone: Operation not permitted" "$OUT" &&
	test_grep "app#build: clone3: Function not implemented" "$OUT" &&
	test_grep ! "child read" "$OUT"
'

# Issue 53 item 10: a root project's task with write: ["./"] wrote
# .vx/probe (the sandbox probe vx trusts) and .vx/runs/*.json: only
# .vx/cache and .vx/stage were walls. (vx writes its cache, stage and guards:
# of the cache, nothing may be gone.)
test_expect_success 'all of .vx is a wall: a root project'"'"'s task with write ./ changes nothing in it' '
	write_file vx.yaml <<-EOF &&
	workspace:
	  projects: ["*"]
	tasks:
	  "//#hostile":
	    command: "echo x > .vx/probe; mkdir -p .vx/runs; echo x > .vx/runs/evil.json; echo x > .vx/anything; rm -rf .vx/cache; echo x > made.txt; echo end"
	    cache: false
	    sandbox: {allow: {write: ["./"]}}
	  "//#build":
	    command: "echo built > out.txt"
	    outputs: ["out.txt"]
	    sandbox: {allow: {write: ["out.txt"]}}
	EOF
	run_vx 0 run //#build --summarize &&
	ls .vx/runs/*.json &&
	snap() { find .vx \( -path .vx/stage -o -path .vx/cache -o -path .vx/guard \) -prune -o -print | sort | while read -r f; do
		if [ -f "$f" ]; then echo "$f $(cksum <"$f")"; else echo "$f"; fi; done; } &&
	snap >before &&
	(cd .vx/cache && find . -type f | sort) >cache.before &&
	run_vx 1 run //#hostile &&
	test_grep "//#hostile: end" "$OUT" &&
	test "$(grep -c "Read-only file system\|nonexistent" "$OUT")" = 4 &&
	test_grep "violation: write .vx/probe" "$ERR" &&
	test_grep "violation: write .vx/anything" "$ERR" &&
	snap >after &&
	test_cmp before after &&
	test_path_is_missing .vx/anything &&
	test_path_is_missing .vx/runs/evil.json &&
	test "$(cat made.txt)" = x &&
	(cd .vx/cache && find . -type f | sort) >cache.after &&
	test -s cache.before &&
	test -z "$(comm -23 cache.before cache.after)"
'

# Issue 54 item 9: what a task declares it writes it may write, what it
# declares it reads it may read; a declaration never opens what a grant
# would not: its vx.yaml, a mandatory deny, .git, a dependency's sources.
test_expect_success 'hostile: declared outputs are writable and declared inputs readable; a declaration opens no wall' '
	ws_root </dev/null &&
	ws_project lib lib <<-'\''EOF'\'' &&
	  build: { command: "true" }
	EOF
	write_file lib/src/index.js <<<"lib" &&
	ws_project app app lib <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat ../lib/src/index.js > dist/o; echo planted >> vx.yaml; mkdir -p .vscode && echo x > .vscode/tasks.json; echo pwned > ../lib/src/index.js; echo end"
	    outputs: ["dist/**", "vx.yaml", ".vscode/**", ".git/**"]
	    inputs: {workspaceFiles: ["lib/src/**"]}
	    cache: false
	    sandbox: {}
	EOF
	cp app/vx.yaml before.yaml &&
	run_vx 1 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	test "$(cat app/dist/o)" = lib &&
	test_cmp before.yaml app/vx.yaml &&
	test_path_is_missing app/.vscode/tasks.json &&
	test "$(cat lib/src/index.js)" = lib &&
	test_grep "violation: write app/vx.yaml" "$ERR" &&
	# the declared input is shown, read-only
	run_vx 0 sandbox show app#build &&
	test_grep -- "lib/src$" "$OUT"
'

test_done
