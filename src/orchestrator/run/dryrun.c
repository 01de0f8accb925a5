/* dryrun.c - --explain-key, --dry-run and --dry=json (dryrun.h). */
#include "orchestrator/run/dryrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/framework.h"
#include "orchestrator/keys/taskenv.h"
#include "orchestrator/run/turbodoc.h"
#include "util/die.h"
#include "util/path.h"
#include "util/strbuf.h"

/* Appends "name":[...strings...], */
static void json_list(struct strbuf *sb, const char *name, const char *const *v, size_t n)
{
	strbuf_addf(sb, "\"%s\":[", name);
	for (size_t k = 0; k < n; k++) {
		if (k)
			strbuf_addch(sb, ',');
		strbuf_add_json_string(sb, v[k]);
	}
	strbuf_addstr(sb, "],");
}

/* --explain-key: the task's key and each ingredient folded into it, in
 * the order folded, with its hash (a file's content hash, an env value's,
 * a dependency's key). Returns 0, or 2 when no task of the run has id. */
int dryrun_explain_key(const struct graph *g, const struct taskcache *tc, const char *id)
{
	static const struct {
		const char *prefix, *say;
	} kinds[] = {
	    {"//command", "command"},
	    {"//platform", "platform"},
	    {"//env/", "env "},
	    {"//define/", "env.define "},
	    {"//sandbox", "sandbox"},
	    {"//outputs", "outputs"},
	    {"//dep/", "dependency "},
	    {"//toolchain", "toolchain "},
	    {"//externals", "external dependencies (lockfile closure)"},
	    {"//lockfile", "lockfile it came from (not in the key)"},
	};
	for (size_t i = 0; i < g->nodes.n; i++) {
		if (strcmp(g->nodes.v[i]->id, id))
			continue;
		const struct task_inputs *f = &tc->ks.facts[i];
		printf("%s: key %s\n", id, tc->ks.keys[i]);
		for (size_t k = 0; k < f->paths.n; k++) {
			const char *name = f->paths.v[k];
			size_t j;
			for (j = 0; j < sizeof kinds / sizeof *kinds; j++)
				if (!strncmp(name, kinds[j].prefix, strlen(kinds[j].prefix)))
					break;
			struct strbuf what = STRBUF_INIT;
			if (j < sizeof kinds / sizeof *kinds)
				strbuf_addf(&what, "%s%s", kinds[j].say,
					    name + strlen(kinds[j].prefix));
			else
				strbuf_addf(&what, "file %s", name);
			printf("  %-60s %s\n", what.buf,
			       f->hashes[k][0] ? f->hashes[k] : "(unreadable)");
			strbuf_release(&what);
		}
		/* what its last traced run read, against its key */
		struct strvec reads = STRVEC_INIT;
		if (!taskcache_get_reads(tc, i, &reads)) {
			printf("%s: no traced run of it is recorded (a sandboxed, cached task's "
			       "run records what it read)\n",
			       id);
			return 0;
		}
		size_t count[3] = {0};
		for (size_t r = 0; r < reads.n; r++)
			count[reads.v[r][0] == 'U' ? 0 : reads.v[r][0] == 'K' ? 1 : 2]++;
		printf(
		    "%s: its last traced run read %zu files of the workspace its key held, %zu it "
		    "did not, and %zu outside the workspace (the toolchain's, or a grant's)\n",
		    id, count[1], count[0], count[2]);
		for (int pass = 0; pass < 2; pass++)
			for (size_t r = 0; r < reads.n; r++)
				if (reads.v[r][0] == (pass ? 'K' : 'U')) {
					const char *abs = reads.v[r] + 2;
					char *rel = path_is_within(g->ws->root, abs)
							? path_relative(g->ws->root, abs)
							: xstrdup(abs);
					printf("  %s %s\n",
					       pass ? "in the key    " : "NOT in the key", rel);
					free(rel);
				}
		strvec_clear(&reads);
		return 0;
	}
	return error("--explain-key %s: no such task in this run (write PROJECT#TASK)", id), 2;
}

/* --dry-run (DRY_RUN_TEXT or DRY_RUN_JSON, mode): each task, its key and whether it would
 * hit. shard: --shard's part of the run, or NULL. */
void dryrun_print(const struct graph *g, const struct job *jobs, struct taskcache *tc,
		  enum dry_run mode, const struct shardrun *shard)
{
	const unsigned *owner = shard ? shard->owner : NULL;
	unsigned part = shard ? shard->index : 0, count = shard ? shard->count : 0;
	struct strbuf sb = STRBUF_INIT;
	if (mode == DRY_RUN_JSON) {
		strbuf_addstr(&sb, "{\"version\":1,");
		if (owner)
			strbuf_addf(&sb, "\"shard\":{\"index\":%u,\"count\":%u},", part + 1, count);
		strbuf_addstr(&sb, "\"tasks\":[");
	}
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		enum cache_status st = taskcache_probe(tc, i);
		const char *cmd = jobs[i].command;
		/* A local miss the remote holds would be a remote hit. */
		bool remote =
		    cmd && st != CACHE_HIT && st != CACHE_DISABLED && taskcache_remote_has(tc, i);
		if (remote)
			st = CACHE_HIT;
		if (mode != DRY_RUN_JSON) {
			strbuf_addf(&sb, "%s: %s  key %s  cache %s%s%s", t->id,
				    !cmd	      ? "nothing to run"
				    : st == CACHE_HIT ? "would replay"
						      : "would run",
				    tc->ks.keys[i], cache_status_name(st),
				    remote ? " (remote)" : "",
				    st == CACHE_BAD ? " (damaged entry)" : "");
			if (owner && shard->answers[i])
				strbuf_addf(&sb, "  (shard %u/%u's: made sure of here)",
					    owner[i] + 1, count);
			else if (owner && owner[i] != part)
				strbuf_addf(&sb, "  (shard %u/%u's: needed here)", owner[i] + 1,
					    count);
			strbuf_addch(&sb, '\n');
			continue;
		}
		strbuf_addstr(&sb, i ? ",{" : "{");
		graph_node_json(g, t, cmd, &sb);
		strbuf_addf(&sb, ",\"key\":\"%s\",\"cache\":\"%s\",\"inputs\":%zu,", tc->ks.keys[i],
			    cache_status_name(st), tc->ks.inputs[i].paths.n);
		if (st == CACHE_HIT)
			strbuf_addf(&sb, "\"cacheSource\":\"%s\",", remote ? "remote" : "local");
		if (owner)
			strbuf_addf(&sb, "\"shard\":%u,\"owned\":%s,\"answered\":%s,", owner[i] + 1,
				    owner[i] == part ? "true" : "false",
				    shard->answers[i] ? "true" : "false");
		/* what `turbo run --dry=json` says of a task, to compare with it
		 * (docs/turborepo.md) */
		strbuf_addf(&sb, "\"cacheEnabled\":%s,\"persistent\":%s,",
			    taskcache_cacheable(t) ? "true" : "false",
			    t->cfg->persistent ? "true" : "false");
		json_list(&sb, "inputFiles", (const char *const *)tc->ks.inputs[i].paths.v,
			  tc->ks.inputs[i].paths.n);
		/* its closure in the lockfile (turbo's hashOfExternalDependencies,
		 * computed vx's way), or null without a lockfile */
		if (tc->ks.ext.path)
			strbuf_addf(&sb, "\"externals\":\"%s\",", tc->ks.ext.hash[t->project]);
		else
			strbuf_addstr(&sb, "\"externals\":null,");
		struct strvec v = STRVEC_INIT;
		lstr_vec_strings(&t->cfg->outputs, &v);
		json_list(&sb, "outputs", (const char *const *)v.v, v.n);
		strvec_clear(&v);
		struct strvec inferred = STRVEC_INIT;
		task_env_keyed(g->ws, t, &v, &inferred);
		json_list(&sb, "env", (const char *const *)v.v, v.n);
		/* Turborepo's framework inference (framework.h): what it is
		 * built with, and the variables that adds to the key */
		const struct framework *fw = task_framework(g->ws, t);
		strbuf_addstr(&sb, "\"framework\":");
		strbuf_add_json_string(&sb, fw ? fw->slug : "");
		strbuf_addch(&sb, ',');
		json_list(&sb, "inferredEnv", (const char *const *)inferred.v, inferred.n);
		strvec_clear(&inferred);
		strvec_clear(&v);
		strbuf_addstr(&sb, "\"dependencies\":[");
		for (size_t k = 0; k < t->deps.n; k++) {
			if (k)
				strbuf_addch(&sb, ',');
			strbuf_add_json_string(&sb, g->nodes.v[t->deps.v[k].to]->id);
		}
		strbuf_addstr(&sb, "]}");
	}
	if (mode == DRY_RUN_JSON)
		strbuf_addstr(&sb, "]}\n");
	else
		strbuf_addf(&sb, "%zu tasks\n", g->nodes.n);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

void dryrun_print_turbo(const struct graph *g, const struct job *jobs, struct taskcache *tc)
{
	cJSON *doc = turbodoc_new(g, jobs, tc, NULL);
	char *s = cJSON_Print(doc);
	if (!s)
		die("out of memory");
	fputs(s, stdout);
	fputc('\n', stdout);
	free(s);
	cJSON_Delete(doc);
}
