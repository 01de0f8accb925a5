/* dryrun_turbo.c - `vx run --dry=json`: the dry run in Turborepo's shape
 * (dryrun.h). Scripts and CI jobs written for `turbo run --dry=json` read
 * .tasks[].taskId, .hash, .inputs (a map), .command, .outputs,
 * .dependencies, .dependents, .environmentVariables (issue 42 item 9);
 * vx's own shape stays `--dry-run=json`. The field names and types are
 * turbo 2.11.13's (tests/integration/t0187-dry-turbo.sh compares them);
 * the values are vx's: a file's hash is vx's content hash, not git's blob
 * SHA-1, and the key is vx's. */
#include "orchestrator/run/dryrun.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cache/key.h"
#include "orchestrator/config/framework.h"
#include "orchestrator/keys/taskenv.h"
#include "util/die.h"
#include "util/path.h"

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

static cJSON *task_doc(const struct graph *g, const struct job *jobs, struct taskcache *tc,
		       size_t i, bool strict)
{
	const struct task_node *t = g->nodes.v[i];
	const struct project *p = g->ws->projects.v[t->project];
	cJSON *o = cJSON_CreateObject();
	char *id = turbo_id(g, t);
	cJSON_AddStringToObject(o, "taskId", id);
	free(id);
	cJSON_AddStringToObject(o, "task", t->task);
	cJSON_AddStringToObject(o, "package", p->is_root ? "//" : p->name);
	cJSON_AddStringToObject(o, "hash", tc->ks.keys[i]);
	cJSON *inputs = cJSON_AddObjectToObject(o, "inputs");
	const struct task_inputs *in = &tc->ks.inputs[i];
	for (size_t k = 0; k < in->paths.n; k++) {
		char *abs = path_join(g->ws->root, in->paths.v[k]);
		char *rel = path_relative(p->dir, abs);
		cJSON_AddStringToObject(inputs, rel, in->hashes[k]);
		free(rel);
		free(abs);
	}
	cJSON_AddStringToObject(o, "hashOfExternalDependencies",
				tc->ks.ext.path ? tc->ks.ext.hash[t->project] : "");
	const char *cmd = jobs[i].command;
	enum cache_status st = taskcache_probe(tc, i);
	bool remote = cmd && st != CACHE_HIT && st != CACHE_DISABLED && taskcache_remote_has(tc, i);
	bool hit = st == CACHE_HIT || remote;
	cJSON *cache = cJSON_AddObjectToObject(o, "cache");
	cJSON_AddBoolToObject(cache, "local", st == CACHE_HIT);
	cJSON_AddBoolToObject(cache, "remote", remote);
	cJSON_AddStringToObject(cache, "status", hit ? "HIT" : "MISS");
	if (hit)
		cJSON_AddStringToObject(cache, "source", remote ? "REMOTE" : "LOCAL");
	cJSON_AddNumberToObject(cache, "timeSaved", 0);
	cJSON_AddStringToObject(o, "command", cmd ? cmd : "<NONEXISTENT>");
	cJSON_AddArrayToObject(o, "cliArguments");
	cJSON_AddItemToObject(o, "outputs", strings(&t->cfg->outputs, KEPT, true));
	cJSON_AddItemToObject(o, "excludedOutputs", strings(&t->cfg->outputs, TAKEN, true));
	/* vx keeps a task's log in its cache entry, in no file of its own:
	 * a string still, as a typed reader of Turborepo's expects */
	cJSON_AddStringToObject(o, "logFile", "");
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
	cJSON_AddArrayToObject(o, "expandedOutputs");
	const struct framework *fw = task_framework(g->ws, t);
	cJSON_AddStringToObject(o, "framework", fw ? fw->slug : "");
	cJSON_AddStringToObject(o, "envMode", strict ? "strict" : "loose");
	cJSON *ev = cJSON_AddObjectToObject(o, "environmentVariables");
	cJSON *spec = cJSON_AddObjectToObject(ev, "specified");
	cJSON_AddItemToObject(spec, "env", strings(&t->cfg->input_env, ALL, false));
	cJSON_AddItemToObject(spec, "passThroughEnv", strings(&t->cfg->env_pass, ALL, true));
	struct strvec names = STRVEC_INIT, inferred = STRVEC_INIT;
	task_env_keyed(g->ws, t, &names, &inferred);
	cJSON_AddItemToObject(ev, "configured", env_pairs(&names));
	cJSON_AddItemToObject(ev, "inferred", env_pairs(&inferred));
	if (t->cfg->env_pass.n) {
		struct strvec pass = STRVEC_INIT;
		env_named(&t->cfg->env_pass, &pass);
		cJSON_AddItemToObject(ev, "passthrough", env_pairs(&pass));
		strvec_clear(&pass);
	} else {
		cJSON_AddNullToObject(ev, "passthrough");
	}
	strvec_clear(&names);
	strvec_clear(&inferred);
	return o;
}

void dryrun_print_turbo(const struct graph *g, const struct job *jobs, struct taskcache *tc)
{
	bool strict = g->ws->cfg->env_strict;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "id", "");
	cJSON_AddStringToObject(doc, "version", "1");
	cJSON_AddStringToObject(doc, "turboVersion", "vx " VX_VERSION);
	cJSON_AddBoolToObject(doc, "monorepo", true);
	cJSON *packages = cJSON_AddArrayToObject(doc, "packages");
	/* the packages in scope, as Turborepo lists them: those the run
	 * selected, and "//" when a task of the root's own is asked for */
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < g->ws->projects.n; i++)
		if (g->selected[i] && !g->ws->projects.v[i]->is_root)
			strvec_push(&names, g->ws->projects.v[i]->name);
	for (size_t i = 0; i < g->nodes.n; i++)
		if (g->nodes.v[i]->requested && g->ws->projects.v[g->nodes.v[i]->project]->is_root)
			strvec_push(&names, "//");
	strvec_sort_unique(&names);
	for (size_t i = 0; i < names.n; i++)
		cJSON_AddItemToArray(packages, cJSON_CreateString(names.v[i]));
	strvec_clear(&names);
	cJSON_AddStringToObject(doc, "envMode", strict ? "strict" : "loose");
	cJSON_AddBoolToObject(doc, "frameworkInference", !g->ws->cfg->no_framework_inference);
	cJSON *tasks = cJSON_AddArrayToObject(doc, "tasks");
	for (size_t i = 0; i < g->nodes.n; i++)
		cJSON_AddItemToArray(tasks, task_doc(g, jobs, tc, i, strict));
	char *s = cJSON_Print(doc);
	if (!s)
		die("out of memory");
	fputs(s, stdout);
	fputc('\n', stdout);
	free(s);
	cJSON_Delete(doc);
}
