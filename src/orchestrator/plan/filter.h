/* filter.h - which projects a run selects: --filter and --affected (SPEC §3). */
#ifndef VX_PLAN_FILTER_H
#define VX_PLAN_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/workspace.h"

/* One parsed --filter entry, as Turborepo spells it. */
struct filter {
	bool exclude;	   /* "!PATTERN" */
	bool dependencies; /* "PATTERN..." */
	bool dependents;   /* "...PATTERN" */
	bool exclude_self; /* "PATTERN^..." or "...^PATTERN": the relatives only */
	bool is_path;	   /* "./dir" or "{./dir}": a directory glob */
	char *pattern;	   /* a name glob, or a workspace-relative directory glob; NULL:
			    * every project (a git range alone, "[HEAD^1]") */
	/* "[REF]" or "[FROM...TO]": only projects with files changed between
	 * REF and the work tree (uncommitted and untracked files too), or
	 * between FROM and TO; git_from NULL: none */
	char *git_from, *git_to;
	bool git_through_deps; /* "NAME...[REF]": NAME when it or one of its
				* dependencies changed */
};

/* Parses one --filter argument; a path pattern is resolved against cwd
 * (absolute) and made workspace-relative. Returns 0, or -1 after an error
 * line. */
int filter_parse(const char *arg, const struct workspace *ws, const char *cwd, struct filter *out);
void filter_free(struct filter *f);

/* Marks in selected (ws->projects.n entries) the projects the filters
 * select: the union of the including filters (every project when there are
 * none), less the union of the excluding ones. Returns 0, or -1 after an
 * error line for an including filter with no git range that matches no
 * project (one with a range selects nothing when nothing changed), or git
 * failing. */
int filter_select(const struct workspace *ws, const struct filter *filters, size_t n,
		  bool *selected);

/* Narrows selected to the projects with files changed since ref (NULL: the
 * merge base with main, else master) — committed, staged, unstaged and
 * untracked — and their dependents. A change outside every project but the
 * root, to the root vx.yaml, package.json or a workspace input, affects every
 * project. Returns 0, or -1 after an error line (git failed). */
int filter_affected(const struct workspace *ws, const char *ref, bool *selected);

#endif
