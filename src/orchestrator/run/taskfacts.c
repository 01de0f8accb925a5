/* taskfacts.c - a sandboxed task's facts (taskfacts.h), from the
 * workspace, its config and its graph edges: the closure walked once, the
 * grants, the other tasks' outputs, the environment; at its start, what
 * its dependencies made and what the key holds of them. */
#include "orchestrator/run/taskfacts.h"

#include <stdlib.h>
#include <string.h>

#include "orchestrator/keys/inputs.h"
#include "orchestrator/keys/taskenv.h"
#include "orchestrator/run/taskcache.h"
#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "sandbox/grants.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/strbuf.h"

/* Marks node i's dependencies in seen, transitively. */
static void mark_deps(const struct graph *g, size_t i, bool *seen)
{
	const struct task_node *t = g->nodes.v[i];
	for (size_t k = 0; k < t->deps.n; k++) {
		size_t d = t->deps.v[k].to;
		if (!seen[d]) {
			seen[d] = true;
			mark_deps(g, d, seen);
		}
	}
}

/* Marks the nodes that depend on node i, transitively: one pass, since a
 * graph lists dependencies before dependents (graph.h). */
static void mark_dependents(const struct graph *g, size_t i, bool *out)
{
	for (size_t m = i + 1; m < g->nodes.n; m++) {
		const struct task_node *o = g->nodes.v[m];
		for (size_t k = 0; k < o->deps.n && !out[m]; k++) {
			size_t d = o->deps.v[k].to;
			out[m] = d == i || out[d];
		}
	}
}

const char *taskfacts_yaml(struct taskfacts *facts, const struct workspace *ws,
			   const struct graph *g, size_t i)
{
	if (!facts[i].yaml)
		facts[i].yaml = workspace_fix_yaml(ws, ws->projects.v[g->nodes.v[i]->project]);
	return facts[i].yaml;
}

/* Has rel (a pattern relative to a project) a ".." or "." component, or
 * is it absolute or empty? Such a declaration is no grant of its own. */
static bool leaves_project(const char *rel)
{
	if (!*rel || rel[0] == '/')
		return true;
	for (const char *c = rel; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
		if ((c[0] == '.' && (c[1] == '/' || !c[1])) ||
		    (c[0] == '.' && c[1] == '.' && (c[2] == '/' || !c[2])))
			return true;
	return false;
}

/* "X/" for "X/" + "**" (and + "/" + "*"): the tree as a directory grant,
 * made when missing; else the pattern itself. */
static char *declared_grant(const char *pat)
{
	char *g = xstrdup(pat);
	if (grants_collapse_tree(g)) {
		char *dir = *g ? xasprintf("%s/", g) : NULL;
		free(g);
		return dir;
	}
	return g;
}

/* Would declared write grant g (relative to project dir proj) reach what
 * a declaration never opens: a file that decides what vx runs (a write
 * grant names one only by a person's hand), a mandatory deny, .git or
 * .vx, or a project nested in it? Such an output is kept and keyed, never
 * granted; a person who means it writes allow.write. */
static bool declared_write_walled(const struct workspace *ws, const char *proj, const char *g)
{
	size_t n = glob_literal_prefix(g);
	char *head = glob_unescape(g, n);
	char *abs = path_join(proj, head);
	const char *bases[] = {ws->root, NULL};
	size_t len;
	char *rel = path_relative(ws->root, abs);
	bool walled = (!glob_has_magic(g) && config_name(path_basename(abs))) ||
		      denies_holding(abs, bases, &len) || !strcmp(rel, ".vx") ||
		      !strncmp(rel, ".vx/", 4) || strstr(abs, "/.git/") ||
		      !strcmp(path_basename(abs), ".git");
	for (size_t k = 0; !walled && k < ws->projects.n; k++) {
		const char *d = ws->projects.v[k]->dir;
		/* a project holding the task's own (the root project) is no wall */
		walled =
		    !path_is_within(d, proj) && (path_is_within(abs, d) || path_is_within(d, abs));
	}
	free(rel);
	free(abs);
	free(head);
	return walled;
}

/* Drops each grant of list that another, a directory, already holds
 * ("dist/esm/" under "dist/"): a deeper grant is a mount point of its own
 * in the sandbox, which a tool that deletes its output root meets as EBUSY
 * even where the directory above it is granted (issue 54 item 2). */
static void drop_covered(struct strvec *list)
{
	/* decided over the whole list first, then compacted: compacting as
	 * it went compared later entries with ones already freed (ASan) */
	bool *covered = xcalloc(list->n + 1, sizeof *covered);
	for (size_t a = 0; a < list->n; a++) {
		const char *e = list->v[a];
		for (size_t b = 0; b < list->n && !covered[a]; b++) {
			const char *d = list->v[b];
			size_t n = strlen(d);
			covered[a] = b != a && n > 1 && d[n - 1] == '/' && !glob_has_magic(d) &&
				     strlen(e) > n && !strncmp(e, d, n);
		}
	}
	size_t keep = 0;
	for (size_t a = 0; a < list->n; a++) {
		if (covered[a])
			free(list->v[a]);
		else
			list->v[keep++] = list->v[a];
	}
	free(covered);
	list->n = keep;
	if (list->v)
		list->v[keep] = NULL;
}

/* The task's write grants: allow.write, and its declared outputs (issue
 * 54 item 9, Bazel's rule: what a task declares it writes it may write;
 * `sandbox: {}` on a task with `outputs: ["dist/" + "**"]` failed EROFS and
 * asked for `write: ["dist/"]`). Walls, mandatory denies and the configs
 * still win (sandbox/plan.c); an output that leaves the project, a negation
 * and all of the project ("**") grant nothing. */
static void task_writes(const struct workspace *ws, const struct task_node *t, struct strvec *out)
{
	lstr_vec_strings(&t->cfg->sandbox->allow_write, out);
	const char *proj = ws->projects.v[t->project]->dir;
	for (size_t k = 0; k < t->cfg->outputs.n; k++) {
		const char *pat = t->cfg->outputs.v[k].s;
		while (pat[0] == '.' && pat[1] == '/')
			pat += 2; /* "./dist/" + "**" is dist's */
		if (pat[0] == '!' || leaves_project(pat))
			continue;
		char *g = declared_grant(pat);
		if (g && !declared_write_walled(ws, proj, g) && strvec_find(out, g) < 0)
			strvec_push(out, g);
		free(g);
	}
	drop_covered(out);
}

/* The task's read grants: allow.read, and its declared
 * inputs.workspaceFiles outside its project (issue 54 item 9: what a
 * task declares it reads it may read; each failed, hidden, one violation
 * a run), relative to the project. One whose literal head is the
 * workspace root (a glob from its first letter) would show the root whole: it is
 * keyed, not granted; walls and the root's secrets still win. */
static void task_reads(const struct workspace *ws, const struct task_node *t, struct strvec *out)
{
	lstr_vec_strings(&t->cfg->sandbox->allow_read, out);
	const char *proj = ws->projects.v[t->project]->dir;
	char *up = path_relative(proj, ws->root);
	for (size_t k = 0; k < t->cfg->input_ws_files.n; k++) {
		const char *pat = t->cfg->input_ws_files.v[k].s;
		while (pat[0] == '.' && pat[1] == '/')
			pat += 2;
		if (pat[0] == '!' || leaves_project(pat) || !glob_literal_prefix(pat))
			continue;
		char *head = glob_unescape(pat, glob_literal_prefix(pat));
		char *abs = path_join(ws->root, head);
		bool own = path_is_within(proj, abs);
		free(abs);
		free(head);
		if (own)
			continue; /* its own project is readable */
		char *rel = xasprintf("%s/%s", up, pat);
		char *g = declared_grant(rel);
		if (g && strvec_find(out, g) < 0)
			strvec_push(out, g);
		free(g);
		free(rel);
	}
	free(up);
}

/* The directory heads ("dist", ".next") of output globs: a glob's literal
 * directory part; a file or a glob with none gives nothing. */
static void output_heads_of(const struct task_cfg *c, const char *dir, struct strvec *out)
{
	for (size_t k = 0; k < c->outputs.n; k++) {
		const char *pat = c->outputs.v[k].s;
		size_t n = glob_literal_prefix(pat);
		if (pat[0] == '!' || !glob_has_magic(pat))
			continue;
		if (pat[n] == '/')
			n++; /* the slash after ".next" */
		while (n && pat[n - 1] != '/')
			n--; /* the directory part of "dist/app-*.js" */
		if (n < 2)
			continue;
		char *head = glob_unescape(pat, n - 1);
		char *abs = path_join(dir, head);
		char *norm = path_normalize(abs);
		if (strvec_find(out, norm) < 0)
			strvec_push(out, norm);
		free(norm);
		free(abs);
		free(head);
	}
}

/* Does node i wait for the task named name of its own project (one of
 * its dependencies in the graph is that task)? */
static bool waits_for(const struct graph *g, const struct taskfacts *f, const struct task_node *t,
		      const char *name)
{
	for (size_t k = 0; k < f->deps.n; k++) {
		const struct task_node *d = g->nodes.v[f->deps.v[k]];
		if (d->project == t->project && !strcmp(d->task, name))
			return true;
	}
	return false;
}

/* The output directories of the other tasks of t's project (as its
 * configs define them, in this run or not) that it does not wait for, but
 * those its own outputs share: the request shows them empty. */
static void other_dirs(const struct workspace *ws, const struct graph *g, const struct task_node *t,
		       struct taskfacts *f)
{
	const struct project *p = ws->projects.v[t->project];
	struct strvec own = STRVEC_INIT, theirs = STRVEC_INIT, names = STRVEC_INIT;
	output_heads_of(t->cfg, p->dir, &own);
	graph_project_task_names(ws, p, false, &names);
	for (size_t k = 0; k < names.n; k++) {
		if (!strcmp(names.v[k], t->task) || waits_for(g, f, t, names.v[k]))
			continue;
		struct task_cfg *c = graph_project_task(ws, p, names.v[k]);
		if (c) {
			output_heads_of(c, p->dir, &theirs);
			task_cfg_free(c);
		}
	}
	for (size_t k = 0; k < theirs.n; k++) {
		bool shared = false;
		for (size_t m = 0; m < own.n && !shared; m++)
			shared = path_is_within(own.v[m], theirs.v[k]) ||
				 path_is_within(theirs.v[k], own.v[m]);
		if (!shared)
			strvec_push(&f->other_dirs, theirs.v[k]);
	}
	strvec_clear(&own);
	strvec_clear(&theirs);
	strvec_clear(&names);
}

/* The outputs of the other tasks of node i's project that it does not
 * depend on, as the judge names them (issue 40 item 3: a build that read
 * lint's cache was told to key it): each task the project runs a command
 * for, and whether an edge to it would be a cycle (that task, where the
 * run holds it, depends on this one). */
static void other_globs(const struct workspace *ws, const struct graph *g, size_t i,
			struct taskfacts *f)
{
	const struct task_node *t = g->nodes.v[i];
	struct project *p = ws->projects.v[t->project];
	if (p->is_root)
		return;
	struct strvec names = STRVEC_INIT;
	graph_project_task_names(ws, p, true, &names);
	bool *dependents = NULL; /* walked for the first sibling with outputs */
	VEC(bool) cycles = {0};
	for (size_t k = 0; k < names.n; k++) {
		if (!strcmp(names.v[k], t->task) || waits_for(g, f, t, names.v[k]))
			continue;
		struct task_cfg *c = graph_project_task(ws, p, names.v[k]);
		if (!c)
			continue;
		if (!dependents && c->outputs.n) {
			dependents = xcalloc(g->nodes.n + 1, 1);
			mark_dependents(g, i, dependents);
		}
		bool cycle = false;
		for (size_t m = 0; dependents && m < g->nodes.n && !cycle; m++)
			cycle = dependents[m] && g->nodes.v[m]->project == t->project &&
				!strcmp(g->nodes.v[m]->task, names.v[k]);
		for (size_t o = 0; o < c->outputs.n; o++)
			if (c->outputs.v[o].s[0] != '!') {
				strvec_push(&f->other_tasks, names.v[k]);
				strvec_push(&f->other_globs, c->outputs.v[o].s);
				vec_push(&cycles, cycle);
			}
		task_cfg_free(c);
	}
	free(dependents);
	strvec_clear(&names);
	for (size_t k = 0; k < f->other_tasks.n; k++) {
		struct judge_other_output o = {f->other_tasks.v[k], f->other_globs.v[k],
					       cycles.v[k]};
		vec_push(&f->others, o);
	}
	vec_free(&cycles);
}

void taskfacts_plan(struct taskfacts *facts, const struct workspace *ws, const struct graph *g,
		    size_t i)
{
	struct taskfacts *f = &facts[i];
	const struct task_node *t = g->nodes.v[i];
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	if (!sb || !t->command || f->planned)
		return;
	f->planned = true;
	f->closure = xcalloc(g->nodes.n + 1, 1);
	mark_deps(g, i, f->closure);
	/* a deep closure is hundreds of nodes (bench/gen-monorepo 500): a
	 * project is found once by its index, not by comparing its dir with
	 * each one found before */
	bool *project_seen = xcalloc(ws->projects.n + 1, 1);
	for (size_t d = 0; d < g->nodes.n; d++) {
		if (!f->closure[d])
			continue;
		const struct task_node *dt = g->nodes.v[d];
		const struct project *dp = ws->projects.v[dt->project];
		vec_push(&f->deps, d);
		if (!project_seen[dt->project])
			strvec_push(&f->dep_dirs, dp->dir);
		project_seen[dt->project] = true;
		taskfacts_yaml(facts, ws, g, d);
		struct judge_dep jd = {
		    .dir = dp->dir, .config = facts[d].yaml, .task = dt->task, .id = dt->id};
		vec_push(&f->judge_deps, jd);
	}
	free(project_seen);
	taskfacts_yaml(facts, ws, g, i);
	task_reads(ws, t, &f->reads);
	task_writes(ws, t, &f->writes);
	lstr_vec_strings(&t->cfg->input_files, &f->input_files);
	lstr_vec_strings(&t->cfg->input_ws_files, &f->ws_inputs);
	lstr_vec_strings(&t->cfg->outputs, &f->outputs);
	lstr_vec_strings(&sb->unix_sockets.list, &f->sockets);
	lstr_vec_strings(&sb->mach_lookup, &f->mach);
	lstr_vec_strings(&sb->system_info, &f->sysinfo);
	lstr_vec_strings(&sb->ignore_read, &f->ignore_read);
	lstr_vec_strings(&sb->ignore_write, &f->ignore_write);
	lstr_vec_strings(&sb->ignore_network, &f->ignore_network);
	for (size_t k = 0; k < sb->local_binding.list.n; k++)
		vec_push(&f->local_ports, atoi(sb->local_binding.list.v[k].s));
	for (size_t k = 0; k < t->cfg->env_define.n; k++)
		strvec_pushf(&f->define, "%s=%s", t->cfg->env_define.v[k].key,
			     t->cfg->env_define.v[k].value);
	lstr_vec_strings(&t->cfg->env_pass, &f->pass);
	lstr_vec_strings(&t->cfg->env_pass_secrets, &f->secrets);
	task_env_delta(ws, t, &f->vxenv);
	task_env(ws, t, &f->plain_env);
	other_dirs(ws, g, t, f);
	other_globs(ws, g, i, f);
}

const struct strvec *taskfacts_outputs(struct taskfacts *facts, const struct workspace *ws,
				       const struct graph *g, size_t d)
{
	struct taskfacts *df = &facts[d];
	if (!df->outputs_walked) {
		const struct task_node *dt = g->nodes.v[d];
		df->outputs_walked = true;
		df->outputs_ok = outputs_collect(ws->projects.v[dt->project]->dir,
						 &dt->cfg->outputs, &df->matched) == 0;
	}
	return df->outputs_ok ? &df->matched : NULL;
}

void taskfacts_start(struct taskfacts *facts, const struct workspace *ws, const struct graph *g,
		     const struct taskcache *tc, size_t i)
{
	struct taskfacts *f = &facts[i];
	const struct task_node *t = g->nodes.v[i];
	struct strvec *started[] = {&f->linked, &f->dep_outputs, &f->dep_keyed, &f->outside,
				    &f->tools};
	for (size_t k = 0; k < sizeof started / sizeof *started; k++)
		strvec_clear(started[k]);
	const struct project *p = ws->projects.v[t->project];
	workspace_linked_projects(ws, p, &f->linked);
	for (size_t k = 0; k < f->deps.n; k++) {
		size_t d = f->deps.v[k];
		const char *dir = ws->projects.v[g->nodes.v[d]->project]->dir;
		const struct strvec *outs = taskfacts_outputs(facts, ws, g, d);
		for (size_t o = 0; outs && o < outs->n; o++)
			strvec_push_nodup(&f->dep_outputs, path_join(dir, outs->v[o]));
		const struct strvec *keyed = tc ? taskcache_keyed_files(tc, d) : NULL;
		if (keyed)
			strvec_extend(&f->dep_keyed, keyed);
	}
	strvec_sort_unique(&f->dep_outputs);
	strvec_sort_unique(&f->dep_keyed);
	const char *home = getenv("HOME");
	for (size_t r = 0; r < t->cfg->sandbox->allow_read.n; r++) {
		const char *gr = t->cfg->sandbox->allow_read.v[r].s;
		char *abs = gr[0] == '~' && (gr[1] == '/' || !gr[1]) && home
				? path_join(home, gr[1] ? gr + 2 : ".")
				: path_join(p->dir, gr);
		char *real = realpath(abs, NULL);
		if (real && !path_is_within(ws->root, real))
			strvec_push_nodup(&f->outside, real);
		else
			free(real);
		free(abs);
	}
	for (size_t k = 0; !f->project_deps.n && k < p->deps.n; k++) {
		char *real = realpath(ws->projects.v[p->deps.v[k]]->dir, NULL);
		if (real)
			strvec_push_nodup(&f->project_deps, real);
	}
	const struct strvec *tl = tc ? taskcache_tools(tc, i) : NULL;
	if (tl)
		strvec_extend(&f->tools, tl);
	strvec_sort_unique(&f->tools);
}

void taskfacts_release(struct taskfacts *f)
{
	struct strvec *all[] = {
	    &f->dep_dirs,     &f->reads,	  &f->writes,	   &f->input_files, &f->ws_inputs,
	    &f->outputs,      &f->sockets,	  &f->mach,	   &f->sysinfo,	    &f->ignore_read,
	    &f->ignore_write, &f->ignore_network, &f->define,	   &f->pass,	    &f->secrets,
	    &f->vxenv,	      &f->plain_env,	  &f->other_dirs,  &f->other_tasks, &f->other_globs,
	    &f->project_deps, &f->linked,	  &f->dep_outputs, &f->dep_keyed,   &f->outside,
	    &f->tools,	      &f->matched};
	for (size_t k = 0; k < sizeof all / sizeof *all; k++)
		strvec_clear(all[k]);
	free(f->closure);
	vec_free(&f->deps);
	vec_free(&f->judge_deps);
	vec_free(&f->others);
	vec_free(&f->local_ports);
	free(f->yaml);
	memset(f, 0, sizeof *f);
}
