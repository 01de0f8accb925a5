/* test_strace.c - the strace log parser on recorded and hand-written traces.
 *
 * fixtures/strace/: swallowed, chdir, parallel, rmtree, escapes, touch and
 * threads were recorded here with real strace 6.1 (the flags of
 * docs/violations.md, "The trace parser") in a directory renamed /ws/app, the
 * dynamic loader's and locale's lines trimmed; vfork-order, orphans, shared,
 * dirfd and garbage are hand-written for orders and failures that are rare
 * to catch live. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/strbuf.h"
#include "violations/strace.h"

struct result {
	struct strace_parser *p;
	const struct access_event *ev;
	size_t n;
	const struct strace_summary *sum;
};

static struct result parse_chunked(const char *text, size_t len, size_t chunk)
{
	struct result r;
	r.p = strace_parser_new("/ws/app", 0);
	for (size_t off = 0; off < len; off += chunk)
		strace_parser_feed(r.p, text + off, len - off < chunk ? len - off : chunk);
	strace_parser_finish(r.p);
	r.ev = strace_parser_events(r.p, &r.n);
	r.sum = strace_parser_summary(r.p);
	return r;
}

static struct result parse_text(const char *text)
{
	return parse_chunked(text, strlen(text), strlen(text) + 1);
}

static struct strbuf fixture_read(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("fixtures/strace/%s", name);
	if (strbuf_read_file(&sb, path) < 0) {
		perror(path);
		exit(1);
	}
	free(path);
	return sb;
}

static struct result parse_fixture(const char *name)
{
	struct strbuf sb = fixture_read(name);
	struct result r = parse_chunked(sb.buf, sb.len, sb.len + 1);
	strbuf_release(&sb);
	return r;
}

static const struct access_event *find(const struct result *r, enum access_op op, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ev[i].op == op && !strcmp(r->ev[i].path, path))
			return &r->ev[i];
	return NULL;
}

/* The errno of (op, path), or -1 when no such event. */
static int err_of(const struct result *r, enum access_op op, const char *path)
{
	const struct access_event *ev = find(r, op, path);
	return ev ? ev->err : -1;
}

static void test_swallowed(void)
{
	/* `cat notes.txt || echo fallback`: the read that exit 0 hides */
	struct result r = parse_fixture("swallowed.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/notes.txt"), ENOENT);
	CHECK_STR(find(&r, ACCESS_READ, "/ws/app/notes.txt")->syscall, "openat");
	CHECK_INT(err_of(&r, ACCESS_EXEC, "/usr/bin/cat"), 0);
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->root_status, 0);
	CHECK_INT(r.sum->skipped, 0);
	strace_parser_free(r.p);
}

static void test_chdir_per_process(void)
{
	/* (cd sub && cat ../x) & (cd tree && cat d1/f) & cat sub/y: three
	 * processes interleaved, each unfinished call resumed among others */
	struct result r = parse_fixture("chdir.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/x"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/tree/d1/f"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/sub/y"), 0);
	CHECK(!find(&r, ACCESS_READ, "/ws/app/sub/x"));
	CHECK(!find(&r, ACCESS_READ, "/ws/app/tree/sub/y"));
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->skipped, 0);
	strace_parser_free(r.p);
}

static void test_parallel(void)
{
	struct result r = parse_fixture("parallel.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/f1"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/f2"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/f3"), 0);
	CHECK_INT(r.sum->skipped, 0);
	strace_parser_free(r.p);
}

static void test_rmtree_dirfds(void)
{
	/* cp -r then rm -rf: fts's openat(4, ...) on fcntl(F_DUPFD_CLOEXEC) copies */
	struct result r = parse_fixture("rmtree.txt");
	CHECK_INT(err_of(&r, ACCESS_MKDIR, "/ws/app/tree2/d1/d2"), 0);
	CHECK_INT(err_of(&r, ACCESS_WRITE, "/ws/app/tree2/d1/d2/g"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/tree/d1/f"), 0);
	CHECK_INT(err_of(&r, ACCESS_UNLINK, "/ws/app/tree2/d1/d2/g"), 0);
	CHECK_INT(err_of(&r, ACCESS_RMDIR, "/ws/app/tree2/d1/d2"), 0);
	CHECK_INT(err_of(&r, ACCESS_RMDIR, "/ws/app/tree2"), 0);
	for (size_t i = 0; i < r.n; i++)
		CHECK(!r.ev[i].unresolved);
	strace_parser_free(r.p);
}

static void test_escapes(void)
{
	struct result r = parse_fixture("escapes.txt");
	CHECK_INT(err_of(&r, ACCESS_WRITE, "/ws/app/q\"t.txt"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/\xc3\xa9.txt"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_UNLINK, "/ws/app/tab\tnl\nx"), 0);
	CHECK(find(&r, ACCESS_WRITE, "/ws/app/q\"t.txt")->write_intent);
	strace_parser_free(r.p);

	/* a W_OK probe is a probe for writing (write intent, no write) */
	r = parse_text("1 faccessat2(AT_FDCWD, \"c\", W_OK) = -1 EROFS (Read-only file system)\n"
		       "1 access(\"d\", R_OK|W_OK) = 0\n"
		       "1 faccessat(AT_FDCWD, \"e\", R_OK) = 0\n");
	CHECK_INT(err_of(&r, ACCESS_PROBE_WRITE, "/ws/app/c"), EROFS);
	CHECK(find(&r, ACCESS_PROBE_WRITE, "/ws/app/c")->write_intent);
	CHECK(find(&r, ACCESS_PROBE_WRITE, "/ws/app/d") != NULL);
	CHECK(find(&r, ACCESS_PROBE, "/ws/app/e") != NULL);
	CHECK(!find(&r, ACCESS_PROBE, "/ws/app/e")->write_intent);
	CHECK_STR(access_op_name(ACCESS_PROBE_WRITE), "probe-write");
	strace_parser_free(r.p);

	r = parse_text("1 openat(AT_FDCWD, \"\\x41\\\\b\\101\\7z\", O_RDONLY) = 3\n");
	CHECK(find(&r, ACCESS_READ, "/ws/app/A\\bA\az") != NULL);
	strace_parser_free(r.p);
}

static void test_touch_and_friends(void)
{
	struct result r = parse_fixture("touch.txt");
	/* touch: open then utimensat(0, NULL) on the dup2'd descriptor */
	CHECK_INT(err_of(&r, ACCESS_UTIME, "/ws/app/x"), 0);
	CHECK_INT(err_of(&r, ACCESS_PROBE, "/ws/app/gen.sh"), ENOENT);
	CHECK_STR(find(&r, ACCESS_PROBE, "/ws/app/gen.sh")->syscall, "faccessat2");
	CHECK_INT(err_of(&r, ACCESS_READLINK, "/ws/app/cfg"), ENOENT);
	/* mkdir -p: EEXIST, then chdir, then fchdir into what it made */
	CHECK_INT(err_of(&r, ACCESS_MKDIR, "/ws/app/sub"), EEXIST);
	CHECK_INT(err_of(&r, ACCESS_MKDIR, "/ws/app/sub/new/deep"), 0);
	CHECK_INT(err_of(&r, ACCESS_LINK_FROM, "/ws/app/x"), 0);
	CHECK_INT(err_of(&r, ACCESS_LINK_TO, "/ws/app/hard"), 0);
	CHECK_INT(err_of(&r, ACCESS_RENAME_FROM, "/ws/app/hard"), 0);
	CHECK_INT(err_of(&r, ACCESS_RENAME_TO, "/ws/app/hard2"), 0);
	CHECK_INT(err_of(&r, ACCESS_SYMLINK, "/ws/app/sym"), 0);
	CHECK_INT(err_of(&r, ACCESS_RMDIR, "/ws/app/sub/new"), 0);
	CHECK_INT(err_of(&r, ACCESS_WRITE, "/ws/app/f3"), 0);
	CHECK(!find(&r, ACCESS_LINK_FROM, "/ws/app/x")->write_intent);
	CHECK(find(&r, ACCESS_LINK_TO, "/ws/app/hard")->write_intent);
	strace_parser_free(r.p);
}

static void test_threads_share_cwd(void)
{
	/* python: a thread (clone3 with CLONE_FS) chdirs, the main thread opens "y" */
	struct result r = parse_fixture("threads.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/sub/y"), 0);
	CHECK(!find(&r, ACCESS_READ, "/ws/app/y"));
	CHECK_INT(r.sum->skipped, 0);
	strace_parser_free(r.p);
}

static void test_vfork_order(void)
{
	/* the child's lines come before the parent's vfork returns */
	struct result r = parse_fixture("vfork-order.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/pkg/notes.txt"), ENOENT);
	CHECK_INT(find(&r, ACCESS_READ, "/ws/app/pkg/notes.txt")->pid, 101);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/pkg/x"),
		  0); /* the child's chdir stayed its own */
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->root_pid, 100);
	strace_parser_free(r.p);
}

static void test_orphans(void)
{
	/* two forks pending at once: the children's lines wait for their parent */
	struct result r = parse_fixture("orphans.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/b/from200"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_READ, "/a/from100"), ENOENT);
	CHECK_INT(r.sum->skipped, 0);
	strace_parser_free(r.p);

	/* a parent never seen: resolved against the first cwd at the end */
	r = parse_text("1 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>\n"
		       "2 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>\n"
		       "3 openat(AT_FDCWD, \"late\", O_RDONLY) = 3\n");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/late"), 0);
	CHECK(!r.sum->root_exited);
	strace_parser_free(r.p);

	/* fuzz: a held process's exit held with lines of the pid's next life
	 * crashed the replay at the end */
	r = parse_text("1 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>\n"
		       "2 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>\n"
		       "3 +++ exited with 0 +++\n"
		       "3 openat(AT_FDCWD, \"again\", O_RDONLY) = 3\n");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/again"), 0);
	strace_parser_free(r.p);
}

static void test_shared_tables(void)
{
	struct result r = parse_fixture("shared.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/data/rel"), ENOENT);	      /* CLONE_FILES */
	CHECK_INT(err_of(&r, ACCESS_READ, "/thread-cwd/shared-cwd"), ENOENT); /* CLONE_FS */
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/mine"), 0);		      /* fork: own cwd */
	CHECK_INT(err_of(&r, ACCESS_READ, "/data/inherited"), 0);	      /* fork: fds copied */
	CHECK_INT(err_of(&r, ACCESS_READ, "/data/still"), 0); /* the child's fd 5 is its own */
	strace_parser_free(r.p);

	/* issue 37: a thread that unshares its cwd or its descriptor table
	 * takes copies; its chdir and its fd numbers are its own after */
	r = parse_text(
	    "2 clone(child_stack=0x1, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_THREAD) = 3\n"
	    "3 unshare(CLONE_FS) = 0\n"
	    "3 chdir(\"/elsewhere\") = 0\n"
	    "2 openat(AT_FDCWD, \"main-rel\", O_RDONLY) = 4\n"
	    "3 openat(AT_FDCWD, \"thread-rel\", O_RDONLY) = 5\n"
	    "3 unshare(CLONE_FILES) = 0\n"
	    "3 openat(AT_FDCWD, \"/data\", O_RDONLY|O_DIRECTORY) = 6\n"
	    "2 openat(AT_FDCWD, \"/other\", O_RDONLY|O_DIRECTORY) = 6\n"
	    "3 openat(6, \"via-six\", O_RDONLY) = 7\n"
	    "2 openat(6, \"main-six\", O_RDONLY) = 7\n");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/main-rel"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/elsewhere/thread-rel"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/data/via-six"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/other/main-six"), 0);
	strace_parser_free(r.p);
}

static void test_dirfds(void)
{
	struct result r = parse_fixture("dirfd.txt");
	CHECK_INT(err_of(&r, ACCESS_RENAME_FROM, "/ws/app/pkg/old.txt"), 0);
	CHECK_INT(err_of(&r, ACCESS_RENAME_TO, "/ws/app/out/new.txt"), 0);
	CHECK_INT(err_of(&r, ACCESS_LINK_FROM, "/ws/app/pkg/a"), EROFS);
	CHECK_INT(err_of(&r, ACCESS_LINK_TO, "/ws/b"), EROFS);
	CHECK_INT(err_of(&r, ACCESS_RMDIR, "/ws/app/out/gone"), 0);
	CHECK_INT(err_of(&r, ACCESS_UNLINK, "/ws/app/out/file"), EACCES);
	CHECK_INT(err_of(&r, ACCESS_MKDIR, "/ws/app/pkg/sub/new"), EEXIST);
	CHECK_INT(err_of(&r, ACCESS_EXEC, "/ws/app/pkg/tool.sh"), EACCES);
	CHECK_INT(err_of(&r, ACCESS_READLINK, "/ws/app/cfg"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_PROBE, "/ws/app/pkg/gen.sh"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_SYMLINK, "/ws/app/out/link"), 0);
	CHECK_INT(err_of(&r, ACCESS_UTIME, "/ws/app/pkg"), EPERM); /* utimensat(fd, NULL) */
	CHECK_INT(err_of(&r, ACCESS_UTIME, "/ws/app/out"), 0);	   /* "" with AT_EMPTY_PATH */
	CHECK_INT(err_of(&r, ACCESS_WRITE, "/ws/app/pkg/via-fchdir"), 0);
	CHECK_INT(err_of(&r, ACCESS_TRUNCATE, "/ws/app/t"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/lib/a.js"), 0); /* strace -y's 8</path> */
	const struct access_event *ev = find(&r, ACCESS_READ, "nobody-knows");
	CHECK(ev && ev->unresolved && ev->err == ENOENT);
	ev = find(&r, ACCESS_READ, "/ws/app/very/long/name");
	CHECK(ev && ev->truncated && ev->err == ENAMETOOLONG);
	/* after fchdir to an unknown descriptor the cwd is unknown, not stale */
	ev = find(&r, ACCESS_READ, "lost");
	CHECK(ev && ev->unresolved);
	CHECK(!find(&r, ACCESS_READ, "/ws/app/pkg/lost"));
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->root_signal, SIGKILL);
	strace_parser_free(r.p);
}

/* strace -y (issue 58 item 3): each open's descriptor names where the
 * kernel opened it, at the moment of the call; recorded with strace 6.1 -y
 * (decode-fds.txt: cur.js -> ../lib/v1.js read, repointed to v2.js by ln
 * -sfn, read again; a cd through linkdir -> real; a dirfd and an fchdir). */
static void test_decode_fds(void)
{
	struct result r = parse_fixture("decode-fds.txt");
	const struct access_event *ev = find(&r, ACCESS_READ, "/ws/app/cur.js");
	/* the first read's: the link led to v1.js then, whatever it leads to now */
	CHECK(ev && ev->real && !strcmp(ev->real, "/ws/lib/v1.js"));
	ev = find(&r, ACCESS_READ, "/ws/app/sp ace>d/f"); /* '>' printed as \76 */
	CHECK(ev && ev->real && !strcmp(ev->real, "/ws/app/sp ace>d/f"));
	/* after `cd linkdir` the kernel's cwd is the link's target */
	ev = find(&r, ACCESS_READ, "/ws/app/real/file");
	CHECK(ev && ev->real && !strcmp(ev->real, "/ws/app/real/file"));
	CHECK(!find(&r, ACCESS_READ, "/ws/app/linkdir/file"));
	ev = find(&r, ACCESS_CHDIR, "/ws/app/linkdir");
	CHECK(ev && !ev->err && !ev->real); /* no descriptor: no kernel path */
	ev = find(&r, ACCESS_WRITE, "/dev/null");
	CHECK(ev && ev->real && !strcmp(ev->real, "/dev/null"));
	ev = find(&r, ACCESS_READ, "/ws/app/cur.js");
	CHECK(ev && !ev->unresolved);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/cur.js"), 0);
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->skipped, 0);
	strace_parser_free(r.p);

	/* a process whose fork the log never showed: its cwd is unknown to
	 * the parser, and the kernel's AT_FDCWD</p> places its paths */
	r = parse_text(
	    "1 execve(\"/bin/sh\", [\"sh\"], 0x1 /* 1 var */) = 0\n"
	    "9 openat(AT_FDCWD</ws/app/sub>, \"x\", O_RDONLY) = 3</ws/app/sub/x>\n"
	    "9 openat(7</ws/a\\\\b\\76c>, \"y\", O_RDONLY) = 4</ws/a\\\\b\\76c/y>\n"
	    "9 openat(7</ws/./d/../e/>, \"z\", O_RDONLY) = 4</ws/e/z (deleted)>\n"
	    "9 openat(5<socket:[1234]>, \"w\", O_RDONLY) = 3<pipe:[9]>\n"
	    "9 openat(AT_FDCWD</ws/app/sub>, \"n\", O_RDONLY) = -1 ENOENT (No such file)\n"
	    "9 openat(AT_FDCWD</a,(b>, \"p\", O_RDONLY) = 3</a,(b/p>\n"
	    "9 openat(AT_FDCWD, \"/q\", O_RDONLY|O_DIRECTORY) = 3</ws/./x/../y/>\n");
	ev = find(&r, ACCESS_READ, "/ws/app/sub/x");
	CHECK(ev && !ev->unresolved && ev->real && !strcmp(ev->real, "/ws/app/sub/x"));
	ev = find(&r, ACCESS_READ, "/ws/a\\b>c/y");
	CHECK(ev && ev->real && !strcmp(ev->real, "/ws/a\\b>c/y"));
	/* a dirfd's path normalized; a file deleted since has no kernel path */
	ev = find(&r, ACCESS_READ, "/ws/e/z");
	CHECK(ev && !ev->real);
	ev = find(&r, ACCESS_READ, "w"); /* relative to a socket: unplaced */
	CHECK(ev && ev->unresolved && !ev->real);
	ev = find(&r, ACCESS_READ, "/ws/app/sub/n");
	CHECK(ev && ev->err == ENOENT && !ev->real);
	/* a ',' or '(' in the cwd's annotation splits no argument */
	ev = find(&r, ACCESS_READ, "/a,(b/p");
	CHECK(ev && ev->real && !strcmp(ev->real, "/a,(b/p"));
	/* a kernel path is normalized; one that is not (a hand-made line) is
	 * made so; O_DIRECTORY kept */
	ev = find(&r, ACCESS_READ, "/q");
	CHECK(ev && ev->real && !strcmp(ev->real, "/ws/y") && ev->opened_dir);
	ev = find(&r, ACCESS_READ, "/ws/app/sub/x");
	CHECK(ev && !ev->opened_dir);
	CHECK_INT(r.sum->skipped, 0);
	strace_parser_free(r.p);

	/* an annotation that never closes is no call */
	r = parse_text("1 openat(AT_FDCWD, \"a\", O_RDONLY) = 3</ws/a\n");
	CHECK_INT(r.sum->skipped, 1);
	strace_parser_free(r.p);
}

static void test_garbage(void)
{
	struct result r = parse_fixture("garbage.txt");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/ok1"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/ok2"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/after-exit-is-a-new-process"), 0);
	CHECK(!find(&r, ACCESS_READ, "/ws/app/no-newline")); /* a cut last line */
	CHECK(!find(&r, ACCESS_READ, "/ws/app/x"));
	CHECK_INT(r.n, 3);
	CHECK_INT(r.sum->lines, 19);
	/* every line but the pid-100 ok lines, the signal and ERESTARTSYS ones */
	CHECK_INT(r.sum->skipped, 13);
	strace_parser_free(r.p);

	/* fuzz: a raw NUL inside a string cut the path short of its length */
	const char nul[] = "1 mkdir(\"\0K\", 0777) = 0\n";
	r = parse_chunked(nul, sizeof nul - 1, sizeof nul);
	CHECK_INT(r.n, 0);
	CHECK_INT(r.sum->skipped, 1);
	strace_parser_free(r.p);

	/* fuzz: a NUL inside a -y annotation cut the resolved path short */
	const char ann[] = "1 openat(8</ws/\0x>, \"a.js\", O_RDONLY) = 6\n";
	r = parse_chunked(ann, sizeof ann - 1, sizeof ann);
	CHECK_INT(r.n, 1);
	CHECK(r.n == 1 && r.ev[0].unresolved && !strcmp(r.ev[0].path, "a.js"));
	strace_parser_free(r.p);

	/* fuzz: a two-path call with both paths unreadable counted two lines */
	r = parse_text("1 linkat(3, */) = 0\n");
	CHECK_INT(r.sum->skipped, 1);
	CHECK_INT(r.sum->lines, 1);
	strace_parser_free(r.p);
}

static void test_root_exit(void)
{
	struct result r = parse_text("5 openat(AT_FDCWD, \"a\", O_RDONLY) = 3\n");
	CHECK(!r.sum->root_exited); /* INCOMPLETE: the tracer died first */
	CHECK_INT(r.sum->root_pid, 5);
	strace_parser_free(r.p);

	r = parse_text("5 clone(child_stack=NULL, flags=SIGCHLD) = 6\n"
		       "6 +++ exited with 0 +++\n"
		       "5 +++ exited with 3 +++\n");
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->root_status, 3);
	CHECK_INT(r.sum->root_signal, 0);
	strace_parser_free(r.p);

	/* an explicit root: another process's exit does not complete the trace */
	struct strace_parser *p = strace_parser_new("/", 7);
	const char *log =
	    "5 +++ exited with 0 +++\n[pid 7] openat(AT_FDCWD, \"b\", O_RDONLY) = 3\n";
	strace_parser_feed(p, log, strlen(log));
	strace_parser_finish(p);
	CHECK(!strace_parser_summary(p)->root_exited);
	size_t n;
	const struct access_event *ev = strace_parser_events(p, &n);
	CHECK_INT(n, 1);
	CHECK_STR(ev[0].path, "/b");
	CHECK_INT(ev[0].pid, 7);
	strace_parser_free(p);
}

static void test_dedupe(void)
{
	struct result r = parse_text("1 openat(AT_FDCWD, \"a\", O_RDONLY) = 3\n"
				     "1 openat(AT_FDCWD, \"./a\", O_RDONLY) = 4\n"
				     "1 openat(AT_FDCWD, \"a\", O_RDONLY) = -1 ENOENT (x)\n"
				     "1 open(\"/ws/app/sub/../a\", O_RDWR) = 3\n");
	CHECK_INT(r.n, 3);
	CHECK_INT(r.sum->events, 4);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/a"), 0);
	CHECK_STR(find(&r, ACCESS_WRITE, "/ws/app/a")->syscall, "open");
	strace_parser_free(r.p);
}

/* Every chunking of a log gives the same events and counters. */
static void test_chunking(void)
{
	const char *names[] = {"chdir.txt",   "escapes.txt", "dirfd.txt",
			       "garbage.txt", "orphans.txt", "threads.txt"};
	unsigned seed = 1;
	for (size_t f = 0; f < sizeof names / sizeof *names; f++) {
		struct strbuf sb = fixture_read(names[f]);
		struct result whole = parse_chunked(sb.buf, sb.len, sb.len + 1);
		size_t chunks[] = {1, 2, 7, 64, 0};
		for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
			struct result r;
			if (chunks[c]) {
				r = parse_chunked(sb.buf, sb.len, chunks[c]);
			} else {
				r.p = strace_parser_new("/ws/app", 0);
				for (size_t off = 0; off < sb.len;) {
					seed = seed * 1103515245 + 12345;
					size_t k = 1 + (seed >> 16) % 300;
					if (k > sb.len - off)
						k = sb.len - off;
					strace_parser_feed(r.p, sb.buf + off, k);
					off += k;
				}
				strace_parser_finish(r.p);
				r.ev = strace_parser_events(r.p, &r.n);
				r.sum = strace_parser_summary(r.p);
			}
			CHECK_INT(r.n, whole.n);
			CHECK_INT(r.sum->skipped, whole.sum->skipped);
			CHECK_INT(r.sum->lines, whole.sum->lines);
			for (size_t i = 0; i < r.n && i < whole.n; i++) {
				CHECK_STR(r.ev[i].path, whole.ev[i].path);
				CHECK_INT(r.ev[i].op, whole.ev[i].op);
				CHECK_INT(r.ev[i].err, whole.ev[i].err);
			}
			strace_parser_free(r.p);
		}
		strace_parser_free(whole.p);
		strbuf_release(&sb);
	}
}

/* connect: recorded with strace 6.1 inside bwrap --unshare-all (an IPv4 and
 * an IPv6 peer, a UNIX socket by a relative path, loopback refused, an
 * abstract socket and an address family vx does not follow) */
static void test_connect(void)
{
	struct result r = parse_text(
	    "2 connect(3, {sa_family=AF_INET, sin_port=htons(443), "
	    "sin_addr=inet_addr(\"93.184.216.34\")}, 16) = -1 ENETUNREACH (Network is "
	    "unreachable)\n"
	    "2 connect(4, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), "
	    "inet_pton(AF_INET6, \"2606:2800:220:1::1\", &sin6_addr), sin6_scope_id=0}, 28) = -1 "
	    "ENETUNREACH (Network is unreachable)\n"
	    "2 connect(5, {sa_family=AF_UNIX, sun_path=\"run/x.sock\"}, 110) = -1 ENOENT (No such "
	    "file or directory)\n"
	    "2 connect(6, {sa_family=AF_INET, sin_port=htons(9), "
	    "sin_addr=inet_addr(\"127.0.0.1\")}, 16) = -1 ECONNREFUSED (Connection refused)\n"
	    "2 connect(7, {sa_family=AF_UNIX, sun_path=@\"abstract\"}, 12) = -1 ECONNREFUSED "
	    "(Connection refused)\n"
	    "2 connect(8, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 0\n"
	    "2 connect(9, {sa_family=AF_INET, sin_port=htons(53), "
	    "sin_addr=inet_addr(\"10.0.0.2\")}, 16) = -1 EINPROGRESS (Operation now in progress)\n"
	    "2 +++ exited with 0 +++\n");
	CHECK_INT(err_of(&r, ACCESS_CONNECT, "93.184.216.34:443"), ENETUNREACH);
	CHECK_INT(err_of(&r, ACCESS_CONNECT, "[2606:2800:220:1::1]:80"), ENETUNREACH);
	CHECK_INT(err_of(&r, ACCESS_CONNECT, "/ws/app/run/x.sock"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_CONNECT, "127.0.0.1:9"), ECONNREFUSED);
	CHECK_INT(err_of(&r, ACCESS_CONNECT, "10.0.0.2:53"), EINPROGRESS);
	CHECK_INT(r.n, 5);
	CHECK_INT(r.sum->skipped, 0);
	const struct access_event *e = find(&r, ACCESS_CONNECT, "93.184.216.34:443");
	CHECK(e && !e->write_intent);
	CHECK_STR(access_op_name(ACCESS_CONNECT), "connect");
	strace_parser_free(r.p);
}

/* Issue 54 item 7: a DNS query sent by the task names the host it
 * wanted. Recorded with strace 6.1 -s 300 inside bwrap --unshare-all with
 * the sandbox's resolv.conf (glibc's getent: sendto; Node's getaddrinfo:
 * sendmmsg with A and AAAA). A response, a query of two questions, a name
 * cut by -s, a label no host name has, and a buffer that is no query are
 * not lookups. */
static void test_lookup(void)
{
	struct result r = parse_text(
	    "2 sendto(3, "
	    "\"\\270\\235\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\10registry\\5npmjs\\3org\\0\\0\\34\\0\\1\""
	    ", "
	    "36, MSG_NOSIGNAL, NULL, 0) = 36\n"
	    "2 sendmmsg(18, [{msg_hdr={msg_name=NULL, msg_namelen=0, "
	    "msg_iov=[{iov_base=\"\\202}\\1\\0\\0\\1"
	    "\\0\\0\\0\\0\\0\\0\\tTelemetry\\7example\\3com\\0\\0\\1\\0\\1\", iov_len=39}], "
	    "msg_iovlen=1, "
	    "msg_controllen=0, msg_flags=0}, msg_len=39}, {msg_hdr={msg_name=NULL, msg_namelen=0, "
	    "msg_iov=[{iov_base=\"\\340{"
	    "\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\ttelemetry\\7example\\3com\\0\\0\\34\\0\\1\", "
	    "iov_len=39}], msg_iovlen=1, msg_controllen=0, msg_flags=0}}], 2, MSG_NOSIGNAL) = 1\n"
	    "2 sendmsg(4, {msg_name={sa_family=AF_INET, sin_port=htons(53), "
	    "sin_addr=inet_addr(\"127.0.0.1\")}, msg_namelen=16, "
	    "msg_iov=[{iov_base=\"\\x12\\x34\\x01\\x00\\x00"
	    "\\x01\\x00\\x00\\x00\\x00\\x00\\x01\\x03api\\x06github\\x03com\\x00\\x00\\x01\\x00\\x0"
	    "1\", "
	    "iov_len=32}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = -1 ENETUNREACH "
	    "(Network is "
	    "unreachable)\n"
	    /* a response (QR set) */
	    "2 sendto(3, \"\\1\\2\\201\\200\\0\\1\\0\\1\\0\\0\\0\\0\\4resp\\3com\\0\\0\\1\\0\\1\", "
	    "26, 0, NULL, 0) "
	    "= 26\n"
	    /* two questions */
	    "2 sendto(3, \"\\1\\2\\1\\0\\0\\2\\0\\0\\0\\0\\0\\0\\3two\\3com\\0\\0\\1\\0\\1\", 25, "
	    "0, NULL, 0) = "
	    "25\n"
	    /* cut inside the name */
	    "2 sendto(3, \"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\10cutsho\"..., 40, 0, NULL, 0) = "
	    "40\n"
	    /* cut after the name: the name is whole */
	    "2 sendto(3, \"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\4long\\3org\\0\"..., 40, 0, NULL, "
	    "0) = 40\n"
	    /* a label with a character no host name has */
	    "2 sendto(3, \"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\3a b\\3com\\0\\0\\1\\0\\1\", 25, "
	    "0, NULL, 0) = "
	    "25\n"
	    /* an HTTP request on a socket */
	    "2 sendto(5, \"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n\", 29, MSG_NOSIGNAL, NULL, 0) = "
	    "29\n"
	    "2 +++ exited with 0 +++\n");
	CHECK_INT(err_of(&r, ACCESS_LOOKUP, "registry.npmjs.org"), 0);
	CHECK_INT(err_of(&r, ACCESS_LOOKUP, "telemetry.example.com"), 0);
	CHECK_INT(err_of(&r, ACCESS_LOOKUP, "api.github.com"), ENETUNREACH);
	CHECK_INT(err_of(&r, ACCESS_LOOKUP, "long.org"), 0);
	CHECK_INT(r.n, 4);
	CHECK_INT(r.sum->skipped, 0);
	const struct access_event *e = find(&r, ACCESS_LOOKUP, "registry.npmjs.org");
	CHECK(e && !e->write_intent && !strcmp(e->syscall, "sendto"));
	CHECK_STR(access_op_name(ACCESS_LOOKUP), "lookup");
	strace_parser_free(r.p);
}

/* Issue 12: paths through procfs that name a process's cwd, root or
 * descriptor are file system paths, judged as such. */
static void test_proc_paths(void)
{
	struct result r = parse_text(
	    "2 chdir(\"src\") = 0\n"
	    "2 openat(AT_FDCWD, \"/proc/self/cwd/../secret.txt\", O_RDONLY) = -1 ENOENT (No such "
	    "file or directory)\n"
	    "2 openat(AT_FDCWD, \"/proc/thread-self/cwd/a.ts\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"/ws/lib\", O_RDONLY|O_DIRECTORY) = 4\n"
	    "2 openat(AT_FDCWD, \"/proc/self/fd/4/x.js\", O_RDONLY) = -1 ENOENT (No such file or "
	    "directory)\n"
	    "2 openat(AT_FDCWD, \"/proc/2/root/ws/b/y\", O_RDONLY) = -1 ENOENT (No such file or "
	    "directory)\n"
	    "2 openat(AT_FDCWD, \"/proc/self/status\", O_RDONLY) = 5\n"
	    "2 openat(AT_FDCWD, \"/proc/99/cwd/z\", O_RDONLY) = -1 ENOENT (No such file or "
	    "directory)\n"
	    "2 openat(AT_FDCWD, \"/proc/2/task/2/cwd/t.ts\", O_RDONLY) = 6\n"
	    "2 openat(AT_FDCWD, \"/proc/self/task/2/fd/4/u.js\", O_RDONLY) = 7\n"
	    "2 openat(AT_FDCWD, \"/proc/1/root/ws/app/notes.txt\", O_RDONLY) = 8\n"
	    "2 openat(AT_FDCWD, \"/proc/2/task/77/cwd/v\", O_RDONLY) = 9\n"
	    "2 openat(AT_FDCWD, \"/proc/2/task/2/status\", O_RDONLY) = 10\n"
	    "2 +++ exited with 0 +++\n");
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/secret.txt"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/src/a.ts"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/lib/x.js"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/b/y"), ENOENT);
	CHECK_INT(err_of(&r, ACCESS_READ, "/proc/self/status"), 0);   /* procfs itself */
	CHECK_INT(err_of(&r, ACCESS_READ, "/proc/99/cwd/z"), ENOENT); /* a pid never traced */
	/* issue 37: the task/TID forms and the root of a process the trace
	 * does not know (bwrap, pid 1) reach the file system too; a thread
	 * never traced cannot be placed, and says so (unresolved) */
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/src/t.ts"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/lib/u.js"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/notes.txt"), 0);
	const struct access_event *v = find(&r, ACCESS_READ, "/proc/2/task/77/cwd/v");
	CHECK(v && v->unresolved);
	CHECK_INT(err_of(&r, ACCESS_READ, "/proc/2/task/2/status"), 0); /* procfs itself */
	CHECK(!find(&r, ACCESS_READ, "/proc/2/task/2/status")->unresolved);
	strace_parser_free(r.p);
}

/* The tracer outside the sandbox (issue 12): bwrap's own setup is not the
 * task's; a process is the task once it execs after bwrap. */
static void test_wrapped(void)
{
	const char *log =
	    "10 execve(\"/usr/bin/bwrap\", [\"bwrap\"], 0x7ffd /* 3 vars */) = 0\n"
	    "10 openat(AT_FDCWD, \"/proc/self/fd/11\", O_RDONLY) = 3\n"
	    "10 clone(child_stack=NULL, flags=CLONE_NEWNS|CLONE_NEWPID|SIGCHLD) = 11\n"
	    "11 mkdir(\"/newroot/ws/app/dist\", 0755) = -1 EEXIST (File exists)\n"
	    "11 openat(AT_FDCWD, \"/oldroot/ws/app/secret\", O_RDONLY) = -1 ENOENT (No such file "
	    "or "
	    "directory)\n"
	    "11 clone(child_stack=NULL, flags=SIGCHLD) = 2 /* 12 in strace's PID NS */\n"
	    "12 chdir(\"/ws/app/src\") = 0\n"
	    "12 execve(\"/bin/sh\", [\"sh\", \"-c\", \"x\"], 0x7ffd /* 3 vars */) = 0\n"
	    "12 openat(AT_FDCWD, \"a.ts\", O_RDONLY) = 3\n"
	    "12 clone(child_stack=NULL, flags=SIGCHLD) = 3 /* 13 in strace's PID NS */\n"
	    "13 openat(AT_FDCWD, \"../hidden\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
	    "13 +++ exited with 0 +++\n"
	    "14 unlink(\"/ws/app/.eslintcache\") = -1 EROFS (Read-only file system)\n"
	    "14 +++ exited with 0 +++\n"
	    "12 +++ exited with 0 +++\n"
	    "11 +++ exited with 0 +++\n"
	    "10 +++ exited with 0 +++\n";
	struct strace_parser *p = strace_parser_new("/ws/app", 0);
	strace_parser_wrapped(p);
	strace_parser_feed(p, log, strlen(log));
	strace_parser_finish(p);
	struct result r = {p, NULL, 0, strace_parser_summary(p)};
	r.ev = strace_parser_events(p, &r.n);
	CHECK(find(&r, ACCESS_READ, "/ws/app/src/a.ts") != NULL);
	/* 13's clone returned its pid in the task's namespace (3): the
	 * translated one ties it to 12, whose cwd (src) it inherits */
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/hidden"), ENOENT);
	CHECK(!find(&r, ACCESS_MKDIR, "/newroot/ws/app/dist"));
	CHECK(!find(&r, ACCESS_READ, "/oldroot/ws/app/secret"));
	CHECK(!find(&r, ACCESS_READ, "/proc/self/fd/11"));
	CHECK(!find(&r, ACCESS_EXEC, "/usr/bin/bwrap"));
	/* a thread whose clone the log never showed: the task's, its cwd unknown */
	CHECK_INT(err_of(&r, ACCESS_UNLINK, "/ws/app/.eslintcache"), EROFS);
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->root_pid, 10);
	strace_parser_free(p);
}

/* The tracer inside the walls (issue 43): the root is vx-sandbox-init
 * --traced, whose own steps (static glibc's readlink of /proc/self/exe,
 * its unshare and clones) are not the task's; the command its namespace's
 * pid 1 forks is, once it execs, with the cwd bwrap gave strace. As
 * captured from a real run, pids as strace's own namespace shows them. */
static void test_wrapped_by_init(void)
{
	const char *log =
	    "6     execve(\"/tmp/.vx-init\", [\"/tmp/.vx-init\", \"--traced\", \"/bin/sh\", "
	    "\"cat x\"], 0x7ffe /* 41 vars */) = 0\n"
	    "6     readlink(\"/proc/self/exe\", \"/tmp/.vx-init\", 4096) = 13\n"
	    "6     unshare(CLONE_NEWNS|CLONE_NEWPID) = 0\n"
	    "6     clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
	    "child_tidptr=0x2e3a650) = 7\n"
	    "7     clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
	    "child_tidptr=0x2e3a650) = 2 /* 8 in strace's PID NS */\n"
	    "8     execve(\"/bin/sh\", [\"/bin/sh\", \"-c\", \"cat x\", \"vx-task\"], 0x7ffc /* 41 "
	    "vars */) = 0\n"
	    "8     openat(AT_FDCWD, \"x\", O_RDONLY) = 3\n"
	    "8     +++ exited with 3 +++\n"
	    "7     +++ exited with 3 +++\n"
	    "6     +++ exited with 3 +++\n";
	struct strace_parser *p = strace_parser_new("/ws/app", 0);
	strace_parser_wrapped(p);
	strace_parser_feed(p, log, strlen(log));
	strace_parser_finish(p);
	struct result r = {p, NULL, 0, strace_parser_summary(p)};
	r.ev = strace_parser_events(p, &r.n);
	CHECK(find(&r, ACCESS_READ, "/ws/app/x") != NULL);
	CHECK(!find(&r, ACCESS_READLINK, "/proc/self/exe"));
	CHECK(!find(&r, ACCESS_EXEC, "/tmp/.vx-init"));
	/* the exec that makes it the task's is vx's shell, not the task's
	 * choice: not an event either (as bwrap's child's was) */
	CHECK(!find(&r, ACCESS_EXEC, "/bin/sh"));
	CHECK(r.sum->root_exited);
	CHECK_INT(r.sum->root_pid, 6);
	strace_parser_free(p);
}

/* Issue 43: vx traces a thread's first call (set_robust_list, rseq;
 * sigaltstack for Go) only so that strace stops the thread at its traced
 * calls alone: those lines are valid, followed for nothing, no event. */
static void test_thread_start_calls(void)
{
	struct result r =
	    parse_text("10 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_THREAD, "
		       "exit_signal=0}, 88) = 11\n"
		       "11 set_robust_list(0x7f0e1b7fe9a0, 24 <unfinished ...>\n"
		       "10 openat(AT_FDCWD, \"a.txt\", O_RDONLY|O_CLOEXEC) = 3\n"
		       "11 <... set_robust_list resumed>) = 0\n"
		       "11 rseq(0x7f0e1b7fefe0, 0x20, 0, 0x53053053) = 0\n"
		       "11 sigaltstack({ss_sp=0xc000090000, ss_flags=0, ss_size=32768}, NULL) = 0\n"
		       "11 openat(AT_FDCWD, \"b.txt\", O_RDONLY|O_CLOEXEC) = 4\n"
		       "11 +++ exited with 0 +++\n"
		       "10 +++ exited with 0 +++\n");
	CHECK_INT(r.n, 2);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/a.txt"), 0);
	CHECK_INT(err_of(&r, ACCESS_READ, "/ws/app/b.txt"), 0);
	CHECK_INT(r.sum->skipped, 0);
	CHECK(r.sum->root_exited);
	strace_parser_free(r.p);
}

int main(void)
{
	test_thread_start_calls();
	test_proc_paths();
	test_wrapped();
	test_wrapped_by_init();
	test_swallowed();
	test_chdir_per_process();
	test_parallel();
	test_rmtree_dirfds();
	test_escapes();
	test_touch_and_friends();
	test_threads_share_cwd();
	test_vfork_order();
	test_orphans();
	test_shared_tables();
	test_dirfds();
	test_garbage();
	test_root_exit();
	test_dedupe();
	test_decode_fds();
	test_connect();
	test_lookup();
	test_chunking();
	CHECK_STR(access_op_name(ACCESS_RENAME_TO), "rename-to");
	return check_finish("test_strace");
}
