/* net.c - starting and stopping one task's network on the host: its
 * directory, netd's control socket, the proxy, the relays, the port
 * bridges. */
#include "sandbox/net.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "util/die.h"
#include "util/io.h"
#include "util/path.h"

bool sandbox_net_wanted(const struct sandbox_net *n)
{
	return n->proxied || n->relays.n || n->binds.n;
}

void sandbox_net_stop(struct sandbox_net *n)
{
	/* the proxies first: their connections cancel what they wait on
	 * from the bridge (bridge.h) */
	proxy_free(n->proxy);
	n->proxy = NULL;
	for (size_t k = 0; k < n->bridges.n; k++)
		proxy_free(n->bridges.v[k]);
	n->bridges.n = 0;
	bridge_free(n->bridge);
	n->bridge = NULL;
	free(n->ctl);
	n->ctl = NULL;
	if (n->dir && remove_tree_at(AT_FDCWD, n->dir) < 0)
		warning("cannot remove %s: %s", n->dir, strerror(errno));
	free(n->dir);
	n->dir = NULL;
}

/* The task's port bridges: the host's ports held for it, each carried to
 * the task's port through its netd. A port held already refuses the task,
 * naming the holder: another task of this run, or the process /proc names. */
static int binds_start(struct sandbox_net *n, struct loop *loop, sandbox_net_holder *held_by,
		       void *ctx, struct strbuf *err)
{
	for (size_t k = 0; k < n->binds.n; k++) {
		int port = n->binds.v[k];
		const char *other = held_by ? held_by(port, ctx) : NULL;
		if (other) {
			strbuf_addf(
			    err,
			    "localBinding port %d is held by %s, which runs now in this run; "
			    "give one of them another port, or make one depend on the other",
			    port, other);
			return -1;
		}
		struct proxy *got[2];
		size_t got_n;
		int rc = bridge_bind_new(loop, n->bridge, port, got, &got_n, err);
		for (size_t j = 0; j < got_n; j++)
			vec_push(&n->bridges, got[j]);
		if (rc) {
			strbuf_addstr(err, " (localBinding: the task's server could not be reached "
					   "there; stop the holder or grant another port)");
			return -1;
		}
	}
	return 0;
}

int sandbox_net_start(struct sandbox_net *n, struct loop *loop, struct resolver **resolver,
		      const char *run_dir, sandbox_net_holder *held_by, void *ctx,
		      struct strbuf *err)
{
	sandbox_net_stop(n);
	if (!loop) { /* no errno to tell: the run gave no loop to relay on */
		strbuf_addstr(err, "its network needs the run's loop, and there is none");
		return -1;
	}
	char *tmpl = path_join(run_dir ? run_dir : "/tmp", "net-XXXXXX");
	if (!mkdtemp(tmpl)) {
		strbuf_addf(err, "cannot make its network's directory %s: %s", tmpl,
			    strerror(errno));
		free(tmpl);
		return -1;
	}
	n->dir = tmpl;
	n->ctl = path_join(tmpl, "ctl.sock");
	n->bridge = bridge_new(loop, n->ctl, err);
	int rc = n->bridge ? 0 : -1;
	if (!rc && n->proxied && !*resolver && !(*resolver = resolver_new(loop))) {
		strbuf_addf(err, "cannot start the proxy's name lookups: %s", strerror(errno));
		rc = -1;
	}
	if (!rc && n->proxied) {
		n->proxy = proxy_new(loop, *resolver, &n->rules, NULL, err);
		rc = n->proxy ? 0 : -1;
		if (!rc)
			bridge_route(n->bridge, SANDBOX_PROXY_PORT, n->proxy);
	}
	for (size_t k = 0; !rc && k < n->relays.n; k++) {
		struct proxy *r = bridge_relay_new(loop, &n->relays.v[k], err);
		rc = r ? 0 : -1;
		if (r) {
			vec_push(&n->bridges, r);
			bridge_route(n->bridge, n->relays.v[k].port, r);
		}
	}
	if (!rc && n->binds.n)
		rc = binds_start(n, loop, held_by, ctx, err);
	return rc;
}

void sandbox_net_release(struct sandbox_net *n)
{
	netrules_clear(&n->rules);
	for (size_t k = 0; k < n->relays.n; k++)
		free((char *)n->relays.v[k].addr);
	vec_free(&n->relays);
	vec_free(&n->relay_ports);
	vec_free(&n->binds);
	vec_free(&n->bridges);
}
