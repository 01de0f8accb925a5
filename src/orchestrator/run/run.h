/* run.h - the `vx run` and `vx graph` verbs: options to plan to scheduler. */
#ifndef VX_RUN_RUN_H
#define VX_RUN_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/key.h"
#include "util/vec.h"

/* Each returns the process exit status (SPEC §3): 0, 1, 2 or 130. argv[0]
 * is the verb. */
int run_main(int argc, char **argv);
int graph_main(int argc, char **argv);

struct loop;
struct plan;
struct run_opts;
struct watch_paths;

/* A server's fingerprints (docs/watch.md): all, what it would see if it
 * started now; restart, the part of that a running server is restarted
 * for: all of it under `restart: on-input-change`, all but its own
 * project's sources under `restart: auto` (the default: a dev server
 * reloads those itself), nothing under `restart: never`. */
struct server_fp {
	char all[KEY_HEX_SIZE];
	char restart[KEY_HEX_SIZE];
	const char *rule; /* the restart: value ("auto", "on-input-change", "never") */
};

/* vx watch's hands on a cycle. */
struct run_watch_hooks {
	/* After the plan, before the run, with ws filled: a watch set up now
	 * sees every change made while the run goes on. */
	void (*planned)(const struct watch_paths *ws, void *ctx);
	/* A persistent task's turn (its dependencies ran and succeeded,
	 * turborepo#8673): the watch runs it, not the cycle. fp: its
	 * fingerprints. Returns the task's line in the cycle (static text). */
	const char *(*serve)(const char *id, const struct server_fp *fp, void *ctx);
	const bool *cancel; /* set on the loop: the cycle stops (--interrupt) */
	struct loop *loop;  /* the cycle runs on it */
	void *ctx;
};

/* Runs a plan once: every job on the scheduler, then the summary line,
 * the records and the report. t0: when the run began (the total it
 * reports). wh: vx watch's (its loop, its cancel flag, its servers), or
 * NULL. Returns the exit status. */
int run_once(const struct run_opts *o, struct plan *p, long long t0,
	     const struct run_watch_hooks *wh);

#endif
