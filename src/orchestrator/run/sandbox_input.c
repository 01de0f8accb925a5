/* sandbox_input.c - a sandboxed task's request input (sandbox_input,
 * request.h): a view of its facts (taskfacts.h) and of the run's (vx's
 * programs, the config files, the project dirs, its network and stage).
 * One input for the request a run plans, for `vx sandbox show` and for
 * the Seatbelt profile. */
#include <stdlib.h>
#include <string.h>

#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/taskfacts.h"
#include "sandbox/config_names.h"
#include "sandbox/grants.h"
#include "sandbox/seatbelt.h"
#include "util/path.h"
#include "util/strbuf.h"

/* What a request's input holds of its own beside the task's facts and
 * its network (where a stage would be), until input_parts_release. */
struct input_parts {
	char *stage_pattern; /* vx sandbox show: where a stage would be */
};

static void input_parts_release(struct input_parts *h)
{
	free(h->stage_pattern);
}

/* Every project's dir, canonical (grants_canonical), parallel to
 * ws->projects: made with the first request, once a run as the project
 * list itself is, not once a project for every sandboxed task (80
 * realpaths a task were 33% of vx's own time, bench/fixed). */
static const struct strvec *project_dirs(struct sandbox_jobs *sj)
{
	const struct workspace *ws = sj->ws;
	if (sj->projects.n || !ws->projects.n)
		return &sj->projects;
	for (size_t k = 0; k < ws->projects.n; k++)
		strvec_push_nodup(&sj->projects, grants_canonical(ws->projects.v[k]->dir));
	return &sj->projects;
}

/* The files that decide what vx runs, there or not (issue 36: a task that
 * rewrote its vx.yaml ran unsandboxed in the next cycle of `vx watch`):
 * each project's and the root's configs, the root's workspace list and
 * lockfiles, in the canonical dirs: once a run, not once a config file
 * for every sandboxed task. (.npmrc, .yarnrc.yml and .pnpmfile.cjs are
 * mandatory denies.) */
static const struct strvec *config_files(struct sandbox_jobs *sj)
{
	const struct workspace *ws = sj->ws;
	if (sj->configs.n)
		return &sj->configs;
	const struct strvec *dirs = project_dirs(sj);
	for (size_t k = 0; k < ws->projects.n; k++)
		config_paths(dirs->v[k], false, &sj->configs);
	char *root = grants_canonical(ws->root);
	config_paths(root, true, &sj->configs);
	free(root);
	strvec_sort_unique(&sj->configs);
	return &sj->configs;
}

#define SV(sv) ((const char *const *)(sv).v)

/* Fills in node i's sandbox request as written, a view of its facts
 * (made now for their start: its dependencies have finished): the one
 * input both translations (the bwrap plan, the Seatbelt profile) are made
 * from. */
static void request_input(struct sandbox_jobs *sj, size_t i, struct sandbox_input *in,
			  struct input_parts *parts)
{
	/* `vx sandbox show` has no jobs: it shows a traced task's tracer as
	 * it runs, writing to the descriptor a run would pass it. */
	const struct task_node *t = sj->g->nodes.v[i];
	bool traced = sj->strace && !t->cfg->persistent &&
		      (sj->showing || (sj->jobs && sj->jobs[i].trace.dir));
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	const struct workspace *ws = sj->ws;
	const struct project *p = ws->projects.v[t->project];
	struct input_parts *h = parts;
	memset(h, 0, sizeof *h);
	const char *stage_pattern = NULL;
	if (sj->showing)
		stage_pattern = h->stage_pattern =
		    path_join(ws->root, ".vx/stage/vx-run-XXXXXX/task-XXXXXX");
	taskfacts_plan(sj->facts, ws, sj->g, i); /* once: a retry finds it made */
	taskfacts_start(sj->facts, ws, sj->g, sj->tc, i);
	const struct taskfacts *f = &sj->facts[i];
	const struct strvec *configs = config_files(sj);
	const struct sandbox_job *nj = sj->jobs ? &sj->jobs[i] : NULL;
	bool net = nj && sandbox_net_wanted(&nj->net);
	*in = (struct sandbox_input){
	    .workspace_root = ws->root,
	    .project_dir = p->dir,
	    .home = getenv("HOME"),
	    .cache_dir = sj->cache_dir,
	    .run_base = sj->run_base,
	    .bwrap = sj->bwrap,
	    .shell = "/bin/sh",
	    .setsid = sj->setsid,
	    .init = sj->init,
	    .strace = traced ? sj->strace : NULL,
	    .trace_fd = traced && !sj->showing ? sj->jobs[i].trace.fd : -1,
	    .netd = net ? sj->netd : NULL,
	    .net_ctl = !net	     ? NULL
		       : sj->showing ? "$TMPDIR/vx-UID/vx-run-XXXXXX/net-XXXXXX/ctl.sock"
				     : nj->net.ctl,
	    .proxy = nj && nj->net.proxied,
	    .relay_ports = nj ? nj->net.relay_ports.v : NULL,
	    .n_relays = nj ? nj->net.relay_ports.n : 0,
	    .proxy_port = nj && nj->net.proxied ? SANDBOX_PROXY_PORT : 0,
	    .local_ports = f->local_ports.v,
	    .n_local = f->local_ports.n,
	    .local_any = sb->local_binding.any,
	    .mach_lookup = SV(f->mach),
	    .n_mach = f->mach.n,
	    .system_info = SV(f->sysinfo),
	    .n_system_info = f->sysinfo.n,
	    .pty = sb->pty,
	    /* a dev server's outputs must be in place while it runs: never staged */
	    /* shown as it will run: a stage's place spelled as a pattern */
	    .stage_dir = t->cfg->persistent ? NULL
			 : sj->showing	    ? stage_pattern
			 : sj->jobs	    ? sj->jobs[i].stage_dir
					    : NULL,
	    .nested_dirs = SV(*project_dirs(sj)),
	    .n_nested = project_dirs(sj)->n,
	    .input_ws_files = SV(f->ws_inputs),
	    .n_input_ws_files = f->ws_inputs.n,
	    .allow_read = SV(f->reads),
	    .n_read = f->reads.n,
	    .allow_write = SV(f->writes),
	    .n_write = f->writes.n,
	    .unix_sockets = SV(f->sockets),
	    .n_sockets = f->sockets.n,
	    .dep_outputs = SV(f->dep_outputs),
	    .n_dep_outputs = f->dep_outputs.n,
	    .other_outputs = SV(f->other_dirs),
	    .n_other_outputs = f->other_dirs.n,
	    .keyed_projects = SV(f->dep_dirs),
	    .n_keyed = f->dep_dirs.n,
	    .config_files = SV(*configs),
	    .n_config = configs->n,
	    .linked_projects = SV(f->linked),
	    .n_linked = f->linked.n,
	    .hermetic = sb->hermetic,
	    .env =
		{
		    .host = SV(f->plain_env),
		    .define = SV(f->define),
		    .n_define = f->define.n,
		    .pass_through = SV(f->pass),
		    .n_pass = f->pass.n,
		    .pass_secrets = SV(f->secrets),
		    .n_secrets = f->secrets.n,
		    .vx = SV(f->vxenv),
		    .n_vx = f->vxenv.n,
		},
	};
}

int sandbox_jobs_request(struct sandbox_jobs *sj, size_t i, struct sandbox_request *req,
			 struct strbuf *err)
{
	struct sandbox_input in;
	struct input_parts parts;
	request_input(sj, i, &in, &parts);
	int rc = sandbox_request_plan(&in, req, err);
	input_parts_release(&parts);
	return rc;
}

int sandbox_jobs_profile(struct sandbox_jobs *sj, size_t i, const char *tmpdir, struct strbuf *out,
			 struct strvec *notes, struct strbuf *err)
{
	struct sandbox_input in;
	struct input_parts parts;
	request_input(sj, i, &in, &parts);
	in.tmpdir = tmpdir;
	int rc = seatbelt_profile(&in, out, notes, err);
	input_parts_release(&parts);
	return rc;
}
