/* shardrun.c - a sharded run's part (shardrun.h, docs/ci.md). */
#include "orchestrator/run/shardrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/remote.h"
#include "cache/remotewait.h"
#include "orchestrator/plan/shard.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/strbuf.h"

/* How often the waits are said while they last: a third of --shard-wait,
 * from every second to every 30 s. */
#define SAY_WAITS_MS(wait) ((wait) / 3 < 1000 ? 1000 : (wait) / 3 > 30000 ? 30000 : (wait) / 3)
/* How often an unpublished split is looked up again while a task of its
 * shard waits. */
#define PEER_POLL_MS 2000

char *shardrun_ci_run(void)
{
	const char *v = getenv("VX_SHARD_RUN");
	if (v && *v)
		return xstrdup(v);
	const char *gh = getenv("GITHUB_RUN_ID");
	if (gh && *gh) {
		const char *attempt = getenv("GITHUB_RUN_ATTEMPT");
		return xasprintf("github %s.%s", gh, attempt ? attempt : "");
	}
	static const char *const others[] = {"CI_PIPELINE_ID", "BUILDKITE_BUILD_ID",
					     "CIRCLE_WORKFLOW_ID"};
	for (size_t k = 0; k < sizeof others / sizeof *others; k++)
		if ((v = getenv(others[k])) && *v)
			return xasprintf("%s %s", others[k], v);
	return xstrdup("");
}

struct owned {
	const char *id;
	unsigned owner;
};

static int cmp_owned(const void *a, const void *b)
{
	return strcmp(((const struct owned *)a)->id, ((const struct owned *)b)->id);
}

/* The graph's identity and this shard's split, from every id of the
 * selected graph (sorted: discovery order is no shard's business). */
static void digests(struct shardrun *s, const struct graph *g, const unsigned *own)
{
	size_t n = g->nodes.n;
	struct owned *v = xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct owned){g->nodes.v[i]->id, own[i]};
	qsort(v, n, sizeof *v, cmp_owned);
	char *run = shardrun_ci_run();
	struct key k;
	key_init(&k);
	key_add_str(&k, "shard graph", run);
	key_add_int(&k, "count", s->count);
	for (size_t i = 0; i < n; i++)
		key_add_str(&k, "task", v[i].id);
	key_finish(&k, s->graph);
	key_init(&k);
	key_add_str(&k, "shard split", s->graph);
	for (size_t i = 0; i < n; i++) {
		key_add_str(&k, "task", v[i].id);
		key_add_int(&k, "owner", v[i].owner);
	}
	key_finish(&k, s->split);
	free(run);
	free(v);
}

/* Where shard j's split is published on the remote. */
static void peer_key(const struct shardrun *s, unsigned j, char out[KEY_HEX_SIZE])
{
	struct key k;
	key_init(&k);
	key_add_str(&k, "shard split of", s->graph);
	key_add_int(&k, "shard", j);
	key_finish(&k, out);
}

int shardrun_plan(struct shardrun *s, struct graph *g, const struct run_opts *o, bool checkable)
{
	memset(s, 0, sizeof *s);
	size_t n = g->nodes.n;
	s->index = o->shard_index;
	s->count = o->shard_count;
	s->wait_ms = o->shard_wait_s * 1000LL;
	struct shard_task *st = xcalloc(n + 1, sizeof *st);
	for (size_t i = 0; i < n; i++)
		st[i] = (struct shard_task){
		    .id = g->nodes.v[i]->id, .noop = !g->nodes.v[i]->command, .weight_ms = -1};
	unsigned *by_count = xcalloc(n + 1, sizeof *by_count), *own = by_count;
	shard_split(st, n, s->count, by_count);
	if (o->shard_timings.n && !checkable) {
		warning("--shard-timings is not used without a remote cache to read: shards that "
			"cannot see each other's splits split by count alone (docs/ci.md)");
	} else if (o->shard_timings.n) {
		for (size_t k = 0; k < o->shard_timings.n; k++)
			if (shard_timings_load(o->shard_timings.v[k], st, n)) {
				free(st);
				free(by_count);
				return -1;
			}
		own = xcalloc(n + 1, sizeof *own);
		shard_split(st, n, s->count, own);
		s->timed = true;
	}
	free(st);
	digests(s, g, own);
	/* Dependents come after their dependencies: one sweep from the end
	 * keeps what a node of this shard's needs. */
	bool *keep = xcalloc(n + 1, 1);
	for (size_t i = n; i-- > 0;) {
		keep[i] |= own[i] == s->index || by_count[i] == s->index;
		if (!keep[i])
			continue;
		const struct task_node *t = g->nodes.v[i];
		for (size_t d = 0; d < t->deps.n; d++)
			keep[t->deps.v[d].to] = true;
	}
	s->owner = xcalloc(n + 1, sizeof *s->owner);
	s->answers = xcalloc(n + 1, sizeof *s->answers);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i]) {
			s->answers[kept] = by_count[i] == s->index && own[i] != s->index;
			s->owner[kept++] = own[i];
		}
	graph_keep(g, keep);
	free(keep);
	if (own != by_count)
		free(own);
	free(by_count);
	return 0;
}

void shardrun_publish(const struct shardrun *s, struct taskcache *tc)
{
	if (!tc->remote || !remote_writable(tc->remote))
		return;
	char key[KEY_HEX_SIZE];
	peer_key(s, s->index, key);
	remote_put(tc->remote, key, s->split, KEY_HEX_SIZE - 1, -1, 0, 0);
}

void shardrun_start(struct shardrun *s, size_t n)
{
	s->nodes = xcalloc(n + 1, sizeof *s->nodes);
	for (size_t i = 0; i < n; i++)
		s->nodes[i].s = s;
	s->peers = xcalloc(s->count, sizeof *s->peers);
	for (unsigned j = 0; j < s->count; j++)
		s->peers[j].s = s;
}

/* Every SAY_WAITS_MS of waiting (a tick of the waits, on the loop): which
 * tasks still wait (the first three by name), and how long the last of
 * them may still. */
static void say_waits(void *ctx)
{
	struct shardrun *s = ctx;
	long long now = loop_now();
	/* the first "still waiting" comes a while after the first wait */
	if (now - s->said_ms < SAY_WAITS_MS(s->wait_ms) * 9 / 10)
		return;
	s->said_ms = now;
	const struct graph *g = s->tc->g;
	struct strbuf sb = STRBUF_INIT;
	size_t count = 0;
	long long most = 0;
	for (size_t i = 0; i < g->nodes.n; i++)
		if (s->nodes[i].state == SHARD_WAIT_ON) {
			long long left = s->wait_ms - (now - s->nodes[i].since);
			most = left > most ? left : most;
			if (count++ < 3)
				strbuf_addf(&sb, "%s%s", count > 1 ? ", " : "", g->nodes.v[i]->id);
		}
	if (count > 3)
		strbuf_addf(&sb, " and %zu more", count - 3);
	if (count)
		fprintf(stderr,
			"vx: still waiting for %zu upload%s from other shards (%s): at most %llds "
			"longer (--shard-wait), then built here\n",
			count, count == 1 ? "" : "s", sb.buf, (most + 999) / 1000);
	strbuf_release(&sb);
}

static void peer_ask(struct shardrun *s, unsigned j);

/* Loop: shard j's split, looked up on the waits, found or not. */
static void peer_got(void *arg, enum remote_wait_end end, const char *body, size_t len)
{
	struct shard_peer_state *p = arg;
	struct shardrun *s = p->s;
	unsigned j = (unsigned)(p - s->peers);
	p->lookup = NULL;
	if (end == REMOTE_WAIT_FOUND) {
		bool alike = len == KEY_HEX_SIZE - 1 && !memcmp(body, s->split, len);
		p->peer = alike ? PEER_ALIKE : PEER_UNLIKE;
		if (!alike) /* its part is not what this shard waits for: let go */
			for (size_t i = 0; s->tc && i < s->tc->g->nodes.n; i++)
				if (s->nodes[i].state == SHARD_WAIT_ON && s->owner[i] == j)
					remote_wait_cancel(s->rws, s->nodes[i].rw);
		return;
	}
	/* unknown still: asked again while a task of j's waits (a lookup
	 * cancelled when the last of them ended, and one waits again; or one
	 * that gave up at the deadline of the wait it started with, while a
	 * later one still waits) */
	if ((end == REMOTE_WAIT_STOPPED || end == REMOTE_WAIT_GAVE_UP) && p->waits)
		peer_ask(s, j);
}

/* Shard j's published split, looked up on the run's waits (issue 58 item
 * 4: the GET ran on the loop, through a 429's back-off), at once and then
 * every PEER_POLL_MS while unknown and a task of j's waits; once known,
 * kept for the run. */
static void peer_ask(struct shardrun *s, unsigned j)
{
	struct shard_peer_state *p = &s->peers[j];
	if (p->peer != PEER_UNKNOWN || p->lookup || s->stopped)
		return;
	char key[KEY_HEX_SIZE];
	peer_key(s, j, key);
	struct remote_wait_ask a = {.key = key,
				    .read = true,
				    .gap_ms = PEER_POLL_MS,
				    .max_ms = PEER_POLL_MS,
				    .deadline = loop_now() + s->wait_ms,
				    .done = peer_got,
				    .arg = p};
	p->lookup = remote_wait_add(s->rws, &a);
}

/* Loop: node i's wait ended; its job is asked again (shardrun_wait says
 * what the end means). */
static void wait_ended(void *arg, enum remote_wait_end end, const char *body, size_t len)
{
	(void)body, (void)len;
	struct shard_node *n = arg;
	struct shardrun *s = n->s;
	struct shard_peer_state *p = &s->peers[s->owner[n - s->nodes]];
	n->rw = NULL;
	n->state = end == REMOTE_WAIT_FOUND	? SHARD_WAIT_FOUND
		   : end == REMOTE_WAIT_GAVE_UP ? SHARD_WAIT_GAVE_UP
		   : end == REMOTE_WAIT_ERROR	? SHARD_WAIT_OFF
						: SHARD_WAIT_LET_GO;
	n->job->pending = false;
	n->job = NULL;
	/* no task of that shard's waits: its split is no longer worth asking */
	if (!--p->waits && p->lookup)
		remote_wait_cancel(s->rws, p->lookup);
}

/* Node i's wait begins: its key on the waits, said. */
static void wait_begin(struct shardrun *s, struct taskcache *tc, size_t i, struct job *job)
{
	struct shard_node *n = &s->nodes[i];
	unsigned j = s->owner[i];
	long long now = loop_now();
	if (!s->rws) {
		s->tc = tc;
		s->said_ms = now;
		s->rws = remote_waits_new(tc->remote, tc->worker, SAY_WAITS_MS(s->wait_ms),
					  say_waits, s);
	}
	n->state = SHARD_WAIT_ON;
	n->since = now;
	n->job = job;
	s->peers[j].waits++;
	/* the cache missed it just now: asked again in 250 ms, each gap then
	 * half again as long, up to every 2 s (docs/ci.md) */
	struct remote_wait_ask a = {.key = tc->ks.keys[i],
				    .first_ms = 250,
				    .gap_ms = 375,
				    .max_ms = 2000,
				    .deadline = now + s->wait_ms,
				    .done = wait_ended,
				    .arg = n};
	n->rw = remote_wait_add(s->rws, &a);
	peer_ask(s, j);
	fprintf(stderr, "vx: %s: shard %u/%u builds it; waiting up to %llds for its upload\n",
		tc->g->nodes.v[i]->id, j + 1, s->count, s->wait_ms / 1000);
}

bool shardrun_wait(struct shardrun *s, struct taskcache *tc, size_t i, struct job *job)
{
	unsigned j = s->owner[i];
	struct shard_node *n = &s->nodes[i];
	const struct task_node *t = job->data;
	/* a run without its pool cannot wait off the loop, and a store that is
	 * not open could not take the upload */
	if (j == s->index || n->state == SHARD_WAIT_DONE || s->stopped || !tc->worker ||
	    !taskcache_cacheable(t) || !taskcache_remote_readable(tc)) {
		shardrun_settled(s, i); /* the remote may have gone off mid-wait */
		return false;
	}
	if (s->peers[j].peer == PEER_UNLIKE) {
		if (!s->peers[j].said)
			warning(
			    "shard %u/%u split the graph unlike this one (were they handed "
			    "different "
			    "--shard-timings?): this shard builds what it needs of that shard's "
			    "part, and what the split by count gives it",
			    j + 1, s->count);
		s->peers[j].said = true;
		shardrun_settled(s, i);
		return false;
	}
	if (n->state == SHARD_WAIT_NONE) {
		wait_begin(s, tc, i, job);
		return true;
	}
	if (n->state == SHARD_WAIT_GAVE_UP)
		warning("%s: shard %u/%u did not upload it within %llds; building it here", t->id,
			j + 1, s->count, s->wait_ms / 1000);
	else if (n->state == SHARD_WAIT_FOUND) /* the fetch said why (refused, gone) */
		warning("%s: shard %u/%u uploaded it, but it could not be fetched; building it "
			"here",
			t->id, j + 1, s->count);
	shardrun_settled(s, i);
	return false;
}

void shardrun_settled(struct shardrun *s, size_t i)
{
	if (s->nodes)
		s->nodes[i].state = SHARD_WAIT_DONE;
}

void shardrun_stop(struct shardrun *s)
{
	if (!s)
		return;
	s->stopped = true;
	remote_waits_stop(s->rws);
}

void shardrun_finish(struct shardrun *s)
{
	if (!s)
		return;
	s->stopped = true;
	remote_waits_free(s->rws);
	s->rws = NULL;
}

void shardrun_free(struct shardrun *s)
{
	if (!s)
		return;
	shardrun_finish(s);
	free(s->owner);
	free(s->answers);
	free(s->nodes);
	free(s->peers);
	memset(s, 0, sizeof *s);
}
