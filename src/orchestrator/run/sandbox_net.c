/* sandbox_net.c - a sandboxed task's network, the orchestrator's side:
 * its config parsed into a sandbox_net (sandbox/net.h), and the network
 * started for the task on the run's loop, naming the task of the run that
 * holds a port it asks for. */
#include "orchestrator/run/sandbox_net.h"

#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/config.h"
#include "orchestrator/run/sandbox_job.h"
#include "util/die.h"
#include "util/strbuf.h"

int sandbox_jobs_net_rules(const struct task_node *t, struct sandbox_net *n, bool darwin)
{
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	struct netrules *rules = &n->rules;
	memset(rules, 0, sizeof *rules);
	rules->any = sb->allow_network.any;
	struct strbuf why = STRBUF_INIT;
	for (int deny = 0; deny < 2; deny++) {
		const lstr_vec *l = deny ? &sb->deny_network : &sb->allow_network.list;
		for (size_t k = 0; k < l->n; k++) {
			struct netrule r;
			strbuf_reset(&why);
			if (netrule_parse(l->v[k].s, &r, &why) < 0) {
				config_error(&l->v[k].loc, "%s: %s", t->id, why.buf);
				strbuf_release(&why);
				return -1;
			}
			if (r.loopback && !deny) {
				bool dup = false;
				for (size_t j = 0; j < n->relays.n && !dup; j++)
					dup = n->relays.v[j].port == r.port;
				/* a port listed twice keeps its first entry's address */
				struct bridge_relay b = {
				    r.port, strcmp(r.host, "localhost") ? xstrdup(r.host) : NULL};
				if (!dup) {
					vec_push(&n->relays, b);
					vec_push(&n->relay_ports, b.port);
				} else {
					free((char *)b.addr);
				}
				netrule_clear(&r);
				continue;
			}
			if (deny)
				vec_push(&rules->deny, r);
			else
				vec_push(&rules->allow, r);
		}
	}
	strbuf_release(&why);
	bool proxy = rules->any || rules->allow.n;
	for (size_t j = 0; j < n->relays.n; j++)
		if (proxy && n->relays.v[j].port == SANDBOX_PROXY_PORT)
			return config_error(
			    &sb->allow_network.list.v[0].loc,
			    "%s: port %d is where the task reaches its proxy inside "
			    "the sandbox; relay the host's service on another port",
			    t->id, SANDBOX_PROXY_PORT);
	if (sb->local_binding.any && !darwin)
		return config_error(
		    &sb->local_binding.loc,
		    "%s: localBinding: true cannot be built on Linux: a network "
		    "namespace has no bridge for every port; list the ports the task "
		    "listens on (localBinding: [5173])",
		    t->id);
	for (size_t k = 0; k < sb->local_binding.list.n; k++) {
		const struct lstr *e = &sb->local_binding.list.v[k];
		int port = atoi(e->s);
		bool dup = false;
		for (size_t j = 0; j < n->binds.n && !dup; j++)
			dup = n->binds.v[j] == port;
		for (size_t j = 0; j < n->relays.n; j++)
			if (n->relays.v[j].port == port)
				return config_error(
				    &e->loc,
				    "%s: port %d is both relayed in from the host "
				    "(allow.network) and bridged out (localBinding): "
				    "one of them must go",
				    t->id, port);
		if (proxy && port == SANDBOX_PROXY_PORT)
			return config_error(
			    &e->loc,
			    "%s: port %d is where the task reaches its proxy inside "
			    "the sandbox; listen on another port",
			    t->id, SANDBOX_PROXY_PORT);
		if (!dup)
			vec_push(&n->binds, port);
	}
	return 0;
}

/* The running task of the run, not me, whose port bridge holds port, or NULL. */
static const struct task_node *port_holder_task(const struct sandbox_jobs *sj,
						const struct sandbox_job *me, int port)
{
	for (size_t k = 0; k < sj->g->nodes.n; k++) {
		const struct sandbox_job *o = &sj->jobs[k];
		if (o == me || !o->net.bridges.n)
			continue;
		for (size_t j = 0; j < o->net.binds.n; j++)
			if (o->net.binds.v[j] == port)
				return sj->g->nodes.v[k];
	}
	return NULL;
}

struct holder_ctx {
	const struct sandbox_jobs *sj;
	const struct sandbox_job *me;
};

/* sandbox_net_holder: the id of port_holder_task's task, or NULL. */
static const char *port_holder(int port, void *ctx)
{
	const struct holder_ctx *hc = ctx;
	const struct task_node *other = port_holder_task(hc->sj, hc->me, port);
	return other ? other->id : NULL;
}

int sandbox_jobs_net_start(struct sandbox_jobs *sj, struct sandbox_job *sjob,
			   const struct task_node *t, struct job *job)
{
	struct strbuf err = STRBUF_INIT;
	struct holder_ctx hc = {sj, sjob};
	int rc = sandbox_net_start(&sjob->net, sj->loop, &sj->resolver, sj->run_dir, port_holder,
				   &hc, &err);
	if (rc) {
		error("%s: %s", t->id, err.buf);
		sandbox_net_stop(&sjob->net);
		job->reason = "its network could not be started (see above)";
	}
	strbuf_release(&err);
	return rc;
}
