/* Unit tests for sandbox/bwrap.c (the argv of a fixed request: a golden
 * text) and denies_walk (a symlink counted by its name, node_modules entered). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>
#include <sys/stat.h>

#include "check.h"
#include "fstest.h"
#include "sandbox/bwrap.h"
#include "sandbox/denies.h"
#include "sandbox/tracelog.h"
#include "util/path.h"

static void add(struct sandbox_request *r, enum sandbox_mount_kind k, const char *src,
		const char *dst, int fd)
{
	/* an RO mount given no fd stands for a link's: by path */
	struct sandbox_mount m = {k, src ? xstrdup(src) : NULL, xstrdup(dst), fd,
				  k == SANDBOX_RO && fd < 0};
	vec_push(&r->mounts, m);
}

static void test_argv(void)
{
	struct sandbox_request r = {0};
	r.bwrap = xstrdup("/usr/bin/bwrap");
	r.shell = xstrdup("/bin/sh");
	r.setsid = xstrdup("/usr/bin/setsid");
	r.cwd = xstrdup("/w/p");
	r.seccomp_fd = 77;
	strvec_push(&r.env, "PATH=/usr/bin");
	strvec_push(&r.env, "TMPDIR=/tmp");
	add(&r, SANDBOX_TMPFS, NULL, "/tmp", -1);
	add(&r, SANDBOX_TMPFS, NULL, "/w", -1);
	add(&r, SANDBOX_RO, "/w/p", "/w/p", -1);
	add(&r, SANDBOX_RW, "/w/p/dist", "/w/p/dist", 123);
	add(&r, SANDBOX_RO, "/w/p/dist/.bashrc", "/w/p/dist/.bashrc", -1);
	add(&r, SANDBOX_SYMLINK, "../x", "/w/p/l", -1);
	add(&r, SANDBOX_REMOUNT_RO, NULL, "/w", -1);
	struct strbuf out = STRBUF_INIT;
	sandbox_show(&r, "make all", &out);
	CHECK_STR(
	    out.buf,
	    "/usr/bin/bwrap\n--die-with-parent\n--new-session\n--unshare-all\n--cap-drop\nALL\n"
	    "--ro-bind\n/\n/\n--dev\n/dev\n--proc\n/proc\n"
	    "--perms\n0700\n--tmpfs\n/tmp\n--tmpfs\n/w\n--ro-bind\n/w/p\n/w/p\n"
	    "--bind-fd\n11\n/w/p/dist\n--ro-bind\n/w/p/dist/.bashrc\n/w/p/dist/.bashrc\n"
	    "--symlink\n../x\n/w/p/l\n--remount-ro\n/w\n"
	    "--seccomp\n10\n"
	    "--clearenv\n--setenv\nPATH\n/usr/bin\n--setenv\nTMPDIR\n/tmp\n--chdir\n/w/p\n--\n"
	    "/bin/sh\n-c\n"
	    "p=$$\n"
	    "( { trap '' TERM INT HUP QUIT USR1 USR2; while read -r s; do "
	    "kill -s \"$s\" -- \"-$p\" || kill -s \"$s\" \"$p\"; done; "
	    "kill -s KILL -- \"-$p\" || kill -s KILL \"$p\"; } <&3 >/dev/null 2>&1 & )\n"
	    "exec /usr/bin/setsid /bin/sh -c \"$1\" vx-task 3<&-\n"
	    "\nvx-sandbox\nmake all\n");
	struct strvec argv = STRVEC_INIT;
	sandbox_fd_vec fds = {0};
	sandbox_argv(&r, "true", &argv, &fds);
	CHECK_INT(fds.n, 2);
	CHECK_INT(fds.v[0].from, 77); /* the filter first, which bwrap reads and closes */
	CHECK_INT(fds.v[0].to, SANDBOX_SECCOMP_FD);
	CHECK_INT(fds.v[1].from, 123);
	CHECK_INT(fds.v[1].to, SANDBOX_BIND_FD);
	CHECK_INT(sandbox_fds_top(&fds), SANDBOX_BIND_FD);
	vec_free(&fds);
	strvec_clear(&argv);
	r.mounts.v[3].fd = -1; /* don't close 123 */
	r.seccomp_fd = -1;
	r.hermetic = true;
	strbuf_reset(&out);
	sandbox_show(&r, "true", &out);
	CHECK(strstr(out.buf, "--ro-bind\n/\n/\n") == NULL);
	CHECK(strstr(out.buf, "--ro-bind-try\n/usr\n/usr\n") != NULL);
	CHECK(strstr(out.buf, "--remount-ro\n/\n--seccomp\n10\n--clearenv") != NULL);
	/* with vx-sandbox-init, it runs the shell and the command: no script */
	r.init = xstrdup("/tmp/.vx-init");
	strbuf_reset(&out);
	sandbox_show(&r, "make all", &out);
	CHECK(strstr(out.buf, "--chdir\n/w/p\n--\n/tmp/.vx-init\n/bin/sh\nmake all\n") != NULL);
	CHECK(strstr(out.buf, "setsid") == NULL);
	/* traced: strace runs inside the walls, writing to the log vx passes
	 * it, around init --traced, with the two capabilities init needs
	 * for the task's pid namespace (and drops) */
	r.strace = xstrdup("/tmp/.vx-strace");
	r.trace_fd = 55;
	strbuf_reset(&out);
	sandbox_show(&r, "make all", &out);
	CHECK(!strncmp(out.buf, "/usr/bin/bwrap\n--die-with-parent\n",
		       strlen("/usr/bin/bwrap\n--die-with-parent\n")));
	CHECK(strstr(out.buf,
		     "--cap-drop\nALL\n--cap-add\nCAP_SYS_ADMIN\n--cap-add\nCAP_SETPCAP\n") !=
	      NULL);
	CHECK(strstr(out.buf, "--chdir\n/w/p\n--\n/tmp/.vx-strace\n-f\n") != NULL);
	CHECK(strstr(out.buf,
		     "\n-o\n/proc/self/fd/4\n--\n/tmp/.vx-init\n--traced\n/bin/sh\nmake all\n") !=
	      NULL);
	/* with netd between: init execs it, and netd the untraced form */
	r.netd = xstrdup("/tmp/.vx-netd");
	r.net_ctl = xstrdup("/tmp/.vx-ctl");
	strbuf_reset(&out);
	sandbox_show(&r, "make all", &out);
	CHECK(strstr(out.buf, "\n--\n/tmp/.vx-init\n--traced\n--exec\n/tmp/.vx-netd\n__netd\n/tmp/"
			      ".vx-ctl\n--\n/tmp/.vx-init\n/bin/sh\nmake all\n") != NULL);
	free(r.netd);
	free(r.net_ctl);
	r.netd = r.net_ctl = NULL;
	r.seccomp_fd = 77;
	sandbox_argv(&r, "true", &argv, &fds);
	bool log_passed = false;
	for (size_t i = 0; i < fds.n; i++)
		log_passed |= fds.v[i].from == 55 && fds.v[i].to == SANDBOX_LOG_FD;
	CHECK(log_passed);
	r.seccomp_fd = -1;
	vec_free(&fds);
	strvec_clear(&argv);
	/* untraced: no capability is added */
	free(r.strace);
	r.strace = NULL;
	strbuf_reset(&out);
	sandbox_show(&r, "make all", &out);
	CHECK(strstr(out.buf, "--cap-add") == NULL);
	strbuf_release(&out);
	sandbox_request_release(&r);
}

static void test_walk(void)
{
	char tmpl[] = "/tmp/vx-denies-XXXXXX";
	if (!mkdtemp(tmpl))
		die_errno("mkdtemp");
	char *cmd = xasprintf(
	    "cd %s && mkdir -p node_modules/pkg .git/hooks .vscode/x src && : > "
	    "node_modules/pkg/.npmrc-not && : > node_modules/pkg/.profile && ln -s /nonexistent "
	    ".bashrc && : > src/.gitmodules && : > .vscode/x/settings.json",
	    tmpl);
	if (system(cmd))
		die("%s", cmd);
	struct strvec out = STRVEC_INIT;
	CHECK_INT(denies_walk(tmpl, &out), 0);
	strvec_sort_unique(&out);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < out.n; i++)
		strbuf_addf(&sb, "%s ", out.v[i] + strlen(tmpl) + 1);
	CHECK_STR(sb.buf, ".bashrc .git/hooks .vscode node_modules/pkg/.profile src/.gitmodules ");
	strbuf_release(&sb);
	strvec_clear(&out);
	free(cmd);
	cmd = xasprintf("rm -rf %s", tmpl);
	if (system(cmd))
		die("%s", cmd);
	free(cmd);
}

/* The trace log: a private empty file in a private dir of the run's
 * directory, gone after remove; a failed make leaves nothing. */
static void test_trace_log(void)
{
	char *run = fs_tmpdir();
	struct trace_log tl;
	CHECK_INT(trace_log_make(&tl, run), 0);
	CHECK(tl.dir && !strncmp(tl.dir, run, strlen(run)) && tl.dir[strlen(run)] == '/');
	struct stat st;
	CHECK(stat(tl.dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	CHECK(lstat(tl.path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 &&
	      st.st_size == 0);
	char *dir = xstrdup(tl.dir);
	trace_log_remove(&tl);
	CHECK(tl.dir == NULL && tl.path == NULL);
	CHECK(lstat(dir, &st) < 0 && errno == ENOENT);
	trace_log_remove(&tl); /* twice is harmless */
	free(dir);

	char *missing = xasprintf("%s/none", run);
	errno = 0;
	CHECK_INT(trace_log_make(&tl, missing), -1);
	CHECK_INT(errno, ENOENT);
	CHECK(tl.dir == NULL);
	free(missing);
	CHECK_INT(rmdir(run), 0); /* nothing was left in it */
	free(run);
}

int main(void)
{
	test_argv();
	test_walk();
	test_trace_log();
	return check_finish("sandbox bwrap");
}
