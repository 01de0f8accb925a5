/* learn_leftovers.c - what earlier rounds of `vx sandbox learn` (or a
 * build before it) left where a task writes, and the task then read: the
 * fresh directories only learn's rounds wrote in, and their removal before
 * the next round. */
#include "orchestrator/cli/learn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/die.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"

/* Removes entry (project-relative, no ".." and no link on the way: each
 * directory opened with O_NOFOLLOW) from project dir. Returns 0, or -1. */
static int remove_in(const char *dir, const char *entry)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *copy = xstrdup(entry), *save = NULL, *c = strtok_r(copy, "/", &save);
	int rc = fd < 0 ? -1 : 0;
	while (!rc && c) {
		char *next = strtok_r(NULL, "/", &save);
		if (!strcmp(c, "..") || !strcmp(c, ".")) {
			errno = EINVAL;
			rc = -1;
		} else if (!next) {
			rc = remove_tree_at(fd, c);
		} else {
			int sub = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(fd);
			fd = sub;
			rc = sub < 0 ? (errno == ENOENT ? 1 : -1) : 0;
		}
		c = next;
	}
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc < 0 ? -1 : 0;
}

/* The literal heads of a task's outputs ("dist/" for "dist/ and all below", a file as
 * itself; a pattern with no literal directory has none). */
static void output_heads(const struct task_node *t, struct strvec *out)
{
	for (size_t i = 0; i < t->cfg->outputs.n; i++) {
		const char *pat = t->cfg->outputs.v[i].s;
		if (pat[0] == '!' || pat[0] == '/' || strstr(pat, ".."))
			continue;
		size_t n = glob_literal_prefix(pat);
		if (pat[n]) /* magic after it: its directory, with the '/' */
			n = n && pat[n] == '/' ? n + 1 : 0;
		if (n)
			strvec_pushf(out, "%.*s", (int)n, pat);
	}
}

static bool under_heads(const struct strvec *heads, const char *entry)
{
	size_t n = strlen(entry);
	for (size_t i = 0; i < heads->n; i++) {
		const char *h = heads->v[i];
		size_t hn = strlen(h);
		if (!strcmp(h, entry) || (h[hn - 1] == '/' && !strncmp(entry, h, hn)) ||
		    (entry[n - 1] == '/' && !strncmp(h, entry, n)))
			return true;
	}
	return false;
}

const char *learn_fresh_holding(const struct learn *l, const char *abs)
{
	for (size_t i = 0; i < l->fresh.n; i++)
		if (path_is_within(l->fresh.v[i], abs))
			return l->fresh.v[i];
	return NULL;
}

/* A task's ignore.read fix names what an earlier run left in its write
 * grants and it read. sandbox.ignore.read is a person vouching that a
 * tool's cache never changes what the task makes (docs/violations.md):
 * learn does not vouch. What only learn's own rounds can have left is
 * removed instead, and the next round is a clean build, as CI's is: the
 * task's outputs (vx restores them from the cache; make linked the other
 * half of an earlier round's objects), and a write grant learned in this
 * session that was not there when it was learned (cmake's build/, whose
 * CMakeCache.txt no output names). Anything else is left to a person,
 * said. Returns 0, or -1. */
int learn_remove_leftovers(struct learn *l, const char *id, const char *project, const cJSON *fix,
			   bool *refused)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(fix, "ignore"), "read");
	if (!cJSON_GetArraySize(list) || !project)
		return 0;
	const struct task_node *t = learn_node_of(l, id);
	struct strvec heads = STRVEC_INIT, gone = STRVEC_INIT;
	if (t)
		output_heads(t, &heads);
	char *dir = path_join(l->ws->root, project);
	bool all = true;
	const cJSON *x;
	cJSON_ArrayForEach(x, list)
	{
		const char *entry = cJSON_IsString(x) ? x->valuestring : "?";
		char *abs = path_join(dir, entry);
		const char *fresh = learn_fresh_holding(l, abs);
		free(abs);
		if (under_heads(&heads, entry)) {
			for (size_t i = 0; i < heads.n; i++)
				if (strvec_find(&gone, heads.v[i]) < 0)
					strvec_push(&gone, heads.v[i]);
		} else if (fresh && path_is_within(dir, fresh) && strcmp(dir, fresh)) {
			char *rel = path_relative(dir, fresh);
			if (strvec_find(&gone, rel) < 0)
				strvec_push(&gone, rel);
			free(rel);
		} else {
			all = false;
			fprintf(
			    stderr,
			    "vx: %s: not learned: it read %s/%s, which an earlier run left "
			    "where it writes and its outputs do not hold: remove it before the "
			    "task, or vouch for it with sandbox.ignore.read (docs/violations.md)\n",
			    id, project, entry);
			*refused = true;
		}
	}
	int rc = 0;
	for (size_t i = 0; all && !rc && i < gone.n; i++) {
		rc = remove_in(dir, gone.v[i]);
		if (rc)
			error_errno("%s: cannot remove %s/%s", id, project, gone.v[i]);
		else
			fprintf(stderr,
				"vx: %s: removed %s/%s: %s left it, and the task read it (the "
				"next round builds clean)\n",
				id, project, gone.v[i],
				l->round > 1 ? "an earlier round" : "a build before learn");
	}
	l->removed += all && !rc;
	free(dir);
	strvec_clear(&heads);
	strvec_clear(&gone);
	return rc;
}

/* The directories each requested task's declared outputs will be written
 * in that are not there before learn's first round ("build/" for
 * "build/calc" or "build/" + "**"): what is found in them later only
 * learn's own rounds can have left (cmake's CMakeCache.txt beside the one
 * file an output names), so they are fresh (remove_leftovers). */
void learn_fresh_outputs(struct learn *l, const struct graph *g)
{
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		if (!t->requested || !t->command)
			continue;
		const char *dir = l->ws->projects.v[t->project]->dir;
		for (size_t k = 0; k < t->cfg->outputs.n; k++) {
			const char *pat = t->cfg->outputs.v[k].s;
			if (pat[0] == '!' || pat[0] == '/' || strstr(pat, ".."))
				continue;
			size_t n = glob_literal_prefix(pat);
			char *head = glob_unescape(pat, n);
			char *abs = path_join(dir, head);
			if (!glob_has_magic(pat)) { /* a file: its directory */
				char *parent = path_dirname(abs);
				free(abs);
				abs = parent;
			}
			struct stat st;
			if (strcmp(abs, dir) && path_is_within(dir, abs) && lstat(abs, &st) &&
			    strvec_find(&l->fresh, abs) < 0)
				strvec_push(&l->fresh, abs);
			free(abs);
			free(head);
		}
	}
}
