/* turbodoc.c - a run in Turborepo's shape (turbodoc.h): `vx run --dry=json`
 * and the --summarize file. Scripts and CI jobs written for turbo's read
 * .tasks[].taskId, .hash, .inputs (a map), .command, .outputs,
 * .dependencies, .dependents, .environmentVariables, .cache, .execution
 * (issue 42 item 9, issue 56 item 4); vx's own --dry-run=json is
 * dryrun.c's, and the summary adds vx's fields beside (summary.c). The
 * field names and types are turbo 2.11.13's; the values are vx's: a file's
 * hash is vx's content hash, not git's blob SHA-1, and the key is vx's. */
#include "orchestrator/run/turbodoc.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/key.h"
#include "orchestrator/config/framework.h"
#include "orchestrator/keys/inputs.h"
#include "orchestrator/keys/taskenv.h"
#include "orchestrator/run/dryrun.h"
#include "util/die.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/strmap.h"

/* "//#task" for the root's own task, as Turborepo names it; "task" alone
 * in single-package mode. */
static char *turbo_id(const struct graph *g, const struct task_node *t)
{
	const struct project *p = g->ws->projects.v[t->project];
	if (g->ws->single_package)
		return xstrdup(t->task);
	return p->is_root ? xasprintf("//#%s", t->task) : xstrdup(t->id);
}

enum pick { ALL, KEPT, TAKEN }; /* every entry; those without "!"; those with, bare */

/* The entries of v as a JSON array, sorted as Turborepo's are; null when
 * empty and null_when_empty. */
static cJSON *strings(const lstr_vec *v, enum pick pick, bool null_when_empty)
{
	struct strvec sv = STRVEC_INIT;
	for (size_t i = 0; i < v->n; i++) {
		bool bang = v->v[i].s[0] == '!';
		if (pick == ALL || (pick == TAKEN) == bang)
			strvec_push(&sv, v->v[i].s + (pick == TAKEN));
	}
	strvec_sort(&sv);
	cJSON *a = null_when_empty && !sv.n ? cJSON_CreateNull() : cJSON_CreateArray();
	for (size_t i = 0; i < sv.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv.v[i]));
	strvec_clear(&sv);
	return a;
}

/* "NAME=HASH" for each variable of names set now, as Turborepo lists them
 * (its hash is the value's SHA-256; this one is vx's key hash of it). */
static cJSON *env_pairs(const struct strvec *names)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < names->n; i++) {
		const char *v = getenv(names->v[i]);
		if (!v)
			continue;
		struct key k;
		char hex[KEY_HEX_SIZE];
		key_init(&k);
		key_add_str(&k, "value", v);
		key_finish(&k, hex);
		char *pair = xasprintf("%s=%s", names->v[i], hex);
		cJSON_AddItemToArray(a, cJSON_CreateString(pair));
		free(pair);
	}
	return a;
}

/* The variables set now that patterns name (a "NAME_*" wildcard matched
 * against the environment, a "!" entry taking away), sorted. */
static void env_named(const lstr_vec *patterns, struct strvec *out)
{
	extern char **environ;
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char *name = xstrndup(*e, (size_t)(eq - *e));
		bool in = false;
		for (size_t i = 0; i < patterns->n; i++) {
			const char *pat = patterns->v[i].s;
			bool bang = pat[0] == '!';
			if (!fnmatch(pat + bang, name, 0))
				in = !bang;
		}
		if (in)
			strvec_push(out, name);
		free(name);
	}
	strvec_sort_unique(out);
}

/* Turborepo's environmentVariables: what was specified (env, null for no
 * pass-through list), and "NAME=HASH" for each keyed variable set now and
 * each passed through (null without a pass-through list). */
static cJSON *env_doc(const lstr_vec *env, const lstr_vec *pass, const struct strvec *names,
		      const struct strvec *inferred)
{
	cJSON *ev = cJSON_CreateObject();
	cJSON *spec = cJSON_AddObjectToObject(ev, "specified");
	cJSON_AddItemToObject(spec, "env", strings(env, ALL, false));
	cJSON_AddItemToObject(spec, "passThroughEnv", strings(pass, ALL, true));
	cJSON_AddItemToObject(ev, "configured", env_pairs(names));
	cJSON_AddItemToObject(ev, "inferred", env_pairs(inferred));
	if (pass->n) {
		struct strvec set = STRVEC_INIT;
		env_named(pass, &set);
		cJSON_AddItemToObject(ev, "passthrough", env_pairs(&set));
		strvec_clear(&set);
	} else {
		cJSON_AddNullToObject(ev, "passthrough");
	}
	return ev;
}

/* The cache as Turborepo says it: the summary's as the run found it, the
 * dry run's as a probe (and the remote's HEAD) finds it. A hit's timeSaved
 * is its entry's own run's duration; turbo's hit also says "sha", the
 * commit its entry was saved at, which vx's entries do not record
 * (docs/turborepo.md). */
static cJSON *cache_doc(struct taskcache *tc, size_t i, const char *cmd, bool ran)
{
	bool hit, remote;
	if (ran) {
		hit = tc->status[i] == CACHE_HIT;
		remote = hit && tc->from_remote[i];
	} else {
		enum cache_status st = taskcache_probe(tc, i);
		remote =
		    cmd && st != CACHE_HIT && st != CACHE_DISABLED && taskcache_remote_has(tc, i);
		hit = st == CACHE_HIT || remote;
	}
	long long saved = ran && hit ? taskcache_saved_ms(tc, i) : 0;
	cJSON *cache = cJSON_CreateObject();
	cJSON_AddBoolToObject(cache, "local", hit && !remote);
	cJSON_AddBoolToObject(cache, "remote", remote);
	cJSON_AddStringToObject(cache, "status", hit ? "HIT" : "MISS");
	if (hit)
		cJSON_AddStringToObject(cache, "source", remote ? "REMOTE" : "LOCAL");
	cJSON_AddNumberToObject(cache, "timeSaved", saved > 0 ? (double)saved : 0);
	return cache;
}

/* The task's outputs as they are now, workspace-relative and sorted: each
 * file, and each directory above one that the globs match themselves (a
 * glob of everything below dist matches dist), as turbo lists what it
 * archived (its own log file among them, which vx does not write); []
 * unless want. */
static cJSON *expanded_outputs(const struct graph *g, const struct task_node *t, bool want)
{
	cJSON *a = cJSON_CreateArray();
	const struct project *p = g->ws->projects.v[t->project];
	struct strvec found = STRVEC_INIT, globs = STRVEC_INIT;
	if (want && t->cfg->outputs.n && !outputs_collect(p->dir, &t->cfg->outputs, &found)) {
		lstr_vec_strings(&t->cfg->outputs, &globs);
		for (size_t k = 0, n = found.n; k < n; k++)
			for (char *slash = strchr(found.v[k], '/'); slash;
			     slash = strchr(slash + 1, '/')) {
				char *dir = xstrndup(found.v[k], (size_t)(slash - found.v[k]));
				if (globlist_match(globs.v, globs.n, dir))
					strvec_push(&found, dir);
				free(dir);
			}
		strvec_sort_unique(&found);
		for (size_t k = 0; k < found.n; k++) {
			char *rel =
			    p->is_root ? xstrdup(found.v[k]) : path_join(p->rel, found.v[k]);
			cJSON_AddItemToArray(a, cJSON_CreateString(rel));
			free(rel);
		}
	}
	strvec_clear(&found);
	strvec_clear(&globs);
	return a;
}

/* A started task's execution: when, on the wall clock in ms; its exit
 * code (0 for a hit, as turbo 2.11 says; null when it never exited); when
 * it failed, why. */
static cJSON *execution_doc(const struct graph *g, const struct job *j, size_t i,
			    const struct turbodoc_run *run)
{
	cJSON *e = cJSON_CreateObject();
	long long start = run->jobs_t0_ms + j->start_ms;
	cJSON_AddNumberToObject(e, "startTime", (double)start);
	cJSON_AddNumberToObject(e, "endTime",
				(double)(start + (j->duration_ms > 0 ? j->duration_ms : 0)));
	if (j->state == JOB_FAILED) {
		const struct project *p = g->ws->projects.v[g->nodes.v[i]->project];
		char *why = j->reason ? xasprintf("command (%s) %s: %s", p->dir,
						  j->command ? j->command : "", j->reason)
				      : xasprintf("command (%s) %s exited (%d)", p->dir,
						  j->command ? j->command : "", j->exit_code);
		cJSON_AddStringToObject(e, "error", why);
		free(why);
	}
	if (j->state == JOB_CACHED)
		cJSON_AddNumberToObject(e, "exitCode", 0);
	else if ((j->state == JOB_SUCCEEDED || j->state == JOB_FAILED) && j->exit_code >= 0)
		cJSON_AddNumberToObject(e, "exitCode", j->exit_code);
	else
		cJSON_AddNullToObject(e, "exitCode");
	return e;
}

/* Node i's task, as --dry=json (run NULL) or the summary lists it.
 * global: the globalDependencies patterns (workspace-relative). */
static cJSON *task_doc(const struct graph *g, const struct job *jobs, struct taskcache *tc,
		       size_t i, bool strict, const struct turbodoc_run *run,
		       const struct strvec *global)
{
	const struct task_node *t = g->nodes.v[i];
	const struct project *p = g->ws->projects.v[t->project];
	cJSON *o = cJSON_CreateObject();
	char *id = turbo_id(g, t);
	cJSON_AddStringToObject(o, "taskId", id);
	free(id);
	cJSON_AddStringToObject(o, "task", t->task);
	if (!g->ws->single_package) /* as turbo's SinglePackageTaskSummary */
		cJSON_AddStringToObject(o, "package", p->is_root ? "//" : p->name);
	cJSON_AddStringToObject(o, "hash", tc->ks.keys[i]);
	cJSON *inputs = cJSON_AddObjectToObject(o, "inputs");
	const struct task_inputs *in = &tc->ks.inputs[i];
	size_t plen = p->is_root ? 0 : strlen(p->rel);
	for (size_t k = 0; k < in->paths.n; k++) {
		/* a global file outside the package is turbo's
		 * globalCacheInputs.files, not the task's (vx keys it in each) */
		const char *f = in->paths.v[k];
		bool mine = p->is_root || (!strncmp(f, p->rel, plen) && f[plen] == '/');
		if (!mine && global->n && globlist_match(global->v, global->n, f))
			continue;
		char *abs = path_join(g->ws->root, in->paths.v[k]);
		char *rel = path_relative(p->dir, abs);
		cJSON_AddStringToObject(inputs, rel, in->hashes[k]);
		free(rel);
		free(abs);
	}
	cJSON_AddStringToObject(o, "hashOfExternalDependencies",
				tc->ks.ext.path ? tc->ks.ext.hash[t->project] : "");
	const char *cmd = jobs[i].command;
	cJSON_AddItemToObject(o, "cache", cache_doc(tc, i, cmd, run != NULL));
	cJSON_AddStringToObject(o, "command", cmd ? cmd : "<NONEXISTENT>");
	cJSON_AddArrayToObject(o, "cliArguments");
	cJSON_AddItemToObject(o, "outputs", strings(&t->cfg->outputs, KEPT, true));
	cJSON_AddItemToObject(o, "excludedOutputs", strings(&t->cfg->outputs, TAKEN, true));
	/* vx keeps a task's log in its cache entry, in no file of its own:
	 * a string still, as a typed reader of Turborepo's expects */
	cJSON_AddStringToObject(o, "logFile", "");
	if (!g->ws->single_package)
		cJSON_AddStringToObject(o, "directory", p->is_root ? "" : p->rel);
	cJSON *deps = cJSON_AddArrayToObject(o, "dependencies");
	for (size_t k = 0; k < t->deps.n; k++) {
		char *d = turbo_id(g, g->nodes.v[t->deps.v[k].to]);
		cJSON_AddItemToArray(deps, cJSON_CreateString(d));
		free(d);
	}
	cJSON *users = cJSON_AddArrayToObject(o, "dependents");
	for (size_t j = 0; j < g->nodes.n; j++)
		for (size_t k = 0; k < g->nodes.v[j]->deps.n; k++)
			if (g->nodes.v[j]->deps.v[k].to == i) {
				char *d = turbo_id(g, g->nodes.v[j]);
				cJSON_AddItemToArray(users, cJSON_CreateString(d));
				free(d);
			}
	cJSON_AddItemToObject(o, "with", strings(&t->cfg->with, ALL, false));
	cJSON *def = cJSON_AddObjectToObject(o, "resolvedTaskDefinition");
	cJSON_AddItemToObject(def, "outputs", strings(&t->cfg->outputs, ALL, false));
	cJSON_AddBoolToObject(def, "cache", taskcache_cacheable(t));
	cJSON_AddItemToObject(def, "dependsOn", strings(&t->cfg->depends_on, ALL, false));
	cJSON_AddItemToObject(def, "inputs", strings(&t->cfg->input_files, ALL, false));
	cJSON_AddStringToObject(def, "outputLogs",
				t->cfg->output_logs.s ? t->cfg->output_logs.s : "full");
	cJSON_AddBoolToObject(def, "persistent", t->cfg->persistent);
	cJSON_AddBoolToObject(def, "interruptible",
			      t->cfg->restart.s && !strcmp(t->cfg->restart.s, "on-input-change"));
	cJSON_AddItemToObject(def, "env", strings(&t->cfg->input_env, ALL, false));
	cJSON_AddItemToObject(def, "passThroughEnv", strings(&t->cfg->env_pass, ALL, true));
	cJSON_AddBoolToObject(def, "interactive", false);
	cJSON_AddItemToObject(o, "expandedOutputs",
			      expanded_outputs(g, t, run && run->expanded && run->expanded[i]));
	const struct framework *fw = task_framework(g->ws, t);
	cJSON_AddStringToObject(o, "framework", fw ? fw->slug : "");
	cJSON_AddStringToObject(o, "envMode", strict ? "strict" : "loose");
	struct strvec names = STRVEC_INIT, inferred = STRVEC_INIT;
	task_env_keyed(g->ws, t, &names, &inferred);
	cJSON_AddItemToObject(o, "environmentVariables",
			      env_doc(&t->cfg->input_env, &t->cfg->env_pass, &names, &inferred));
	strvec_clear(&names);
	strvec_clear(&inferred);
	if (run)
		cJSON_AddItemToObject(o, "execution", execution_doc(g, &jobs[i], i, run));
	return o;
}

/* The inputs every task is keyed by, as turbo's globalCacheInputs: the
 * files globalDependencies (workspace.inputs.workspaceFiles, --global-deps)
 * matched, with their hashes as the tasks' keys took them; the root's
 * external dependencies; globalEnv and globalPassThroughEnv. rootKey is
 * what vx folds first into every key, its key format. vx keys no
 * "engines": null, as turbo's without one. */
static cJSON *global_doc(const struct graph *g, const struct taskcache *tc)
{
	const struct workspace *ws = g->ws;
	cJSON *o = cJSON_CreateObject();
	char *root_key = xasprintf("vx key format %d", VX_KEY_VERSION);
	cJSON_AddStringToObject(o, "rootKey", root_key);
	free(root_key);
	cJSON *files = cJSON_AddObjectToObject(o, "files");
	struct strvec pats = STRVEC_INIT;
	struct strmap seen = STRMAP_INIT; /* each input looked at: 1 when global */
	size_t at;
	lstr_vec_strings(&ws->cfg->ws_input_files, &pats);
	for (size_t i = 0; pats.n && i < g->nodes.n; i++) {
		const struct task_inputs *in = &tc->ks.inputs[i];
		for (size_t k = 0; k < in->paths.n; k++)
			if (!strmap_get(&seen, in->paths.v[k], &at)) {
				bool global = globlist_match(pats.v, pats.n, in->paths.v[k]);
				strmap_put(&seen, in->paths.v[k], global);
				if (global)
					cJSON_AddStringToObject(files, in->paths.v[k],
								in->hashes[k]);
			}
	}
	strvec_clear(&pats);
	strmap_clear(&seen);
	const char *ext = "";
	for (size_t i = 0; tc->ks.ext.path && i < ws->projects.n; i++)
		if (ws->projects.v[i]->is_root)
			ext = tc->ks.ext.hash[i];
	cJSON_AddStringToObject(o, "hashOfExternalDependencies", ext);
	cJSON_AddStringToObject(o, "hashOfInternalDependencies", "");
	struct strvec names = STRVEC_INIT, none = STRVEC_INIT;
	env_named(&ws->cfg->ws_input_env, &names);
	cJSON_AddItemToObject(
	    o, "environmentVariables",
	    env_doc(&ws->cfg->ws_input_env, &ws->cfg->ws_env_pass, &names, &none));
	strvec_clear(&names);
	cJSON_AddNullToObject(o, "engines");
	return o;
}

/* The CI vendors whose variables name the commit, branch and user, as
 * Turborepo's vendor table has them (the only two of its 45 that do). */
static const struct {
	const char *detect, *detect2, *sha, *branch, *user;
} vendors[] = {
    {"GITHUB_ACTIONS", NULL, "GITHUB_SHA", "GITHUB_REF_NAME", "GITHUB_ACTOR"},
    {"VERCEL", "NOW_BUILDER", "VERCEL_GIT_COMMIT_SHA", "VERCEL_GIT_COMMIT_REF",
     "VERCEL_GIT_COMMIT_AUTHOR_LOGIN"},
};

static int ci_vendor(void)
{
	for (size_t v = 0; v < sizeof vendors / sizeof *vendors; v++)
		if (getenv(vendors[v].detect) || (vendors[v].detect2 && getenv(vendors[v].detect2)))
			return (int)v;
	return -1;
}

/* git's one-line answer to argv in dir, trimmed, or NULL when git failed. */
static char *git_line(char **argv, const char *dir)
{
	struct strbuf out = STRBUF_INIT;
	if (spawn_capture(argv, dir, &out, NULL) != 0) {
		strbuf_release(&out);
		return NULL;
	}
	size_t n = out.len;
	while (n && (out.buf[n - 1] == '\n' || out.buf[n - 1] == '\r' || out.buf[n - 1] == ' '))
		n--;
	char *line = xstrndup(out.buf, n);
	strbuf_release(&out);
	return line;
}

static void add_string_or_null(cJSON *o, const char *name, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, name, s);
	else
		cJSON_AddNullToObject(o, name);
}

/* Turborepo's scm: a CI vendor's commit and branch, else git's (the
 * current commit, the current branch: "" when detached, null when git
 * cannot say). Two git processes, a few ms, once a document. */
static cJSON *scm_doc(const char *root)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "git");
	int v = ci_vendor();
	const char *sha = v >= 0 ? getenv(vendors[v].sha) : NULL;
	const char *branch = v >= 0 ? getenv(vendors[v].branch) : NULL;
	if (sha || branch) {
		add_string_or_null(o, "sha", sha);
		add_string_or_null(o, "branch", branch);
		return o;
	}
	char *head[] = {"git", "rev-parse", "--verify", "-q", "HEAD", NULL};
	char *current[] = {"git", "branch", "--show-current", NULL};
	char *s = git_line(head, root), *b = git_line(current, root);
	add_string_or_null(o, "sha", s);
	add_string_or_null(o, "branch", b);
	free(s);
	free(b);
	return o;
}

char *turbodoc_command(const struct run_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "vx run");
	for (size_t i = 0; i < o->tasks.n; i++)
		strbuf_addf(&sb, " %s", o->tasks.v[i]);
	for (size_t i = 0; i < o->filters.n; i++)
		strbuf_addf(&sb, " --filter=%s", o->filters.v[i]);
	if (o->affected)
		strbuf_addstr(&sb, " --affected");
	if (o->args.n) {
		strbuf_addstr(&sb, " --");
		for (size_t i = 0; i < o->args.n; i++)
			strbuf_addf(&sb, " %s", o->args.v[i]);
	}
	return strbuf_detach(&sb, NULL);
}

bool turbodoc_started(const struct job *j)
{
	return j->state == JOB_SUCCEEDED || j->state == JOB_FAILED || j->state == JOB_CACHED;
}

/* The run's execution: what turbo counts (success: ran and exited 0;
 * cached: hits; attempted: every task that started), when, and vx's exit
 * status. */
static cJSON *run_execution_doc(const struct graph *g, const struct job *jobs,
				const struct turbodoc_run *run)
{
	size_t success = 0, failed = 0, cached = 0;
	for (size_t i = 0; i < g->nodes.n; i++) {
		success += jobs[i].state == JOB_SUCCEEDED;
		failed += jobs[i].state == JOB_FAILED;
		cached += jobs[i].state == JOB_CACHED;
	}
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "command", run->command);
	/* vx runs from anywhere in the workspace as from its root */
	cJSON_AddStringToObject(e, "repoPath", "");
	cJSON_AddNumberToObject(e, "success", (double)success);
	cJSON_AddNumberToObject(e, "failed", (double)failed);
	cJSON_AddNumberToObject(e, "cached", (double)cached);
	cJSON_AddNumberToObject(e, "attempted", (double)(success + failed + cached));
	cJSON_AddNumberToObject(e, "startTime", (double)run->start_ms);
	cJSON_AddNumberToObject(e, "endTime", (double)run->end_ms);
	cJSON_AddNumberToObject(e, "exitCode", run->exit_code);
	return e;
}

cJSON *turbodoc_new(const struct graph *g, const struct job *jobs, struct taskcache *tc,
		    const struct turbodoc_run *run)
{
	bool strict = g->ws->cfg->env_strict;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "id", run ? run->id : "");
	cJSON_AddStringToObject(doc, "version", "1");
	cJSON_AddStringToObject(doc, "turboVersion", "vx " VX_VERSION);
	cJSON_AddBoolToObject(doc, "monorepo", !g->ws->single_package);
	cJSON_AddItemToObject(doc, "globalCacheInputs", global_doc(g, tc));
	if (run)
		cJSON_AddItemToObject(doc, "execution", run_execution_doc(g, jobs, run));
	if (!g->ws->single_package) {
		/* the packages in scope, as Turborepo lists them: those the
		 * run selected, and "//" when a task of the root's own is
		 * asked for */
		cJSON *packages = cJSON_AddArrayToObject(doc, "packages");
		struct strvec names = STRVEC_INIT;
		for (size_t i = 0; i < g->ws->projects.n; i++)
			if (g->selected[i] && !g->ws->projects.v[i]->is_root)
				strvec_push(&names, g->ws->projects.v[i]->name);
		for (size_t i = 0; i < g->nodes.n; i++)
			if (g->nodes.v[i]->requested &&
			    g->ws->projects.v[g->nodes.v[i]->project]->is_root)
				strvec_push(&names, "//");
		strvec_sort_unique(&names);
		for (size_t i = 0; i < names.n; i++)
			cJSON_AddItemToArray(packages, cJSON_CreateString(names.v[i]));
		strvec_clear(&names);
	}
	cJSON_AddStringToObject(doc, "envMode", strict ? "strict" : "loose");
	cJSON_AddBoolToObject(doc, "frameworkInference", !g->ws->cfg->no_framework_inference);
	cJSON *tasks = cJSON_AddArrayToObject(doc, "tasks");
	struct strvec global = STRVEC_INIT;
	lstr_vec_strings(&g->ws->cfg->ws_input_files, &global);
	for (size_t i = 0; i < g->nodes.n; i++)
		if (!run || turbodoc_started(&jobs[i]))
			cJSON_AddItemToArray(tasks, task_doc(g, jobs, tc, i, strict, run, &global));
	strvec_clear(&global);
	int v = ci_vendor();
	const char *user = v >= 0 ? getenv(vendors[v].user) : NULL;
	cJSON_AddStringToObject(doc, "user", user ? user : "");
	cJSON_AddItemToObject(doc, "scm", scm_doc(g->ws->root));
	return doc;
}
