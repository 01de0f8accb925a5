/* linked.c - the projects linked into a project's node_modules
 * (workspace_linked_projects, workspace.h). */
#include "orchestrator/config/workspace.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "util/die.h"
#include "util/path.h"

/* The walk of workspace_linked_projects. The projects' canonical dirs are
 * made only once a link is met: most tasks have none, and a sandboxed
 * task's start should not cost a realpath per project. */
struct linked_scan {
	const struct workspace *ws;
	const char *self;   /* the task's project, canonical */
	struct strvec dirs; /* canonical, parallel to ws->projects; made on the first link */
	struct strvec *out;
};

/* One node_modules entry that is a link: its target when that is a
 * project's directory. */
static void linked_entry(struct linked_scan *ls, const char *link)
{
	char *real = realpath(link, NULL);
	if (!real)
		return;
	if (!ls->dirs.n)
		for (size_t i = 0; i < ls->ws->projects.n; i++) {
			char *d = realpath(ls->ws->projects.v[i]->dir, NULL);
			strvec_push(&ls->dirs, d ? d : ls->ws->projects.v[i]->dir);
			free(d);
		}
	if (!path_is_within(real, ls->self) && strvec_find(ls->out, real) < 0 &&
	    strvec_find(&ls->dirs, real) >= 0)
		strvec_push(ls->out, real);
	free(real);
}

/* scoped: nm is an @scope directory, which holds links and nothing to enter. */
static void scan_node_modules(struct linked_scan *ls, const char *nm, bool scoped)
{
	struct strvec names = STRVEC_INIT;
	DIR *d = opendir(nm);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			strvec_push(&names, e->d_name);
	if (d)
		closedir(d);
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(nm, names.v[i]);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			linked_entry(ls, p);
		else if (!scoped && names.v[i][0] == '@' && lstat(p, &st) == 0 &&
			 S_ISDIR(st.st_mode))
			scan_node_modules(ls, p, true); /* @scope/name */
		free(p);
	}
	strvec_clear(&names);
}

void workspace_linked_projects(const struct workspace *ws, const struct project *p,
			       struct strvec *out)
{
	char *self = realpath(p->dir, NULL);
	if (!self)
		return;
	struct linked_scan ls = {ws, self, STRVEC_INIT, out};
	size_t start = out->n;
	const char *roots[] = {self, ws->root};
	for (size_t i = 0; i < 2; i++) {
		char *nm = path_join(roots[i], "node_modules");
		scan_node_modules(&ls, nm, false);
		free(nm);
	}
	size_t first = out->n;
	for (size_t i = start; i < first; i++) {
		char *nm = path_join(out->v[i], "node_modules");
		scan_node_modules(&ls, nm, false);
		free(nm);
	}
	strvec_clear(&ls.dirs);
	free(self);
}
