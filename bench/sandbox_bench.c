/* bench/sandbox: 100 sandboxed `true` through sandbox_argv (request build,
 * argv, spawn, wait, sweep) against 100 bare `bwrap --ro-bind / / true`, in
 * one run, and against bwrap with the same argv running /bin/true directly.
 * Not built by CMake; after a build of vxcore:
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Isrc bench/sandbox_bench.c (run it with bench/sandbox)
 * build/libvxcore.a \
 *      $(pkg-config --libs libxxhash libzstd libcjson yaml-0.1) -o /tmp/sandbox_bench
 *   /tmp/sandbox_bench 100 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/bwrap.h"
#include "sandbox/probe.h"
#include "sandbox/request.h"
#include "util/path.h"

extern char **environ;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int spawn_wait(char **argv, const sandbox_fd_vec *fds, int sigfd)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (sigfd >= 0)
		sandbox_spawn_actions(fds, sigfd, &fa);
	pid_t pid;
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ))
		die("spawn");
	posix_spawn_file_actions_destroy(&fa);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die_errno("waitpid");
	return st;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	char *bwrap = probe_which("bwrap");
	/* BENCH_INIT=path: vx-sandbox-init, as vx runs it beside itself */
	const char *init =
	    getenv("BENCH_INIT") && *getenv("BENCH_INIT") ? getenv("BENCH_INIT") : NULL;
	if (!bwrap)
		die("bwrap is not installed");
	char tmpl[] = "/var/tmp/vx-sandbox-bench-XXXXXX";
	if (!mkdtemp(tmpl))
		die_errno("mkdtemp");
	char *cmd = xasprintf("mkdir -p %s/ws/p/src %s/ws/p/dist", tmpl, tmpl);
	if (system(cmd))
		die("%s", cmd);
	char *ws = path_join(tmpl, "ws"), *proj = path_join(ws, "p");
	const char *reads[] = {"src"}, *writes[] = {"dist/"};
	double build_ms = 0, spawn_ms = 0, bare_ms = 0, same_ms = 0;
	for (int i = 0; i < n; i++) {
		char *bare[] = {bwrap, "--ro-bind", "/", "/", "--", "/bin/true", NULL};
		double t0 = now();
		spawn_wait(bare, NULL, -1);
		bare_ms += now() - t0;

		t0 = now();
		struct sandbox_input in = {0};
		in.workspace_root = ws;
		in.project_dir = proj;
		in.bwrap = bwrap;
		in.init = init; /* NULL: the wrapper shell script, as without vx-sandbox-init */
		in.allow_read = reads;
		in.n_read = 1;
		in.allow_write = writes;
		in.n_write = 1;
		in.env.host = (const char *const *)environ;
		struct sandbox_request req;
		struct strbuf err = STRBUF_INIT;
		if (sandbox_request_build(&in, &req, &err))
			die("%s", err.buf);
		struct strvec av = STRVEC_INIT;
		sandbox_fd_vec fds = {0};
		sandbox_argv(&req, "true", &av, &fds);
		if (sandbox_fds_lift(&fds) < 0) /* as sandbox_jobs_wrap does */
			die_errno("lifting the sandbox's fds");
		double t1 = now();
		int p[2];
		if (pipe2(p, O_CLOEXEC))
			die_errno("pipe");
		int st = spawn_wait(av.v, &fds, p[0]);
		double t3 = now();
		/* The floor with the same namespaces and mounts: bwrap runs
		 * /bin/true itself, no shell, no watcher. */
		long dash = strvec_find(&av, "--");
		struct strvec same = STRVEC_INIT;
		for (long j = 0; j <= dash; j++)
			strvec_push(&same, av.v[j]);
		strvec_push(&same, "/bin/true");
		/* bwrap read the filter through the shared file offset: rewind
		 * it for the second spawn (vx spawns a request once). */
		if (lseek(req.seccomp_fd, 0, SEEK_SET) != 0)
			die_errno("lseek");
		double t4 = now();
		if (spawn_wait(same.v, &fds, p[0]))
			die("the same argv running /bin/true failed");
		same_ms += now() - t4;
		strvec_clear(&same);
		double skip = now() - t3;
		close(p[0]);
		close(p[1]);
		sandbox_request_sweep(&req);
		sandbox_request_release(&req);
		strvec_clear(&av);
		sandbox_fds_close(&fds);
		double t2 = now();
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			die("sandboxed true failed");
		build_ms += t1 - t0;
		spawn_ms += t2 - t1 - skip;
	}
	printf("wrapper: %s\n", init ? init : "the shell script and setsid(1)");
	printf("tasks: %d\nbare bwrap --ro-bind / / true: %.2f ms/task\n", n, bare_ms / n);
	printf("vx sandbox: %.2f ms/task (request build + argv %.3f, spawn to exit + sweep %.2f)\n",
	       (build_ms + spawn_ms) / n, build_ms / n, spawn_ms / n);
	printf("same argv, /bin/true instead of the wrapped shell: %.2f ms/task\n", same_ms / n);
	printf("ratio to bare --ro-bind / /: %.2fx; to the same mounts and namespaces: %.2fx\n",
	       (build_ms + spawn_ms) / bare_ms, (build_ms + spawn_ms) / same_ms);
	free(cmd);
	cmd = xasprintf("rm -rf %s", tmpl);
	if (system(cmd))
		return 1;
	free(cmd);
	free(ws);
	free(proj);
	free(bwrap);
	return 0;
}
