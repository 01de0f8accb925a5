/* watch.c - `vx watch TASK... [run options]`: run as `vx run` does, then
 * watch the workspace and run again, through the cache, on every change
 * (docs/watch.md).
 *
 * A cycle is a whole `vx run` of the same command line: the workspace and
 * its configs are read afresh (a config change is picked up; a config
 * error is printed and the next change tries again), and what did not
 * change is a cache hit. Changes are batched by fswatch (50 ms quiet, at
 * most 1 s); a change during a cycle waits in the kernel's queue and makes
 * exactly one more cycle when this one ends. A change under a task's
 * outputs is the run's own and never starts a cycle. */
#include "orchestrator/watch/watch.h"

#include <errno.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/restore.h"
#include "orchestrator/watch/session.h"
#include "orchestrator/watch/servers.h"
#include "util/die.h"
#include "util/fswatch.h"
#include "util/glob.h"
#include "util/loop.h"
#include "util/parseopt.h"
#include "util/path.h"
#include "util/strmap.h"

static const char *const never_watched[] = {"node_modules", ".git", ".vx", NULL};

struct watcher {
	struct watch_paths set;
	/* set's heads and skip, and every directory above a head, as maps
	 * (rebuilt with the set): a lookup costs the path's depth */
	struct strmap heads, skips, above;
	struct strvec above_dirs; /* above's keys */
	struct strvec changed;	  /* changes since the cycle began, not the run's own */
	bool overflow;
	bool *cancel;	      /* --interrupt: set on a change */
	struct stat out, err; /* vx's own stdout and stderr: a log file in the
			       * workspace (vx watch >watch.log) is no change */
};

static void maps_clear(struct watcher *w)
{
	strmap_clear(&w->heads);
	strmap_clear(&w->skips);
	strmap_clear(&w->above);
	strvec_clear(&w->above_dirs);
}

static void maps_build(struct watcher *w)
{
	maps_clear(w);
	size_t seen;
	for (size_t i = 0; i < w->set.heads.n; i++) {
		const char *h = w->set.heads.v[i];
		strmap_put(&w->heads, h, i);
		for (char *dir = path_dirname(h);; dir = path_dirname(dir)) {
			if (!path_is_within(w->set.root, dir) ||
			    strmap_get(&w->above, dir, &seen)) {
				free(dir);
				break;
			}
			/* the map borrows: the strvec's strings never move */
			strvec_push_nodup(&w->above_dirs, dir);
			strmap_put(&w->above, dir, 0);
		}
	}
	for (size_t i = 0; i < w->set.skip.n; i++)
		strmap_put(&w->skips, w->set.skip.v[i], i);
}

/* Does m hold path or a directory above it? */
static bool under_any(const struct strmap *m, const char *path)
{
	size_t n = strlen(path), at;
	while (n > 1) {
		if (strmap_getn(m, path, n, &at))
			return true;
		while (n > 1 && path[n - 1] != '/')
			n--;
		if (n > 1)
			n--; /* drop the slash */
	}
	return false;
}

static bool skip(const char *dir, void *ctx)
{
	const struct watcher *w = ctx;
	if (w->set.git_dir && path_is_within(w->set.git_dir, dir))
		return strcmp(dir, w->set.git_dir) != 0; /* for its HEAD and index alone */
	const char *base = path_basename(dir);
	for (const char *const *n = never_watched; *n; n++)
		if (!strcmp(base, *n))
			return true;
	if (under_any(&w->skips, dir))
		return true;
	/* inputs can lie here, or below */
	size_t at;
	return !under_any(&w->heads, dir) && !strmap_get(&w->above, dir, &at);
}

/* A change the run made itself: under an output, or a directory skipped. */
static bool own_change(const struct watcher *w, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    ((st.st_dev == w->out.st_dev && st.st_ino == w->out.st_ino) ||
	     (st.st_dev == w->err.st_dev && st.st_ino == w->err.st_ino)))
		return true;
	size_t at;
	if (w->set.git_dir && strmap_get(&w->heads, path, &at))
		return false; /* .git/HEAD, .git/index: a commit, a checkout */
	if (strstr(path, "/" RESTORE_ASIDE_PREFIX))
		return true; /* a restore's outputs moved aside (cache/restore.h) */
	for (size_t i = 0; i < w->set.outputs.n; i++)
		if (glob_match(w->set.outputs.v[i], path) ||
		    glob_match_below(w->set.outputs.v[i], path))
			return true;
	return skip(path, (void *)w);
}

static void on_batch(const struct strvec *paths, bool overflow, void *ctx)
{
	struct watcher *w = ctx;
	w->overflow = w->overflow || overflow;
	for (size_t i = 0; i < paths->n; i++)
		if (!own_change(w, paths->v[i]))
			strvec_push(&w->changed, paths->v[i]);
	strvec_sort_unique(&w->changed); /* batches of one wait: a path once */
	if (w->cancel && (w->changed.n || w->overflow))
		*w->cancel = true;
}

struct session_watch {
	struct watcher *w;
	struct watch_session *s;
	struct loop *loop;
	struct fswatch *fw;
	struct servers *servers;
	struct strbuf err;
	struct strvec cause; /* the changes that started this cycle */
	bool cause_overflow;
	bool first;	/* the first cycle: no header */
	bool interrupt; /* --interrupt: a change cancels the running cycle */
	bool cancel;	/* the cycle's cancel flag */
	int stop;	/* 0; SIGINT or SIGTERM; or 'q' */
	bool stdin_open;
	long long setup_ms; /* the last fswatch_add_tree's time, said once */
};

/* After each plan from scratch, before its run: watch the tree it names
 * (a directory watched already keeps its watch; a new one gets one), so
 * what changes while the run goes on is seen; between plans, fswatch
 * follows directories made and removed itself. Then the cycle's header. */
static void planned(const struct watch_paths *set, void *ctx)
{
	struct session_watch *sw = ctx;
	if (sw->err.len)
		return;
	if (!sw->fw)
		sw->fw = fswatch_new(sw->loop, on_batch, skip, sw->w, &sw->err);
	if (set->fresh)
		maps_build(sw->w);
	if (sw->fw && set->fresh) {
		long long t0 = loop_now();
		fswatch_add_tree(sw->fw, set->root, &sw->err);
		if (set->git_dir && !sw->err.len)
			fswatch_add_tree(sw->fw, set->git_dir, &sw->err);
		sw->setup_ms = loop_now() - t0;
	}
	if (sw->first)
		return;
	/* "3 files changed (apps/web/src/App.tsx, lib/a.ts, …) → 4 tasks" */
	printf("vx watch: ");
	if (sw->cause_overflow && !sw->cause.n) {
		printf("the kernel dropped file events: everything is checked again");
	} else {
		printf("%zu file%s changed (", sw->cause.n, sw->cause.n == 1 ? "" : "s");
		for (size_t i = 0; i < sw->cause.n && i < 3; i++) {
			char *rel = path_relative(set->root, sw->cause.v[i]);
			printf("%s%s", i ? ", " : "", rel);
			free(rel);
		}
		printf("%s)", sw->cause.n > 3 ? ", …" : "");
	}
	printf(" → %zu task%s\n", set->affected, set->affected == 1 ? "" : "s");
	fflush(stdout);
}

static const char *serve(const char *id, const struct server_fp *fp, void *ctx)
{
	struct session_watch *sw = ctx;
	struct strvec argv = STRVEC_INIT;
	watch_session_server_argv(sw->s, id, &argv);
	const char *line = servers_serve(sw->servers, id, &argv, fp);
	strvec_clear(&argv);
	return line;
}

static void on_stop_signal(struct loop *l, int signo, void *data)
{
	(void)l;
	struct session_watch *sw = data;
	if (sw->stop && sw->servers)
		servers_hurry(sw->servers); /* a second Ctrl-C */
	sw->stop = signo;
}

/* "q" and Enter stop the watch (the terminal stays in its line mode: a
 * kill -9 of vx cannot leave it raw). */
static void on_stdin(struct loop *l, int fd, unsigned events, void *data)
{
	(void)events;
	struct session_watch *sw = data;
	char buf[256];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n <= 0) {
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		loop_unwatch(l, fd); /* /dev/null or a closed pipe: Ctrl-C stops */
		sw->stdin_open = false;
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 'q' && (i + 1 == n || buf[i + 1] == '\n' || buf[i + 1] == '\r') &&
		    (i == 0 || buf[i - 1] == '\n')) {
			sw->stop = 'q';
			sw->cancel = true;
		}
}

/* The watch's own signals: the scheduler takes SIGINT and SIGTERM while a
 * cycle runs, and gives them back (still blocked, none lost) after. */
static void own_signals(struct session_watch *sw)
{
	loop_signal(sw->loop, SIGINT, on_stop_signal, sw);
	loop_signal(sw->loop, SIGTERM, on_stop_signal, sw);
	loop_signal(sw->loop, SIGHUP, on_stop_signal, sw); /* a closed terminal */
	loop_signal(sw->loop, SIGQUIT, on_stop_signal, sw);
}

static const char WATCH_USAGE[] =
    "usage: vx watch TASK... [--interrupt] [run options]\n"
    "\n"
    "Runs the tasks as `vx run` does, then watches the workspace (each project's\n"
    "files and configs; not node_modules, .git, .vx, the cache or any task's\n"
    "outputs) and runs them again, through the cache, after each change. Changes\n"
    "are batched until the tree is quiet for 50 ms (at most 1 s); a change during\n"
    "a run makes one more run when it ends (--interrupt: stops the run at once\n"
    "and starts again). Persistent tasks start when what they depend on has run,\n"
    "keep running across runs, and restart only when what they cannot reload\n"
    "themselves changed: their config, env or upstream outputs, not their own\n"
    "sources (restart: on-input-change restarts for those too; restart: never\n"
    "keeps them). q and Enter, or Ctrl-C, stop.\n";

struct opt *watch_opts_rows(bool *interrupt)
{
	const struct opt rows[] = {
	    OPT_BOOL(0, "interrupt", interrupt,
		     "a change during a run stops it and starts again at once"),
	    OPT_END(),
	};
	return parseopt_copy(rows);
}

int watch_main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(WATCH_USAGE, stdout);
		return 0;
	}
	struct watcher w = {0};
	struct session_watch sw = {.w = &w, .err = STRBUF_INIT, .first = true, .setup_ms = -1};
	/* --interrupt is the watch's; the rest is vx run's */
	struct opt *rows = watch_opts_rows(&sw.interrupt);
	argc = parseopt_take(argc, argv, rows);
	free(rows);
	int status;
	sw.s = watch_session_new(argc, argv, &status);
	if (!sw.s)
		return status;
	w.cancel = sw.interrupt ? &sw.cancel : NULL;
	if (fstat(STDOUT_FILENO, &w.out) < 0)
		memset(&w.out, 0, sizeof w.out);
	if (fstat(STDERR_FILENO, &w.err) < 0)
		memset(&w.err, 0, sizeof w.err);
	sw.loop = loop_new();
	sw.servers = servers_new(sw.loop);
	own_signals(&sw);
	/* a terminal or a pipe: /dev/null (CI, a test) says nothing */
	struct stat st;
	sw.stdin_open = isatty(STDIN_FILENO) || (fstat(STDIN_FILENO, &st) == 0 &&
						 (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)));
	if (sw.stdin_open)
		loop_watch(sw.loop, STDIN_FILENO, LOOP_READ, on_stdin, &sw);
	struct run_watch_hooks hooks = {planned, serve, &sw.cancel, sw.loop, &sw};
	bool loaded = false, setup_said = false;
	for (;;) {
		strvec_clear(&sw.cause);
		sw.cause = w.changed;
		sw.cause_overflow = w.overflow;
		w.changed = (struct strvec)STRVEC_INIT;
		w.overflow = false;
		sw.cancel = false;
		status = watch_session_cycle(sw.s, &w.set, &sw.cause, sw.cause_overflow, &hooks);
		own_signals(&sw);
		sw.first = false;
		if (sw.err.len) {
			error("%s", sw.err.buf);
			status = 2;
			break;
		}
		if (status == 130 || sw.stop || (!loaded && !w.set.root))
			break; /* stopped, or a first plan that failed: nothing to watch */
		if (loaded && status == 2) /* a config error: the last good plan's watch stays */
			fprintf(stderr, "vx watch: the workspace does not load; fix it and save\n");
		else
			servers_retain(sw.servers, &w.set.persistent);
		loaded = true;
		if (!w.changed.n && !w.overflow) {
			printf("vx watch: watching %zu directories", fswatch_count(sw.fw));
			if (sw.setup_ms >= 0 && !setup_said)
				printf(" (set up in %lld ms)", sw.setup_ms);
			setup_said = true;
			printf("; %sCtrl-C stops\n", sw.stdin_open ? "q and Enter or " : "");
			fflush(stdout);
		}
		while (!sw.stop && !w.changed.n && !w.overflow)
			loop_once(sw.loop, -1);
		if (sw.stop)
			break;
	}
	if (sw.stop)
		status = sw.stop == 'q' ? 0 : 130;
	if (servers_running(sw.servers)) {
		printf("vx watch: stopping %zu server%s\n", servers_running(sw.servers),
		       servers_running(sw.servers) == 1 ? "" : "s");
		fflush(stdout);
		sw.stop = sw.stop ? sw.stop : SIGTERM; /* a Ctrl-C now hurries them */
		servers_stop_all(sw.servers);
	}
	if (sw.stdin_open)
		loop_unwatch(sw.loop, STDIN_FILENO);
	servers_free(sw.servers);
	fswatch_free(sw.fw);
	loop_free(sw.loop);
	strbuf_release(&sw.err);
	strvec_clear(&sw.cause);
	watch_paths_clear(&w.set);
	maps_clear(&w);
	strvec_clear(&w.changed);
	watch_session_free(sw.s);
	return status;
}
