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

# Item 9: the session keyring was the one of whoever started vx.
test_expect_success 'a task reaches no kernel keyring' '
	setup &&
	cat >keys.c <<-\EOF &&
	#include <errno.h>
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
		return 0;
	}
	EOF
	cc -o app/keys keys.c &&
	project "./keys" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 0 run app#build &&
	test_grep "app#build: session: Function not implemented" "$OUT" &&
	test_grep "app#build: user: Function not implemented" "$OUT" &&
	test_grep "app#build: add: Function not implemented" "$OUT"
'

test_done
