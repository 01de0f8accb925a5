#!/bin/bash
# The holes an attack on the sandbox found (issue 12), one test per class:
# each failed on the code before its fix.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

setup() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	write_file app/src/a.txt <<<"app source"
	echo "outside secret" >"$TEST_DIR/secret.txt"
	: >"$TEST_DIR/victim.txt"
}

project() {
	ws_project app app <<-EOF
	  build:
	    command: '$1'
	    cache: false
	    $2
	EOF
}

# Lists the descriptors 3..255 the task's shell holds, then tries the
# two that vx's caller left open.
FDS='for i in $(seq 3 255); do [ -e /proc/$$/fd/$i ] && echo "fd-open-$i"; done; cat /proc/self/fd/47; echo forged >/proc/self/fd/48; echo end'

test_expect_success 'descriptors vx inherited reach no task, sandboxed or not' '
	setup &&
	project "$FDS" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 0 run app#build 47<"$TEST_DIR/secret.txt" 48>>"$TEST_DIR/victim.txt" &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "fd-open-[0-9]" "$OUT" &&
	test_grep ! "outside secret" "$OUT" &&
	test ! -s "$TEST_DIR/victim.txt" &&
	project "$FDS" "" &&
	run_vx 0 run app#build 47<"$TEST_DIR/secret.txt" 48>>"$TEST_DIR/victim.txt" &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "fd-open-[0-9]" "$OUT" &&
	test_grep ! "outside secret" "$OUT" &&
	test ! -s "$TEST_DIR/victim.txt"
'

# lib's build leaves links in its outputs; app depends on it and tries them.
dep_links() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	mkdir -p "$HOME/.ssh" && echo "PRIVATE KEY" >"$HOME/.ssh/id_rsa" &&
	echo "sibling secret" >"$TEST_DIR/ws/sib-secret.txt" &&
	mkdir -p sib && echo "sib secret" >sib/secret.txt && write_file sib/vx.yaml <<<"name: sib" &&
	ws_project lib lib <<-EOF &&
	  build:
	    command: "mkdir -p dist && echo ok > dist/ok.txt && ln -sf \$HOME/.ssh/id_rsa dist/key && ln -sf ../../sib/secret.txt dist/sib && ln -sfn \$HOME/.ssh dist/sshdir"
	    cache: false
	EOF
	ws_project app app lib <<-'EOF'
	  build:
	    command: "cat ../lib/dist/ok.txt; cat ../lib/dist/key; cat ../lib/dist/sib; ls ../lib/dist/sshdir/; cat ../lib/dist/sshdir/id_rsa; echo end"
	    cache: false
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
}

test_expect_success 'a dependency'"'"'s outputs that are links lead nowhere the task may not read' '
	dep_links &&
	run_vx 0 run app#build &&
	test_grep "app#build: ok" "$OUT" &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "PRIVATE KEY" "$OUT" &&
	test_grep ! "sib secret" "$OUT" &&
	run_vx 0 sandbox show app#build &&
	test_grep -x -- "--symlink" "$OUT"
'

# Each path call strace's %file class names that can change the file system
# or read a file's bytes, made by a task that swallows every failure: each
# must be reported as a violation naming the call, or refused with ENOSYS
# (the table in docs/violations.md).
test_expect_success 'every path call that writes or reads is reported or refused with ENOSYS' '
	setup &&
	cat >calls.c <<-\EOF &&
	#include <errno.h>
	#include <fcntl.h>
	#include <stdio.h>
	#include <string.h>
	#include <sys/stat.h>
	#include <sys/syscall.h>
	#include <sys/time.h>
	#include <sys/xattr.h>
	#include <unistd.h>
	#include <utime.h>
	static void say(const char *call, long r)
	{
		printf("%s: %s\n", call, r >= 0 ? "ok" : errno == ENOSYS ? "ENOSYS" : strerror(errno));
	}
	int main(void)
	{
		struct { unsigned long long flags, mode, resolve; } how = {O_RDONLY, 0, 0};
		say("openat2", syscall(437, AT_FDCWD, "vendor/secret.txt", &how, sizeof how));
		say("fchmodat2", syscall(452, AT_FDCWD, "f/fchmodat2", 0600, 0));
		say("mknod", mknod("f/new-mknod", S_IFIFO | 0644, 0));
		say("mknodat", mknodat(AT_FDCWD, "f/new-mknodat", S_IFIFO | 0644, 0));
		say("chmod", chmod("f/chmod", 0600));
		say("fchmodat", fchmodat(AT_FDCWD, "f/fchmodat", 0600, 0));
		say("chown", chown("f/chown", 0, 0));
		say("lchown", lchown("f/lchown", 0, 0));
		say("fchownat", fchownat(AT_FDCWD, "f/fchownat", 0, 0, 0));
		say("setxattr", setxattr("f/setxattr", "user.vx", "1", 1, 0));
		say("lsetxattr", lsetxattr("f/lsetxattr", "user.vx", "1", 1, 0));
		say("removexattr", removexattr("f/removexattr", "user.vx"));
		say("lremovexattr", lremovexattr("f/lremovexattr", "user.vx"));
		say("utime", utime("vendor/utime", NULL));
		say("utimes", utimes("vendor/utimes", NULL));
		say("futimesat", syscall(SYS_futimesat, AT_FDCWD, "vendor/futimesat", NULL));
		return 0;
	}
	EOF
	cc -o app/calls calls.c &&
	mkdir -p app/f && write_file app/vendor/vx.yaml <<<"name: vendor" &&
	echo s >app/vendor/secret.txt &&
	for c in fchmodat2 chmod fchmodat chown lchown fchownat setxattr lsetxattr removexattr lremovexattr; do echo x >app/f/$c; done &&
	for c in utime utimes futimesat; do echo x >app/vendor/$c; done &&
	project "./calls" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 1 run app#build &&
	for c in openat2 fchmodat2 mknod mknodat chmod fchmodat chown lchown fchownat setxattr lsetxattr removexattr lremovexattr utime utimes futimesat; do
		if grep -q "app#build: $c: ENOSYS" "$OUT"; then
			echo "$c: refused"
		elif grep -q "violation: .* ($c E" "$ERR"; then
			echo "$c: reported"
		else
			echo "$c: neither reported nor refused"; false
		fi
	done &&
	test_grep "app#build: openat2: ENOSYS" "$OUT" &&
	test_grep "violation: write app/f/new-mknodat (mknodat EROFS)" "$ERR" &&
	test_grep "violation: write app/f/chmod (chmod EROFS)" "$ERR"
'

test_expect_success 'a hidden read through /proc/self/cwd, /proc/self/fd/N or /proc/PID/root is reported by its real path' '
	setup &&
	write_file app/vendor/vx.yaml <<<"name: vendor" &&
	echo s >app/vendor/secret.txt && echo r >root-secret.txt &&
	project "cat /proc/self/cwd/vendor/secret.txt; exec 7<. && cat /proc/self/fd/7/vendor/../vendor/secret.txt; cat /proc/\$\$/root$TEST_DIR/ws/root-secret.txt; echo end" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 1 run app#build &&
	test_grep "app#build: end" "$OUT" &&
	test_grep "violation: read app/vendor/secret.txt (openat ENOENT)" "$ERR" &&
	test_grep "note: a read outside the project was refused: root-secret.txt" "$ERR"
'

test_expect_success 'kill -9 of vx mid-task leaves a run directory the next run sweeps, and its staged grant is put back' '
	setup &&
	mkdir -p "$TEST_DIR/tmp" &&
	project "mkdir -p dist; echo started > dist/started; exec sleep 4242" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	{ TMPDIR=$TEST_DIR/tmp "$VX" run app#build >out 2>err & vx=$!; } &&
	test_wait_staged app/dist/started &&
	kill -9 $vx && { wait $vx || true; } &&
	left=$(ls -d "$TEST_DIR"/tmp/vx-$(id -u)/vx-run-*) &&
	test -n "$left" && test -e "$left"/trace-*/log &&
	touch -d "2 minutes ago" "$left" &&
	test_path_is_missing app/dist/started &&
	touch -d "2 minutes ago" .vx/stage/vx-run-* &&
	project "echo second" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	TMPDIR=$TEST_DIR/tmp run_vx 0 run app#build &&
	test_path_is_missing "$left" &&
	test -z "$(ls -A "$TEST_DIR/tmp/vx-$(id -u)")" &&
	test "$(cat app/dist/started)" = started
'

test_expect_success 'a link a task plants in its project carries no later write grant out of it, literal or glob' '
	setup &&
	mkdir -p "$TEST_DIR/elsewhere" &&
	project "ln -s $TEST_DIR/elsewhere gen; ln -s $TEST_DIR/elsewhere out" "sandbox: {allow: {write: [\"./\"]}}" &&
	run_vx 0 run app#build &&
	test -L app/gen && test -L app/out &&
	project "echo planted > gen/x.js" "sandbox: {allow: {write: [\"gen/*.js\"]}}" &&
	run_vx 1 run app#build &&
	test_grep "sandbox refused: write grant .gen/\*.js. leads through a link to $TEST_DIR/elsewhere, outside the project" "$ERR" &&
	project "echo planted > out/x.js" "sandbox: {allow: {write: [\"out/\"]}}" &&
	run_vx 1 run app#build &&
	test_grep "sandbox refused: write grant .out/. leads through a link to $TEST_DIR/elsewhere, outside the project" "$ERR" &&
	test_path_is_missing "$TEST_DIR/elsewhere/x.js"
'

# Issue 58 item 3: the judge asked the disk, after the run, where a read
# through a link led; a link already in a write grant, read and then
# repointed at a keyed file before the task exited, hid the read (no
# violation, the task cached). strace -y names where the kernel opened it.
test_expect_success 'a read through a link in a write grant, repointed before the task exits, is judged where it led' '
	setup &&
	write_file app/notes.txt <<<"unkeyed notes" &&
	mkdir -p app/cache && ln -s ../notes.txt app/cache/cur &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "cat cache/cur; ln -sfn ../src/a.txt cache/cur; true"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["cache/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "app#build: unkeyed notes" "$OUT" &&
	test_grep "violation: read-unkeyed app/notes.txt" "$ERR"
'

# The same question, asked of a file: a leftover read and then removed
# was no regular file any more when the judge looked (no violation).
test_expect_success 'a file an earlier run left in a write grant, read and removed, is still read-unkeyed' '
	setup &&
	mkdir -p app/cache && echo "stale" >app/cache/old.txt &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "cat cache/old.txt; rm cache/old.txt; true"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["cache/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "app#build: stale" "$OUT" &&
	test_grep "violation: read-unkeyed app/cache/old.txt" "$ERR"
'

# A descriptor copied by dup, dup2 or fcntl(F_DUPFD) places what is opened
# through it by strace -y's path of that descriptor at the call, so the
# trace set need not follow the copies (issue 59: fcntl alone was 26 of a
# node task's 70 traced calls); fts (cp -r, rm -rf, find) walks through
# such copies, and a build of them is judged with no unplaced access.
test_expect_success 'opens through copied descriptors are judged where they led; an fts walk is clean' '
	setup &&
	echo "undeclared" >app/src/undeclared.txt &&
	cat >dups.c <<-\EOF &&
	#include <fcntl.h>
	#include <stdio.h>
	#include <unistd.h>
	int main(void)
	{
		char buf[64];
		int d = open("src", O_RDONLY | O_DIRECTORY);
		int a = fcntl(d, F_DUPFD_CLOEXEC, 20), b = dup(d);
		dup2(d, 30);
		close(d);
		int r = openat(a, "undeclared.txt", O_RDONLY);
		ssize_t n = r < 0 ? 0 : read(r, buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = 0;
		printf("read: %s", buf);
		printf("write: %d\\n", openat(30, "w.txt", O_WRONLY | O_CREAT, 0644) >= 0);
		printf("unlink: %d\\n", unlinkat(b, "a.txt", 0) == 0);
		return 0;
	}
	EOF
	cc -o app/dups dups.c &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "./dups"
	    inputs: {files: ["src/a.txt", "dups"]}
	    sandbox: {}
	EOF
	run_vx 1 run app#build &&
	test_grep "app#build: read: undeclared" "$OUT" &&
	test_grep "violation: read-unkeyed app/src/undeclared.txt" "$ERR" &&
	test_grep "violation: write app/src/w.txt" "$ERR" &&
	test_grep "violation: write app/src/a.txt" "$ERR" &&
	test_grep ! "unplaced\|a descriptor the trace never saw" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "cp -r src dist/copy && find dist/copy -type f >dist/list && chmod -R u+w dist/copy && rm -rf dist/copy && touch dist/stamp"
	    inputs: {files: ["src/**"]}
	    outputs: ["dist/**"]
	    sandbox: {}
	EOF
	mkdir -p app/dist &&
	run_vx 0 run app#build &&
	test_grep ! "violation\|unplaced" "$ERR" &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT"
'

test_expect_success '500 MB of output costs vx no more than 64 MiB of memory, and the entry still holds it all' '
	setup &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; head -c 500000000 /dev/zero | tr \"\\\\0\" x | fold -w 100; echo; echo last-line"
	    outputs: ["dist/**"]
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	/usr/bin/time -f "%M" -o rss "$VX" run app#build >out.txt 2>err.txt &&
	test "$(tail -n 3 out.txt | head -n 1)" = "app#build: last-line" &&
	test "$(grep -c "^app#build: x\{100\}$" out.txt)" = 5000000 &&
	echo "max RSS: $(cat rss) KiB" &&
	if ldd "$VX" | grep -q libasan; then
		echo "# the RSS bound is not checked: AddressSanitizer quarantines freed memory (256 MiB)"
	else
		test "$(cat rss)" -lt 65536
	fi &&
	rm -f out.txt &&
	run_vx 0 cache stats &&
	test_grep "^entries: 1$" "$OUT"
'

test_done
