/* filter.c - project selection by name, path and git changes. */
#include "orchestrator/plan/filter.h"

#include <stdlib.h>
#include <string.h>

#include "util/glob.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/strbuf.h"

int filter_parse(const char *arg, const struct workspace *ws, const char *cwd, struct filter *out)
{
	memset(out, 0, sizeof *out);
	const char *s = arg;
	if (*s == '!') {
		out->exclude = true;
		s++;
	}
	size_t len = strlen(s);
	if (len > 3 && !strncmp(s, "...", 3)) {
		out->dependents = true;
		s += 3;
		len -= 3;
		if (*s == '^') {
			out->exclude_self = true;
			s++;
			len--;
		}
	}
	if (len > 3 && !strcmp(s + len - 3, "...")) {
		out->dependencies = true;
		len -= 3;
		if (len && s[len - 1] == '^') {
			out->exclude_self = true;
			len--;
		}
	}
	char *core = xstrndup(s, len);
	/* A git range last, as Turborepo's grammar has it: "[REF]",
	 * "[FROM...TO]", after a name or {dir}, or alone; "NAME...[REF]" is
	 * NAME when it or one of its dependencies changed. */
	char *open = len && core[len - 1] == ']' ? strrchr(core, '[') : NULL;
	if (open) {
		char *range = xstrndup(open + 1, (size_t)(core + len - 1 - (open + 1)));
		char *dots = strstr(range, "...");
		if (!*range || dots == range || (dots && !dots[3])) {
			error("--filter \"%s\": a git range is [REF] or [FROM...TO]", arg);
			free(range);
			free(core);
			return -1;
		}
		if (dots) {
			out->git_to = xstrdup(dots + 3);
			*dots = 0;
		}
		out->git_from = range;
		*open = 0;
		len = (size_t)(open - core);
		if (len >= 3 && !strcmp(core + len - 3, "...")) {
			out->git_through_deps = true;
			len -= 3;
			core[len] = 0;
		}
		if (!len) {
			free(core);
			if (out->git_through_deps)
				return error("--filter \"%s\": ...[REF] after nothing: write "
					     "NAME...[REF], or ...[REF] for the changed and "
					     "their dependents",
					     arg);
			return 0; /* every project, narrowed by the range */
		}
	}
	if (core[0] == '{' && len > 2 && core[len - 1] == '}') {
		memmove(core, core + 1, len - 2);
		core[len - 2] = '\0';
	}
	if (!*core) {
		free(core);
		return error("--filter \"%s\": no pattern", arg);
	}
	const char *why;
	size_t off;
	if (glob_check(core, &why, &off)) {
		error("--filter \"%s\": %s", arg, why);
		free(core);
		return -1;
	}
	if (!strcmp(core, ".") || !strncmp(core, "./", 2) || !strcmp(core, "..") ||
	    !strncmp(core, "../", 3) || core[0] == '/') {
		out->is_path = true;
		char *abs = path_join(cwd, core);
		if (!path_is_within(ws->root, abs)) {
			error("--filter \"%s\": %s lies outside the workspace %s", arg, abs,
			      ws->root);
			free(abs);
			free(core);
			return -1;
		}
		out->pattern = path_relative(ws->root, abs);
		free(abs);
		free(core);
	} else {
		out->pattern = core;
	}
	return 0;
}

void filter_free(struct filter *f)
{
	free(f->pattern);
	free(f->git_from);
	free(f->git_to);
	f->pattern = f->git_from = f->git_to = NULL;
}

static bool matches(const struct filter *f, const struct project *p)
{
	if (!f->pattern)
		return true;
	if (f->is_path)
		return glob_match(f->pattern, p->rel);
	return glob_match(f->pattern, p->name);
}

static int git_lines(const struct workspace *ws, const char *what, char *const argv[],
		     struct strvec *out)
{
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	int rc = spawn_capture(argv, ws->root, &o, &e);
	if (rc != 0) {
		while (e.len && e.buf[e.len - 1] == '\n')
			strbuf_setlen(&e, e.len - 1);
		if (rc < 0)
			error_errno("cannot run git");
		else
			error("%s: git %s failed: %s", what, argv[1],
			      e.len ? e.buf : "(no message)");
		strbuf_release(&o);
		strbuf_release(&e);
		return -1;
	}
	/* -z output: NUL-separated paths, so names with newlines survive. */
	for (size_t i = 0; i < o.len;) {
		size_t l = strlen(o.buf + i);
		if (l)
			strvec_push(out, o.buf + i);
		i += l + 1;
	}
	strbuf_release(&o);
	strbuf_release(&e);
	return 0;
}

/* Marks in changed the projects with files changed between from and the
 * work tree (to NULL: committed since the merge base, uncommitted and
 * untracked), or between from and to; what decides every project (the root
 * vx.yaml, package.json, turbo.json, a workspace input) marks them all.
 * what: the option, for messages. Returns 0, or -1 after an error line. */
static int changed_since(const struct workspace *ws, const char *what, const char *from,
			 const char *to, bool *changed)
{
	/* git prints paths relative to the repository's top, which may lie
	 * above the workspace root. */
	struct strbuf top = STRBUF_INIT;
	char *top_argv[] = {"git", "rev-parse", "--show-toplevel", NULL};
	if (spawn_capture(top_argv, ws->root, &top, NULL) != 0) {
		strbuf_release(&top);
		return error("%s: %s is not in a git work tree", what, ws->root);
	}
	while (top.len && top.buf[top.len - 1] == '\n')
		strbuf_setlen(&top, top.len - 1);
	struct strvec files = STRVEC_INIT;
	char *range = xasprintf("%s...%s", from, to ? to : "HEAD");
	char *a1[] = {"git", "diff", "--name-only", "-z", "--no-renames", range, "--", NULL};
	char *a2[] = {"git", "diff", "--name-only", "-z", "--no-renames", "HEAD", "--", NULL};
	char *a3[] = {"git",	     "ls-files", "-z", "--others", "--exclude-standard",
		      "--full-name", NULL};
	int rc = git_lines(ws, what, a1, &files);
	if (!rc && !to)
		rc = git_lines(ws, what, a2, &files);
	if (!rc && !to)
		rc = git_lines(ws, what, a3, &files);
	free(range);
	if (rc) {
		strvec_clear(&files);
		strbuf_release(&top);
		return -1;
	}
	size_t np = ws->projects.n;
	bool all = false;
	struct strvec ws_inputs = STRVEC_INIT;
	strvec_push(&ws_inputs, "vx.yaml");
	strvec_push(&ws_inputs, "package.json");
	strvec_push(&ws_inputs, "turbo.json");
	strvec_push(&ws_inputs, "turbo.jsonc");
	for (size_t i = 0; i < ws->cfg->ws_input_files.n; i++)
		strvec_push(&ws_inputs, ws->cfg->ws_input_files.v[i].s);
	for (size_t i = 0; i < files.n && !all; i++) {
		char *abs = path_join(top.buf, files.v[i]);
		if (!path_is_within(ws->root, abs)) {
			free(abs);
			continue;
		}
		char *rel = path_relative(ws->root, abs);
		long p = workspace_project_of(ws, rel);
		for (size_t k = 0; k < ws_inputs.n; k++)
			if (glob_match(ws_inputs.v[k], rel))
				all = true;
		/* a file of no project is the root project's, if there is one */
		if (p >= 0)
			changed[p] = true;
		free(rel);
		free(abs);
	}
	for (size_t i = 0; all && i < np; i++)
		changed[i] = true;
	strvec_clear(&ws_inputs);
	strvec_clear(&files);
	strbuf_release(&top);
	return 0;
}

int filter_select(const struct workspace *ws, const struct filter *filters, size_t n,
		  bool *selected)
{
	size_t np = ws->projects.n;
	bool any_include = false;
	bool *inc = xcalloc(np + 1, 1), *exc = xcalloc(np + 1, 1), *hit = xcalloc(np + 1, 1);
	bool *changed = xcalloc(np + 1, 1);
	int rc = 0;
	for (size_t f = 0; f < n && !rc; f++) {
		const struct filter *fl = &filters[f];
		bool *into = fl->exclude ? exc : inc;
		bool any = false;
		memset(hit, 0, np);
		for (size_t i = 0; i < np; i++)
			if (matches(fl, ws->projects.v[i]))
				hit[i] = any = true;
		if (!fl->exclude) {
			any_include = true;
			if (!any) {
				rc = error("--filter: \"%s\" matches no project", fl->pattern);
				break;
			}
		}
		if (fl->git_from) {
			memset(changed, 0, np);
			rc = changed_since(ws, "--filter", fl->git_from, fl->git_to, changed);
			if (rc)
				break;
			bool *through = NULL;
			if (fl->git_through_deps) {
				/* it, or one of what it depends on, changed */
				through = xcalloc(np + 1, 1);
				workspace_closure(ws, changed, true, through);
			}
			for (size_t i = 0; i < np; i++)
				hit[i] = hit[i] && (changed[i] || (through && through[i]));
			free(through);
		}
		bool *rel = xcalloc(np + 1, 1);
		if (fl->dependencies)
			workspace_closure(ws, hit, false, rel);
		if (fl->dependents)
			workspace_closure(ws, hit, true, rel);
		for (size_t i = 0; i < np; i++)
			if (rel[i] || (hit[i] && !fl->exclude_self))
				into[i] = true;
		free(rel);
	}
	for (size_t i = 0; i < np; i++)
		selected[i] = (any_include ? inc[i] : true) && !exc[i];
	free(inc);
	free(exc);
	free(hit);
	free(changed);
	return rc;
}

int filter_affected(const struct workspace *ws, const char *ref, bool *selected)
{
	char *base = NULL;
	if (!ref) {
		static const char *const candidates[] = {"main", "master", "origin/main",
							 "origin/master"};
		for (size_t i = 0; i < 4 && !base; i++) {
			char *argv[] = {"git",	   "rev-parse",		  "--verify",
					"--quiet", (char *)candidates[i], NULL};
			if (spawn_capture(argv, ws->root, NULL, NULL) == 0)
				base = xstrdup(candidates[i]);
		}
		if (!base)
			return error("--affected: no branch main or master to compare with; name "
				     "one: --affected=REF");
	} else {
		base = xstrdup(ref);
	}
	size_t np = ws->projects.n;
	bool *changed = xcalloc(np + 1, 1);
	int rc = changed_since(ws, "--affected", base, NULL, changed);
	free(base);
	if (!rc) {
		workspace_closure(ws, changed, true, changed);
		for (size_t i = 0; i < np; i++)
			selected[i] = selected[i] && changed[i];
	}
	free(changed);
	return rc;
}
