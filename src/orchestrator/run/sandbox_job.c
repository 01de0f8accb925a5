/* sandbox_job.c - from a task to its sandbox request, and the wrapped job.
 *
 * The request is built when the task starts, not when the run is planned:
 * a glob grant expands to what exists then (a bind is a mount), and the
 * outputs of the task's dependencies exist only once they have run. */
#include "orchestrator/run/sandbox_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/fsafe.h"
#include "orchestrator/keys/inputs.h"
#include "orchestrator/run/sandbox_net.h"
#include "orchestrator/run/taskcache.h"
#include "orchestrator/run/taskreads.h"
#include "orchestrator/keys/taskenv.h"
#include "sandbox/bwrap.h"
#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "sandbox/env.h"
#include "sandbox/grants.h"
#include "sandbox/initpath.h"
#include "sandbox/probe.h"
#include "sandbox/seatbelt.h"
#include "sandbox/stage.h"
#include "util/compat.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/judge.h"
#include "violations/report.h"

extern char **environ;

/* vx-sandbox-init beside the running vx (a build tree) or in its
 * ../libexec/vx/ (an install): sandbox/initpath.h; else NULL and the
 * wrapper is the shell script (bwrap.c). */
static char *sandbox_init_path(const char *self)
{
	return initpath_of(self, NULL);
}

char *sandbox_jobs_helper(void)
{
	char *self = realpath("/proc/self/exe", NULL);
	char *init = sandbox_init_path(self);
	free(self);
	return init;
}

int sandbox_jobs_init(struct sandbox_jobs *sj, const struct workspace *ws, const struct graph *g,
		      const char *cache_dir, unsigned flags)
{
	memset(sj, 0, sizeof *sj);
	sj->ws = ws;
	sj->g = g;
	sj->cache_dir = cache_dir;
	sj->quiet_report = flags & SANDBOX_JOBS_QUIET;
	sj->showing = flags & SANDBOX_JOBS_SHOW;
	sj->darwin = flags & SANDBOX_JOBS_DARWIN;
	sj->stage.lock_fd = -1;
	size_t n = g->nodes.n + 1;
	sj->jobs = xcalloc(n, sizeof *sj->jobs);
	for (size_t i = 0; i < n; i++)
		sj->jobs[i].signal_rd = -1;
	const struct task_node *first = NULL;
	bool any_net = false;
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		const struct sandbox_cfg *sb = t->cfg->sandbox;
		if (!sb || !t->command)
			continue;
		if (!first)
			first = t;
		/* The sandbox's own rule, asked before anything runs so the
		 * error can name the config line. */
		struct strvec pass = STRVEC_INIT, secrets = STRVEC_INIT;
		lstr_vec_strings(&t->cfg->env_pass, &pass);
		lstr_vec_strings(&t->cfg->env_pass_secrets, &secrets);
		struct env_input ein = {
		    .pass_through = (const char *const *)pass.v,
		    .n_pass = pass.n,
		    .pass_secrets = (const char *const *)secrets.v,
		    .n_secrets = secrets.n,
		};
		struct strbuf why = STRBUF_INIT;
		long bad = env_refused(&ein, &why);
		strvec_clear(&pass);
		strvec_clear(&secrets);
		if (bad >= 0) {
			config_error(&t->cfg->env_pass.v[bad].loc, "%s: %s", t->id, why.buf);
			strbuf_release(&why);
			return -1;
		}
		strbuf_release(&why);
		struct sandbox_job *sjob = &sj->jobs[i];
		if (sandbox_jobs_net_rules(t, &sjob->net, sj->darwin) < 0)
			return -1;
		sjob->net.proxied = sjob->net.rules.any || sjob->net.rules.allow.n;
		any_net = any_net || sandbox_net_wanted(&sjob->net);
		if (sb->unix_sockets.any)
			return config_error(
			    &sb->unix_sockets.loc,
			    "%s: unixSockets: true cannot be built: the host's sockets "
			    "are not enumerable, and the docker socket or an agent's "
			    "must never ride in unnamed; list the socket paths",
			    t->id);
	}
	/* vx's own binary: the network helper, and beside it vx-sandbox-init */
	char *self = sj->darwin || !first ? NULL : realpath("/proc/self/exe", NULL);
	if (any_net && !sj->darwin && !(sj->netd = self ? xstrdup(self) : NULL))
		return error_errno("a sandboxed task has a network or port grant, and vx cannot "
				   "find its own binary to run as its network helper");
	if (!first || sj->darwin)
		return 0; /* a Seatbelt profile is shown: nothing of Linux's is asked for */
	/* The probes' answer is kept in WS/.vx/probe (probe.h): a run whose
	 * machine did not change spawns no trial. vx sandbox show keeps none. */
	char *state =
	    sj->showing || workspace_vx_dir(ws) < 0 ? NULL : path_join(ws->root, ".vx/probe");
	struct probe p, st;
	sj->init = sandbox_init_path(self);
	probe_sandbox(state, sj->init, &p, &st);
	free(state);
	if (!p.works) {
		error("%s declares sandbox:, and this machine cannot give one: %s", first->id,
		      p.reason ? p.reason : "bwrap does not work");
		probe_free(&p);
		probe_free(&st);
		free(self);
		return -1;
	}
	sj->bwrap = xstrdup(p.path);
	probe_free(&p);
	sj->setsid = probe_which("setsid");
	free(self);
	if (st.works)
		sj->strace = xstrdup(st.path);
	else
		warning(
		    "sandboxed tasks run untraced this run (the walls still hold, but no violation "
		    "can be reported): %s",
		    st.reason ? st.reason : "strace does not work");
	probe_free(&st);
	if (!sj->setsid) {
		char *missing = probe_missing("setsid", "util-linux");
		error("%s declares sandbox:, and %s", first->id, missing);
		free(missing);
		return -1;
	}
	return 0;
}

/* Marks node i's dependencies, transitively: their outputs are readable and
 * their projects keyed (the key folds every one of them, through the chain). */
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

static int spawn_actions(posix_spawn_file_actions_t *fa, void *data)
{
	const struct sandbox_job *sjob = data;
	return sandbox_spawn_actions(&sjob->fds, sjob->signal_rd, fa);
}

/* What dependency d's output globs match, walked once per run: it has
 * finished when a dependent starts, and every dependent reads the same list
 * (a file made there later is not granted: a false violation at worst,
 * never a read let through). NULL when the walk failed. */
static const struct strvec *dep_outputs(struct sandbox_jobs *sj, size_t d)
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

/* What a sandbox_input borrows, owned until input_parts_release. */
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
 * still win (request.c); an output that leaves the project, a negation
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
	task_writes(ws, t, &h->writes);
	lstr_vec_strings(&sb->unix_sockets.list, &h->sockets);
	bool *seen = xcalloc(sj->g->nodes.n + 1, 1);
	mark_deps(sj->g, i, seen);
	for (size_t d = 0; d < sj->g->nodes.n; d++) {
		if (!seen[d])
			continue;
		const struct task_node *dt = sj->g->nodes.v[d];
		const struct project *dp = ws->projects.v[dt->project];
		if (strvec_find(&h->keyed, dp->dir) < 0)
			strvec_push(&h->keyed, dp->dir);
		const struct strvec *outs = dep_outputs(sj, d);
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
static char *project_yaml(const struct sandbox_jobs *sj, const struct task_node *t)
{
	const struct project *p = sj->ws->projects.v[t->project];
	return p->cfg && p->cfg != sj->ws->cfg ? path_relative(sj->ws->root, p->cfg->path)
					       : xasprintf("%s/vx.yaml", p->rel);
}

/* The files the task's own inputs.workspaceFiles key that the sandbox hides,
 * as allow.read entries (relative to the project), appended to out. The
 * workspace's inputs.workspaceFiles are left out: they invalidate every task
 * at once (a lockfile), which claims no task reads them. */
static void keyed_hidden(const struct sandbox_jobs *sj, const struct task_node *t,
			 const struct sandbox_request *req, const struct strvec *keyed,
			 struct strvec *out)
{
	struct strvec own = STRVEC_INIT;
	lstr_vec_strings(&t->cfg->input_ws_files, &own);
	for (size_t k = 0; keyed && own.n && k < keyed->n; k++) {
		if (!globlist_match(own.v, own.n, keyed->v[k]))
			continue;
		char *abs = path_join(sj->ws->root, keyed->v[k]);
		char *real = realpath(abs, NULL);
		const char *p = real ? real : abs;
		if (!path_is_within(req->cwd, p) && !sandbox_request_sees(req, p))
			strvec_push_nodup(out, path_relative(req->cwd, p));
		free(real);
		free(abs);
	}
	strvec_clear(&own);
}

/* A task refused before it ran because its key holds files its sandbox
 * hides (hidden: project-relative) is judged all the same, so --report
 * json, sarif and github carry the refusal and its fix: a read violation
 * per file, refused by vx itself, and the allow.read grant. */
static void hidden_verdict(struct sandbox_job *sjob, const struct strvec *hidden)
{
	struct verdict *v = &sjob->verdict;
	if (sjob->judged)
		verdict_release(v);
	memset(v, 0, sizeof *v);
	for (size_t k = 0; k < hidden->n; k++) {
		struct violation x = {
		    .op = VIOLATION_READ,
		    .path = path_join(sjob->req.cwd, hidden->v[k]),
		    .syscall = "key",
		    .reason = xstrdup("its key holds it, and its sandbox hides it"),
		};
		vec_push(&v->violations, x);
		strvec_push(&v->fix_read, hidden->v[k]);
	}
	free(sjob->project_dir);
	sjob->project_dir = xstrdup(sjob->req.cwd);
	sjob->judged = true;
}

static int guard_record(struct sandbox_jobs *sj, struct sandbox_job *sjob,
			const struct task_node *t);

typedef VEC(struct strvec) glob_lists;

/* The outputs of each other task of the graph in t's project, one glob
 * list a task ("!" takes away within its own list only). */
static void others_outputs(const struct graph *g, const struct task_node *t, glob_lists *out)
{
	for (size_t k = 0; k < g->nodes.n; k++) {
		const struct task_node *o = g->nodes.v[k];
		if (o == t || o->project != t->project || !o->cfg->outputs.n)
			continue;
		struct strvec globs = STRVEC_INIT;
		lstr_vec_strings(&o->cfg->outputs, &globs);
		vec_push(out, globs);
	}
}

/* Does one of lists match rel? (Two tasks writing one dist/: neither's
 * run removes the other's.) */
static bool lists_match(const glob_lists *lists, const char *rel)
{
	for (size_t k = 0; k < lists->n; k++)
		if (globlist_match(lists->v[k].v, lists->v[k].n, rel))
			return true;
	return false;
}

/* On a miss, what a sandboxed cached task's outputs match is removed
 * before it runs, as Bazel does (issue 54 items 3 and 5): a task that read
 * what an earlier run of it left (Tailwind's CLI reads dist/styles.css
 * before it writes it; tsc -b the .d.ts its build info describes) made its
 * result depend on what no key holds, failed as read-unkeyed on the first
 * rebuild after an edit, and learn's rounds took turns removing such
 * leftovers and never converged. What a hit would restore is what a miss
 * starts without. A tool's own cache that validates itself by content
 * stays (.next/cache when the outputs do not take it away, .eslintcache;
 * judge_tool_cache), and so does what another task of the project
 * declares. A file only: an empty directory left is no input. */
static void clear_outputs(struct sandbox_jobs *sj, const struct task_node *t)
{
	if (t->cfg->persistent || !t->cfg->outputs.n || !taskcache_cacheable(t))
		return;
	const char *dir = sj->ws->projects.v[t->project]->dir;
	struct strvec outs = STRVEC_INIT;
	int rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || outputs_collect(dir, &t->cfg->outputs, &outs)) {
		if (rootfd >= 0)
			close(rootfd);
		strvec_clear(&outs);
		return;
	}
	glob_lists others = {0};
	others_outputs(sj->g, t, &others);
	struct fsafe_parent pc = {0};
	for (size_t k = 0; k < outs.n; k++) {
		const char *rel = outs.v[k], *leaf;
		if (judge_tool_cache(rel) || lists_match(&others, rel))
			continue;
		int pfd = fsafe_parent_open(&pc, rootfd, rel, false, &leaf);
		struct stat st;
		if (pfd >= 0 && fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode) && unlinkat(pfd, leaf, 0) < 0 && errno != ENOENT)
			warning("%s: cannot remove its earlier output %s: %s", t->id, rel,
				strerror(errno));
	}
	fsafe_parent_release(&pc);
	close(rootfd);
	strvec_clear(&outs);
	for (size_t k = 0; k < others.n; k++)
		strvec_clear(&others.v[k]);
	vec_free(&others);
}

int sandbox_jobs_wrap(struct sandbox_jobs *sj, size_t i, struct job *job,
		      const struct strvec *keyed)
{
	const struct task_node *t = sj->g->nodes.v[i];
	if (!t->cfg->sandbox || !job->argv)
		return 0;
	struct sandbox_job *sjob = &sj->jobs[i];
	long long t_wrap = loop_now_us();
	sjob->keyed = t->cfg->sandbox->no_verify_key ? NULL : keyed;
	if (!sj->showing)
		clear_outputs(sj, t);
	strvec_clear(&sjob->argv); /* a retry builds everything afresh */
	if (sj->strace && !t->cfg->persistent) {
		/* The run is traced, so the task's key says traced: a task that
		 * cannot be traced must not run (it would be saved unjudged). A
		 * server is never cached and its trace would grow for as long
		 * as it serves, to be read only after it exits: untraced. */
		trace_log_remove(&sjob->trace); /* a retry's log is a new one */
		if (trace_log_make(&sjob->trace, sj->run_dir)) {
			error_errno("%s: cannot make its trace log in %s", t->id,
				    sj->run_dir ? sj->run_dir : "/tmp");
			job->reason = "its trace log could not be made (see above)";
			return -1;
		}
	}
	if (sj->stage.path && !sjob->stage_dir) {
		char *tmpl = path_join(sj->stage.path, "task-XXXXXX");
		if (mkdtemp(tmpl))
			sjob->stage_dir = tmpl;
		else
			free(tmpl); /* no stage: the grants are bound as they are */
	}
	if (sandbox_net_wanted(&sjob->net) && sandbox_jobs_net_start(sj, sjob, t, job) < 0)
		return -1;
	struct strbuf err = STRBUF_INIT;
	long long t_plan = loop_now_us();
	int rc = sandbox_jobs_request(sj, i, &sjob->req, &err);
	long long t_prepare = loop_now_us();
	sjob->us_plan = t_prepare - t_plan;
	if (!rc)
		rc = sandbox_request_prepare(&sjob->req, &err);
	if (!rc && !sjob->req.stage && sjob->stage_dir) {
		rmdir(sjob->stage_dir);
		free(sjob->stage_dir);
		sjob->stage_dir = NULL;
	}
	if (rc) {
		if (err.len)
			error("%s: sandbox refused: %s", t->id, err.buf);
		if (!job->reason)
			job->reason = "its sandbox could not be built (see above)";
	} else {
		sjob->built = true;
		for (size_t k = 0; k < sjob->req.notes.n; k++)
			fprintf(stderr, "%s: note: %s\n", t->id, sjob->req.notes.v[k]);
		struct strvec hidden = STRVEC_INIT;
		keyed_hidden(sj, t, &sjob->req, keyed, &hidden);
		int pfd[2];
		if (hidden.n) {
			char *yaml = project_yaml(sj, t);
			struct strbuf list = STRBUF_INIT;
			for (size_t k = 0; k < hidden.n; k++) {
				strbuf_addstr(&list, k ? ", " : "[");
				strbuf_add_json_string(&list, hidden.v[k]);
			}
			strbuf_addch(&list, ']');
			error("%s: its key holds %s outside the project that its sandbox "
			      "hides, so the key "
			      "would claim a dependency the task cannot read; add to %s "
			      "tasks.%s.sandbox.allow.read: "
			      "%s",
			      t->id, hidden.n == 1 ? "a file" : "files", yaml, t->task, list.buf);
			strbuf_release(&list);
			free(yaml);
			hidden_verdict(sjob, &hidden);
			job->reason = "its key holds a file its sandbox hides (see above)";
			rc = -1;
		} else {
			sandbox_fds_close(&sjob->fds);
			sandbox_argv(&sjob->req, t->command, &sjob->argv, &sjob->fds);
			rc = sandbox_fds_lift(&sjob->fds) < 0 || compat_pipe(pfd, O_CLOEXEC) < 0
				 ? -1
				 : 0;
			if (rc) {
				error_errno("%s: cannot pass its sandbox the fds it needs", t->id);
				job->reason = "its sandbox's fds could not be passed (see above)";
			}
		}
		if (!rc) {
			/* The signal pipe is dup2'd first (onto fd 3), so it
			 * only needs to lie above 3 (dup2 onto itself would
			 * leave it close-on-exec). */
			sjob->signal_rd = fcntl(pfd[0], F_DUPFD_CLOEXEC, SANDBOX_SIGNAL_FD + 1);
			close(pfd[0]);
			if (sjob->signal_rd < 0 || fcntl(pfd[1], F_SETFL, O_NONBLOCK) < 0) {
				/* without its signal pipe the task could not be
				 * stopped from outside: it does not run */
				error_errno("%s: cannot make its sandbox's signal pipe", t->id);
				job->reason =
				    "its sandbox's signal pipe could not be made (see above)";
				if (sjob->signal_rd >= 0)
					close(sjob->signal_rd);
				sjob->signal_rd = -1;
				close(pfd[1]);
				rc = -1;
			}
		}
		if (!rc) {
			job->argv = sjob->argv.v;
			/* bwrap (untraced) or vx-sandbox-init (traced) is pid
			 * 1 of the task's namespace and its /proc/1/environ is
			 * readable there: the tracer, the init and bwrap get no
			 * environment of vx's at all (issue 36:
			 * vx's GITHUB_TOKEN was one `tr` away); the task's
			 * own is in the argv (--setenv), scrubbed. */
			static char *no_env[] = {NULL};
			job->envp = no_env;
			job->relay_signals = true;
			job->signal_fd = pfd[1];
			job->spawn_actions = spawn_actions;
			job->spawn_data = sjob;
		}
		strvec_clear(&hidden);
	}
	if (!rc && guard_record(sj, sjob, t) < 0) {
		error_errno("%s: cannot record in %s/.vx/guard the configs it could make", t->id,
			    sj->ws->root);
		job->reason = "its config guard could not be recorded (see above)";
		rc = -1;
	}
	/* Last, once nothing else can refuse the task: the grants move into
	 * the stage only for a task about to run (its after hook moves them
	 * back; run.c puts back whatever a failed spawn left). */
	if (!rc && sjob->req.stage && sandbox_stage_record(sjob->stage_dir, &sjob->req) < 0) {
		error_errno("%s: cannot stage its write grants in %s", t->id, sjob->stage_dir);
		job->reason = "its write grants could not be staged (see above)";
		rc = -1;
	}
	if (rc) {
		sandbox_net_stop(
		    &sjob->net); /* a refused task holds no port while the run goes on */
		struct strvec none = STRVEC_INIT;
		guard_end(&sjob->guard, &none); /* it never ran: nothing of its appeared */
		strvec_clear(&none);
		/* nothing was moved into its stage (sandbox_stage_record moves last, and
		 * leaves nothing moved when it fails): the stage goes now, and
		 * no unstage runs for a task that never ran (it warned that the
		 * empty stage "keeps what could not be moved back") */
		if (sjob->stage_dir) {
			sandbox_stage_drop(sjob->stage_dir);
			free(sjob->stage_dir);
			sjob->stage_dir = NULL;
		}
	}
	strbuf_release(&err);
	sjob->us_prepare = loop_now_us() - t_wrap - sjob->us_plan;
	return rc;
}

/* Records the configs the task could make where no mount keeps them out
 * (sandbox/guard.h): those of its request's configs (in a writable place,
 * named by no write grant) that are missing now. Traced or not: a traced
 * task's write that makes one is a violation, but the file stays, and
 * only the record keeps the next plan from it (or a kill -9 of vx from
 * skipping the check). Returns 0, or -1 with errno. */
static int guard_record(struct sandbox_jobs *sj, struct sandbox_job *sjob,
			const struct task_node *t)
{
	struct strvec missing = STRVEC_INIT;
	for (size_t k = 0; k < sjob->req.configs.n; k++) {
		struct stat st;
		if (lstat(sjob->req.configs.v[k], &st) < 0 && errno == ENOENT)
			strvec_push(&missing, sjob->req.configs.v[k]);
	}
	int rc = 0;
	if (missing.n) {
		char *dir = path_join(sj->ws->root, ".vx/guard");
		rc = workspace_vx_dir(sj->ws) < 0
			 ? -1
			 : guard_begin(&sjob->guard, dir, t->id, (const char *const *)missing.v,
				       missing.n);
		free(dir);
	}
	strvec_clear(&missing);
	return rc;
}

/* After node i ran: a config of its guard record that exists now was made
 * where it could write, while it ran (issue 53 item 11: an untraced
 * persistent task planted app/package.json with a lint script, and `vx
 * run lint` ran it). Each is a write violation (one the judge made from
 * the trace is not made twice) and fails the task; the record stays, so
 * no plan is made from it until it is removed. Returns -1 when a task that
 * exited 0 must fail. */
static int guard_verdict(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	const struct task_node *t = sj->g->nodes.v[i];
	struct strvec appeared = STRVEC_INIT;
	guard_end(&sjob->guard, &appeared);
	if (!appeared.n)
		return 0;
	if (!sjob->judged) {
		memset(&sjob->verdict, 0, sizeof sjob->verdict);
		free(sjob->project_dir);
		sjob->project_dir = xstrdup(sjob->req.cwd);
		sjob->judged = true;
	}
	struct verdict *v = &sjob->verdict;
	size_t added = 0;
	for (size_t k = 0; k < appeared.n; k++) {
		bool judged = false;
		for (size_t x = 0; x < v->violations.n && !judged; x++)
			judged = v->violations.v[x].path &&
				 !strcmp(v->violations.v[x].path, appeared.v[k]);
		if (judged)
			continue;
		struct violation x = {
		    .op = VIOLATION_WRITE,
		    .path = xstrdup(appeared.v[k]),
		    .syscall = "guard",
		    .reason = xstrdup("a config vx plans from, missing when the task started, "
				      "was made where it could write"),
		};
		vec_push(&v->violations, x);
		added++;
		if (!sj->quiet_report) {
			char *root = grants_canonical(sj->ws->root);
			char *shown = path_relative(root, appeared.v[k]);
			free(root);
			fprintf(
			    stderr,
			    "%s: violation: write %s (a config that was missing when it started, "
			    "made where it could write: vx plans from none until it is "
			    "removed)\n",
			    t->id, shown);
			free(shown);
		}
	}
	strvec_clear(&appeared);
	if (!added || job->state != JOB_SUCCEEDED)
		return 0;
	snprintf(sjob->reason, sizeof sjob->reason, "%zu sandbox violation%s", v->violations.n,
		 v->violations.n == 1 ? "" : "s");
	job->reason = sjob->reason;
	return -1;
}

void sandbox_jobs_unstage(struct sandbox_jobs *sj, size_t i)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	if (sjob->built && !sjob->stage_dir)
		sandbox_request_sweep_dirs(&sjob->req); /* unstaged, or never staged */
	if (!sjob->built || !sjob->req.stage || !sjob->stage_dir)
		return;
	const struct task_node *t = sj->g->nodes.v[i];
	struct strvec aw = STRVEC_INIT;
	task_writes(sj->ws, t, &aw);
	sandbox_request_unstage(&sjob->req, (const char *const *)aw.v, aw.n);
	strvec_clear(&aw);
	if (sandbox_stage_drop(sjob->stage_dir)) {
		warning(
		    "%s: %s keeps what could not be moved back to %s; the next run puts it back",
		    t->id, sjob->stage_dir, sjob->req.cwd);
	}
	free(sjob->stage_dir);
	sjob->stage_dir = NULL; /* unstaged: never twice; req.stage stays for the judge */
	sandbox_request_sweep_dirs(&sjob->req);
}

void sandbox_jobs_start(struct sandbox_jobs *sj, const struct rundir *run, struct loop *loop)
{
	sj->run_dir = run->path;
	sj->run_base = run->base;
	sj->loop = loop;
	if (!sj->bwrap)
		return;
	char *base = path_join(sj->ws->root, ".vx/stage");
	if (workspace_vx_dir(sj->ws) == 0 && (mkdir(base, 0700) == 0 || errno == EEXIST) &&
	    rundir_open_reaping(&sj->stage, base, sandbox_stage_reap) < 0)
		sj->stage = (struct rundir){NULL, NULL, -1};
	free(base);
}

void sandbox_jobs_finish(struct sandbox_jobs *sj)
{
	/* Before the loop goes: whatever still listens on it (a task whose
	 * wrap failed late) is released, and the lookups with it. */
	for (size_t i = 0; sj->jobs && i < sj->g->nodes.n; i++)
		sandbox_net_stop(&sj->jobs[i].net);
	resolver_free(sj->resolver);
	sj->resolver = NULL;
	sj->loop = NULL;
	sj->run_dir = sj->run_base = NULL;
	if (!sj->stage.path)
		return;
	/* A staged grant a failed spawn never gave back goes home before
	 * the stage is removed: a stage never takes a user's files with it. */
	int sfd = open(sj->stage.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd >= 0) {
		sandbox_stage_reap(sfd);
		close(sfd);
	}
	rundir_close(&sj->stage);
}

/* The proxy's refusals as network violations, each with its reason and
 * the allow.network entry that would have allowed it; ignore.network (a
 * glob on "HOST:PORT" or "HOST") silences one in the report, never in the
 * proxy. */
static void proxy_violations(const struct proxy *p, const struct judge_input *in, struct verdict *v)
{
	size_t n = 0;
	const struct proxy_refusal *r = p ? proxy_refusals(p, &n) : NULL;
	for (size_t k = 0; k < n; k++) {
		if (judge_network_ignored(in, r[k].target))
			continue;
		struct violation x = {.op = VIOLATION_NETWORK,
				      .path = xstrdup(r[k].target),
				      .syscall = "proxy",
				      .reason = xstrdup(r[k].reason)};
		vec_push(&v->violations, x);
		if (r[k].fix)
			strvec_push(&v->fix_network, r[k].fix);
	}
	strvec_sort_unique(&v->fix_network);
	judge_installs(in, v);
}

/* Would the task's proxy let host through, on 443, 80 or a port an entry
 * names? (The output that says a name did not resolve names no port.) */
static bool net_allowed(const char *host, void *ctx)
{
	const struct netrules *rs = ctx;
	bool exact;
	if (netrules_decide(rs, host, 443, &exact) == NET_ALLOWED ||
	    netrules_decide(rs, host, 80, &exact) == NET_ALLOWED)
		return true;
	for (size_t k = 0; k < rs->allow.n; k++)
		if (rs->allow.v[k].port &&
		    netrules_decide(rs, host, rs->allow.v[k].port, &exact) == NET_ALLOWED)
			return true;
	return false;
}

/* "read: the project, its dependencies' outputs, ../shared; write: dist;
 * network: none" */
static void walls_line(const struct sandbox_job *sjob, const struct sandbox_cfg *sb,
		       struct strbuf *sb_out)
{
	strbuf_addstr(sb_out, "read: the project, what it depends on");
	for (size_t k = 0; k < sb->allow_read.n; k++)
		strbuf_addf(sb_out, ", %s", sb->allow_read.v[k].s);
	strbuf_addstr(sb_out, "; write:");
	for (size_t k = 0; k < sb->allow_write.n; k++)
		strbuf_addf(sb_out, "%s %s", k ? "," : "", sb->allow_write.v[k].s);
	if (!sb->allow_write.n)
		strbuf_addstr(sb_out, " its TMPDIR only");
	strbuf_addstr(sb_out, "; network:");
	if (sjob->net.proxied)
		strbuf_addstr(sb_out, sjob->net.rules.any ? " any public host"
							  : " the hosts allow.network lists");
	else if (!sjob->net.relays.n && !sjob->net.binds.n)
		strbuf_addstr(sb_out, " none");
	for (size_t k = 0; k < sjob->net.relays.n; k++)
		strbuf_addf(sb_out, "%s the host's port %d", sjob->net.proxied || k ? "," : "",
			    sjob->net.relays.v[k].port);
	for (size_t k = 0; k < sjob->net.binds.n; k++)
		strbuf_addf(sb_out, "%s serving port %d",
			    sjob->net.proxied || sjob->net.relays.n || k ? "," : "",
			    sjob->net.binds.v[k]);
}

/* The judge's input for task i and all it borrows: one builder for the
 * traced and the untraced path (issue 38: the input was built twice,
 * eleven runs of it copied between the two, fifteen vectors cleared by
 * hand). */
struct judging {
	struct judge_input in;
	struct strvec ignore_read, ignore_write, ignore_net, inputs, ws_inputs, allow_write,
	    outputs;
	struct strvec roots, unwritten; /* judge_input_from_request's */
	struct strvec dep_keyed, dep_outs, dep_cfg, outside, tools;
	struct strvec proj_deps;		/* its project's dependencies' dirs, canonical */
	struct strvec other_tasks, other_globs; /* the project's other tasks' outputs */
	VEC(struct judge_other_output) others;	/* borrowing from those two */
	VEC(bool) other_cycle;			/* parallel to other_tasks */
	VEC(struct judge_dep) deps;
	VEC(int) ports;
};

/* What the key holds through the dependencies of a cached task i (their
 * keys fold into its own): their keyed files and their outputs, each
 * one's config for the notes; its read grants outside the workspace, and
 * the programs its key holds. */
static void judging_keyed(struct sandbox_jobs *sj, size_t i, struct judging *jg)
{
	const struct task_node *t = sj->g->nodes.v[i];
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	const char *p_dir = sj->ws->projects.v[t->project]->dir;
	bool *seen = xcalloc(sj->g->nodes.n + 1, 1);
	mark_deps(sj->g, i, seen);
	for (size_t d = 0; d < sj->g->nodes.n; d++) {
		if (!seen[d])
			continue;
		const struct task_node *dt = sj->g->nodes.v[d];
		const struct project *dp = sj->ws->projects.v[dt->project];
		const struct strvec *k = sj->tc ? taskcache_keyed_files(sj->tc, d) : NULL;
		if (k)
			strvec_extend(&jg->dep_keyed, k);
		const struct strvec *outs = dep_outputs(sj, d);
		for (size_t o = 0; outs && o < outs->n; o++)
			strvec_push_nodup(&jg->dep_outs, path_join(dp->dir, outs->v[o]));
		strvec_push_nodup(&jg->dep_cfg, project_yaml(sj, dt));
		vec_push(&jg->deps,
			 ((struct judge_dep){.dir = dp->dir, .task = dt->task, .id = dt->id}));
	}
	for (size_t d = 0; d < jg->deps.n; d++)
		jg->deps.v[d].config = jg->dep_cfg.v[d];
	free(seen);
	strvec_sort_unique(&jg->dep_keyed);
	strvec_sort_unique(&jg->dep_outs);
	for (size_t r = 0; r < sb->allow_read.n; r++) {
		const char *g = sb->allow_read.v[r].s;
		char *abs = g[0] == '~' && (g[1] == '/' || !g[1]) && getenv("HOME")
				? path_join(getenv("HOME"), g[1] ? g + 2 : ".")
				: path_join(p_dir, g);
		char *real = realpath(abs, NULL);
		if (real && !path_is_within(sj->ws->root, real))
			strvec_push_nodup(&jg->outside, real);
		else
			free(real);
		free(abs);
	}
	const struct strvec *tl = sj->tc ? taskcache_tools(sj->tc, i) : NULL;
	if (tl)
		strvec_extend(&jg->tools, tl);
	strvec_sort_unique(&jg->tools);
}

#define SV(sv) ((const char *const *)(sv).v)

/* The outputs of the other tasks of task i's project that i does not
 * depend on (issue 40 item 3: a build that read lint's cache was told to
 * key it): each task the project runs a command for. */
static void other_outputs(struct sandbox_jobs *sj, size_t i, struct judging *jg)
{
	const struct task_node *t = sj->g->nodes.v[i];
	struct project *p = sj->ws->projects.v[t->project];
	if (p->is_root)
		return;
	struct strvec names = STRVEC_INIT;
	graph_project_task_names(sj->ws, p, true, &names);
	bool *dep = xcalloc(sj->g->nodes.n + 1, 1);
	mark_deps(sj->g, i, dep);
	for (size_t k = 0; k < names.n; k++) {
		if (!strcmp(names.v[k], t->task))
			continue;
		bool waits = false;
		for (size_t d = 0; d < sj->g->nodes.n && !waits; d++)
			waits = dep[d] && sj->g->nodes.v[d]->project == t->project &&
				!strcmp(sj->g->nodes.v[d]->task, names.v[k]);
		struct task_cfg *c = waits ? NULL : graph_project_task(sj->ws, p, names.v[k]);
		/* does that task, where the run holds it, depend on this one?
		 * Then the edge the note would suggest is a cycle */
		bool cycle = false;
		for (size_t m = 0; c && m < sj->g->nodes.n && !cycle; m++) {
			const struct task_node *o = sj->g->nodes.v[m];
			if (o->project != t->project || strcmp(o->task, names.v[k]))
				continue;
			bool *theirs = xcalloc(sj->g->nodes.n + 1, 1);
			mark_deps(sj->g, m, theirs);
			cycle = theirs[i];
			free(theirs);
		}
		if (c)
			for (size_t o = 0; o < c->outputs.n; o++)
				if (c->outputs.v[o].s[0] != '!') {
					strvec_push(&jg->other_tasks, names.v[k]);
					strvec_push(&jg->other_globs, c->outputs.v[o].s);
					vec_push(&jg->other_cycle, cycle);
				}
		if (c)
			task_cfg_free(c);
	}
	free(dep);
	strvec_clear(&names);
	for (size_t k = 0; k < jg->other_tasks.n; k++) {
		struct judge_other_output o = {jg->other_tasks.v[k], jg->other_globs.v[k],
					       jg->other_cycle.v[k]};
		vec_push(&jg->others, o);
	}
}

static void judging_init(struct sandbox_jobs *sj, size_t i, const struct job *job,
			 struct judging *jg)
{
	memset(jg, 0, sizeof *jg);
	struct sandbox_job *sjob = &sj->jobs[i];
	const struct task_node *t = sj->g->nodes.v[i];
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	lstr_vec_strings(&sb->ignore_read, &jg->ignore_read);
	lstr_vec_strings(&sb->ignore_write, &jg->ignore_write);
	lstr_vec_strings(&sb->ignore_network, &jg->ignore_net);
	lstr_vec_strings(&t->cfg->input_files, &jg->inputs);
	lstr_vec_strings(&t->cfg->input_ws_files, &jg->ws_inputs);
	task_writes(sj->ws, t, &jg->allow_write);
	lstr_vec_strings(&t->cfg->outputs, &jg->outputs);
	if (sjob->keyed)
		judging_keyed(sj, i, jg);
	other_outputs(sj, i, jg);
	const struct project *p = sj->ws->projects.v[t->project];
	for (size_t k = 0; k < p->deps.n; k++) {
		char *real = realpath(sj->ws->projects.v[p->deps.v[k]]->dir, NULL);
		if (real)
			strvec_push_nodup(&jg->proj_deps, real);
	}
	for (size_t k = 0; k < sjob->net.relays.n; k++)
		vec_push(&jg->ports, sjob->net.relays.v[k].port);
	for (size_t k = 0; k < sjob->net.binds.n; k++)
		vec_push(&jg->ports, sjob->net.binds.v[k]);
	jg->in = (struct judge_input){
	    .workspace_root = sj->ws->root,
	    .home = getenv("HOME"),
	    .tmpdir = "/tmp",
	    .wrapped = true,
	    .ignore_read = SV(jg->ignore_read),
	    .n_ignore_read = jg->ignore_read.n,
	    .ignore_write = SV(jg->ignore_write),
	    .n_ignore_write = jg->ignore_write.n,
	    .ignore_network = SV(jg->ignore_net),
	    .n_ignore_network = jg->ignore_net.n,
	    .cached = taskcache_cacheable(t),
	    .input_files = SV(jg->inputs),
	    .n_input_files = jg->inputs.n,
	    .inputs_explicit = (t->cfg->set & TF_INPUT_FILES) != 0,
	    .input_ws_files = SV(jg->ws_inputs),
	    .n_input_ws_files = jg->ws_inputs.n,
	    .allow_write = SV(jg->allow_write),
	    .n_allow_write = jg->allow_write.n,
	    .keyed = sjob->keyed ? SV(*sjob->keyed) : NULL,
	    .n_keyed = sjob->keyed ? sjob->keyed->n : 0,
	    .dep_keyed = SV(jg->dep_keyed),
	    .n_dep_keyed = jg->dep_keyed.n,
	    .dep_outputs = SV(jg->dep_outs),
	    .n_dep_outputs = jg->dep_outs.n,
	    .deps = jg->deps.v,
	    .n_deps = jg->deps.n,
	    .project_deps = SV(jg->proj_deps),
	    .n_project_deps = jg->proj_deps.n,
	    .task = t->task,
	    .other_outputs = jg->others.v,
	    .n_other_outputs = jg->others.n,
	    .own_outputs = SV(jg->outputs),
	    .n_own_outputs = jg->outputs.n,
	    .externals_keyed = sj->externals_keyed,
	    .run_started = sj->run_started,
	    .outside_grants = SV(jg->outside),
	    .n_outside_grants = jg->outside.n,
	    .toolchain = SV(jg->tools),
	    .n_toolchain = jg->tools.n,
	    .net_allowed = sjob->net.proxied ? net_allowed : NULL,
	    .net_ctx = &sjob->net.rules,
	    .host_listens = bridge_host_listens,
	    .net_ports = jg->ports.v,
	    .n_net_ports = jg->ports.n,
	};
	judge_input_from_request(&jg->in, &sjob->req, &jg->roots, &jg->unwritten);
	jg->in.output = scheduler_job_log_end(job, &jg->in.output_len);
	jg->in.failed = job->state != JOB_SUCCEEDED;
}

static void judging_release(struct judging *jg)
{
	struct strvec *all[] = {
	    &jg->ignore_read, &jg->ignore_write, &jg->ignore_net, &jg->inputs,	  &jg->ws_inputs,
	    &jg->allow_write, &jg->outputs,	 &jg->roots,	  &jg->unwritten, &jg->dep_keyed,
	    &jg->dep_outs,    &jg->dep_cfg,	 &jg->outside,	  &jg->tools,	  &jg->proj_deps,
	    &jg->other_tasks, &jg->other_globs};
	for (size_t k = 0; k < sizeof all / sizeof *all; k++)
		strvec_clear(all[k]);
	vec_free(&jg->deps);
	vec_free(&jg->ports);
	vec_free(&jg->others);
	vec_free(&jg->other_cycle);
}

/* A persistent task ran untraced: when it failed on its own (not stopped
 * by vx), beside its output go the walls it ran under and what its output
 * alone tells (a hidden path its last line names, a name that did not
 * resolve), each with the grant that would have let it through. */
static int judge_untraced(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	const struct task_node *t = sj->g->nodes.v[i];
	if (!sjob->built || job->state != JOB_FAILED || job->reason || sj->quiet_report)
		return 0;
	struct judging jg;
	judging_init(sj, i, job, &jg);
	struct verdict v;
	judge_output(&jg.in, &v);
	proxy_violations(sjob->net.proxy, &jg.in, &v);
	struct strbuf out = STRBUF_INIT;
	strbuf_addf(&out, "%s: it ran untraced in its sandbox (a persistent task), where it could ",
		    t->id);
	walls_line(sjob, t->cfg->sandbox, &out);
	strbuf_addch(&out, '\n');
	if (v.notes.n || v.violations.n) {
		char *yaml = project_yaml(sj, t);
		report_text(t->id, yaml, t->task, &jg.in, &v, &out);
		free(yaml);
	}
	fputs(out.buf, stderr);
	strbuf_release(&out);
	sjob->project_dir = xstrdup(sjob->req.cwd);
	sjob->verdict = v;
	sjob->judged = true;
	judging_release(&jg);
	return 0;
}

static int judge(struct sandbox_jobs *sj, size_t i, struct job *job);

int sandbox_jobs_judge(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	long long t = loop_now_us();
	int rc = judge(sj, i, job);
	if (guard_verdict(sj, i, job) < 0)
		rc = -1;
	sj->jobs[i].us_judge = loop_now_us() - t;
	return rc;
}

static int judge(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	if (sj->g->nodes.v[i]->cfg->persistent)
		return judge_untraced(sj, i, job);
	size_t n_refused = 0;
	if (sjob->net.proxy)
		proxy_refusals(sjob->net.proxy, &n_refused);
	if (!sjob->built || (!sjob->trace.dir && !n_refused))
		return 0;
	const struct task_node *t = sj->g->nodes.v[i];
	struct judging jg;
	judging_init(sj, i, job, &jg);
	struct verdict v;
	if (sjob->trace.dir)
		judge_trace(&jg.in, sjob->trace.path, &v);
	else
		memset(&v, 0, sizeof v); /* untraced: the proxy's word is all there is */
	proxy_violations(sjob->net.proxy, &jg.in, &v);
	sjob->project_dir = xstrdup(sjob->req.cwd);
	bool succeeded = job->state == JOB_SUCCEEDED;
	/* what it read of the other packages, for vx boundaries */
	if (succeeded && sjob->trace.dir && !v.incomplete &&
	    taskreads_save(sj->ws, t->id, sjob->req.cwd, &v.reads) < 0)
		warning("%s: its reads could not be kept in .vx/reads: %s", t->id, strerror(errno));
	int rc = 0;
	if (!sj->quiet_report && (v.violations.n || (!succeeded && (v.notes.n || v.fix_read.n)))) {
		struct strbuf out = STRBUF_INIT;
		char *yaml = project_yaml(sj, t);
		report_text(t->id, yaml, t->task, &jg.in, &v, &out);
		fputs(out.buf, stderr);
		strbuf_release(&out);
		free(yaml);
	}
	if (succeeded && v.violations.n) {
		snprintf(sjob->reason, sizeof sjob->reason, "%zu sandbox violation%s",
			 v.violations.n, v.violations.n == 1 ? "" : "s");
		job->reason = sjob->reason; /* lives as long as sj: the summary reads it */
		rc = -1;
	} else if (succeeded && v.incomplete) {
		fprintf(
		    stderr,
		    "%s: the trace ended before the command did (its tracer died or was killed): "
		    "failed, and not cached\n",
		    t->id);
		job->reason = "incomplete trace";
		rc = -1;
	}
	sjob->verdict = v; /* kept for --report json|sarif|github */
	sjob->judged = true;
	judging_release(&jg);
	return rc;
}

const struct verdict *sandbox_jobs_verdict(const struct sandbox_jobs *sj, size_t i)
{
	return sj->jobs && sj->jobs[i].judged ? &sj->jobs[i].verdict : NULL;
}

struct judge_input sandbox_jobs_report_input(const struct sandbox_jobs *sj, size_t i)
{
	struct judge_input in = {
	    .project_dir = sj->jobs[i].project_dir,
	    .workspace_root = sj->ws->root,
	    .home = getenv("HOME"),
	    .tmpdir = "/tmp",
	};
	return in;
}

void sandbox_jobs_configs_written(const struct sandbox_jobs *sj, struct strvec *paths,
				  struct strvec *ids)
{
	for (size_t i = 0; sj->jobs && i < sj->g->nodes.n; i++) {
		const struct sandbox_job *sjob = &sj->jobs[i];
		for (size_t k = 0; sjob->judged && k < sjob->verdict.notes.n; k++) {
			const struct judge_note *n = &sjob->verdict.notes.v[k];
			if (strcmp(n->kind, "config"))
				continue;
			strvec_push(paths, n->path);
			strvec_push(ids, sj->g->nodes.v[i]->id);
		}
	}
}

void sandbox_jobs_phases(const struct sandbox_jobs *sj, size_t i, struct strbuf *out)
{
	const struct sandbox_job *sjob = sj->jobs ? &sj->jobs[i] : NULL;
	if (!sjob || !sj->g->nodes.v[i]->cfg->sandbox || !(sjob->us_plan || sjob->us_prepare))
		return;
	strbuf_addf(out,
		    ",\"plan_us\":%lld,\"prepare_us\":%lld,\"judge_us\":%lld,\"cleanup_us\":%lld",
		    sjob->us_plan, sjob->us_prepare, sjob->us_judge, sjob->us_cleanup);
}

static void done(struct sandbox_jobs *sj, size_t i);

void sandbox_jobs_done(struct sandbox_jobs *sj, size_t i)
{
	long long t = loop_now_us();
	done(sj, i);
	sj->jobs[i].us_cleanup = loop_now_us() - t;
}

static void done(struct sandbox_jobs *sj, size_t i)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	trace_log_remove(&sjob->trace);
	sandbox_net_stop(&sjob->net);
	/* not judged (a retry): a record naming what appeared stays */
	struct strvec appeared = STRVEC_INIT;
	guard_end(&sjob->guard, &appeared);
	strvec_clear(&appeared);
	sandbox_jobs_unstage(sj, i);
	if (sjob->signal_rd >= 0) {
		close(sjob->signal_rd);
		sjob->signal_rd = -1;
	}
	sandbox_fds_close(&sjob->fds);
	if (!sjob->built)
		return;
	sandbox_request_sweep(&sjob->req);
	sandbox_request_release(&sjob->req);
	sjob->built = false;
}

void sandbox_jobs_release(struct sandbox_jobs *sj)
{
	sandbox_jobs_finish(sj);
	for (size_t i = 0; sj->jobs && i < sj->g->nodes.n; i++) {
		sandbox_jobs_done(sj, i);
		strvec_clear(&sj->jobs[i].argv);
		strvec_clear(&sj->jobs[i].outputs);
		if (sj->jobs[i].judged)
			verdict_release(&sj->jobs[i].verdict);
		free(sj->jobs[i].project_dir);
		sandbox_net_release(&sj->jobs[i].net);
	}
	free(sj->jobs);
	strvec_clear(&sj->configs);
	strvec_clear(&sj->projects);
	free(sj->netd);
	free(sj->bwrap);
	free(sj->setsid);
	free(sj->init);
	free(sj->strace);
}
