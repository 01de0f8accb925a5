/* sandbox_net.h - a sandboxed task's network, the orchestrator's side
 * (the host side is sandbox/net.h). */
#ifndef VX_RUN_SANDBOX_NET_H
#define VX_RUN_SANDBOX_NET_H

#include <stdbool.h>

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/scheduler.h"
#include "sandbox/net.h"

struct sandbox_jobs;
struct sandbox_job;

/* Parses t's allow.network and deny.network into n's rules, its loopback
 * entries (localhost:PORT) into relays, and localBinding into binds.
 * Returns 0, or -1 after a configuration error at the entry's line: an
 * entry that is not a host (a URL, a path, "*", a dotless name), a port
 * granted both ways, vx's own proxy port, or localBinding: true on Linux
 * (darwin false). */
int sandbox_jobs_net_rules(const struct task_node *t, struct sandbox_net *n, bool darwin);

/* The task's network, before it starts (sandbox_net_start): a 0700
 * directory of the run's (a retry gets a fresh one; the refusals of the
 * attempt before are gone with it, as its trace is) holding netd's
 * control socket; the proxy and a relay per loopback entry, routed from
 * it; the port bridges, a port another task of the run holds refused
 * with its id. Returns 0, or -1 after one error line, with nothing left
 * running and job->reason set. */
int sandbox_jobs_net_start(struct sandbox_jobs *sj, struct sandbox_job *sjob,
			   const struct task_node *t, struct job *job);

#endif
