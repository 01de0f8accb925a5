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
#include "orchestrator/watch.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/run.h"
#include "util/die.h"
#include "util/fswatch.h"
#include "util/glob.h"
#include "util/loop.h"
#include "util/path.h"

static const char *const never_watched[] = {"node_modules", ".git", ".vx", NULL};

struct watcher {
	struct run_watch_set set;
	struct strvec changed; /* this wait's changes, not the run's own */
	bool overflow, stop;
};

static bool skip(const char *dir, void *ctx)
{
	const struct watcher *w = ctx;
	const char *base = path_basename(dir);
	for (const char *const *n = never_watched; *n; n++)
		if (!strcmp(base, *n))
			return true;
	for (size_t i = 0; i < w->set.skip.n; i++)
		if (path_is_within(w->set.skip.v[i], dir))
			return true;
	return false;
}

/* A change the run made itself: under an output, or a directory skipped. */
static bool own_change(const struct watcher *w, const char *path)
{
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
}

static volatile sig_atomic_t interrupted;

static void on_signal(int signo)
{
	(void)signo;
	interrupted = 1;
}

struct session_watch {
	struct watcher *w;
	struct loop *loop;
	struct fswatch *fw;
	struct strbuf err;
};

/* After each plan, before its run: watch the tree it names (a directory
 * watched already keeps its watch; a new one gets one), so what changes
 * while the run goes on waits in the kernel's queue for the next cycle. */
static void planned(const struct run_watch_set *set, void *ctx)
{
	struct session_watch *sw = ctx;
	if (sw->err.len)
		return;
	if (!sw->fw)
		sw->fw = fswatch_new(sw->loop, on_batch, skip, sw->w, &sw->err);
	if (sw->fw)
		fswatch_add_tree(sw->fw, set->root, &sw->err);
}

/* "3 files changed (apps/web/src/App.tsx, lib/a.ts, …)" */
static void print_header(const struct watcher *w)
{
	printf("vx watch: ");
	if (w->overflow && !w->changed.n) {
		printf("the kernel dropped file events: running everything again\n");
		return;
	}
	printf("%zu file%s changed (", w->changed.n, w->changed.n == 1 ? "" : "s");
	for (size_t i = 0; i < w->changed.n && i < 3; i++) {
		char *rel = path_relative(w->set.root, w->changed.v[i]);
		printf("%s%s", i ? ", " : "", rel);
		free(rel);
	}
	printf("%s)\n", w->changed.n > 3 ? ", …" : "");
	fflush(stdout);
}

static const char WATCH_USAGE[] =
    "usage: vx watch TASK... [run options]\n"
    "\n"
    "Runs the tasks as `vx run` does, then watches the workspace (each project's\n"
    "files and configs; not node_modules, .git, .vx, the cache or any task's\n"
    "outputs) and runs them again, through the cache, after each change. Changes\n"
    "are batched until the tree is quiet for 50 ms (at most 1 s); a change during\n"
    "a run makes one more run when it ends. Ctrl-C stops. Persistent tasks are\n"
    "not watched yet (exit 2).\n";

int watch_main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(WATCH_USAGE, stdout);
		return 0;
	}
	int status;
	struct run_session *s = run_session_new(argc, argv, &status);
	if (!s)
		return status;
	struct watcher w = {0};
	/* The watch's own loop holds no signal: Ctrl-C while waiting is a
	 * handler's flag (poll returns EINTR), and while a cycle runs it is
	 * the scheduler's, as in `vx run`. */
	struct session_watch sw = {&w, loop_new(), NULL, STRBUF_INIT};
	bool loaded = false;
	for (;;) {
		status = run_session_cycle(s, &w.set, planned, &sw);
		if (w.set.persistent.n) {
			error("vx watch does not run persistent tasks yet (%s%s): run them with "
			      "`vx run` beside it",
			      w.set.persistent.v[0], w.set.persistent.n > 1 ? ", ..." : "");
			status = 2;
			break;
		}
		if (sw.err.len) {
			error("%s", sw.err.buf);
			status = 2;
			break;
		}
		if (status == 130 || (!loaded && !w.set.root))
			break; /* interrupted, or a first plan that failed: nothing to watch */
		if (loaded && status == 2) /* a config error: the last good plan's watch stays */
			fprintf(stderr, "vx watch: the workspace does not load; fix it and save\n");
		loaded = true;
		printf("vx watch: watching %zu directories; Ctrl-C stops\n", fswatch_count(sw.fw));
		fflush(stdout);
		struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
		strvec_clear(&w.changed);
		w.overflow = false;
		while (!interrupted && !w.changed.n && !w.overflow)
			loop_once(sw.loop, -1);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		if (interrupted) {
			status = 130;
			break;
		}
		print_header(&w);
	}
	fswatch_free(sw.fw);
	loop_free(sw.loop);
	strbuf_release(&sw.err);
	run_watch_set_clear(&w.set);
	strvec_clear(&w.changed);
	run_session_free(s);
	return status;
}
