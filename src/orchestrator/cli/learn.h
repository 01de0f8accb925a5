/* learn.h - the parts of `vx sandbox learn` (sandbox_learn.c) shared by
 * its files: the session (struct learn), the config files it edits
 * (learn_files.c), each task's fix taken into them (learn_fix.c), and what
 * earlier rounds left behind (learn_leftovers.c). Only they include it. */
#ifndef VX_CLI_LEARN_H
#define VX_CLI_LEARN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* A config file learn edits: what it held before, what it holds now. */
struct learned_file {
	char *rel, *path; /* workspace-relative, absolute */
	bool existed;
	struct strbuf before, now;
};

/* A line learn did not write because it would widen what a task reaches
 * (learn_reach.h), or because it does not load back as what was refused:
 * printed for a person at the end. */
struct asked {
	char *id, *config,
	    *field; /* "app#build", "app/vx.yaml", "tasks.build.sandbox.allow.read" */
	char *entry, *why;
	bool offer; /* false: a place no grant should open, named only */
};

/* A file that decides what vx runs, as it was when a round began. */
struct config_seen {
	char *path; /* absolute */
	bool exists;
	struct strbuf bytes;
};

/* One learn session: made by sandbox_learn_main, each round's fields reset
 * by round_once. */
struct learn {
	struct workspace *ws;
	const struct graph *g; /* the selected graph: each task's outputs (set after turn_on) */
	VEC(struct learned_file) files; /* learn_add's, written by learn_write_files */
	/* write grants learned here that were not there (absolute): learn_fix.c's
	 * and learn_fresh_outputs' */
	struct strvec fresh;
	size_t added;			 /* entries added this round */
	size_t removed;			 /* leftovers removed this round (learn_remove_leftovers) */
	int round;			 /* the round being learned from, from 1 */
	VEC(struct asked) asked;	 /* learn_fix.c's, printed by learn_print_asked */
	VEC(struct config_seen) configs; /* learn_configs_take's, before each round's run */
};

/* The string o.name of a run's report, or NULL. */
static inline const char *learn_json_str(const cJSON *o, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* learn_json_str, or "?" where the report has no such string: for printing. */
static inline const char *learn_json_say(const cJSON *o, const char *name)
{
	const char *s = learn_json_str(o, name);
	return s ? s : "?";
}

/* The task of the report's id in the selected graph, or NULL. */
static inline const struct task_node *learn_node_of(const struct learn *l, const char *id)
{
	for (size_t i = 0; i < l->g->nodes.n; i++)
		if (!strcmp(l->g->nodes.v[i]->id, id))
			return l->g->nodes.v[i];
	return NULL;
}

/* learn_files.c: the config files learn edits, and those it watches. */

/* Adds values at path of file rel (workspace-relative; in memory, read
 * first when learn has not yet), counting them in l->added when the file
 * changed. Returns 0, or -1 after an error line at the place that is in
 * the way. */
int learn_add(struct learn *l, const char *rel, const char *const *path, size_t np,
	      const char *const *values, size_t nv);

/* Writes each edited file that differs from the disk. Returns 0, or -1
 * after an error line. */
int learn_write_files(struct learn *l);

/* Prints what learn changed in each file, as `diff -u` says it. */
void learn_print_diffs(struct learn *l);

/* The files that decide what vx runs (as sandbox_job.c's config_files
 * lists them), as they are now: taken before each round's run. */
void learn_configs_take(struct learn *l);

/* The first file that decides what vx runs and changed on disk since
 * learn_configs_take (made, removed, rewritten), or NULL. learn's own
 * edits are written before the snapshot, so any change is someone else's:
 * a task that rewrote its vx.yaml without its sandbox: block (issue 53
 * item 2). */
const char *learn_configs_changed(const struct learn *l);

/* Frees l->files and l->configs. */
void learn_files_release(struct learn *l);

/* learn_fix.c: each task's fix, judged against the line (learn_reach.h). */

/* Writes the fix of report task t, what the line lets learn write; the
 * rest is kept for a person (l->asked). Sets *refused when a leftover is
 * left to a person. Returns 0, or -1 after an error line. */
int learn_task(struct learn *l, const cJSON *t, bool *refused);

/* Declares, as outputs, the tool state the report's tasks wrote that
 * their outputs do not hold (learn_fix.c says why). Returns how many
 * tasks it declared any for, or -1 after an error line. */
int learn_own_state(struct learn *l, const cJSON *tasks);

/* Prints what learn did not write, for a person: each line as the run's
 * fix prints it, and why learn would not. */
void learn_print_asked(const struct learn *l);

/* Frees l->asked. */
void learn_asked_release(struct learn *l);

/* learn_leftovers.c: what earlier rounds left where a task writes. */

/* Removes what a task's ignore.read fix names, where only learn's own
 * rounds can have left it (learn_leftovers.c says why); anything else is
 * said, and sets *refused. Returns 0, or -1 after an error line. */
int learn_remove_leftovers(struct learn *l, const char *id, const char *project, const cJSON *fix,
			   bool *refused);

/* Adds to l->fresh the directories g's requested tasks' declared outputs
 * will be written in that are not there yet. */
void learn_fresh_outputs(struct learn *l, const struct graph *g);

/* The fresh write grant (learned in this session, not there when it was
 * learned: only learn's rounds wrote in it) holding abs, or NULL. */
const char *learn_fresh_holding(const struct learn *l, const char *abs);

#endif
