/* run.h - the `vx run` and `vx graph` verbs: options to graph to scheduler. */
#ifndef VX_ORCHESTRATOR_RUN_H
#define VX_ORCHESTRATOR_RUN_H

#include "util/vec.h"

/* Each returns the process exit status (SPEC §3): 0, 1, 2 or 130. argv[0]
 * is the verb. */
int run_main(int argc, char **argv);
int graph_main(int argc, char **argv);

/* A parsed `vx run` command line that runs again and again: `vx watch`
 * (watch.c). */
struct run_session;

/* What a watch of the last plan covers: the workspace root; the
 * directories it leaves unwatched (the cache; each output glob's literal
 * head directory); the output globs, absolute ("/ws/app/dist/" and "**"), whose
 * changes are the run's own and never a cause to run again; the
 * persistent tasks (not watched yet: vx watch refuses them). */
struct run_watch_set {
	char *root;
	struct strvec skip, outputs, persistent;
};
void run_watch_set_clear(struct run_watch_set *ws);

/* Parses argv (argv[0] the verb) as `vx run` does. Returns the session, or
 * NULL with *status: 0 after --help, 2 on bad options. */
struct run_session *run_session_new(int argc, char **argv, int *status);
/* Plans (the workspace is read afresh: a config change is picked up),
 * fills ws from the plan and calls planned(ws, ctx) (a watch set up then
 * sees every change made while the run goes on), and, when ws has no
 * persistent task, runs once. Returns the exit status (2: the plan
 * failed, ws left empty, planned not called; or a persistent task, named
 * in ws). */
int run_session_cycle(struct run_session *s, struct run_watch_set *ws,
		      void (*planned)(const struct run_watch_set *ws, void *ctx), void *ctx);
void run_session_free(struct run_session *s);

#endif
