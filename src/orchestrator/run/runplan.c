/* runplan.c - a run's plan (runplan.h): the graph, the shard's part, the
 * keys, the jobs. */
#include "orchestrator/run/runplan.h"

#include <stdlib.h>
#include <string.h>

#include "orchestrator/keys/listing.h"
#include "orchestrator/plan/filter.h"
#include "orchestrator/run/joblog.h"
#include "orchestrator/run/shardrun.h"
#include "orchestrator/run/wslock.h"
#include "sandbox/guard.h"
#include "util/die.h"
#include "util/glob.h"
#include "util/path.h"

/* Turborepo's package inference: started inside a project's directory (not
 * the root's), with no --filter, --affected or PROJECT#TASK, a run selects
 * that project, as if --filter={DIR} (issue 42: run from packages/core,
 * turbo ran its 5 tasks and vx the workspace's 15). Returns its
 * workspace-relative directory, or NULL. */
static const char *package_inferred(const struct workspace *ws, const char *cwd,
				    const struct strvec *tasks)
{
	for (size_t i = 0; i < tasks->n; i++)
		if (strchr(tasks->v[i], '#'))
			return NULL;
	long p = workspace_project_of(ws, cwd);
	return p >= 0 && !ws->projects.v[p]->is_root ? ws->projects.v[p]->rel : NULL;
}

/* Is a config a sandboxed task could have made there (sandbox/guard.h)?
 * Then, after one error line, nothing is planned from it: every verb that
 * plans comes through here before it reads a task from the workspace. */
static bool guard_refuses(const struct workspace *ws)
{
	char *root = realpath(ws->root, NULL), *guard = path_join(ws->root, ".vx/guard");
	struct strbuf err = STRBUF_INIT;
	bool refused = guard_check(guard, root ? root : ws->root, &err) < 0;
	if (refused)
		error("%s", err.buf);
	strbuf_release(&err);
	free(guard);
	free(root);
	return refused;
}

int runplan_graph(const struct run_opts *o, struct workspace_loader *ld, struct workspace **wsp,
		  struct graph *g)
{
	char *cwd = path_absolute(".");
	struct workspace_loader own = {0};
	if (ld) {
		ld->start = listing_start;
		ld->stop = listing_abandon;
	}
	struct workspace_loader *use = ld ? ld : &own;
	use->single_package = o->single_package;
	struct workspace *ws = workspace_load_with(cwd, use);
	workspace_loader_release(&own); /* the caller keeps nothing: the load's alone */
	if (!ws) {
		free(cwd);
		return -1;
	}
	if (guard_refuses(ws)) {
		free(cwd);
		workspace_free(ws);
		return -1;
	}
	if (o->env_mode != ENV_MODE_CONFIG)
		ws->cfg->env_strict = o->env_mode == ENV_MODE_STRICT;
	if (o->framework_inference != OPT_UNSET)
		ws->cfg->no_framework_inference = o->framework_inference == OPT_FALSE;
	for (size_t i = 0; i < o->global_deps.n; i++) {
		const char *pat = o->global_deps.v[i], *why;
		size_t at;
		if (glob_check(pat[0] == '!' ? pat + 1 : pat, &why, &at)) {
			error("--global-deps %s: %s", pat, why);
			free(cwd);
			workspace_free(ws);
			return -1;
		}
		struct lstr g = {xstrdup(pat), {"--global-deps", 1, 1}};
		vec_push(&ws->cfg->ws_input_files, g);
	}
	size_t np = ws->projects.n;
	bool *selected = xcalloc(np + 1, 1);
	struct filter *filters = xcalloc(o->filters.n + 1, sizeof *filters);
	size_t nf = 0;
	int rc = 0;
	for (size_t i = 0; i < o->filters.n && !rc; i++, nf++)
		rc = filter_parse(o->filters.v[i], ws, cwd, &filters[i]);
	const char *inferred = nf || o->affected ? NULL : package_inferred(ws, cwd, &o->tasks);
	if (inferred) {
		filters = xrealloc(filters, 2 * sizeof *filters);
		filters[0] = (struct filter){.is_path = true, .pattern = xstrdup(inferred)};
		nf = 1;
	}
	if (!rc)
		rc = filter_select(ws, filters, nf, selected);
	if (!rc && o->affected)
		rc = filter_affected(ws, o->affected_ref, selected);
	if (!rc)
		rc = graph_build(g, ws, o->tasks.v, o->tasks.n, selected);
	if (!rc)
		graph_append_args(g, o->args.v, o->args.n);
	for (size_t i = 0; i < nf; i++)
		filter_free(&filters[i]);
	free(filters);
	free(selected);
	free(cwd);
	if (rc) {
		graph_free(g);
		workspace_free(ws);
		return -1;
	}
	*wsp = ws;
	return 0;
}

void plan_run_part_free(struct plan *p)
{
	size_t n = p->jobs ? p->g.nodes.n : 0;
	if (p->sj_init)
		sandbox_jobs_release(&p->sj);
	p->sj_init = false;
	for (size_t i = 0; i < n; i++) {
		joblog_release(&p->jobs[i]);
		strvec_clear(&p->envs[i]);
		strvec_clear(&p->argvs[i]);
		free(p->deps[i]);
	}
	free(p->deps);
	free(p->envs);
	free(p->argvs);
	free(p->jobs);
	p->deps = NULL;
	p->envs = p->argvs = NULL;
	p->jobs = NULL;
}

void plan_free(struct plan *p)
{
	wslock_release(p->lock_fd);
	p->lock_fd = -1;
	if (p->tc_open)
		taskcache_close(&p->tc);
	plan_run_part_free(p);
	free(p->cache_dir);
	free(p->reaper);
	p->reaper = NULL;
	shardrun_free(p->shard);
	free(p->shard);
	if (p->ws) {
		graph_free(&p->g);
		workspace_free(p->ws);
	}
	workspace_loader_release(&p->load);
	memset(p, 0, sizeof *p);
	p->lock_fd = -1; /* a second free closes nothing */
}

/* One job per node: its command under /bin/sh -c, its place and its edges.
 * only: a node not named on the command line runs nothing. */
static void plan_jobs(struct plan *p, bool only)
{
	size_t n = p->g.nodes.n;
	/* No task outlives vx (issue 39): the run's reaper SIGKILLs every
	 * task group still running when vx dies, kill -9 included
	 * (scheduler.h). Without the helper beside vx, none runs. */
	free(p->reaper);
	p->reaper = sandbox_jobs_helper();
	p->jobs = xcalloc(n + 1, sizeof *p->jobs);
	p->envs = xcalloc(n + 1, sizeof *p->envs);
	p->argvs = xcalloc(n + 1, sizeof *p->argvs);
	p->deps = xcalloc(n + 1, sizeof *p->deps);
	for (size_t i = 0; i < n; i++) {
		struct task_node *t = p->g.nodes.v[i];
		struct job *j = &p->jobs[i];
		/* no descriptor yet: a dry run never starts the scheduler, and
		 * its release closed fd 0 of a zeroed job */
		j->log_fd = -1;
		j->signal_fd = -1;
		j->id = t->id;
		j->cwd = p->ws->projects.v[t->project]->dir;
		j->timeout_ms = t->cfg->timeout_ms;
		j->persistent = t->cfg->persistent;
		if (t->cfg->sandbox && t->cfg->sandbox->no_verify_key && taskcache_cacheable(t))
			j->start_note =
			    "sandbox.verifyKey: false: its reads are not checked against "
			    "its key";
		if (t->cfg->output_logs.s && output_logs_parse(t->cfg->output_logs.s) >= 0) {
			j->logs_own = true;
			j->logs = (enum output_logs)output_logs_parse(t->cfg->output_logs.s);
		}
		j->data = t;
		p->deps[i] = xmalloc((t->deps.n + 1) * sizeof **p->deps);
		for (size_t k = 0; k < t->deps.n; k++)
			p->deps[i][k] = t->deps.v[k].to;
		j->deps = p->deps[i];
		j->ndeps = t->deps.n;
		if (!t->command || (only && !t->requested))
			continue;
		strvec_push(&p->argvs[i], "/bin/sh");
		strvec_push(&p->argvs[i], "-c");
		strvec_push(&p->argvs[i], t->command);
		j->argv = p->argvs[i].v;
		j->command = t->command;
	}
}

/* Settles the sandbox (a task that asked for one never runs without it,
 * SPEC §4: whether this machine can give it is known before anything runs)
 * and makes the jobs. Returns 0, or 2 after an error line. */
int plan_run_part(const struct run_opts *o, struct plan *p)
{
	unsigned flags = run_opts_report_doc(o) ? SANDBOX_JOBS_QUIET : 0;
	p->sj_init = true;
	if (sandbox_jobs_init(&p->sj, p->ws, &p->g, p->cache_dir, flags))
		return 2;
	plan_jobs(p, o->only);
	return 0;
}

/* What the run reads and writes of each cache, from its options: --force
 * and --no-cache, then --cache's sides (a side not named, or named
 * without r or w, loses it). The shard's check and the task cache both
 * take it from here. */
static struct taskcache_opts cache_opts(const struct run_opts *o)
{
	struct taskcache_opts to = {
	    .read = !o->force && !o->no_cache,
	    .write = !o->no_cache,
	    .remote = o->served_by ? REMOTE_OFF : o->remote,
	};
	if (!o->cache_set)
		return to;
	bool lr = to.read && (o->cache_local & CACHE_R),
	     lw = to.write && (o->cache_local & CACHE_W);
	bool rr = to.read && (o->cache_remote & CACHE_R),
	     rw = to.write && (o->cache_remote & CACHE_W);
	if (!(o->cache_remote & (CACHE_R | CACHE_W)))
		to.remote = REMOTE_OFF;
	to.no_local_read = !lr;
	to.no_local_write = !lw;
	to.no_remote_read = !rr;
	to.no_remote_write = !rw;
	to.read = lr || rr;
	to.write = lw || rw;
	return to;
}

/* Loads, selects, builds the graph, makes the run part and computes every
 * key. Returns 0, or 2 after an error line (p is then freed). */
int runplan_make(const struct run_opts *o, struct plan *p)
{
	memset(p, 0, sizeof *p);
	p->lock_fd = -1;
	if (runplan_graph(o, &p->load, &p->ws, &p->g)) {
		workspace_loader_release(&p->load);
		return 2;
	}
	if (o->shard) {
		p->shard = xcalloc(1, sizeof *p->shard);
		struct taskcache_opts co = cache_opts(o);
		bool checkable =
		    taskcache_remote_named(p->ws, co.remote, co.read && !co.no_remote_read);
		if (shardrun_plan(p->shard, &p->g, o, checkable)) {
			plan_free(p);
			return 2;
		}
	}
	p->cache_dir = o->cache_dir ? path_join(p->ws->root, o->cache_dir) /* as cacheDir */
				    : workspace_cache_dir(p->ws);
	const char *refused =
	    o->cache_dir ? workspace_cache_dir_refused(p->ws, p->cache_dir) : NULL;
	if (refused) {
		error("--cache-dir %s cannot be the cache directory: %s", o->cache_dir, refused);
		plan_free(p);
		return 2;
	}
	if (plan_run_part(o, p)) {
		plan_free(p);
		return 2;
	}
	/* The whole configuration is checked: the cache's home may be made
	 * (quietly: when it cannot be, the store says why) */
	char *dotvx = path_join(p->ws->root, ".vx");
	if (!o->dry_run && !o->no_cache && path_is_within(dotvx, p->cache_dir))
		workspace_vx_dir(p->ws);
	free(dotvx);
	/* One run at a time in a workspace, from before any input is hashed
	 * to the last save (a configuration the run refuses touches nothing
	 * first); a server's run (a watch's) takes none, and a dry run or a
	 * run that writes no cache writes nothing of it. */
	if (!o->dry_run && !o->served_by && !o->no_cache &&
	    (p->lock_fd = wslock_take(p->cache_dir, p->ws->root, "vx run")) == -2) {
		plan_free(p);
		return 130;
	}
	struct taskcache_opts to = cache_opts(o);
	to.dir = p->cache_dir;
	to.dry_run = o->dry_run != 0;
	to.traced = p->sj.strace != NULL;
	to.verbose = o->verbose;
	to.load = &p->load;
	p->tc_open = true;
	if (taskcache_open(&p->tc, p->ws, &p->g, &to) || taskcache_keys(&p->tc)) {
		plan_free(p);
		return 2;
	}
	if (p->shard && !o->dry_run && !taskcache_remote_readable(&p->tc))
		warning("--shard %s without a remote cache to read: this shard builds every task "
			"its part needs, other shards' too (docs/ci.md)",
			o->shard);
	else if (p->shard && !o->dry_run)
		shardrun_publish(p->shard, &p->tc);
	return 0;
}
