/* runhooks.c - the run's scheduler hooks (runhooks.h). */
#include "orchestrator/run/runhooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/key.h"
#include "orchestrator/keys/taskenv.h"
#include "orchestrator/run/output.h"
#include "orchestrator/run/runreport.h"
#include "util/die.h"
#include "util/path.h"

/* Whether a fact is one of the server's own sources, which a dev server
 * reloads itself: a file of its project but the project's package.json and
 * vx.yaml (its scripts, dependencies and task: what a restart needs). */
static bool own_source(const char *fact, const char *project)
{
	if (!strncmp(fact, "//", 2))
		return false;
	size_t n = strlen(project);
	const char *rest = fact;
	if (n && strcmp(project, ".")) {
		if (strncmp(fact, project, n) || fact[n] != '/')
			return false;
		rest = fact + n + 1;
	}
	return strcmp(rest, "package.json") && strcmp(rest, "vx.yaml");
}

/* A field into both of a server's fingerprints. */
static void add_both(struct key *all, struct key *restart, const char *tag, const char *value)
{
	key_add_str(all, tag, value);
	key_add_str(restart, tag, value);
}

/* A server's fingerprints (run.h struct server_fp): its own key but for
 * its dependencies' keys, and, in their place, the content of every
 * upstream task's outputs: a rebuild upstream that hits, or that writes
 * byte-identical outputs, leaves them unchanged (docs/watch.md). */
static void server_fingerprint(const struct run_hooks *rh, size_t i, struct server_fp *fp)
{
	const struct graph *g = rh->tc->g;
	const struct task_node *srv = g->nodes.v[i];
	const char *rule = srv->cfg->restart.s ? srv->cfg->restart.s : "auto";
	const char *project = rh->ws->projects.v[srv->project]->rel;
	fp->rule = rule;
	struct key k, r;
	key_init(&k);
	key_init(&r);
	const struct task_inputs *facts = &rh->tc->ks.facts[i];
	for (size_t f = 0; f < facts->paths.n; f++) {
		if (!strncmp(facts->paths.v[f], "//dep/", 6) ||
		    !strcmp(facts->paths.v[f], "//lockfile") ||
		    !strncmp(facts->paths.v[f], "//exec/", 7))
			continue;
		key_add_str(&k, "fact", facts->paths.v[f]);
		key_add_str(&k, "hash", facts->hashes[f]);
		if (strcmp(rule, "auto") || !own_source(facts->paths.v[f], project)) {
			key_add_str(&r, "fact", facts->paths.v[f]);
			key_add_str(&r, "hash", facts->hashes[f]);
		}
	}
	/* Upstream, in the graph's (topological) order: deterministic. */
	bool *up = xcalloc(g->nodes.n + 1, 1);
	up[i] = true;
	for (size_t j = i + 1; j-- > 0;) {
		if (!up[j])
			continue;
		const struct task_node *t = g->nodes.v[j];
		for (size_t d = 0; d < t->deps.n; d++)
			up[t->deps.v[d].to] = true;
	}
	for (size_t j = 0; j < i; j++) {
		if (!up[j])
			continue;
		const struct task_node *t = g->nodes.v[j];
		const struct project *pr = rh->ws->projects.v[t->project];
		struct strvec rel = STRVEC_INIT, abs = STRVEC_INIT;
		if (t->cfg->outputs.n && outputs_collect(pr->dir, &t->cfg->outputs, &rel))
			add_both(&k, &r, "unlistable", t->id); /* an error line said why */
		for (size_t f = 0; f < rel.n; f++)
			strvec_push_nodup(&abs, path_join(pr->dir, rel.v[f]));
		char(*hashes)[KEY_HEX_SIZE] = xcalloc(abs.n + 1, sizeof *hashes);
		int *errs = xcalloc(abs.n + 1, sizeof *errs);
		keyset_hash(&rh->tc->ks, (const char *const *)abs.v, abs.n, hashes, errs);
		add_both(&k, &r, "upstream", t->id);
		for (size_t f = 0; f < rel.n; f++) {
			add_both(&k, &r, "file", rel.v[f]);
			add_both(&k, &r, "hash", hashes[f][0] ? hashes[f] : NULL);
		}
		free(hashes);
		free(errs);
		strvec_clear(&rel);
		strvec_clear(&abs);
	}
	free(up);
	key_finish(&k, fp->all);
	key_finish(&r, fp->restart);
	if (!strcmp(rule, "never")) /* a running one restarts for nothing */
		strcpy(fp->restart, "never");
}

/* The one place the cache's, the shard's and the sandbox's answers become
 * the scheduler's. */
enum before_result run_before(struct job *job, void *ctx)
{
	struct run_hooks *rh = ctx;
	const struct task_node *t = job->data;
	size_t i = taskcache_node_of(rh->tc, job);
	if (t->cfg->persistent && rh->wh && rh->wh->serve) {
		/* Its dependencies ran and succeeded (turborepo#8673): vx watch
		 * runs it from here, across cycles. */
		struct server_fp fp;
		server_fingerprint(rh, i, &fp);
		job->reason = rh->wh->serve(t->id, &fp, rh->wh->ctx);
		return BEFORE_HANDED_OFF;
	}
	enum taskcache_answer r = taskcache_before(job, rh->tc);
	if (r == TASKCACHE_PENDING)
		return BEFORE_PENDING; /* its prefetch, open or restore is on the pool */
	if (r == TASKCACHE_HIT) {
		if (rh->shard)
			shardrun_settled(rh->shard, i);
		return BEFORE_DONE;
	}
	if (rh->shard && shardrun_wait(rh->shard, rh->tc, i, job))
		return BEFORE_PENDING; /* another shard builds it: its upload is waited
					* for on the pool, the loop keeps no timer */
	if (t->cfg->sandbox)
		return sandbox_jobs_wrap(rh->sj, i, job, taskcache_keyed_files(rh->tc, i)) < 0
			   ? BEFORE_FAIL
			   : BEFORE_RUN;
	task_env(rh->ws, t, &rh->envs[i]);
	job->envp = rh->envs[i].v;
	return BEFORE_RUN;
}

void run_stop_hook(void *ctx)
{
	struct run_hooks *rh = ctx;
	taskcache_stop(rh->tc);
	shardrun_stop(rh->shard);
}

/* --only: did a task upstream of t stay unrun (its outputs taken as found)? */
static bool upstream_unrun(const struct task_node *t, const struct graph *g)
{
	for (size_t d = 0; d < t->deps.n; d++)
		if (!g->nodes.v[t->deps.v[d].to]->requested)
			return true;
	return false;
}

enum after_result run_after(struct job *job, void *ctx)
{
	struct run_hooks *rh = ctx;
	size_t i = taskcache_node_of(rh->tc, job);
	const struct task_node *t = job->data;
	if (t->cfg->sandbox) {
		/* The staged grants go back before anything looks at the
		 * project: the judge, the retry, the cache. */
		sandbox_jobs_unstage(rh->sj, i);
		/* Two failures that are the setup's, not the task's: run it once
		 * more (the scheduler decides whether there is time). This
		 * attempt fails and is not saved either way: fail closed. */
		const char *log = job->log.buf;
		if (job->state == JOB_FAILED && !job->timed_out && strstr(log, "bwrap: Can't ") &&
		    strstr(log, "No such file or directory"))
			job->retry = "bwrap met a mount race while it set the sandbox up";
		else if (rh->sj->strace &&
			 (!strncmp(log, "strace: ", 8) || strstr(log, "\nstrace: ")))
			job->retry = "strace printed an error of its own, so the trace is broken";
		if (job->retry) {
			sandbox_jobs_done(rh->sj, i);
			return AFTER_FAIL;
		}
	}
	/* A violation fails a task that exited 0, and such a task is never
	 * saved: judged before the cache sees it. */
	int verdict = sandbox_jobs_judge(rh->sj, i, job);
	runreport_task(rh->sj, i, job, stderr);
	const struct verdict *v = sandbox_jobs_verdict(rh->sj, i);
	if (v)
		taskcache_set_reads(rh->tc, i, &v->reads);
	if (v && verdict == 0)
		taskcache_set_execs(rh->tc, i, &v->execs);
	sandbox_jobs_done(rh->sj, i);
	if (verdict < 0)
		return AFTER_FAIL;
	/* --continue=always: a dependency failed, or was built on one; what
	 * this made is not what its key (which folds theirs) promises */
	if (rh->tainted) {
		for (size_t d = 0; d < t->deps.n && !rh->tainted[i]; d++) {
			size_t to = t->deps.v[d].to;
			rh->tainted[i] = rh->jobs[to].state == JOB_FAILED || rh->tainted[to];
		}
		if (rh->tainted[i]) {
			fprintf(stderr,
				"vx: %s: not saved to the cache: a task it depends on failed "
				"(--continue=always ran it anyway)\n",
				t->id);
			return AFTER_KEEP;
		}
	}
	/* Its key says what its dependencies were built from; under --only
	 * they were not built, so what it made is not that key's to keep. */
	if (!rh->only || !upstream_unrun(t, rh->tc->g))
		taskcache_after(job, rh->tc);
	return AFTER_KEEP;
}
