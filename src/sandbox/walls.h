/* walls.h - what no grant may reach into: nested projects, .git, the cache,
 * the git dirs of a worktree, and the credential stores under home. */
#ifndef VX_SANDBOX_WALLS_H
#define VX_SANDBOX_WALLS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/vec.h"

enum wall_kind {
	WALL_NESTED,	 /* another project: punched out of grants, but a grant inside it is fine */
	WALL_GIT,	 /* .git, or the git dir / common dir of a worktree */
	WALL_CACHE,	 /* the cache dir: a task must not forge or read other tasks' entries */
	WALL_CREDENTIAL, /* a credential store under home: never granted at all */
	WALL_RUN,	 /* vx's run dirs: other tasks' proxy sockets and trace logs */
	WALL_STATE,	 /* the workspace's .vx: the probe's verdict, run summaries, the
			  * stage, the default cache, the config guards */
};

struct wall {
	char *path; /* canonical absolute */
	enum wall_kind kind;
};
typedef VEC(struct wall) wall_vec;

/* What walls_collect needs; every path canonical and absolute. */
struct walls_input {
	const char *workspace_root, *project_dir, *home,
	    *cache_dir;	      /* home, cache_dir may be NULL */
	const char *run_base; /* where vx's run dirs live (util/rundir.h), or NULL */
	const char *const *nested_dirs;
	size_t n_nested;
};

/* Appends the walls for this task: every nested project but the task's own
 * (and those holding it), workspace/.git and project/.git, the workspace's
 * .vx and the cache dir (unless it lies in .vx), vx's run base, the git dir and common dir read
 * from a .git file when they lie outside the workspace, and each credential store under home
 * (existing or not). Never fails; an unreadable .git file adds nothing. */
void walls_collect(const struct walls_input *in, wall_vec *out);

/* Returns the first wall that is path or lies below it, or NULL. */
const struct wall *walls_inside(const wall_vec *w, const char *path);
/* Returns the wall that path is, or lies in, or NULL. */
const struct wall *walls_holding(const wall_vec *w, const char *path);
/* Returns what a wall of kind k is, in words ("the vx cache"). */
const char *walls_kind_name(enum wall_kind k);

/* Whether a workspace package linked into a task's node_modules, at real
 * (canonical), may be shown to a task of project proj in workspace ws:
 * inside the workspace, holding not the project (the root linked by name
 * would show every sibling), and in no wall but a nested project's. The
 * bwrap plan and the Seatbelt profile both ask this. */
bool walls_show_linked(const wall_vec *w, const char *ws, const char *proj, const char *real);

/* Says in err (replacing it) that write grant entry lies in wall w, where
 * no write is ever granted: the bwrap plan's and the Seatbelt profile's
 * words. Returns -1. */
int walls_say_no_writes(struct strbuf *err, const char *entry, const struct wall *w);
/* The credential stores, relative to home, NULL-terminated. */
extern const char *const walls_credentials[];

void walls_clear(wall_vec *w);

#endif
