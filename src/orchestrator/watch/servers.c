/* servers.c - vx watch's persistent tasks, kept running across cycles.
 *
 * Each server is a child `vx run ID --only --served-by=PID` of the watch:
 * that run owns the task's sandbox, bridges, netd and signal relay exactly
 * as `vx run` does, and it ends as after a SIGTERM when the watch dies
 * (PR_SET_PDEATHSIG), so a kill -9 of the watch leaves nothing running.
 * The watch never waits for a server: each has a pidfd on the loop, so a
 * server that exits, or one stopped for a restart, is seen while a cycle
 * runs too. A restart is one action: the old run is stopped and, when it
 * has gone (its ports released), the new one starts; nothing else stops a
 * server but the end of the watch or a plan that no longer has it
 * (turborepo#13115). */
#include "orchestrator/watch/servers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache/key.h"
#include "util/compat.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/spawn.h"

extern char **environ;

/* The run's grace (SIGINT to SIGKILL of the task, scheduler.h) and a
 * margin: past it, a second SIGINT makes the run kill at once; a second
 * later, the run itself is killed. */
#define STOP_WAIT_MS (5000 + 2000)
#define HURRY_WAIT_MS 1000

struct server {
	struct servers *sv;
	char *id;
	struct server_fp fp; /* the running (or last) instance's fingerprints; fp.all
			      * follows what it sees while it keeps running */
	pid_t pid;	     /* its run, or 0 */
	int pidfd;	     /* -1 when not running */
	bool stopping;	     /* signalled by the watch */
	bool hurried;
	unsigned long timer; /* the stop's next step, or 0 */
	bool pending;	     /* start again when it has gone: */
	struct server_fp next_fp;
	struct strvec next_argv;
};

struct servers {
	struct loop *loop;
	VEC(struct server *) v;
};

struct servers *servers_new(struct loop *l)
{
	struct servers *sv = xcalloc(1, sizeof *sv);
	sv->loop = l;
	return sv;
}

static struct server *find(struct servers *sv, const char *id)
{
	for (size_t i = 0; i < sv->v.n; i++)
		if (!strcmp(sv->v.v[i]->id, id))
			return sv->v.v[i];
	return NULL;
}

static void say(const char *fmt, ...) VX_PRINTF(1, 2);
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("vx watch: ");
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

static int start(struct server *srv, const struct strvec *argv, const struct server_fp *fp);

/* The stop's steps: a second SIGINT (the run kills its task's group at
 * once), then SIGKILL of the run's group. */
static void on_stop_timer(struct loop *l, void *data)
{
	struct server *srv = data;
	srv->timer = 0;
	if (!srv->pid)
		return;
	if (!srv->hurried) {
		srv->hurried = true;
		kill(srv->pid, SIGINT);
		srv->timer = loop_timer(l, loop_now() + HURRY_WAIT_MS, on_stop_timer, srv);
		return;
	}
	kill(-srv->pid, SIGKILL);
}

static void stop(struct server *srv)
{
	if (!srv->pid || srv->stopping)
		return;
	srv->stopping = true;
	srv->hurried = false;
	/* The run relays it to the task's session: the server's own trap runs. */
	kill(srv->pid, SIGINT);
	srv->timer = loop_timer(srv->sv->loop, loop_now() + STOP_WAIT_MS, on_stop_timer, srv);
}

static void on_exit_fd(struct loop *l, int fd, unsigned events, void *data)
{
	(void)events;
	struct server *srv = data;
	int st;
	pid_t r;
	while ((r = waitpid(srv->pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return; /* not yet */
	loop_unwatch(l, fd);
	close(fd);
	srv->pidfd = -1;
	loop_timer_cancel(l, srv->timer);
	srv->timer = 0;
	pid_t pid = srv->pid;
	srv->pid = 0;
	/* Whatever of its group is left goes with it. */
	kill(-pid, SIGKILL);
	bool stopped = srv->stopping;
	srv->stopping = false;
	if (srv->pending) {
		srv->pending = false;
		struct strvec argv = srv->next_argv;
		srv->next_argv = (struct strvec)STRVEC_INIT;
		if (start(srv, &argv, &srv->next_fp) == 0)
			say("%s restarted", srv->id);
		strvec_clear(&argv);
		return;
	}
	if (stopped)
		return;
	say("%s exited with status %d; it starts again when its inputs change", srv->id,
	    r < 0 ? -1 : spawn_exit_code(st, NULL));
}

/* Starts the run of argv; returns 0, or -1 after an error line. */
static int start(struct server *srv, const struct strvec *argv, const struct server_fp *fp)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	/* stdin stays the watch's (q); a group of its own, so a Ctrl-C at the
	 * terminal reaches it once, relayed by the watch, not twice. */
	int err = spawn_child_setup(&fa, &attr, loop_child_sigmask(srv->sv->loop));
	pid_t pid = 0;
	if (!err)
		err = posix_spawn(&pid, argv->v[0], &fa, &attr, argv->v, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		error("%s: cannot start its run: %s", srv->id, strerror(err));
		return -1;
	}
	int fd = compat_pidfd(pid);
	if (fd < 0) {
		/* No way to see it end without SIGCHLD, which the cycles own:
		 * it must not run unwatched. */
		int e = errno;
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		error("%s: cannot watch its run (pidfd_open: %s; Linux 5.3 or later is needed)",
		      srv->id, strerror(e));
		return -1;
	}
	srv->pid = pid;
	srv->pidfd = fd;
	srv->fp = *fp;
	srv->fp.rule = NULL; /* the plan's, which a new plan frees: the next serve's is asked */
	loop_watch(srv->sv->loop, fd, LOOP_READ, on_exit_fd, srv);
	return 0;
}

const char *servers_serve(struct servers *sv, const char *id, const struct strvec *argv,
			  const struct server_fp *fp)
{
	struct server *srv = find(sv, id);
	if (!srv) {
		srv = xcalloc(1, sizeof *srv);
		srv->sv = sv;
		srv->id = xstrdup(id);
		srv->pidfd = -1;
		vec_push(&sv->v, srv);
		return start(srv, argv, fp) ? "could not start (see above)"
					    : "started; vx watch keeps it running";
	}
	bool changed = strcmp(srv->fp.all, fp->all) != 0;
	bool restart = strcmp(srv->fp.restart, fp->restart) != 0;
	if (srv->stopping || (srv->pid && restart)) {
		/* Stopped now or already going: the newest plan's run replaces it. */
		srv->pending = true;
		srv->next_fp = *fp;
		strvec_clear(&srv->next_argv);
		for (size_t i = 0; i < argv->n; i++)
			strvec_push(&srv->next_argv, argv->v[i]);
		stop(srv);
		return !strcmp(fp->rule, "auto")
			   ? "restarting: what it cannot reload itself changed "
			     "(its config, env or upstream outputs)"
			   : "restarting: its inputs changed";
	}
	if (srv->pid) {
		memcpy(srv->fp.all, fp->all, KEY_HEX_SIZE); /* the next cycle asks from here */
		if (!changed)
			return "running; its inputs did not change";
		return !strcmp(fp->rule, "never")
			   ? "kept running: its inputs changed, and it has restart: never"
			   : "running: only its own sources changed, which it reloads itself "
			     "(restart: auto)";
	}
	if (!changed)
		return "not running (it exited); it starts again when its inputs change";
	return start(srv, argv, fp) ? "could not start (see above)"
				    : "started again: its inputs changed";
}

void servers_retain(struct servers *sv, const struct strvec *keep)
{
	for (size_t i = 0; i < sv->v.n; i++) {
		struct server *srv = sv->v.v[i];
		bool kept = false;
		for (size_t k = 0; k < keep->n && !kept; k++)
			kept = !strcmp(keep->v[k], srv->id);
		if (kept || !srv->pid)
			continue;
		srv->pending = false;
		say("%s is no longer in the plan: stopping it", srv->id);
		stop(srv);
	}
}

size_t servers_running(const struct servers *sv)
{
	size_t n = 0;
	for (size_t i = 0; i < sv->v.n; i++)
		n += sv->v.v[i]->pid != 0;
	return n;
}

void servers_stop_all(struct servers *sv)
{
	for (size_t i = 0; i < sv->v.n; i++) {
		sv->v.v[i]->pending = false;
		stop(sv->v.v[i]);
	}
	while (servers_running(sv))
		loop_once(sv->loop, -1);
}

void servers_hurry(struct servers *sv)
{
	for (size_t i = 0; i < sv->v.n; i++) {
		struct server *srv = sv->v.v[i];
		if (!srv->pid || srv->hurried)
			continue;
		loop_timer_cancel(sv->loop, srv->timer);
		srv->timer = 0;
		srv->stopping = true;
		srv->hurried = false;
		on_stop_timer(sv->loop, srv);
	}
}

void servers_free(struct servers *sv)
{
	if (!sv)
		return;
	for (size_t i = 0; i < sv->v.n; i++) {
		struct server *srv = sv->v.v[i];
		if (srv->pid) { /* servers_stop_all was not called: no grace */
			kill(-srv->pid, SIGKILL);
			while (waitpid(srv->pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		if (srv->pidfd >= 0) {
			loop_unwatch(sv->loop, srv->pidfd);
			close(srv->pidfd);
		}
		loop_timer_cancel(sv->loop, srv->timer);
		strvec_clear(&srv->next_argv);
		free(srv->id);
		free(srv);
	}
	vec_free(&sv->v);
	free(sv);
}
