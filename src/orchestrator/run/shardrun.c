/* shardrun.c - a sharded run's part (shardrun.h, docs/ci.md). */
#include "orchestrator/run/shardrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/remote.h"
#include "orchestrator/plan/shard.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/strbuf.h"
#include "util/worker.h"

/* How often the waits are said while they last: a third of --shard-wait,
 * from every second to every 30 s. */
#define SAY_WAITS_MS(wait) ((wait) / 3 < 1000 ? 1000 : (wait) / 3 > 30000 ? 30000 : (wait) / 3)
/* How often an unpublished split is looked up again. */
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
	s->wait_since = xcalloc(n + 1, sizeof *s->wait_since);
	s->poll_ms = xcalloc(n + 1, sizeof *s->poll_ms);
	s->waiting = xcalloc(n + 1, sizeof *s->waiting);
	s->peers = xcalloc(s->count, sizeof *s->peers);
}

/* A lookup of shard j's published split, on the run's pool. */
struct peer_lookup {
	struct shardrun *s;
	struct remote *remote;
	unsigned j;
	char key[KEY_HEX_SIZE], got[KEY_HEX_SIZE];
	bool found;
};

/* Pool: the GET (it may sleep out a 429's Retry-After: never on the loop). */
static void peer_get(void *arg)
{
	struct peer_lookup *pl = arg;
	FILE *f = tmpfile();
	if (!f)
		return;
	pl->found = remote_get(pl->remote, pl->key, fileno(f), NULL) == 1 &&
		    pread(fileno(f), pl->got, KEY_HEX_SIZE - 1, 0) == KEY_HEX_SIZE - 1;
	fclose(f);
}

/* Loop: what it found is the peer's state; a split not found is looked
 * up again later. */
static void peer_got(void *arg, const char *messages)
{
	struct peer_lookup *pl = arg;
	struct shard_peer_state *p = &pl->s->peers[pl->j];
	fputs(messages, stderr);
	p->asking = false;
	if (pl->found)
		p->peer = strcmp(pl->got, pl->s->split) ? PEER_UNLIKE : PEER_ALIKE;
	free(pl);
}

/* What shard j's published split says of this one's: looked up again at
 * most every PEER_POLL_MS while unknown, on the run's pool (issue 58 item
 * 4: the GET ran on the loop, through a 429's back-off); once known, kept
 * for the run. Unknown while the lookup is in flight: the task waits. */
static enum shard_peer peer(struct shardrun *s, struct taskcache *tc, unsigned j, long long now)
{
	struct shard_peer_state *p = &s->peers[j];
	if (p->peer != PEER_UNKNOWN || p->asking ||
	    (p->asked_ms && now - p->asked_ms < PEER_POLL_MS))
		return p->peer;
	p->asked_ms = now;
	struct peer_lookup *pl = xcalloc(1, sizeof *pl);
	pl->s = s;
	pl->remote = tc->remote;
	pl->j = j;
	peer_key(s, j, pl->key);
	if (!tc->worker) { /* a run with no loop */
		peer_get(pl);
		peer_got(pl, "");
		return p->peer;
	}
	p->asking = true;
	worker_submit(tc->worker, WORKER_NET, peer_get, peer_got, pl);
	return p->peer;
}

/* Every SAY_WAITS_MS of waiting: which tasks still wait (the first three
 * by name), and how long the last of them may still. */
static void say_waits(struct shardrun *s, long long now, const struct graph *g)
{
	if (now - s->said_ms < SAY_WAITS_MS(s->wait_ms))
		return;
	s->said_ms = now;
	struct strbuf sb = STRBUF_INIT;
	size_t count = 0;
	long long most = 0;
	for (size_t i = 0; i < g->nodes.n; i++)
		if (s->waiting[i]) {
			long long left = s->wait_ms - (now - s->wait_since[i]);
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

bool shardrun_wait(struct shardrun *s, struct taskcache *tc, size_t i, struct job *job)
{
	unsigned j = s->owner[i];
	if (j == s->index)
		return false;
	const struct task_node *t = job->data;
	if (!taskcache_cacheable(t) || !taskcache_remote_readable(tc)) {
		shardrun_settled(s, i); /* the remote may have gone off mid-wait */
		return false;
	}
	long long now = loop_now();
	if (peer(s, tc, j, now) == PEER_UNLIKE) {
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
	if (!s->wait_since[i]) {
		if (!s->said_ms)
			s->said_ms = now; /* the first "still waiting" comes a while after */
		s->wait_since[i] = now;
		s->poll_ms[i] = 250;
		s->waiting[i] = true;
		fprintf(stderr,
			"vx: %s: shard %u/%u builds it; waiting up to %llds for its upload\n",
			t->id, j + 1, s->count, s->wait_ms / 1000);
	} else if (now - s->wait_since[i] >= s->wait_ms) {
		warning("%s: shard %u/%u did not upload it within %llds; building it here", t->id,
			j + 1, s->count, s->wait_ms / 1000);
		shardrun_settled(s, i);
		return false;
	}
	say_waits(s, now, tc->g);
	job->later_ms = s->poll_ms[i];
	s->poll_ms[i] = s->poll_ms[i] * 3 / 2 > 2000 ? 2000 : s->poll_ms[i] * 3 / 2;
	return true;
}

void shardrun_settled(struct shardrun *s, size_t i)
{
	if (s->waiting)
		s->waiting[i] = false;
}

void shardrun_free(struct shardrun *s)
{
	if (!s)
		return;
	free(s->owner);
	free(s->answers);
	free(s->wait_since);
	free(s->poll_ms);
	free(s->waiting);
	free(s->peers);
	memset(s, 0, sizeof *s);
}
