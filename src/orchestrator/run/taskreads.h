/* taskreads.h - what a traced task read of the other workspace packages,
 * kept after its verdict in .vx/reads/ (one small file a task) for `vx
 * boundaries`, which finds there the packages a task needs at run time
 * that its package.json does not declare (docs/boundaries.md). */
#ifndef VX_RUN_TASKREADS_H
#define VX_RUN_TASKREADS_H

#include "util/vec.h"

struct workspace;

/* One task's record. */
struct taskreads {
	char *id;	     /* "web#build" */
	char *project;	     /* its project, workspace-relative */
	struct strvec files; /* workspace-relative, sorted: the files it read that
			      * lie in another project (not the root's) */
};

/* Keeps the record of task id of the project at project_dir (absolute)
 * from its verdict's reads (judge.h: "K PATH", "U PATH", "O PATH"): the
 * files among them in other projects. A task that read none leaves no
 * file (an older one is removed). Returns 0, or -1 with errno (a record
 * is a hint: the caller warns, the task's verdict stands). */
int taskreads_save(const struct workspace *ws, const char *id, const char *project_dir,
		   const struct strvec *reads);

struct taskreads_list {
	VEC(struct taskreads) v;
};

/* Loads every record under the workspace's .vx/reads into out, sorted by
 * task id. A file that is no record (another version, torn) is skipped. */
void taskreads_load(const struct workspace *ws, struct taskreads_list *out);
void taskreads_free(struct taskreads *r);
void taskreads_list_free(struct taskreads_list *l);

#endif
