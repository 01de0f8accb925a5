/* Real bwrap on real directories: each containment rule of issue 5 run as a
 * command through sandbox_argv, asserting what the task saw and what landed
 * on the host. Under VX_REQUIRE_SANDBOX=1 a missing bwrap fails. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "sandbox/bwrap.h"
#include "sandbox/probe.h"
#include "sandbox/request.h"
#include "util/path.h"

extern char **environ;

static char *root, *ws, *proj_a, *proj_b, *home, *bwrap;

static void put(const char *rel, const char *text)
{
	char *p = path_join(root, rel);
	char *d = path_dirname(p);
	char *cmd = xasprintf("mkdir -p '%s'", d);
	if (system(cmd))
		die("%s failed", cmd);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd))
		die_errno("write %s", p);
	free(cmd);
	free(d);
	free(p);
}

static bool exists(const char *rel)
{
	char *p = path_join(root, rel);
	struct stat st;
	bool e = lstat(p, &st) == 0;
	free(p);
	return e;
}

struct task {
	const char *proj;
	const char *read[4], *write[4];
	bool hermetic;
	bool untraced; /* as a persistent task runs: no strace, so a FILE grant binds the file */
};

static char *strace_bin, *trace_dir, *init_bin;
static int trace_fd = -1;

static const char *nested[3];

static int build(const struct task *t, struct sandbox_request *req, struct strbuf *err)
{
	struct sandbox_input in = {0};
	in.workspace_root = ws;
	in.project_dir = t->proj;
	in.home = home;
	in.bwrap = bwrap;
	in.nested_dirs = nested;
	in.n_nested = 2;
	in.allow_read = t->read;
	while (t->read[in.n_read])
		in.n_read++;
	in.allow_write = t->write;
	while (t->write[in.n_write])
		in.n_write++;
	in.hermetic = t->hermetic;
	in.init = init_bin;
	if (!t->untraced) { /* as vx runs a one-shot task */
		in.strace = strace_bin;
		in.trace_fd = trace_fd;
	}
	in.env.host = (const char *const *)environ;
	return sandbox_request_build(&in, req, err);
}

/* Runs command in req; stdout+stderr into out. When sig is set, writes it to
 * the signal channel once the task printed "ready". Returns the exit status. */
static int run_req(struct sandbox_request *req, const char *command, struct strbuf *out,
		   const char *sig, bool close_channel)
{
	struct strvec argv = STRVEC_INIT;
	sandbox_fd_vec fds = {0};
	sandbox_argv(req, command, &argv, &fds);
	if (sandbox_fds_lift(&fds))
		die_errno("lift");
	int po[2], ps[2];
	if (pipe2(po, O_CLOEXEC) || pipe2(ps, O_CLOEXEC))
		die_errno("pipe");
	if (ps[0] == SANDBOX_SIGNAL_FD) { /* dup2 onto itself would keep it close-on-exec */
		ps[0] = fcntl(ps[0], F_DUPFD_CLOEXEC, SANDBOX_SIGNAL_FD + 1);
		close(SANDBOX_SIGNAL_FD);
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, po[1], 2);
	if (sandbox_spawn_actions(&fds, ps[0], &fa))
		die("file actions");
	pid_t pid;
	int rc = posix_spawn(&pid, argv.v[0], &fa, NULL, argv.v, environ);
	if (rc)
		die("spawn bwrap: %s", strerror(rc));
	posix_spawn_file_actions_destroy(&fa);
	sandbox_fds_close(&fds);
	close(po[1]);
	close(ps[0]);
	if (close_channel)
		close(ps[1]);
	char buf[4096];
	bool sent = false;
	for (;;) {
		ssize_t r = read(po[0], buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		strbuf_add(out, buf, (size_t)r);
		if (sig && !sent && strstr(out->buf, "ready")) {
			if (write(ps[1], sig, strlen(sig)) != (ssize_t)strlen(sig))
				die_errno("write signal");
			sent = true;
		}
	}
	close(po[0]);
	if (!close_channel)
		close(ps[1]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die_errno("waitpid");
	strvec_clear(&argv);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run(const struct task *t, const char *command, struct strbuf *out)
{
	struct sandbox_request req;
	struct strbuf err = STRBUF_INIT;
	if (build(t, &req, &err)) {
		fprintf(stderr, "request refused: %s\n", err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_reset(out);
	int rc = run_req(&req, command, out, NULL, false);
	sandbox_request_sweep(&req);
	sandbox_request_release(&req);
	strbuf_release(&err);
	return rc;
}

#define HAS(sb, s) CHECK(strstr((sb).buf, (s)) != NULL)

static void test_walls(void)
{
	struct strbuf out = STRBUF_INIT;
	struct task t = {proj_a, {".", NULL}, {"dist/out.bin", NULL}, false, false};
	/* ../../x is the workspace root: masked, read-only, EROFS, nothing on the host. */
	CHECK(run(&t, "echo x > ../../x", &out) != 0);
	HAS(out, "Read-only file system");
	CHECK(!exists("ws/x"));
	CHECK(run(&t, "cat ../b/x", &out) != 0);
	HAS(out, "No such file or directory");
	CHECK(strstr(out.buf, "sibling-bytes") == NULL);
	/* a root file the task is not shown: its name only, every open refused */
	CHECK(run(&t, "cat ../../root.txt", &out) != 0);
	HAS(out, "Permission denied");
	CHECK(run(&t, "cat \"$HOME/.ssh/id_rsa\"", &out) != 0);
	CHECK(strstr(out.buf, "PRIVATE") == NULL);
	CHECK(run(&t, "cat \"$HOME/.npmrc\"", &out) != 0);
	HAS(out, "No such file or directory");
	/* Home shows only what the toolchain needs (issue 12): a deny list is
	 * never complete. Hidden: a file no list names, and credentials no
	 * list knew (~/.claude); shown: the install prefix of a PATH dir under
	 * home and a package cache. */
	CHECK(run(&t, "cat \"$HOME/notes.txt\"", &out) != 0);
	CHECK(strstr(out.buf, "home-notes") == NULL);
	CHECK(run(&t, "cat \"$HOME/.claude/.credentials.json\"", &out) != 0);
	CHECK(strstr(out.buf, "claude-secret") == NULL);
	char *old_path = xstrdup(getenv("PATH"));
	char *tool_path = xasprintf("%s/.nvm/versions/node/v1/bin:%s", home, old_path);
	setenv("PATH", tool_path, 1);
	CHECK_INT(run(&t,
		      "cat \"$HOME/.nvm/versions/node/v1/lib/x.js\" \"$HOME/.cache/node-gyp/h.h\"",
		      &out),
		  0);
	HAS(out, "nvm-lib");
	HAS(out, "gyp-header");
	CHECK(run(&t, "echo x > \"$HOME/.cache/node-gyp/new\"", &out) != 0);
	HAS(out, "Read-only file system");
	setenv("PATH", old_path, 1);
	free(tool_path);
	free(old_path);
	/* The project is readable through '.', writable nowhere but the grant. */
	CHECK_INT(run(&t, "cat src.txt", &out), 0);
	HAS(out, "a-src");
	CHECK(run(&t, "echo y > src.txt", &out) != 0);
	HAS(out, "Read-only file system");
	CHECK(run(&t, "echo y > /etc/vx-test", &out) != 0);
	/* A FILE grant binds its directory: an atomic rename onto it works. */
	CHECK_INT(
	    run(&t, "echo data > dist/tmp && mv dist/tmp dist/out.bin && cat dist/out.bin", &out),
	    0);
	HAS(out, "data");
	struct strbuf host = STRBUF_INIT;
	char *p = path_join(proj_a, "dist/out.bin");
	CHECK(strbuf_read_file(&host, p) == 0 && !strcmp(host.buf, "data\n"));
	/* Untraced (a persistent task), nothing would judge the widened
	 * directory: the file alone is bound, written in place, and no
	 * sibling can be made (issue 36). */
	struct task u = t;
	u.untraced = true;
	CHECK_INT(run(&u, "echo in-place > dist/out.bin && cat dist/out.bin", &out), 0);
	HAS(out, "in-place");
	CHECK(run(&u, "echo x > dist/sibling", &out) != 0);
	HAS(out, "Read-only file system");
	strbuf_reset(&host);
	CHECK(strbuf_read_file(&host, p) == 0 && !strcmp(host.buf, "in-place\n"));
	free(p);
	strbuf_release(&host);
	/* TMPDIR: its own, empty, 0700, gone after; the host /tmp untouched.
	 * Empty but for vx's own helpers, bound read-only (.vx-init, and
	 * .vx-strace when traced). */
	CHECK_INT(run(&t,
		      "test \"$TMPDIR\" = /tmp && test -z \"$(ls -A /tmp | grep -v '^\\.vx-')\" && "
		      "stat -c %a /tmp && "
		      "echo t > /tmp/vx-sandbox-probe-file && echo ok",
		      &out),
		  0);
	HAS(out, "700");
	HAS(out, "ok");
	CHECK(access("/tmp/vx-sandbox-probe-file", F_OK) != 0);
	CHECK_INT(run(&t, "test -z \"$(ls -A /tmp | grep -v '^\\.vx-')\" && echo empty", &out), 0);
	HAS(out, "empty");
	/* The environment is scrubbed. */
	setenv("VX_TEST_GITHUB_TOKEN", "ghp_secret", 1);
	CHECK_INT(run(&t, "env", &out), 0);
	CHECK(strstr(out.buf, "ghp_secret") == NULL);
	unsetenv("VX_TEST_GITHUB_TOKEN");
	strbuf_release(&out);
}

static void test_denies(void)
{
	struct strbuf out = STRBUF_INIT;
	struct task t = {proj_a, {NULL}, {"out/", NULL}, false, false};
	CHECK(run(&t, "echo evil >> out/.bashrc", &out) != 0);
	HAS(out, "Read-only file system");
	CHECK(run(&t, "echo evil > out/sub/.git/hooks/pre-commit", &out) != 0);
	CHECK_INT(run(&t, "echo fine > out/ok && cat out/.bashrc", &out), 0);
	HAS(out, "# rc");
	/* No read grant names the project dir: it is readable all the same
	 * (issue 11), and the cwd, never $HOME. */
	CHECK_INT(run(&t, "pwd; ls -A", &out), 0);
	HAS(out, proj_a);
	HAS(out, "src.txt");
	strbuf_release(&out);
}

static void test_root_project(void)
{
	struct strbuf out = STRBUF_INIT;
	struct task t = {ws, {".", NULL}, {NULL}, false, false};
	CHECK_INT(run(&t,
		      "cat root.txt; test ! -e .git && echo nogit; ls -A packages | wc -l; cat "
		      "packages/b/x",
		      &out),
		  1);
	HAS(out, "root-bytes");
	HAS(out, "nogit");
	HAS(out, "\n0\n");
	CHECK(strstr(out.buf, "sibling-bytes") == NULL);
	strbuf_release(&out);
}

static void test_glob_escape(void)
{
	struct strbuf out = STRBUF_INIT;
	struct task t = {proj_a, {"*", NULL}, {NULL}, false, false};
	CHECK(run(&t, "cat src.txt; cat shared/x", &out) != 0);
	HAS(out, "a-src");
	CHECK(strstr(out.buf, "sibling-bytes") == NULL);
	strbuf_release(&out);
}

static void test_refusals(void)
{
	struct sandbox_request req;
	struct strbuf err = STRBUF_INIT;
	struct task t = {proj_a, {NULL}, {"link-out.txt", NULL}, false, false};
	CHECK(build(&t, &req, &err) == -1);
	HAS(err, "outside the project");
	CHECK(!exists("ws/packages/b/y"));
	CHECK(!exists("ws/packages/a/link-out.txt") || exists("ws/packages/a/link-out.txt"));
	struct stat st;
	char *l = path_join(proj_a, "link-out.txt");
	CHECK(lstat(l, &st) == 0 && S_ISLNK(st.st_mode));
	free(l);
	strbuf_reset(&err);
	struct task w = {ws, {NULL}, {"packages/", NULL}, false, false};
	CHECK(build(&w, &req, &err) == -1);
	HAS(err, "holds");
	strbuf_release(&err);
}

static void test_placeholders(void)
{
	struct sandbox_request req;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct task t = {
	    proj_a, {NULL}, {"gen/untouched.txt", "gen2/written.txt", NULL}, false, false};
	CHECK_INT(build(&t, &req, &err), 0);
	CHECK(exists("ws/packages/a/gen/untouched.txt"));
	CHECK_INT(run_req(&req, "echo w > gen2/written.txt", &out, NULL, false), 0);
	CHECK_INT(sandbox_request_sweep(&req), 1);
	CHECK(!exists("ws/packages/a/gen/untouched.txt"));
	CHECK(exists("ws/packages/a/gen2/written.txt"));
	sandbox_request_release(&req);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void test_root_cannot_undo(void)
{
	if (geteuid() != 0) {
		printf("skip root: not root\n");
		return;
	}
	struct strbuf out = STRBUF_INIT;
	struct task t = {proj_a, {".", NULL}, {"dist/", NULL}, false, false};
	char *cmd =
	    xasprintf("mount -o remount,rw %s && echo REMOUNTED; umount %s/dist && echo UNMOUNTED; "
		      "umount %s && echo UNMASKED; cat ../b/x; echo > ../../x",
		      ws, proj_a, ws);
	CHECK(run(&t, cmd, &out) != 0);
	CHECK(strstr(out.buf, "REMOUNTED") == NULL);
	CHECK(strstr(out.buf, "UNMOUNTED") == NULL);
	CHECK(strstr(out.buf, "UNMASKED") == NULL);
	CHECK(strstr(out.buf, "sibling-bytes") == NULL);
	CHECK(!exists("ws/x"));
	free(cmd);
	strbuf_release(&out);
}

static void test_signals(void)
{
	struct sandbox_request req;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct task t = {proj_a, {NULL}, {NULL}, false, false};
	CHECK_INT(build(&t, &req, &err), 0);
	CHECK_INT(run_req(&req, "trap 'echo trapped; exit 7' TERM; echo ready; sleep 20 & wait",
			  &out, "TERM\n", false),
		  7);
	HAS(out, "trapped");
	/* fd 3 closed (vx gone): the task is killed, not left to finish. */
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	strbuf_reset(&out);
	run_req(&req, "sleep 20", &out, NULL, true);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(b.tv_sec - a.tv_sec < 5);
	sandbox_request_release(&req);
	strbuf_release(&err);
	strbuf_release(&out);
}

/* sandbox_request_sees (what the notes and the check before a cached task
 * rely on) against what a real sandbox shows: every path of the test tree,
 * and some of the OS, plain and hermetic. */
static void test_sees_agrees(void)
{
	struct strbuf list = STRBUF_INIT, cmd = STRBUF_INIT, out = STRBUF_INIT;
	char *find = xasprintf("find '%s'", root);
	FILE *f = popen(find, "r");
	free(find);
	char line[4096];
	struct strvec paths = STRVEC_INIT;
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		strvec_push(&paths, line);
	}
	if (f)
		pclose(f);
	const char *os[] = {"/usr/bin/env", "/etc/hostname", "/var/lib", "/root", NULL};
	for (const char *const *o = os; *o; o++)
		strvec_push(&paths, *o);
	strbuf_addstr(&cmd, "for p in");
	for (size_t i = 0; i < paths.n; i++)
		strbuf_addf(&cmd, " '%s'", paths.v[i]);
	/* shown: there and readable (a hidden root file is a name that
	 * refuses every open, which is not the host's file showing) */
	strbuf_addstr(&cmd, "; do if { test -e \"$p\" && test -r \"$p\"; } || test -L \"$p\"; then "
			    "echo \"Y $p\"; else echo \"N $p\"; fi; done");
	for (int hermetic = 0; hermetic < 2; hermetic++) {
		struct task t = {proj_a,
				 {"src.txt", "../b/x", "~/notes.txt", NULL},
				 {"out/", NULL},
				 hermetic,
				 false};
		struct sandbox_request req;
		struct strbuf err = STRBUF_INIT;
		CHECK_INT(build(&t, &req, &err), 0);
		strbuf_reset(&out);
		CHECK_INT(run_req(&req, cmd.buf, &out, NULL, false), 0);
		size_t agree = 0;
		for (size_t i = 0; i < paths.n; i++) {
			char *yes = xasprintf("Y %s\n", paths.v[i]);
			bool inside = strstr(out.buf, yes) != NULL;
			struct stat st;
			bool host = lstat(paths.v[i], &st) == 0;
			bool model = sandbox_request_sees(&req, paths.v[i]);
			/* sees() says the host's file shows; a host path that exists
			 * must be visible exactly when the model says so */
			if (host && inside != model) {
				fprintf(stderr, "sees(%s) = %d, inside: %d (hermetic %d)\n",
					paths.v[i], model, inside, hermetic);
				CHECK(inside == model);
			} else {
				agree++;
			}
			free(yes);
		}
		CHECK(agree == paths.n);
		sandbox_request_sweep(&req);
		sandbox_request_release(&req);
		strbuf_release(&err);
	}
	strvec_clear(&paths);
	strbuf_release(&list);
	strbuf_release(&cmd);
	strbuf_release(&out);
}

int main(void)
{
	bwrap = probe_which("bwrap");
	if (!bwrap) {
		const char *req = getenv("VX_REQUIRE_SANDBOX");
		fprintf(stderr, "bwrap is not installed%s\n",
			req && !strcmp(req, "1") ? "" : ": skipped");
		return req && !strcmp(req, "1") ? 1 : 0;
	}
	char tmpl[] = "/var/tmp/vx-sandbox-test-XXXXXX";
	if (!mkdtemp(tmpl))
		die_errno("mkdtemp");
	root = tmpl;
	strace_bin = probe_which("strace");
	trace_dir = path_join(root, "trace");
	if (mkdir(trace_dir, 0700))
		die_errno("mkdir %s", trace_dir);
	/* one log for every traced task: strace truncates it as it opens it */
	char *log = path_join(trace_dir, "log");
	trace_fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (trace_fd < 0)
		die_errno("open %s", log);
	free(log);
	/* a traced task runs under vx-sandbox-init --traced (CMake says where) */
	init_bin = getenv("VX_INIT");
	if (!init_bin || access(init_bin, X_OK))
		die("VX_INIT names no vx-sandbox-init: %s", init_bin ? init_bin : "(unset)");
	ws = path_join(root, "ws");
	proj_a = path_join(ws, "packages/a");
	proj_b = path_join(ws, "packages/b");
	home = path_join(root, "home");
	nested[0] = proj_a;
	nested[1] = proj_b;
	put("ws/root.txt", "root-bytes\n");
	put("ws/.git/config", "[core]\n");
	put("ws/packages/a/src.txt", "a-src\n");
	put("ws/packages/a/out/.bashrc", "# rc\n");
	put("ws/packages/a/out/sub/.git/hooks/keep", "\n");
	put("ws/packages/b/x", "sibling-bytes\n");
	put("home/.ssh/id_rsa", "-----BEGIN PRIVATE KEY-----\n");
	put("home/.npmrc", "//registry/:_authToken=npm_secret\n");
	put("home/notes.txt", "home-notes\n");
	put("home/.claude/.credentials.json", "claude-secret\n");
	put("home/.nvm/versions/node/v1/bin/node", "#!/bin/sh\n");
	put("home/.nvm/versions/node/v1/lib/x.js", "nvm-lib\n");
	put("home/.cache/node-gyp/h.h", "gyp-header\n");
	char *link = path_join(proj_a, "shared"), *link2 = path_join(proj_a, "link-out.txt");
	char *target2 = path_join(proj_b, "y");
	if (symlink("../b", link) || symlink(target2, link2))
		die_errno("symlink");
	setenv("HOME", home, 1);
	test_walls();
	test_denies();
	test_root_project();
	test_glob_escape();
	test_refusals();
	test_placeholders();
	test_root_cannot_undo();
	test_signals();
	test_sees_agrees();
	char *rm = xasprintf("rm -rf '%s'", root);
	if (system(rm))
		warning("could not remove %s", root);
	free(rm);
	free(link);
	free(link2);
	free(target2);
	free(ws);
	free(proj_a);
	free(proj_b);
	free(home);
	free(bwrap);
	return check_finish("sandbox (unsafe)");
}
