/* shardrun.h - a sharded run's part (`vx run --shard I/N`, docs/ci.md):
 * which shard builds each task, which tasks this shard answers for, the
 * split it published, and its waits for the other shards' uploads.
 *
 * The shards of a CI run share the graph, not necessarily their timings
 * (a cache restored by a prefix key can differ from job to job). So every
 * task is answered for by its owner under the split by count, which every
 * shard computes alike from the graph: a shard handed --shard-timings
 * builds its part of the timed split, and a task the split by count gives
 * it and the timed one does not stays its to make sure of. It waits for
 * that task's upload from the shard its own split names, and builds it
 * itself as soon as that shard's published split is unlike its own, or
 * when the upload never comes. Shards handed different timings never leave
 * a task to no one; at worst one is built twice. */
#ifndef VX_RUN_SHARDRUN_H
#define VX_RUN_SHARDRUN_H

#include <stdbool.h>

#include "cache/key.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

enum shard_peer {
	PEER_UNKNOWN, /* its split is not published (yet) */
	PEER_ALIKE,   /* it split the graph as this shard did */
	PEER_UNLIKE,  /* it did not: what it builds is not what this shard thinks */
};

/* Where a kept node's wait for another shard's upload is. */
enum shard_wait {
	SHARD_WAIT_NONE,    /* not waited for (yet) */
	SHARD_WAIT_ON,	    /* its key is on the run's waits (cache/remotewait.h); its
			     * job is pending until the wait's one event */
	SHARD_WAIT_FOUND,   /* the remote holds it: the hook asked again fetches it */
	SHARD_WAIT_GAVE_UP, /* not uploaded within --shard-wait: built here */
	SHARD_WAIT_OFF,	    /* the remote went off mid-wait: built here */
	SHARD_WAIT_LET_GO,  /* cancelled: its builder split unlike this shard, or the
			     * run stops */
	SHARD_WAIT_DONE,    /* settled: a hit, or built here */
};

struct remote_wait;
struct remote_waits;

struct shardrun {
	unsigned index, count; /* this run's part (0-based) and the count */
	/* per kept node (indexed like the kept graph): */
	unsigned *owner;	  /* its builder under this shard's split */
	bool *answers;		  /* the split by count gives it to this shard, this
				   * shard's split to another: this shard makes sure */
	bool timed;		  /* this shard's split used --shard-timings */
	char graph[KEY_HEX_SIZE]; /* the selected graph's ids, the count, the CI run */
	char split[KEY_HEX_SIZE]; /* this shard's split: every id and its builder */
	long long wait_ms;	  /* --shard-wait */
	/* set by shardrun_start, for the run: */
	struct shard_node {
		enum shard_wait state;
		long long since;	/* when its wait began (loop_now()) */
		struct job *job;	/* while SHARD_WAIT_ON: pending on the wait */
		struct remote_wait *rw; /* while SHARD_WAIT_ON: its wait */
		struct shardrun *s;	/* for the wait's done */
	} * nodes;
	struct shard_peer_state {
		enum shard_peer peer;
		struct remote_wait *lookup; /* its split looked up on the waits, or NULL */
		size_t waits;		    /* nodes of its waiting (SHARD_WAIT_ON) */
		bool said;
		struct shardrun *s; /* for the lookup's done */
	} * peers;		    /* per shard */
	struct taskcache *tc;	    /* the run's cache, set by the first wait */
	struct remote_waits *rws;   /* made at the first wait, on tc's pool and remote */
	bool stopped;		    /* shardrun_stop: nothing waits any more */
	long long said_ms;	    /* when the waits were last said */
};

/* Splits the graph o asks for (o->shard, o->shard_timings) and keeps what
 * this shard builds or answers for and what that needs (graph_keep).
 * checkable: a remote cache can be read, so the shards can see each other's
 * splits; without one --shard-timings is not used (said): shards that
 * cannot check each other split by count alone. Returns 0, or -1 after an
 * error line (a timings file that cannot be read). */
int shardrun_plan(struct shardrun *s, struct graph *g, const struct run_opts *o, bool checkable);
/* Publishes this shard's split to the remote (before its tasks run; a
 * failure only makes the others wait longer). */
void shardrun_publish(const struct shardrun *s, struct taskcache *tc);
/* Makes the run's state for n kept nodes. */
void shardrun_start(struct shardrun *s, size_t n);
/* Node i missed both caches: true when it is another shard's to build and
 * worth waiting for (the remote readable, the task cacheable, the run's
 * pool there, its builder's split not unlike this one's): its key goes on
 * the run's waits (cache/remotewait.h: asked again off the loop, from
 * 250 ms growing by half to every 2 s, for --shard-wait), and the job is
 * pending (BEFORE_PENDING) until the wait's one event clears job->pending:
 * the hook asked again then fetches it, or, asked after the wait gave up
 * or the remote went off, gets false: build it here. Says what it waits
 * for, and every third of --shard-wait (at most 30 s) what still waits. */
bool shardrun_wait(struct shardrun *s, struct taskcache *tc, size_t i, struct job *job);
/* Node i is no longer waited for (a hit, or built here). */
void shardrun_settled(struct shardrun *s, size_t i);
/* The run stops starting jobs: every wait ends at once (its job let go,
 * ending skipped), none sleeps out its back-off. */
void shardrun_stop(struct shardrun *s);
/* After the scheduler: the waits left (split lookups) end, and their item
 * with them, before the run's pool is freed. */
void shardrun_finish(struct shardrun *s);
void shardrun_free(struct shardrun *s);

/* The CI run's id the published splits are keyed by: VX_SHARD_RUN, else
 * GitHub's run id and attempt, GitLab's pipeline, Buildkite's build,
 * CircleCI's workflow; "" when none is set. Caller frees. */
char *shardrun_ci_run(void);

#endif
