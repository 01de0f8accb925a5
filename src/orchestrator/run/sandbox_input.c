/* sandbox_input.c - a sandboxed task's request input (sandbox_input,
 * request.h), filled from the workspace, the task's config and its graph
 * edges: the grants it declared, its dependencies' outputs and projects,
 * the config files, the other tasks' outputs in its project. One input
 * for the request a run plans, for `vx sandbox show` and for the Seatbelt
 * profile. */
#include "orchestrator/run/sandbox_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/fsafe.h"
#include "orchestrator/keys/inputs.h"
#include "orchestrator/keys/taskenv.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/taskcache.h"
#include "orchestrator/run/taskreads.h"
#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "sandbox/env.h"
#include "sandbox/grants.h"
#include "sandbox/rootfiles.h"
#include "sandbox/seatbelt.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/judge.h"
#include "violations/report.h"

/* Marks node i's dependencies, transitively: their outputs are readable and
 * their projects keyed (the key folds every one of them, through the chain). */
void sandbox_jobs_mark_deps(const struct graph *g, size_t i, bool *seen)
{
	const struct task_node *t = g->nodes.v[i];
	for (size_t k = 0; k < t->deps.n; k++) {
		size_t d = t->deps.v[k].to;
		if (!seen[d]) {
			seen[d] = true;
			sandbox_jobs_mark_deps(g, d, seen);
		}
	}
}

/* What dependency d's output globs match, walked once per run: it has
 * finished when a dependent starts, and every dependent reads the same list
 * (a file made there later is not granted: a false violation at worst,
 * never a read let through). NULL when the walk failed. */
const struct strvec *sandbox_jobs_dep_outputs(struct sandbox_jobs *sj, size_t d)
{
	struct sandbox_job *dj = &sj->jobs[d];
	if (!dj->outputs_walked) {
		const struct task_node *dt = sj->g->nodes.v[d];
		const struct project *dp = sj->ws->projects.v[dt->project];
		dj->outputs_walked = true;
		dj->outputs_ok = outputs_collect(dp->dir, &dt->cfg->outputs, &dj->outputs) == 0;
	}
	return dj->outputs_ok ? &dj->outputs : NULL;
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
	size_t keep = 0;
	for (size_t a = 0; a < list->n; a++) {
		const char *e = list->v[a];
		bool covered = false;
		for (size_t b = 0; b < list->n && !covered; b++) {
			const char *d = list->v[b];
			size_t n = strlen(d);
			covered = b != a && n > 1 && d[n - 1] == '/' && !glob_has_magic(d) &&
				  strlen(e) > n && !strncmp(e, d, n);
		}
		if (covered)
			free(list->v[a]);
		else
			list->v[keep++] = list->v[a];
	}
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
void sandbox_jobs_task_writes(const struct workspace *ws, const struct task_node *t,
			      struct strvec *out)
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

/* What a sandbox_input borrows, owned until input_parts_release. */
struct input_parts {
	struct strvec reads, writes, dep_outs, keyed, define, pass, secrets, vxenv, linked, sockets,
	    mach, sysinfo, plain_env, ws_inputs, other_outs;
	VEC(int) relay_ports;
	VEC(int) local_ports;
	char *stage_pattern; /* vx sandbox show: where a stage would be */
};

static void input_parts_release(struct input_parts *h)
{
	free(h->stage_pattern);
	struct strvec *all[] = {&h->reads,     &h->writes,    &h->dep_outs,  &h->keyed,
				&h->define,    &h->pass,      &h->secrets,   &h->vxenv,
				&h->linked,    &h->sockets,   &h->mach,	     &h->sysinfo,
				&h->plain_env, &h->ws_inputs, &h->other_outs};
	for (size_t k = 0; k < sizeof all / sizeof *all; k++)
		strvec_clear(all[k]);
	vec_free(&h->relay_ports);
	vec_free(&h->local_ports);
}

/* Every project's dir, canonical (grants_canonical), parallel to
 * ws->projects: made with the first request, once a run as the project
 * list itself is, not once a project for every sandboxed task (80
 * realpaths a task were 33% of vx's own time, bench/fixed). */
static const struct strvec *project_dirs(struct sandbox_jobs *sj)
{
	const struct workspace *ws = sj->ws;
	if (sj->projects.n || !ws->projects.n)
		return &sj->projects;
	for (size_t k = 0; k < ws->projects.n; k++)
		strvec_push_nodup(&sj->projects, grants_canonical(ws->projects.v[k]->dir));
	return &sj->projects;
}

/* The files that decide what vx runs, there or not (issue 36: a task that
 * rewrote its vx.yaml ran unsandboxed in the next cycle of `vx watch`):
 * each project's and the root's configs, the root's workspace list and
 * lockfiles, in the canonical dirs: once a run, not once a config file
 * for every sandboxed task. (.npmrc, .yarnrc.yml and .pnpmfile.cjs are
 * mandatory denies.) */
static const struct strvec *config_files(struct sandbox_jobs *sj)
{
	const struct workspace *ws = sj->ws;
	if (sj->configs.n)
		return &sj->configs;
	const struct strvec *dirs = project_dirs(sj);
	for (size_t k = 0; k < ws->projects.n; k++)
		config_paths(dirs->v[k], false, &sj->configs);
	char *root = grants_canonical(ws->root);
	config_paths(root, true, &sj->configs);
	free(root);
	strvec_sort_unique(&sj->configs);
	return &sj->configs;
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

/* The output directories of the other tasks of node i's project (as its
 * configs define them, in this run or not) that i does not wait for
 * (seen: its dependencies in the graph), but those its own outputs share. */
static void other_output_dirs(const struct workspace *ws, const struct graph *g, size_t i,
			      const bool *seen, struct strvec *out)
{
	const struct task_node *t = g->nodes.v[i];
	const struct project *p = ws->projects.v[t->project];
	struct strvec own = STRVEC_INIT, theirs = STRVEC_INIT, names = STRVEC_INIT;
	output_heads_of(t->cfg, p->dir, &own);
	graph_project_task_names(ws, p, false, &names);
	for (size_t k = 0; k < names.n; k++) {
		if (!strcmp(names.v[k], t->task))
			continue;
		bool waits = false;
		for (size_t m = 0; m < g->nodes.n && !waits; m++)
			waits = seen[m] && g->nodes.v[m]->project == t->project &&
				!strcmp(g->nodes.v[m]->task, names.v[k]);
		struct task_cfg *c = waits ? NULL : graph_project_task(ws, p, names.v[k]);
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
			strvec_push(out, theirs.v[k]);
	}
	strvec_clear(&own);
	strvec_clear(&theirs);
	strvec_clear(&names);
}

/* Fills in, node i's sandbox request as written: the one input both
 * translations (the bwrap plan, the Seatbelt profile) are made from. */
static void request_input(struct sandbox_jobs *sj, size_t i, struct sandbox_input *in,
			  struct input_parts *parts)
{
	/* `vx sandbox show` has no jobs: it shows a traced task's tracer as
	 * it runs, writing to the descriptor a run would pass it. */
	const struct task_node *t = sj->g->nodes.v[i];
	bool traced = sj->strace && !t->cfg->persistent &&
		      (sj->showing || (sj->jobs && sj->jobs[i].trace.dir));
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	const struct workspace *ws = sj->ws;
	const struct project *p = ws->projects.v[t->project];
	struct input_parts *h = parts;
	memset(h, 0, sizeof *h);
	const char *stage_pattern = NULL;
	if (sj->showing)
		stage_pattern = h->stage_pattern =
		    path_join(ws->root, ".vx/stage/vx-run-XXXXXX/task-XXXXXX");
	workspace_linked_projects(ws, p, &h->linked);
	const struct strvec *configs = config_files(sj);
	lstr_vec_strings(&t->cfg->input_ws_files, &h->ws_inputs);
	task_reads(ws, t, &h->reads);
	sandbox_jobs_task_writes(ws, t, &h->writes);
	lstr_vec_strings(&sb->unix_sockets.list, &h->sockets);
	bool *seen = xcalloc(sj->g->nodes.n + 1, 1);
	sandbox_jobs_mark_deps(sj->g, i, seen);
	for (size_t d = 0; d < sj->g->nodes.n; d++) {
		if (!seen[d])
			continue;
		const struct task_node *dt = sj->g->nodes.v[d];
		const struct project *dp = ws->projects.v[dt->project];
		if (strvec_find(&h->keyed, dp->dir) < 0)
			strvec_push(&h->keyed, dp->dir);
		const struct strvec *outs = sandbox_jobs_dep_outputs(sj, d);
		for (size_t o = 0; outs && o < outs->n; o++)
			strvec_push_nodup(&h->dep_outs, path_join(dp->dir, outs->v[o]));
	}
	other_output_dirs(ws, sj->g, i, seen, &h->other_outs);
	free(seen);
	for (size_t k = 0; k < t->cfg->env_define.n; k++)
		strvec_pushf(&h->define, "%s=%s", t->cfg->env_define.v[k].key,
			     t->cfg->env_define.v[k].value);
	lstr_vec_strings(&t->cfg->env_pass, &h->pass);
	lstr_vec_strings(&t->cfg->env_pass_secrets, &h->secrets);
	task_env_delta(ws, t, &h->vxenv);
	/* what envMode gives the same task unsandboxed (issue 40: CI was
	 * dropped, so vitest entered watch mode and hung), scrubbed by
	 * env_build (a strvec is NULL-terminated) */
	task_env(ws, t, &h->plain_env);
	for (size_t k = 0; sj->jobs && k < sj->jobs[i].net.relays.n; k++)
		vec_push(&h->relay_ports, sj->jobs[i].net.relays.v[k].port);
	for (size_t k = 0; k < sb->local_binding.list.n; k++)
		vec_push(&h->local_ports, atoi(sb->local_binding.list.v[k].s));
	lstr_vec_strings(&sb->mach_lookup, &h->mach);
	lstr_vec_strings(&sb->system_info, &h->sysinfo);
	const struct sandbox_job *nj = sj->jobs ? &sj->jobs[i] : NULL;
	bool net = nj && sandbox_net_wanted(&nj->net);
	*in = (struct sandbox_input){
	    .workspace_root = ws->root,
	    .project_dir = p->dir,
	    .home = getenv("HOME"),
	    .cache_dir = sj->cache_dir,
	    .run_base = sj->run_base,
	    .bwrap = sj->bwrap,
	    .shell = "/bin/sh",
	    .setsid = sj->setsid,
	    .init = sj->init,
	    .strace = traced ? sj->strace : NULL,
	    .trace_fd = traced && !sj->showing ? sj->jobs[i].trace.fd : -1,
	    .netd = net ? sj->netd : NULL,
	    .net_ctl = !net	     ? NULL
		       : sj->showing ? "$TMPDIR/vx-UID/vx-run-XXXXXX/net-XXXXXX/ctl.sock"
				     : nj->net.ctl,
	    .proxy = nj && nj->net.proxied,
	    .relay_ports = h->relay_ports.v,
	    .n_relays = h->relay_ports.n,
	    .proxy_port = nj && nj->net.proxied ? SANDBOX_PROXY_PORT : 0,
	    .local_ports = h->local_ports.v,
	    .n_local = h->local_ports.n,
	    .local_any = sb->local_binding.any,
	    .mach_lookup = (const char *const *)h->mach.v,
	    .n_mach = h->mach.n,
	    .system_info = (const char *const *)h->sysinfo.v,
	    .n_system_info = h->sysinfo.n,
	    .pty = sb->pty,
	    /* a dev server's outputs must be in place while it runs: never staged */
	    /* shown as it will run: a stage's place spelled as a pattern */
	    .stage_dir = t->cfg->persistent ? NULL
			 : sj->showing	    ? stage_pattern
			 : sj->jobs	    ? sj->jobs[i].stage_dir
					    : NULL,
	    .nested_dirs = (const char *const *)project_dirs(sj)->v,
	    .n_nested = project_dirs(sj)->n,
	    .input_ws_files = (const char *const *)h->ws_inputs.v,
	    .n_input_ws_files = h->ws_inputs.n,
	    .allow_read = (const char *const *)h->reads.v,
	    .n_read = h->reads.n,
	    .allow_write = (const char *const *)h->writes.v,
	    .n_write = h->writes.n,
	    .unix_sockets = (const char *const *)h->sockets.v,
	    .n_sockets = h->sockets.n,
	    .dep_outputs = (const char *const *)h->dep_outs.v,
	    .n_dep_outputs = h->dep_outs.n,
	    .other_outputs = (const char *const *)h->other_outs.v,
	    .n_other_outputs = h->other_outs.n,
	    .keyed_projects = (const char *const *)h->keyed.v,
	    .n_keyed = h->keyed.n,
	    .config_files = (const char *const *)configs->v,
	    .n_config = configs->n,
	    .linked_projects = (const char *const *)h->linked.v,
	    .n_linked = h->linked.n,
	    .hermetic = sb->hermetic,
	    .env =
		{
		    .host = (const char *const *)h->plain_env.v,
		    .define = (const char *const *)h->define.v,
		    .n_define = h->define.n,
		    .pass_through = (const char *const *)h->pass.v,
		    .n_pass = h->pass.n,
		    .pass_secrets = (const char *const *)h->secrets.v,
		    .n_secrets = h->secrets.n,
		    .vx = (const char *const *)h->vxenv.v,
		    .n_vx = h->vxenv.n,
		},
	};
}

int sandbox_jobs_request(struct sandbox_jobs *sj, size_t i, struct sandbox_request *req,
			 struct strbuf *err)
{
	struct sandbox_input in;
	struct input_parts parts;
	request_input(sj, i, &in, &parts);
	int rc = sandbox_request_plan(&in, req, err);
	input_parts_release(&parts);
	return rc;
}

int sandbox_jobs_profile(struct sandbox_jobs *sj, size_t i, const char *tmpdir, struct strbuf *out,
			 struct strvec *notes, struct strbuf *err)
{
	struct sandbox_input in;
	struct input_parts parts;
	request_input(sj, i, &in, &parts);
	in.tmpdir = tmpdir;
	int rc = seatbelt_profile(&in, out, notes, err);
	input_parts_release(&parts);
	return rc;
}

/* The vx.yaml a fix goes into, workspace-relative: the project's own, or
 * where it would be (a project of package.json alone, or the root's tasks). */
char *sandbox_jobs_project_yaml(const struct sandbox_jobs *sj, const struct task_node *t)
{
	const struct project *p = sj->ws->projects.v[t->project];
	return p->cfg && p->cfg != sj->ws->cfg ? path_relative(sj->ws->root, p->cfg->path)
					       : xasprintf("%s/vx.yaml", p->rel);
}