/* session.c - vx watch's run session (session.h): one parsed `vx run`
 * command line run again and again, its plan kept while only inputs
 * change. */
#include "orchestrator/watch/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orchestrator/keys/externals.h"
#include "orchestrator/run/runplan.h"
#include "orchestrator/run/wslock.h"
#include "util/die.h"
#include "util/glob.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strmap.h"

struct watch_session {
	struct run_opts o;
	struct plan *p;	      /* the last good plan, run again by each cycle; NULL: none yet
			       * (on the heap: its parts point at its graph) */
	bool replan;	      /* the next cycle plans from scratch (the last plan failed) */
	enum job_state *last; /* per node of p: how its last run ended; JOB_PENDING: never ran */
	struct strvec ids;    /* the last good plan's tasks, */
	char (*keys)[KEY_HEX_SIZE];	   /* their keys (what a cycle compares), */
	struct strmap index;		   /* and id -> index, borrowing ids */
	struct strvec tainted, tainted_by; /* config files sandboxed tasks of the last
					    * cycle wrote, and the task of each: never
					    * planned from (issue 36) */
};

struct watch_session *watch_session_new(int argc, char **argv, int *status)
{
	struct watch_session *s = xcalloc(1, sizeof *s);
	int rc = run_opts_parse(argc, argv, false, &s->o);
	if (!rc && (s->o.dry_run || s->o.only || s->o.served_by || s->o.shard ||
		    run_opts_report_doc(&s->o)))
		rc = error("vx watch runs again and again: --dry-run, --only, --shard and a "
			   "--report document are for vx run");
	if (rc) {
		run_opts_free(&s->o);
		free(s);
		*status = rc > 0 ? 0 : 2;
		return NULL;
	}
	return s;
}

void watch_paths_clear(struct watch_paths *ws)
{
	free(ws->root);
	ws->root = NULL;
	free(ws->git_dir);
	ws->git_dir = NULL;
	strvec_clear(&ws->heads);
	strvec_clear(&ws->skip);
	strvec_clear(&ws->outputs);
	strvec_clear(&ws->persistent);
	ws->affected = 0;
}

/* base joined with glob's literal head directory. */
static char *glob_head(const char *base, const char *glob)
{
	char *head = xstrndup(glob, glob_literal_prefix(glob));
	char *dir = path_join(base, head);
	free(head);
	return dir;
}

/* The heads of the globs of v (relative to base) that leave base: "../x" and below. */
static void heads_outside(const char *base, const lstr_vec *v, struct strvec *out)
{
	for (size_t g = 0; g < v->n; g++) {
		const char *s = v->v[g].s;
		if (s[0] == '!')
			continue;
		char *dir = glob_head(base, s);
		if (path_is_within(base, dir))
			free(dir);
		else
			strvec_push_nodup(out, dir);
	}
}

/* The files that shape the plan, not only the keys: a change to one, to
 * the root or to a directory holding a project (a project made, moved or
 * removed) plans again from scratch. */
static const char *const plan_files[] = {"vx.yaml",
					 "package.json",
					 "pnpm-workspace.yaml",
					 "turbo.json",
					 "turbo.jsonc",
					 ".gitignore",
					 ".npmrc",
					 NULL};

/* The .git directory of the work tree holding root, or NULL (none, or a
 * linked worktree's .git file: not watched). */
static char *find_git_dir(const char *root)
{
	char *dir = xstrdup(root);
	for (;;) {
		char *git = path_join(dir, ".git");
		struct stat st;
		if (lstat(git, &st) == 0) {
			free(dir);
			if (S_ISDIR(st.st_mode))
				return git;
			free(git);
			return NULL;
		}
		free(git);
		if (!strcmp(dir, "/")) {
			free(dir);
			return NULL;
		}
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
	}
}

static void watch_set(const struct plan *p, bool affected, struct watch_paths *ws)
{
	watch_paths_clear(ws);
	const struct workspace *w = p->ws;
	ws->root = xstrdup(w->root);
	if (affected && (ws->git_dir = find_git_dir(w->root))) {
		strvec_push_nodup(&ws->heads, path_join(ws->git_dir, "HEAD"));
		strvec_push_nodup(&ws->heads, path_join(ws->git_dir, "index"));
	}
	if (p->cache_dir)
		strvec_push(&ws->skip, p->cache_dir);
	for (size_t k = 0; k < w->projects.n; k++)
		strvec_push(&ws->heads, w->projects.v[k]->dir);
	for (size_t k = 0; k < w->project_globs.n; k++)
		if (w->project_globs.v[k][0] != '!')
			strvec_push_nodup(&ws->heads, glob_head(w->root, w->project_globs.v[k]));
	for (const char *const *f = plan_files; *f; f++)
		strvec_push_nodup(&ws->heads, path_join(w->root, *f));
	for (size_t k = 0; externals_lockfile_name(k); k++)
		strvec_push_nodup(&ws->heads, path_join(w->root, externals_lockfile_name(k)));
	for (size_t g = 0; g < w->cfg->ws_input_files.n; g++)
		if (w->cfg->ws_input_files.v[g].s[0] != '!')
			strvec_push_nodup(&ws->heads,
					  glob_head(w->root, w->cfg->ws_input_files.v[g].s));
	for (size_t i = 0; i < p->g.nodes.n; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		const struct project *pr = p->ws->projects.v[t->project];
		heads_outside(pr->dir, &t->cfg->input_files, &ws->heads);
		heads_outside(w->root, &t->cfg->input_ws_files, &ws->heads);
		if (t->cfg->persistent)
			strvec_push(&ws->persistent, t->id);
		for (size_t k = 0; k < t->cfg->outputs.n; k++) {
			const char *g = t->cfg->outputs.v[k].s;
			if (g[0] == '!')
				continue;
			strvec_push_nodup(&ws->outputs, path_join(pr->dir, g));
			/* skipped whether it exists yet or not (the first run
			 * makes it); a head that is the project itself ("*.js")
			 * is no place to skip */
			char *dir = glob_head(pr->dir, g);
			if (strcmp(dir, pr->dir))
				strvec_push_nodup(&ws->skip, dir);
			else
				free(dir);
		}
	}
	strvec_sort_unique(&ws->heads);
	strvec_sort_unique(&ws->skip);
}

/* The one answer to "what did the change affect": the tasks whose key
 * differs from the last good plan's (a task new to the plan counts). A
 * server's restart asks the same of its fingerprint (server_fingerprint),
 * which is its key with its upstream outputs for its upstream keys.
 * Remembers this plan's keys for the next cycle. */
static size_t affected(struct watch_session *s, const struct plan *p)
{
	size_t n = p->g.nodes.n, count = 0;
	struct strvec ids = STRVEC_INIT;
	char(*keys)[KEY_HEX_SIZE] = xcalloc(n + 1, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		strvec_push(&ids, t->id);
		memcpy(keys[i], p->tc.ks.keys[i], KEY_HEX_SIZE);
		size_t at;
		bool same = strmap_get(&s->index, t->id, &at) && !strcmp(s->keys[at], keys[i]);
		count += !same && !t->cfg->persistent;
	}
	strmap_clear(&s->index);
	strvec_clear(&s->ids);
	free(s->keys);
	s->ids = ids;
	s->keys = keys;
	for (size_t i = 0; i < n; i++)
		strmap_put(&s->index, s->ids.v[i], i);
	return count;
}

static bool needs_plan(const struct plan *p, const struct strvec *changes)
{
	for (size_t c = 0; c < changes->n; c++) {
		const char *path = changes->v[c];
		const char *base = path_basename(path);
		for (const char *const *f = plan_files; *f; f++)
			if (!strcmp(base, *f))
				return true;
		/* an install: every key folds the lockfile's closures, which
		 * taskcache_rekey does not read again */
		if (externals_is_lockfile(base)) {
			char *dir = path_dirname(path);
			bool at_root = !strcmp(dir, p->ws->root);
			free(dir);
			if (at_root)
				return true;
		}
		if (path_is_within(path, p->ws->root))
			return true;
		for (size_t k = 0; k < p->ws->projects.n; k++)
			if (path_is_within(path, p->ws->projects.v[k]->dir))
				return true;
	}
	return false;
}

/* Does a glob (relative to base) of v match a change? */
static bool globs_match(const char *base, const lstr_vec *v, const struct strvec *changes)
{
	for (size_t g = 0; g < v->n; g++) {
		if (v->v[g].s[0] == '!')
			continue;
		char *abs = path_join(base, v->v[g].s);
		for (size_t c = 0; c < changes->n; c++)
			if (glob_match(abs, changes->v[c])) {
				free(abs);
				return true;
			}
		free(abs);
	}
	return false;
}

static bool climbs(const lstr_vec *v)
{
	for (size_t g = 0; g < v->n; g++)
		if (v->v[g].s[0] == '/' || strstr(v->v[g].s, ".."))
			return true;
	return false;
}

/* The nodes whose input listing a change can reach, a superset: each
 * change marks the tasks of the project that holds it (the nearest:
 * nested projects are their own), and the globs that reach beyond a
 * project (inputs.files with "..", inputs.workspaceFiles of a task or of
 * the workspace) are matched against every change. */
static void touched_by(const struct plan *p, const struct strvec *changes, bool *touched)
{
	const struct workspace *ws = p->ws;
	size_t np = ws->projects.n, n = p->g.nodes.n;
	struct strmap dirs = STRMAP_INIT;
	bool *held = xcalloc(np + 1, 1);
	for (size_t k = 0; k < np; k++)
		strmap_put(&dirs, ws->projects.v[k]->dir, k);
	for (size_t c = 0; c < changes->n; c++) {
		char *dir = xstrdup(changes->v[c]);
		for (;;) {
			size_t k;
			if (strmap_get(&dirs, dir, &k)) {
				held[k] = true;
				break;
			}
			char *slash = strrchr(dir, '/');
			if (!slash || slash == dir)
				break;
			*slash = 0;
		}
		free(dir);
	}
	bool all = globs_match(ws->root, &ws->cfg->ws_input_files, changes);
	for (size_t i = 0; i < n; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		const struct project *pr = ws->projects.v[t->project];
		touched[i] = all || held[t->project] ||
			     (climbs(&t->cfg->input_files) &&
			      globs_match(pr->dir, &t->cfg->input_files, changes)) ||
			     globs_match(ws->root, &t->cfg->input_ws_files, changes);
	}
	free(held);
	strmap_clear(&dirs);
}

static bool ended_well(enum job_state st)
{
	return st == JOB_SUCCEEDED || st == JOB_CACHED || st == JOB_NOOP;
}

/* Plans from scratch; *run (allocated) marks every node. Returns 0, or 2
 * (the last good plan stays). */
static int cycle_plan(struct watch_session *s, struct watch_paths *ws, bool **run)
{
	struct plan *p = xmalloc(sizeof *p);
	if (runplan_make(&s->o, p)) {
		free(p);
		s->replan = true;
		return 2;
	}
	if (s->p)
		plan_free(s->p);
	free(s->p);
	s->p = p;
	s->replan = false;
	size_t n = p->g.nodes.n;
	free(s->last);
	s->last = xcalloc(n + 1, sizeof *s->last);
	watch_set(p, s->o.affected, ws);
	ws->fresh = true;
	ws->affected = affected(s, p);
	*run = xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++)
		(*run)[i] = true;
	return 0;
}

/* Keeps the plan: folds again the keys of what the changes touched, and
 * runs what they changed, what did not end well last time, and everything
 * downstream of either. Returns 0, or 2 (the next cycle plans afresh). */
static int cycle_again(struct watch_session *s, const struct strvec *changes,
		       struct watch_paths *ws, bool **runp)
{
	struct plan *p = s->p;
	size_t n = p->g.nodes.n;
	bool *touched = xcalloc(n + 1, 1), *changed = xcalloc(n + 1, 1);
	bool *run = *runp = xcalloc(n + 1, 1);
	touched_by(p, changes, touched);
	plan_run_part_free(p);
	int rc = taskcache_rekey(&p->tc, touched, changed) ? 2 : plan_run_part(&s->o, p);
	size_t count = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		run[i] = changed[i] || !ended_well(s->last[i]);
		for (size_t d = 0; d < t->deps.n && !run[i]; d++)
			run[i] = run[t->deps.v[d].to];
		count += run[i] && !t->cfg->persistent;
		memcpy(s->keys[i], p->tc.ks.keys[i], KEY_HEX_SIZE); /* ids are in node order */
	}
	free(touched);
	free(changed);
	if (rc) {
		s->replan = true;
		return 2;
	}
	ws->affected = count;
	ws->fresh = false;
	return 0;
}

int watch_session_cycle(struct watch_session *s, struct watch_paths *ws,
			const struct strvec *changes, bool overflow,
			const struct run_watch_hooks *wh)
{
	long long t0 = loop_now();
	/* A config a sandboxed task wrote is not the user's word: the plan
	 * stays as it was until the user saves it (a change of their own). */
	struct strvec trusted = STRVEC_INIT;
	for (size_t c = 0; c < changes->n; c++) {
		ssize_t at = strvec_find(&s->tainted, changes->v[c]);
		if (at < 0) {
			strvec_push(&trusted, changes->v[c]);
			continue;
		}
		char *rel =
		    s->p ? path_relative(s->p->ws->root, changes->v[c]) : xstrdup(changes->v[c]);
		fprintf(stderr,
			"vx watch: %s was written by %s, a sandboxed task: not planned from; save "
			"it yourself to plan from it\n",
			rel, s->tainted_by.v[at]);
		free(rel);
	}
	strvec_clear(&s->tainted);
	strvec_clear(&s->tainted_by);
	changes = &trusted;
	bool full = !s->p || s->replan || overflow || s->o.affected || needs_plan(s->p, changes);
	/* a kept plan takes the workspace's lock again for this cycle (a new
	 * plan takes its own: the kept one holds none between cycles) */
	if (!full && s->p->lock_fd < 0 && !s->o.dry_run && !s->o.no_cache &&
	    (s->p->lock_fd = wslock_take(s->p->cache_dir, s->p->ws->root, "vx watch")) == -2) {
		strvec_clear(&trusted);
		return 130;
	}
	bool *run = NULL;
	int status = full ? cycle_plan(s, ws, &run) : cycle_again(s, changes, ws, &run);
	strvec_clear(&trusted);
	if (status) {
		free(run);
		return status;
	}
	struct plan *p = s->p;
	size_t n = p->g.nodes.n;
	for (size_t i = 0; i < n; i++) {
		p->jobs[i].settled = !run[i];
		if (!run[i])
			p->tc.status[i] = CACHE_DISABLED; /* counted by the run that ran it */
	}
	if (wh->planned)
		wh->planned(ws, wh->ctx);
	status = run_once(&s->o, p, t0, wh);
	/* between cycles the workspace is another run's to take */
	wslock_release(p->lock_fd);
	p->lock_fd = -1;
	sandbox_jobs_configs_written(&p->sj, &s->tainted, &s->tainted_by);
	for (size_t i = 0; i < n; i++)
		if (run[i])
			s->last[i] = p->jobs[i].state;
	taskcache_checkpoint(&p->tc);
	free(run);
	return status;
}

void watch_session_server_argv(const struct watch_session *s, const char *id, struct strvec *out)
{
	strvec_push(out, "/proc/self/exe");
	strvec_push(out, "run");
	strvec_push(out, id);
	strvec_push(out, "--only");
	strvec_pushf(out, "--served-by=%d", (int)getpid());
	static const char *const logs[] = {"full", "errors-only", "hash-only", "none", "new-only"};
	strvec_pushf(out, "--output-logs=%s", logs[s->o.logs]);
	for (int v = 0; v < s->o.verbose; v++)
		strvec_push(out, "-v");
	if (s->o.args.n) {
		strvec_push(out, "--");
		for (size_t i = 0; i < s->o.args.n; i++)
			strvec_push(out, s->o.args.v[i]);
	}
}

void watch_session_free(struct watch_session *s)
{
	if (!s)
		return;
	run_opts_free(&s->o);
	if (s->p)
		plan_free(s->p);
	free(s->p);
	free(s->last);
	strmap_clear(&s->index);
	strvec_clear(&s->ids);
	free(s->keys);
	strvec_clear(&s->tainted);
	strvec_clear(&s->tainted_by);
	free(s);
}
