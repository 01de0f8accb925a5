/* session.h - a parsed `vx run` command line that runs again and again:
 * `vx watch`'s cycles (watch.c). */
#ifndef VX_WATCH_SESSION_H
#define VX_WATCH_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/run/run.h"
#include "util/vec.h"

struct watch_session;

/* What a watch of the last plan covers: the workspace root; the places
 * inputs can lie in, absolute (each project directory, each project glob's
 * literal head, each input glob's head that leaves its project, the root's
 * config files): a directory is watched when it is one, lies in one or
 * leads to one; the directories left unwatched even so (the cache; each
 * output glob's literal head directory); the output globs, absolute
 * ("/ws/app/dist/" and "**"), whose changes are the run's own and never a
 * cause to run again; the persistent tasks (vx watch's servers); how many
 * other tasks the change affected (their key differs from the last plan's:
 * what the cycle re-runs, through the cache). */
struct watch_paths {
	char *root;
	struct strvec heads, skip, outputs, persistent;
	char *git_dir; /* --affected: the git directory, whose HEAD and index are
			* heads too (a commit or a checkout changes what is
			* affected); NULL: not watched */
	size_t affected;
	bool fresh; /* filled anew by this cycle's plan (else as the last cycle left it) */
};
void watch_paths_clear(struct watch_paths *ws);

/* Parses argv (argv[0] the verb) as `vx run` does. Returns the session, or
 * NULL with *status: 0 after --help, 2 on bad options. */
struct watch_session *watch_session_new(int argc, char **argv, int *status);
/* One cycle of the watch, after changes (absolute paths; overflow: any
 * path may have changed). The first cycle, an overflow, --affected, a
 * plan that failed last time, or a change to a config file or to a
 * directory holding a project plans from scratch (the workspace read
 * afresh, ws filled anew) and runs every task through the cache.
 * Otherwise the plan is kept: the keys of the tasks the changes can reach
 * are folded again, and what they changed, what did not end well last
 * time and what lies downstream of either runs, through the cache; the
 * rest is settled (ws keeps its sets). Then wh->planned, and the run on
 * wh->loop. Returns the exit status (2: the plan failed, ws left as it
 * was, planned not called: the next cycle plans from scratch). */
int watch_session_cycle(struct watch_session *s, struct watch_paths *ws,
			const struct strvec *changes, bool overflow,
			const struct run_watch_hooks *wh);
/* Appends the argv of the `vx run` that serves persistent task id for
 * this process (--only, --served-by, the session's output options and
 * -- ARGS). */
void watch_session_server_argv(const struct watch_session *s, const char *id, struct strvec *out);
void watch_session_free(struct watch_session *s);

#endif
