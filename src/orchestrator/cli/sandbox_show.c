/* sandbox_show.c - `vx sandbox show TASK`: the exact argv a sandboxed task
 * would run under, built by the code a run builds it with. */
#include "orchestrator/cli/sandbox_show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/config/workspace.h"
#include "sandbox/bwrap.h"
#include "util/die.h"
#include "util/parseopt.h"
#include "util/rundir.h"
#include "util/strbuf.h"

static const struct opt_usage show_usage = {
    "usage: vx sandbox show TASK [--platform linux|darwin]\n"
    "\n"
    "Prints, for each project's TASK that declares sandbox:, the exact bwrap argv it\n"
    "would run under, one element per line: the plan a run makes, with glob grants\n"
    "expanded against the tree as it is now. Nothing is created or changed: the\n"
    "directories and files a run would first create for write grants are listed\n"
    "as \"# a run creates ...\" lines, and the fd numbers shown are the ones a run\n"
    "passes each bind source as.\n"
    "\n"
    "--platform darwin prints the Seatbelt profile macOS runs it under instead\n"
    "(sandbox-exec -p PROFILE), on any host: glob grants stay globs (regexes), and\n"
    "paths are resolved as this host has them.\n"
    "\n",
    "  -C DIR                 as if started in DIR\n"};

/* `--platform darwin`: each selected task's Seatbelt profile. */
static int show_darwin(struct sandbox_jobs *sj, const struct graph *g, const char *task)
{
	const char *t_env = getenv("TMPDIR");
	char *tmpdir = xasprintf("%s/vx-%u/vx-run-XXXXXX/tmp-XXXXXX",
				 t_env && t_env[0] == '/' ? t_env : "/tmp", (unsigned)getuid());
	size_t shown = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		if (!t->requested || !t->cfg->sandbox || !t->command)
			continue;
		struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
		struct strvec notes = STRVEC_INIT;
		if (sandbox_jobs_profile(sj, i, tmpdir, &out, &notes, &err)) {
			error("%s: sandbox refused: %s", t->id, err.buf);
			rc = 2;
		} else {
			printf(";; %s: sandbox-exec -p PROFILE /bin/sh -c COMMAND\n%s", t->id,
			       out.buf);
			for (size_t k = 0; k < notes.n; k++)
				printf(";; note: %s\n", notes.v[k]);
			if (sj->jobs[i].net.proxied)
				printf(";; note: a run starts the task's proxy on a free loopback "
				       "port; "
				       "%d stands for it here\n",
				       SANDBOX_PROXY_PORT);
			if (sj->jobs[i].net.binds.n || t->cfg->sandbox->local_binding.any)
				printf(
				    ";; note: on macOS localBinding opens every loopback port to "
				    "the task's servers: a profile cannot name a port list\n");
			shown++;
		}
		strbuf_release(&out);
		strbuf_release(&err);
		strvec_clear(&notes);
	}
	if (!rc && !shown) {
		error("no selected %s task declares sandbox:", task);
		rc = 2;
	}
	free(tmpdir);
	return rc;
}

/* "# network: allow registry.npmjs.org:80,443, *.example.com:8443" */
static void show_rules(const char *what, const struct netrule *r, size_t n)
{
	printf("# network: %s", what);
	for (size_t k = 0; k < n; k++) {
		const char *sep = k ? ", " : " ";
		const char *star = r[k].wildcard ? "*." : "";
		bool v6 = strchr(r[k].host, ':') != NULL;
		printf("%s%s%s%s%s", sep, star, v6 ? "[" : "", r[k].host, v6 ? "]" : "");
		if (r[k].port)
			printf(":%d", r[k].port);
		else
			printf(":%s", strcmp(what, "deny") ? "80,443" : "*");
	}
	printf("\n");
}

/* The proxy a run would start (its lists, and how the task reaches it),
 * and the relays and port bridges. */
static void show_network(const struct sandbox_job *sjob)
{
	for (size_t k = 0; k < sjob->net.relays.n; k++) {
		const struct bridge_relay *r = &sjob->net.relays.v[k];
		printf(
		    "# network: relay in: 127.0.0.1:%d and [::1]:%d inside carried to the host's "
		    "%s%s%s:%d%s\n",
		    r->port, r->port, r->addr && strchr(r->addr, ':') ? "[" : "",
		    r->addr ? r->addr : "127.0.0.1", r->addr && strchr(r->addr, ':') ? "]" : "",
		    r->port, r->addr ? "" : " (else [::1])");
	}
	for (size_t k = 0; k < sjob->net.binds.n; k++)
		printf(
		    "# network: bridge out: the host's 127.0.0.1:%d and [::1]:%d carried to the "
		    "task's own port %d (localBinding); a port held on the host refuses the task\n",
		    sjob->net.binds.v[k], sjob->net.binds.v[k], sjob->net.binds.v[k]);
	if (!sjob->net.proxied) {
		if (sjob->net.relays.n || sjob->net.binds.n)
			printf("# network: no host beyond these ports\n");
		else
			printf("# network: none (its own namespace, only its own loopback)\n");
		return;
	}
	printf("# network: a proxy of its own, reached at 127.0.0.1:%d inside (vx's netd passes "
	       "each connection out); HTTP_PROXY, HTTPS_PROXY, ALL_PROXY (socks5h) name it\n",
	       SANDBOX_PROXY_PORT);
	if (sjob->net.rules.any)
		printf("# network: allow any public host (network: true)\n");
	show_rules("allow", sjob->net.rules.allow.v, sjob->net.rules.allow.n);
	if (sjob->net.rules.deny.n)
		show_rules("deny", sjob->net.rules.deny.v, sjob->net.rules.deny.n);
}

/* Shows task's walls, or its Seatbelt profile (darwin). */
static int show(const char *task, bool darwin)
{
	struct workspace *ws = workspace_load_here();
	if (!ws)
		return 2;
	struct graph g;
	char *tasks[] = {(char *)task};
	int rc = graph_build(&g, ws, tasks, 1, NULL) ? 2 : 0;
	struct sandbox_jobs sj;
	memset(&sj, 0, sizeof sj);
	char *cache_dir = workspace_cache_dir(ws);
	if (!rc && sandbox_jobs_init(&sj, ws, &g, cache_dir,
				     SANDBOX_JOBS_SHOW | (darwin ? SANDBOX_JOBS_DARWIN : 0)))
		rc = 2;
	/* a run walls its run base; shown when it exists, as a run would */
	char *run_base = rundir_private_base();
	sj.run_base = run_base;
	size_t shown = 0;
	if (!rc && darwin) {
		rc = show_darwin(&sj, &g, task);
		shown = 1;
	}
	for (size_t i = 0; !rc && !darwin && i < g.nodes.n; i++) {
		const struct task_node *t = g.nodes.v[i];
		if (!t->requested || !t->cfg->sandbox || !t->command)
			continue;
		struct sandbox_request req;
		struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
		if (sandbox_jobs_request(&sj, i, &req, &err)) {
			error("%s: sandbox refused: %s", t->id, err.buf);
			rc = 2;
		} else {
			sandbox_show(&req, t->command, &out);
			printf("# %s\n%s", t->id, out.buf);
			for (size_t k = 0; k < req.notes.n; k++)
				printf("# note: %s\n", req.notes.v[k]);
			for (size_t k = 0; k < req.mkdirs.n; k++)
				printf("# a run creates the directory %s\n", req.mkdirs.v[k]);
			for (size_t k = 0; k < req.files.n; k++)
				printf("# a run creates the empty file %s\n", req.files.v[k]);
			if (req.stage) {
				printf(
				    "# staged: the project is bound read-write from %s, where its "
				    "top-level write grants live while the task runs:",
				    req.stage);
				for (size_t k = 0; k < req.staged.n; k++)
					printf(" %s", req.staged.v[k]);
				printf("\n");
			}
			show_network(&sj.jobs[i]);
			if (t->cfg->persistent)
				printf("# untraced: a persistent task (a server) runs under these "
				       "walls "
				       "without strace: it is never cached, and its trace would "
				       "grow for "
				       "as long as it serves; when it fails, vx prints these walls "
				       "and "
				       "what its output names\n");
			sandbox_request_release(&req);
			shown++;
		}
		strbuf_release(&err);
		strbuf_release(&out);
	}
	if (!rc && !shown) {
		error("no selected %s task declares sandbox:", task);
		rc = 2;
	}
	free(cache_dir);
	free(run_base);
	if (sj.jobs)
		sandbox_jobs_release(&sj);
	graph_free(&g);
	workspace_free(ws);
	return rc;
}

struct opt *sandbox_show_rows(struct sandbox_show_opts *o)
{
	static const char *const platforms[] = {
	    [SHOW_LINUX] = "linux",
	    [SHOW_DARWIN] = "darwin",
	    NULL,
	};
	const struct opt rows[] = {
	    OPT_ENUM(0, "platform", &o->platform, platforms, "PLATFORM",
		     "linux: the bwrap argv (default); darwin: the Seatbelt profile"),
	    OPT_HELP(),
	    OPT_END(),
	};
	return parseopt_copy(rows);
}

int sandbox_show_main(int argc, char **argv)
{
	struct sandbox_show_opts o = {.platform = SHOW_LINUX};
	struct opt *rows = sandbox_show_rows(&o);
	struct strvec operands = STRVEC_INIT;
	int rc = parseopt(argc, argv, rows, &show_usage, &operands, NULL);
	if (!rc && operands.n != 1) {
		if (operands.n)
			error("vx sandbox show: one task, not %zu", operands.n);
		parseopt_usage(rows, &show_usage, stderr);
		rc = -1;
	}
	free(rows);
	if (rc) {
		strvec_clear(&operands);
		return rc > 0 ? 0 : 2;
	}
	rc = show(operands.v[0], o.platform == SHOW_DARWIN);
	strvec_clear(&operands);
	return rc;
}
