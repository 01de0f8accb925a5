/* cacheflow.c - each task's way through the cache in a run: the before
 * hook's fast hit, the prefetch's answer, the open, fetch and restore on
 * the run's pool, the after hook's save; every step a move of the task's
 * one cache state (cache/cachestate.h). taskcache.c opens the cache and
 * computes the keys this runs on. */
#include "orchestrator/run/taskcache.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/cachestate.h"
#include "cache/entry.h"
#include "cache/inplace.h"
#include "cache/prefetch.h"
#include "cache/remote.h"
#include "cache/restore.h"
#include "cache/saver.h"
#include "cache/transfer.h"
#include "orchestrator/run/joblog.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/worker.h"

/* Whether the store holds an entry of key: its manifest or its bundle
 * (a hash lookup costs two stats; opening it is the restore's). */
static bool entry_here(const struct taskcache *tc, const char *key)
{
	/* by the store's descriptor: a workspace deeper than PATH_MAX has
	 * a store no absolute path reaches (issue 39) */
	char *man = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	char *bundle = store_entry_name(key, STORE_BUNDLE_SUFFIX);
	bool here = faccessat(tc->store.dirfd, man, F_OK, 0) == 0 ||
		    faccessat(tc->store.dirfd, bundle, F_OK, 0) == 0;
	free(man);
	free(bundle);
	return here;
}

/* Node i's entry from the remote cache into the local store, checked
 * whole before it enters (transfer.h). Returns 0 when it is there now, 1
 * for a miss, -1 after a warning. */
static int remote_fetch(struct taskcache *tc, size_t i)
{
	if (!remote_readable(tc->remote))
		return 1;
	const char *key = tc->ks.keys[i];
	char *path = NULL;
	int fd = transfer_tmp(&tc->store, key, &path);
	if (fd < 0)
		return -1;
	bool had = !tc->keep_local && entry_here(tc, key);
	int rc = remote_get(tc->remote, key, fd, transfer_body_begins);
	if (rc == 1) {
		struct strbuf why = STRBUF_INIT;
		rc = transfer_import(&tc->store, key, fd, path, &why);
		tc->imported[i] |= !tc->keep_local && rc == 0 && !had;
		if (rc == 1)
			warning(
			    "%s: the remote cache's artifact %s is refused (%s); running the task",
			    tc->g->nodes.v[i]->id, key, why.buf);
		strbuf_release(&why);
		rc = rc == 0 ? 0 : -1;
	} else {
		rc = rc == 0 ? 1 : -1;
	}
	close(fd);
	unlinkat(tc->store.dirfd, path, 0);
	free(path);
	return rc;
}

/* Moves node i's cache state by e. A move the table lacks is a bug in
 * this file, not a user's: said as one. */
static void move(struct taskcache *tc, size_t i, enum cache_event e)
{
	enum cache_state to = cache_state_after(tc->state[i], e);
	if (to == CACHE_STATE_COUNT)
		die("BUG: %s: cache state '%s' has no move on '%s'", tc->g->nodes.v[i]->id,
		    cache_state_name(tc->state[i]), cache_event_name(e));
	tc->state[i] = to;
}

/* A hit's log as restore reads it: into the job's log, which spills as a
 * command's output does. */
struct replay {
	struct job *job;
	const char *spill_dir;
};

static int replay_add(void *ctx, const char *buf, size_t n)
{
	struct replay *rp = ctx;
	joblog_add(rp->job, rp->spill_dir, buf, n);
	return 0;
}

/* One hit's way from the store (or the remote) into the project, off the
 * loop when the run has a worker: opened (and fetched), then, on the loop,
 * its programs checked against the ones here, then restored. While it is
 * on its way the job is pending (scheduler.h) and its log is the fetch's;
 * the before hook asked again takes the answer. */
struct fetch {
	struct taskcache *tc;
	struct job *job;
	size_t i;
	enum prefetch_state pf; /* the prefetch's answer, taken once */
	int r;			/* entry_open's */
	bool bad;		/* the local entry was damaged (why says how) */
	struct strbuf why;
	struct entry e;
	bool from_remote;
	char *entry_tools;	  /* the programs its cached run exec'd (exec_blob) */
	int rc;			  /* the restore's */
	struct strvec after;	  /* the outputs once restored */
	struct strvec trusted;	  /* outputs on disk as the in-place record has them */
	struct inplace_seen seen; /* the outputs as a restore found them in place */
	int after_rc;
	bool hit; /* the answer, once the state is CACHE_STATE_ANSWERED */
};

static void fetch_free(struct fetch *f)
{
	strbuf_release(&f->why);
	free(f->entry_tools);
	strvec_clear(&f->after);
	strvec_clear(&f->trusted);
	inplace_seen_release(&f->seen);
	free(f);
}

/* The answer is known (the state moved to CACHE_STATE_ANSWERED): the job
 * is asked again (async) or answered now. */
static void fetch_settle(struct fetch *f, bool hit)
{
	f->hit = hit;
	f->job->pending = false;
}

/* Worker: the local entry, else the remote's into the store, opened. */
static void fetch_open(void *arg)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	const char *key = tc->ks.keys[f->i];
	struct cache_open_plan plan = cache_state_open_plan(f->pf, tc->remote_only);
	f->r = plan.local ? entry_open(&tc->store, key, &f->e, &f->why) : ENTRY_MISS;
	f->from_remote = f->r == ENTRY_HIT && plan.from_remote;
	f->bad = f->r == ENTRY_BAD;
	if (f->r != ENTRY_HIT && f->r != ENTRY_ERROR && plan.ask_remote &&
	    remote_fetch(tc, f->i) == 0) {
		struct strbuf why = STRBUF_INIT;
		f->r = entry_open(&tc->store, key, &f->e, &why);
		strbuf_release(&why);
		f->from_remote = f->r == ENTRY_HIT;
	}
	if (f->r == ENTRY_HIT)
		f->entry_tools = taskcache_exec_blob(NULL, NULL, 0, &f->e.m);
}

/* Worker: the project's outputs replaced by the entry's, its log into the
 * job's (the job is pending: its log is the fetch's). */
static void fetch_restore(void *arg)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	const struct task_node *t = tc->g->nodes.v[f->i];
	const struct project *p = tc->ws->projects.v[t->project];
	struct strvec current = STRVEC_INIT;
	f->rc = outputs_collect(p->dir, &t->cfg->outputs, &current);
	if (!f->rc) {
		joblog_reset(f->job);
		/* no entry writes more than the whole cache may hold (issue 36:
		 * a tiny remote artifact can unpack to gigabytes) */
		f->e.restore_limit = (uint64_t)tc->ws->cfg->cache_max_size;
		f->e.trusted = &f->trusted;
		f->e.seen = &f->seen;
		struct replay rp = {f->job, tc->spill_dir};
		struct restore_log sink = {replay_add, &rp};
		f->rc = restore_entry_to(&f->e, p->dir, (const char *const *)current.v, current.n,
					 &sink);
	}
	entry_close(&f->e);
	strvec_clear(&current);
	if (f->rc < 0) {
		joblog_reset(f->job);
		return;
	}
	if (!tc->store.read_only && tc->keep_local)
		store_touch(&tc->store, tc->ks.keys[f->i]);
	f->after_rc = outputs_collect(p->dir, &t->cfg->outputs, &f->after);
}

static void fetch_restored(void *arg, const char *messages)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	const struct task_node *t = tc->g->nodes.v[f->i];
	fputs(messages ? messages : "", stderr);
	move(tc, f->i, CACHE_EV_RESTORED);
	if (f->rc < 0) {
		warning("%s: cannot restore cache entry %s; running the task", t->id,
			tc->ks.keys[f->i]);
		tc->status[f->i] = CACHE_MISS;
		fetch_settle(f, false);
		return;
	}
	if (!f->after_rc)
		inplace_put(tc->ip, t->id, tc->ks.keys[f->i], tc->ws->projects.v[t->project]->dir,
			    f->after.v, f->after.n, f->job->log.buf, f->job->log.len,
			    f->entry_tools, f->rc == RESTORE_IN_PLACE ? &f->seen : NULL);
	fetch_settle(f, true);
}

/* Loop: what the open found; a hit whose programs are still the ones here
 * goes on to its restore. */
static void fetch_opened(void *arg, const char *messages)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	size_t i = f->i;
	const struct task_node *t = tc->g->nodes.v[i];
	fputs(messages ? messages : "", stderr);
	if (f->bad) {
		warning("%s: cache entry %s is damaged (%s); running the task and replacing it",
			t->id, tc->ks.keys[i], f->why.buf);
		tc->status[i] = CACHE_BAD;
	}
	if (f->r != ENTRY_HIT) {
		if (tc->verbose)
			taskcache_explain_miss(tc, i);
		move(tc, i, CACHE_EV_OPENED_MISS);
		fetch_settle(f, false);
		return;
	}
	/* the programs its cached run exec'd must be the ones here (issue 18);
	 * the same list goes into the in-place record */
	struct strbuf which = STRBUF_INIT;
	if (taskcache_tools_changed(tc, f->entry_tools, &which)) {
		if (tc->verbose)
			fprintf(stderr,
				"%s: cache miss: toolchain changed: %s (a program its "
				"cached run exec'd)\n",
				t->id, which.buf);
		entry_close(&f->e);
		strbuf_release(&which);
		f->from_remote = false;
		move(tc, i, CACHE_EV_OPENED_MISS);
		fetch_settle(f, false);
		return;
	}
	strbuf_release(&which);
	move(tc, i, CACHE_EV_OPENED_HIT);
	if (tc->worker) {
		worker_submit(tc->worker, WORKER_READ, fetch_restore, fetch_restored, f);
		return;
	}
	fetch_restore(f);
	fetch_restored(f, NULL);
}

/* The settled fetch of node i, taken: its answer, and the node's status. */
static enum taskcache_answer fetch_take(struct taskcache *tc, size_t i, struct job *job)
{
	struct fetch *f = tc->fetching[i];
	tc->fetching[i] = NULL;
	bool hit = f->hit;
	move(tc, i, hit ? CACHE_EV_TAKE_HIT : CACHE_EV_TAKE_RUN);
	tc->from_remote[i] = hit && f->from_remote;
	job->hit_from = tc->from_remote[i] ? "remote" : NULL;
	if (hit) {
		tc->status[i] = CACHE_HIT;
		job->exit_code = 0;
	}
	fetch_free(f);
	return hit ? TASKCACHE_HIT : TASKCACHE_RUN;
}

struct here_ask {
	const struct taskcache *tc;
	size_t i;
};

static bool here_of(void *ctx)
{
	const struct here_ask *ha = ctx;
	return entry_here(ha->tc, ha->tc->ks.keys[ha->i]);
}

enum taskcache_answer taskcache_before(struct job *job, void *ctx)
{
	struct taskcache *tc = ctx;
	size_t i = taskcache_node_of(tc, job);
	const struct task_node *t = tc->g->nodes.v[i];
	if (tc->state[i] == CACHE_STATE_ANSWERED) /* asked again: its fetch has settled */
		return fetch_take(tc, i, job);
	if (tc->state[i] == CACHE_STATE_RUN) /* asked again: a --shard wait */
		move(tc, i, CACHE_EV_ASK_AGAIN);
	if (!taskcache_cacheable(t) || !tc->store_open) {
		tc->status[i] = CACHE_DISABLED;
		move(tc, i, CACHE_EV_UNCACHED);
		return TASKCACHE_RUN;
	}
	tc->status[i] = CACHE_MISS;
	if (!tc->read) {
		move(tc, i, CACHE_EV_UNCACHED);
		return TASKCACHE_RUN;
	}
	const struct project *p = tc->ws->projects.v[t->project];
	tc->from_remote[i] = false;
	/* The fast hit: outputs still in place from the last time this key
	 * was built or restored, so no entry is opened. */
	const struct inplace_record *rec = tc->remote_only ? NULL : inplace_get(tc->ip, t->id);
	/* else, the outputs still as recorded for this key: the restore's
	 * in-place check need not hash them */
	struct strvec trusted = STRVEC_INIT;
	if (rec && !strcmp(rec->key, tc->ks.keys[i]) && inplace_check(rec, p->dir, &trusted) &&
	    rec->has_log && !taskcache_tools_changed(tc, rec->tools, NULL)) {
		strvec_clear(&trusted);
		strbuf_reset(&job->log);
		strbuf_add(&job->log, rec->log, rec->log_len);
		tc->status[i] = CACHE_HIT;
		job->exit_code = 0;
		move(tc, i, CACHE_EV_IN_PLACE);
		return TASKCACHE_HIT;
	}
	/* The prefetch's answer, taken once: a later ask (a --shard wait)
	 * goes to the remote itself. */
	enum prefetch_state pf = PREFETCH_ASK;
	if (tc->prefetch && tc->prefetch_of[i]) {
		prefetch_say(tc->prefetch);
		pf = prefetch_state(tc->prefetch, tc->prefetch_of[i] - 1);
		if (pf != PREFETCH_PENDING)
			tc->prefetch_of[i] = 0;
	}
	struct here_ask ha = {tc, i};
	struct cache_look look = {.prefetch = pf,
				  .remote_only = tc->remote_only,
				  .remote_readable = remote_readable(tc->remote),
				  .here = here_of,
				  .ctx = &ha};
	enum cache_event e = cache_state_look(&look);
	move(tc, i, e);
	if (e == CACHE_EV_PREFETCH_PENDING) {
		/* woken by the prefetch's post (on_prefetch), never asked again
		 * and again (issue 58 item 4: every 2 ms) */
		strvec_clear(&trusted);
		tc->waiting[i] = job;
		return TASKCACHE_PENDING;
	}
	if (e == CACHE_EV_NOTHING) {
		strvec_clear(&trusted);
		if (tc->verbose)
			taskcache_explain_miss(tc, i);
		return TASKCACHE_RUN;
	}
	struct fetch *f = xcalloc(1, sizeof *f);
	f->trusted = trusted;
	f->tc = tc;
	f->job = job;
	f->i = i;
	f->pf = pf;
	strbuf_init(&f->why);
	tc->fetching[i] = f;
	if (tc->worker) {
		/* off the loop: the entry's open, a remote GET (and its
		 * back-off), the restore (docs/architecture.md) */
		worker_submit(tc->worker, WORKER_READ, fetch_open, fetch_opened, f);
		return TASKCACHE_PENDING;
	}
	fetch_open(f);
	fetch_opened(f, NULL);
	return fetch_take(tc, i, job);
}

static void save_finished(struct taskcache *tc, struct job *job, int rc, const char *messages,
			  const struct inplace_seen *seen);
static void on_saved(void *tag, int rc, const char *messages, const struct inplace_seen *seen,
		     void *ctx);

/* Starts job's save (node i), or returns false: it is not to be saved. */
static bool save_begin(struct taskcache *tc, struct job *job, size_t i)
{
	const struct task_node *t = tc->g->nodes.v[i];
	/* a log that could not be kept whole was said with its reason */
	if (job->state != JOB_SUCCEEDED || !tc->write || !taskcache_cacheable(t) ||
	    !tc->store_open || job->log_lost)
		return false;
	const struct project *p = tc->ws->projects.v[t->project];
	/* An input that moved under the task (an editor's save, a checkout)
	 * makes its key and its outputs two contents' (issue 37: a writer
	 * rewriting an input every 3 ms gave 39 wrong entries of 39) */
	const struct task_inputs *hashed = &tc->ks.inputs[i];
	for (size_t f = 0; tc->sc && f < hashed->paths.n; f++) {
		char *abs = path_join(tc->ws->root, hashed->paths.v[f]);
		bool moved = statcache_changed(tc->sc, abs);
		free(abs);
		if (moved) {
			warning(
			    "%s: not saved to the cache: its input %s changed while it ran (its "
			    "key holds what was there before)",
			    t->id, hashed->paths.v[f]);
			return false;
		}
	}
	struct strvec outs = STRVEC_INIT;
	if (outputs_collect(p->dir, &t->cfg->outputs, &outs)) {
		warning("%s: not saved to the cache: its outputs cannot be listed", t->id);
		strvec_clear(&outs);
		return false;
	}
	const struct task_inputs *ti = &tc->ks.facts[i];
	struct entry_input *ins = xcalloc(ti->paths.n + 1, sizeof *ins);
	for (size_t f = 0; f < ti->paths.n; f++) {
		ins[f].path = ti->paths.v[f];
		ins[f].hash = ti->hashes[f];
	}
	struct inplace_seen seen = {0};
	struct entry_save_request req = {
	    .key = tc->ks.keys[i],
	    .task = t->id,
	    .project_dir = p->dir,
	    .outputs = (const char *const *)outs.v,
	    .n_outputs = outs.n,
	    .inputs = ins,
	    .n_inputs = ti->paths.n,
	    /* a spilled log is streamed from its file, never held whole */
	    .log_fd = job->log_fd >= 0 && lseek(job->log_fd, 0, SEEK_SET) == 0 ? job->log_fd : -1,
	    .log = job->log_fd < 0 && job->log.len ? job->log.buf : NULL,
	    .log_len = job->log_fd < 0 ? job->log.len : 0,
	    .exit_code = job->exit_code,
	    .duration_ms = (uint64_t)(job->duration_ms > 0 ? job->duration_ms : 0),
	    .level = tc->level,
	    /* the in-place record from the save's own lstats, not a second
	     * of each output on the loop (issue 43) */
	    .seen = &seen,
	};
	if (tc->worker && !tc->saver) /* a fully cached run never makes it */
		tc->saver = saver_new(&tc->store, remote_writable(tc->remote) ? tc->remote : NULL,
				      tc->keep_local, tc->worker, on_saved, tc);
	tc->saving[i] = outs;
	move(tc, i, CACHE_EV_SAVE);
	if (tc->saver) {
		/* Off the loop: the dependents wait for the save (job->held),
		 * every other task goes on. The request is copied at submit. */
		saver_submit(tc->saver, &req, job);
		job->held = true;
	} else {
		struct strbuf messages = STRBUF_INIT;
		report_to(strbuf_report_line, &messages);
		int rc = entry_save(&tc->store, &req, NULL);
		report_to(NULL, NULL);
		save_finished(tc, job, rc, messages.buf, &seen);
		strbuf_release(&messages);
		inplace_seen_release(&seen);
	}
	free(ins);
	return true;
}

void taskcache_after(struct job *job, void *ctx)
{
	struct taskcache *tc = ctx;
	size_t i = taskcache_node_of(tc, job);
	if (!save_begin(tc, job, i))
		move(tc, i, CACHE_EV_NOT_SAVED);
}

/* A save of job's outputs ended with rc, saying messages (the lines its
 * error() and warning() calls made): on success they are printed and the
 * outputs it holds are recorded as in place (the fast hit of the next
 * run); on failure they are the reason of one warning that names the task
 * (issue 39: "cannot write the archive: No space left on device" named no
 * task and no file, and lacked "warning:"). */
static void save_finished(struct taskcache *tc, struct job *job, int rc, const char *messages,
			  const struct inplace_seen *seen)
{
	size_t i = taskcache_node_of(tc, job);
	const struct task_node *t = tc->g->nodes.v[i];
	const struct project *p = tc->ws->projects.v[t->project];
	struct strvec *outs = &tc->saving[i];
	if (rc) {
		struct strbuf why = STRBUF_INIT;
		for (const char *s = messages; s && *s;) {
			const char *nl = strchr(s, '\n');
			if (!nl)
				nl = s + strlen(s);
			const char *line = s;
			if (!strncmp(line, "vx: ", 4))
				line += 4;
			if (!strncmp(line, "warning: ", 9))
				line += 9;
			if (nl > line)
				strbuf_addf(&why, "%s%.*s", why.len ? "; " : ": ", (int)(nl - line),
					    line);
			s = *nl ? nl + 1 : nl;
		}
		warning("%s: not saved to the cache%s; the run goes on", t->id, why.buf);
		strbuf_release(&why);
	} else {
		fputs(messages, stderr);
		/* a log too long for the record (a spilled one is) leaves it without one */
		char *tools = taskcache_exec_blob(tc->ks.facts[i].paths.v, tc->ks.facts[i].hashes,
						  tc->ks.facts[i].paths.n, NULL);
		inplace_put(tc->ip, t->id, tc->ks.keys[i], p->dir, outs->v, outs->n, job->log.buf,
			    job->log_len > job->log.len ? job->log_len : job->log.len, tools, seen);
		free(tools);
	}
	strvec_clear(outs);
	move(tc, i, CACHE_EV_SAVED);
	job->held = false;
}

static void on_saved(void *tag, int rc, const char *messages, const struct inplace_seen *seen,
		     void *ctx)
{
	save_finished(ctx, tag, rc, messages, seen);
}

/* Keys settled: each job waiting on one goes back to the scheduler, whose
 * hook then takes the prefetch's answer. */
static void on_prefetch(void *ctx)
{
	struct taskcache *tc = ctx;
	for (size_t i = 0; i < tc->g->nodes.n; i++)
		if (tc->state[i] == CACHE_STATE_PREFETCH &&
		    prefetch_state(tc->prefetch, tc->prefetch_of[i] - 1) != PREFETCH_PENDING) {
			move(tc, i, CACHE_EV_PREFETCH_SETTLED);
			tc->waiting[i]->pending = false;
			tc->waiting[i] = NULL;
		}
}

/* Every key the run may need that the local store lacks goes to the
 * prefetch, in the graph's order (the order the tasks come up). */
static void prefetch_begin(struct taskcache *tc)
{
	size_t n = tc->g->nodes.n, k = 0;
	const char **keys = xcalloc(n + 1, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		tc->prefetch_of[i] = 0;
		if (!taskcache_cacheable(tc->g->nodes.v[i]))
			continue;
		if (!tc->remote_only) {
			/* built or restored with this key last time: its entry is
			 * here (a hash lookup, where the store costs a stat) */
			const struct inplace_record *rec =
			    inplace_get(tc->ip, tc->g->nodes.v[i]->id);
			if (rec && !strcmp(rec->key, tc->ks.keys[i]))
				continue;
			if (entry_here(tc, tc->ks.keys[i]))
				continue;
		}
		keys[k] = tc->ks.keys[i];
		tc->prefetch_of[i] = ++k;
		/* fetched ahead into the store: not kept there without local:w */
		tc->imported[i] |= !tc->keep_local && !entry_here(tc, tc->ks.keys[i]);
	}
	tc->prefetch = prefetch_start(&tc->store, tc->remote, keys, k, tc->worker, on_prefetch, tc);
	if (!tc->prefetch)
		memset(tc->prefetch_of, 0, n * sizeof *tc->prefetch_of);
	free(keys);
}

void taskcache_stop(struct taskcache *tc)
{
	if (tc->prefetch)
		prefetch_stop(tc->prefetch);
	for (size_t i = 0; i < tc->g->nodes.n; i++)
		if (tc->state[i] == CACHE_STATE_PREFETCH) { /* let go: it ends skipped */
			move(tc, i, CACHE_EV_PREFETCH_SETTLED);
			tc->waiting[i]->pending = false;
			tc->waiting[i] = NULL;
		}
}

void taskcache_start(struct taskcache *tc, struct loop *l)
{
	if (!tc->store_open || tc->dry_run)
		return;
	/* the run's pool: its threads start at their first item, so this
	 * costs a fully cached run one pipe */
	if (l)
		tc->worker = worker_new(l);
	if (tc->worker && tc->read && taskcache_remote_readable(tc))
		prefetch_begin(tc);
}

void taskcache_finish(struct taskcache *tc)
{
	prefetch_free(tc->prefetch);
	tc->prefetch = NULL;
	saver_free(tc->saver); /* its saves reported, its uploads over */
	tc->saver = NULL;
	/* idle by now: the scheduler waited for its pending jobs, and the
	 * prefetch and the saves were waited for above */
	worker_free(tc->worker);
	tc->worker = NULL;
	for (size_t i = 0; tc->imported && i < tc->g->nodes.n; i++) {
		if (tc->imported[i] && tc->store_open)
			store_remove(&tc->store, tc->ks.keys[i]);
		tc->imported[i] = false;
	}
	/* a fetch answered after a stop was never taken (the job was
	 * skipped); every task starts the next cycle (vx watch) afresh */
	for (size_t i = 0; tc->state && i < tc->g->nodes.n; i++) {
		if (tc->fetching[i])
			fetch_free(tc->fetching[i]);
		tc->fetching[i] = NULL;
		move(tc, i, CACHE_EV_RESET);
	}
}
