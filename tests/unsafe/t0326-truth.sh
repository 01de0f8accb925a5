#!/bin/bash
# The cache never replays a wrong output, round two (issue 37), where the
# trace judges what a sandboxed task read: each test failed before its fix.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

# Item 4: create-turbo's next build reads packages/typescript-config's
# files; that package has no build task (Turborepo: <NONEXISTENT>), and its
# files were judged read-unkeyed, so the starter failed out of the box.
test_expect_success 'a dependency with no command keys its files for its dependents' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	write_file tscfg/package.json <<<"{\"name\": \"tscfg\"}" &&
	write_file tscfg/base.json <<<"{\"strict\": true}" &&
	ws_project app app tscfg <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat ../tscfg/base.json > dist/o"
	    sandbox: {allow: {read: ["../tscfg/"], write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	test_grep ! "read-unkeyed" "$ERR" &&
	run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	write_file tscfg/base.json <<<"{\"strict\": false}" &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test_grep "false" app/dist/o
'

# Item 1: a committed symlink in the inputs was keyed by its text, the
# judge lstat'ed it, saw no regular file and skipped it: its target was
# read unkeyed, and after the target changed the next run hit.
test_expect_success 'a read through a link is judged at the file it reached' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	write_file app/config/dev.json <<<"dev-1" &&
	mkdir -p app/src && ln -s ../config/dev.json app/src/config.json &&
	mkdir -p app/lib && echo "notes" >app/lib/notes.txt && ln -s lib app/linkdir &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat src/config.json > dist/o"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/config/dev.json" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat linkdir/notes.txt > dist/o"
	    inputs: {files: ["src/**", "linkdir"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/lib/notes.txt" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat src/config.json > dist/o"
	    inputs: {files: ["src/**", "config/**"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	write_file app/config/dev.json <<<"dev-2" &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test "$(cat app/dist/o)" = dev-2
'

# Item 6: `current -> releases/v1` read with readlink was no input:
# repointed, the next run hit and replayed v1.
test_expect_success 'readlink of a link is a read of the link, judged against the key' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p app/releases/v1 app/releases/v2 app/src && echo s >app/src/a &&
	ln -s releases/v1 app/current &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; readlink current > dist/o"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/current (readlink" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; readlink current > dist/o"
	    inputs: {files: ["src/**", "current"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 0 run app#build &&
	ln -sfn releases/v2 app/current &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test "$(cat app/dist/o)" = releases/v2
'

# Item 7: a directory descriptor received over SCM_RIGHTS (or made by
# open_tree) is one the parser never saw opened: a read relative to it was
# dropped, a stale hit. It was a violation since (fail closed: "unplaced"),
# and open_tree and pidfd_getfd fail with ENOSYS. With strace -y (issue 58
# item 3) the kernel names the descriptor's path in the call itself, so the
# read is placed, and judged where it is: read-unkeyed.
test_expect_success 'a read relative to a descriptor received over a socket is judged where the kernel says it is; the calls that mint such descriptors are refused' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p app/src && echo s >app/src/a && echo "unkeyed" >app/notes.txt &&
	cat >passfd.c <<-\EOF &&
	#include <errno.h>
	#include <fcntl.h>
	#include <stdio.h>
	#include <string.h>
	#include <sys/socket.h>
	#include <sys/syscall.h>
	#include <sys/wait.h>
	#include <unistd.h>
	int main(void)
	{
		long r = syscall(428, AT_FDCWD, ".", 0); /* open_tree */
		printf("open_tree: %s\n", r < 0 ? strerror(errno) : "ran");
		r = syscall(438, 0, 0, 0); /* pidfd_getfd */
		printf("pidfd_getfd: %s\n", r < 0 ? strerror(errno) : "ran");
		int sv[2];
		socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		if (fork() == 0) {
			int d = open(".", O_RDONLY | O_DIRECTORY);
			char c = 0;
			struct iovec io = {&c, 1};
			char ctl[CMSG_SPACE(sizeof d)] = {0};
			struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
					   .msg_controllen = sizeof ctl};
			struct cmsghdr *h = CMSG_FIRSTHDR(&m);
			h->cmsg_level = SOL_SOCKET;
			h->cmsg_type = SCM_RIGHTS;
			h->cmsg_len = CMSG_LEN(sizeof d);
			memcpy(CMSG_DATA(h), &d, sizeof d);
			sendmsg(sv[0], &m, 0);
			_exit(0);
		}
		char c;
		struct iovec io = {&c, 1};
		char ctl[CMSG_SPACE(sizeof(int))];
		struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
				   .msg_controllen = sizeof ctl};
		recvmsg(sv[1], &m, 0);
		int d;
		memcpy(&d, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof d);
		wait(NULL);
		/* a fresh number the parser never saw, for what it holds */
		int fd = openat(dup2(d, 77), "notes.txt", O_RDONLY);
		char b[32] = {0};
		if (fd >= 0 && read(fd, b, sizeof b - 1) > 0)
			printf("read through it: %s", b);
		return 0;
	}
	EOF
	cc -o app/passfd passfd.c &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; ./passfd"
	    inputs: {files: ["src/**", "passfd"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "app#build: open_tree: Function not implemented" "$OUT" &&
	test_grep "app#build: pidfd_getfd: Function not implemented" "$OUT" &&
	test_grep "app#build: read through it: unkeyed" "$OUT" &&
	test_grep "violation: read-unkeyed app/notes.txt (openat, read" "$ERR"
'

# Item 5: a read under a write grant was never judged: a file left there
# before the run (a build that concatenates its old state; its old outputs
# are gone on a miss since issue 54), a link in
# dist/ to an unkeyed file, and with write: ["./"] any cat of the project.
# Only what the task wrote in this run (or the empty file vx made for a
# file grant) is exempt; a tool cache is vouched for with ignore.read.
test_expect_success 'a read under a write grant is judged unless the task wrote it first' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	mkdir -p app/src && echo "src-1" >app/src/a.txt &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist tmp; cat tmp/old.txt src/a.txt > dist/new.txt 2>/dev/null; cat src/a.txt > tmp/old.txt"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["dist/", "tmp/"]}}
	EOF
	run_vx 0 run app#build &&
	test_grep ! "read-unkeyed" "$ERR" &&
	echo "src-2" >app/src/a.txt &&
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/tmp/old.txt" "$ERR" &&
	test_grep "left there before the task ran" "$ERR" &&
	test_grep "sandbox.ignore.read: \[\"tmp/old.txt\"\]" "$ERR" &&
	rm -rf app/dist && echo "secret" >app/notes.txt &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; ln -sf ../notes.txt dist/l; cat dist/l > dist/o"
	    inputs: {files: ["src/**"]}
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/notes.txt" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "cat src/a.txt notes.txt > out.txt"
	    inputs: {files: ["src/**"]}
	    outputs: ["out.txt"]
	    sandbox: {allow: {write: ["./"]}}
	EOF
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/notes.txt" "$ERR" &&
	test_grep ! "read-unkeyed app/src/a.txt" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "cat cache.bin >/dev/null 2>&1; date +%N > cache.bin; cat src/a.txt cache.bin > out.txt"
	    inputs: {files: ["src/**"]}
	    outputs: ["out.txt"]
	    sandbox: {allow: {write: ["cache.bin", "out.txt"]}}
	EOF
	rm -f app/cache.bin app/notes.txt &&
	run_vx 0 run app#build &&
	test_grep ! "read-unkeyed" "$ERR" &&
	echo "src-3" >app/src/a.txt &&
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/cache.bin" "$ERR" &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "cat cache.bin >/dev/null 2>&1; date +%N > cache.bin; cat src/a.txt > out.txt"
	    inputs: {files: ["src/**"]}
	    outputs: ["out.txt"]
	    sandbox: {allow: {write: ["cache.bin", "out.txt"]}, ignore: {read: ["cache.bin"]}}
	EOF
	run_vx 0 run app#build &&
	test_grep ! "read-unkeyed" "$ERR"
'

# Issue 53 item 8: a link the task made in its own /tmp to an unkeyed
# file, read through the link: the trace names only /tmp/n, the task's own
# place, and a changed notes.txt replayed the old bytes.
test_expect_success 'hostile: a read through a link the task made in /tmp is judged at what it reaches' '
	ws_root </dev/null &&
	echo "notes-1" >notes.txt &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; ln -s \"$PWD/notes.txt\" /tmp/n; cat /tmp/n > dist/o"
	    inputs: {files: ["src/**"]}
	    outputs: ["dist/**"]
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	mv notes.txt app/ && mkdir -p app/src && echo a >app/src/a &&
	run_vx 1 run app#build &&
	test_grep "violation: read-unkeyed app/notes.txt" "$ERR" &&
	test_grep "inputs.files: \[\"src/\*\*\", \"notes.txt\"\]" "$ERR" &&
	run_vx 1 run app#build &&
	test_grep ! "cache hit" "$OUT"
'

test_done
