/* sandbox_judge.c - a sandboxed task's verdict after it ran: the judge's
 * input built from the task and its edges, the trace judged (or, untraced,
 * the proxy's refusals and the guard's record), the report, the reason a
 * task fails. Its calls are sandbox_job.h's (sandbox_jobs_judge and the
 * verdict's readers). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/fsafe.h"
#include "orchestrator/keys/inputs.h"
#include "orchestrator/keys/taskenv.h"
#include "orchestrator/run/sandbox_input.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/taskcache.h"
#include "orchestrator/run/taskreads.h"
#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "sandbox/env.h"
#include "sandbox/grants.h"
#include "sandbox/rootfiles.h"
#include "sandbox/seatbelt.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/judge.h"
#include "violations/report.h"

/* After node i ran: a config of its guard record that exists now was made
 * where it could write, while it ran (issue 53 item 11: an untraced
 * persistent task planted app/package.json with a lint script, and `vx
 * run lint` ran it). Each is a write violation (one the judge made from
 * the trace is not made twice) and fails the task; the record stays, so
 * no plan is made from it until it is removed. Returns -1 when a task that
 * exited 0 must fail. */
static int guard_verdict(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	const struct task_node *t = sj->g->nodes.v[i];
	struct strvec appeared = STRVEC_INIT;
	guard_end(&sjob->guard, &appeared);
	if (!appeared.n)
		return 0;
	if (!sjob->judged) {
		memset(&sjob->verdict, 0, sizeof sjob->verdict);
		free(sjob->project_dir);
		sjob->project_dir = xstrdup(sjob->req.cwd);
		sjob->judged = true;
	}
	struct verdict *v = &sjob->verdict;
	size_t added = 0;
	for (size_t k = 0; k < appeared.n; k++) {
		bool judged = false;
		for (size_t x = 0; x < v->violations.n && !judged; x++)
			judged = v->violations.v[x].path &&
				 !strcmp(v->violations.v[x].path, appeared.v[k]);
		if (judged)
			continue;
		struct violation x = {
		    .op = VIOLATION_WRITE,
		    .path = xstrdup(appeared.v[k]),
		    .syscall = "guard",
		    .reason = xstrdup("a config vx plans from, missing when the task started, "
				      "was made where it could write"),
		};
		vec_push(&v->violations, x);
		added++;
		if (!sj->quiet_report) {
			char *root = grants_canonical(sj->ws->root);
			char *shown = path_relative(root, appeared.v[k]);
			free(root);
			fprintf(
			    stderr,
			    "%s: violation: write %s (a config that was missing when it started, "
			    "made where it could write: vx plans from none until it is "
			    "removed)\n",
			    t->id, shown);
			free(shown);
		}
	}
	strvec_clear(&appeared);
	if (!added || job->state != JOB_SUCCEEDED)
		return 0;
	snprintf(sjob->reason, sizeof sjob->reason, "%zu sandbox violation%s", v->violations.n,
		 v->violations.n == 1 ? "" : "s");
	job->reason = sjob->reason;
	return -1;
}

/* The proxy's refusals as network violations, each with its reason and
 * the allow.network entry that would have allowed it; ignore.network (a
 * glob on "HOST:PORT" or "HOST") silences one in the report, never in the
 * proxy. */
static void proxy_violations(const struct proxy *p, const struct judge_input *in, struct verdict *v)
{
	size_t n = 0;
	const struct proxy_refusal *r = p ? proxy_refusals(p, &n) : NULL;
	for (size_t k = 0; k < n; k++) {
		if (judge_network_ignored(in, r[k].target))
			continue;
		struct violation x = {.op = VIOLATION_NETWORK,
				      .path = xstrdup(r[k].target),
				      .syscall = "proxy",
				      .reason = xstrdup(r[k].reason)};
		vec_push(&v->violations, x);
		if (r[k].fix)
			strvec_push(&v->fix_network, r[k].fix);
	}
	strvec_sort_unique(&v->fix_network);
	judge_installs(in, v);
}

/* Would the task's proxy let host through, on 443, 80 or a port an entry
 * names? (The output that says a name did not resolve names no port.) */
static bool net_allowed(const char *host, void *ctx)
{
	const struct netrules *rs = ctx;
	bool exact;
	if (netrules_decide(rs, host, 443, &exact) == NET_ALLOWED ||
	    netrules_decide(rs, host, 80, &exact) == NET_ALLOWED)
		return true;
	for (size_t k = 0; k < rs->allow.n; k++)
		if (rs->allow.v[k].port &&
		    netrules_decide(rs, host, rs->allow.v[k].port, &exact) == NET_ALLOWED)
			return true;
	return false;
}

/* "read: the project, its dependencies' outputs, ../shared; write: dist;
 * network: none" */
static void walls_line(const struct sandbox_job *sjob, const struct sandbox_cfg *sb,
		       struct strbuf *sb_out)
{
	strbuf_addstr(sb_out, "read: the project, what it depends on");
	for (size_t k = 0; k < sb->allow_read.n; k++)
		strbuf_addf(sb_out, ", %s", sb->allow_read.v[k].s);
	strbuf_addstr(sb_out, "; write:");
	for (size_t k = 0; k < sb->allow_write.n; k++)
		strbuf_addf(sb_out, "%s %s", k ? "," : "", sb->allow_write.v[k].s);
	if (!sb->allow_write.n)
		strbuf_addstr(sb_out, " its TMPDIR only");
	strbuf_addstr(sb_out, "; network:");
	if (sjob->net.proxied)
		strbuf_addstr(sb_out, sjob->net.rules.any ? " any public host"
							  : " the hosts allow.network lists");
	else if (!sjob->net.relays.n && !sjob->net.binds.n)
		strbuf_addstr(sb_out, " none");
	for (size_t k = 0; k < sjob->net.relays.n; k++)
		strbuf_addf(sb_out, "%s the host's port %d", sjob->net.proxied || k ? "," : "",
			    sjob->net.relays.v[k].port);
	for (size_t k = 0; k < sjob->net.binds.n; k++)
		strbuf_addf(sb_out, "%s serving port %d",
			    sjob->net.proxied || sjob->net.relays.n || k ? "," : "",
			    sjob->net.binds.v[k]);
}

/* The judge's input for task i and all it borrows: one builder for the
 * traced and the untraced path (issue 38: the input was built twice,
 * eleven runs of it copied between the two, fifteen vectors cleared by
 * hand). */
struct judging {
	struct judge_input in;
	struct strvec ignore_read, ignore_write, ignore_net, inputs, ws_inputs, allow_write,
	    outputs;
	struct strvec roots, unwritten; /* judge_input_from_request's */
	struct strvec dep_keyed, dep_outs, dep_cfg, outside, tools;
	struct strvec proj_deps;		/* its project's dependencies' dirs, canonical */
	struct strvec other_tasks, other_globs; /* the project's other tasks' outputs */
	VEC(struct judge_other_output) others;	/* borrowing from those two */
	VEC(bool) other_cycle;			/* parallel to other_tasks */
	VEC(struct judge_dep) deps;
	VEC(int) ports;
};

/* What the key holds through the dependencies of a cached task i (their
 * keys fold into its own): their keyed files and their outputs, each
 * one's config for the notes; its read grants outside the workspace, and
 * the programs its key holds. */
static void judging_keyed(struct sandbox_jobs *sj, size_t i, struct judging *jg)
{
	const struct task_node *t = sj->g->nodes.v[i];
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	const char *p_dir = sj->ws->projects.v[t->project]->dir;
	bool *seen = xcalloc(sj->g->nodes.n + 1, 1);
	sandbox_jobs_mark_deps(sj->g, i, seen);
	for (size_t d = 0; d < sj->g->nodes.n; d++) {
		if (!seen[d])
			continue;
		const struct task_node *dt = sj->g->nodes.v[d];
		const struct project *dp = sj->ws->projects.v[dt->project];
		const struct strvec *k = sj->tc ? taskcache_keyed_files(sj->tc, d) : NULL;
		if (k)
			strvec_extend(&jg->dep_keyed, k);
		const struct strvec *outs = sandbox_jobs_dep_outputs(sj, d);
		for (size_t o = 0; outs && o < outs->n; o++)
			strvec_push_nodup(&jg->dep_outs, path_join(dp->dir, outs->v[o]));
		strvec_push_nodup(&jg->dep_cfg, sandbox_jobs_project_yaml(sj, dt));
		vec_push(&jg->deps,
			 ((struct judge_dep){.dir = dp->dir, .task = dt->task, .id = dt->id}));
	}
	for (size_t d = 0; d < jg->deps.n; d++)
		jg->deps.v[d].config = jg->dep_cfg.v[d];
	free(seen);
	strvec_sort_unique(&jg->dep_keyed);
	strvec_sort_unique(&jg->dep_outs);
	for (size_t r = 0; r < sb->allow_read.n; r++) {
		const char *g = sb->allow_read.v[r].s;
		char *abs = g[0] == '~' && (g[1] == '/' || !g[1]) && getenv("HOME")
				? path_join(getenv("HOME"), g[1] ? g + 2 : ".")
				: path_join(p_dir, g);
		char *real = realpath(abs, NULL);
		if (real && !path_is_within(sj->ws->root, real))
			strvec_push_nodup(&jg->outside, real);
		else
			free(real);
		free(abs);
	}
	const struct strvec *tl = sj->tc ? taskcache_tools(sj->tc, i) : NULL;
	if (tl)
		strvec_extend(&jg->tools, tl);
	strvec_sort_unique(&jg->tools);
}

#define SV(sv) ((const char *const *)(sv).v)

/* The outputs of the other tasks of task i's project that i does not
 * depend on (issue 40 item 3: a build that read lint's cache was told to
 * key it): each task the project runs a command for. */
static void other_outputs(struct sandbox_jobs *sj, size_t i, struct judging *jg)
{
	const struct task_node *t = sj->g->nodes.v[i];
	struct project *p = sj->ws->projects.v[t->project];
	if (p->is_root)
		return;
	struct strvec names = STRVEC_INIT;
	graph_project_task_names(sj->ws, p, true, &names);
	bool *dep = xcalloc(sj->g->nodes.n + 1, 1);
	sandbox_jobs_mark_deps(sj->g, i, dep);
	for (size_t k = 0; k < names.n; k++) {
		if (!strcmp(names.v[k], t->task))
			continue;
		bool waits = false;
		for (size_t d = 0; d < sj->g->nodes.n && !waits; d++)
			waits = dep[d] && sj->g->nodes.v[d]->project == t->project &&
				!strcmp(sj->g->nodes.v[d]->task, names.v[k]);
		struct task_cfg *c = waits ? NULL : graph_project_task(sj->ws, p, names.v[k]);
		/* does that task, where the run holds it, depend on this one?
		 * Then the edge the note would suggest is a cycle */
		bool cycle = false;
		for (size_t m = 0; c && m < sj->g->nodes.n && !cycle; m++) {
			const struct task_node *o = sj->g->nodes.v[m];
			if (o->project != t->project || strcmp(o->task, names.v[k]))
				continue;
			bool *theirs = xcalloc(sj->g->nodes.n + 1, 1);
			sandbox_jobs_mark_deps(sj->g, m, theirs);
			cycle = theirs[i];
			free(theirs);
		}
		if (c)
			for (size_t o = 0; o < c->outputs.n; o++)
				if (c->outputs.v[o].s[0] != '!') {
					strvec_push(&jg->other_tasks, names.v[k]);
					strvec_push(&jg->other_globs, c->outputs.v[o].s);
					vec_push(&jg->other_cycle, cycle);
				}
		if (c)
			task_cfg_free(c);
	}
	free(dep);
	strvec_clear(&names);
	for (size_t k = 0; k < jg->other_tasks.n; k++) {
		struct judge_other_output o = {jg->other_tasks.v[k], jg->other_globs.v[k],
					       jg->other_cycle.v[k]};
		vec_push(&jg->others, o);
	}
}

static void judging_init(struct sandbox_jobs *sj, size_t i, const struct job *job,
			 struct judging *jg)
{
	memset(jg, 0, sizeof *jg);
	struct sandbox_job *sjob = &sj->jobs[i];
	const struct task_node *t = sj->g->nodes.v[i];
	const struct sandbox_cfg *sb = t->cfg->sandbox;
	lstr_vec_strings(&sb->ignore_read, &jg->ignore_read);
	lstr_vec_strings(&sb->ignore_write, &jg->ignore_write);
	lstr_vec_strings(&sb->ignore_network, &jg->ignore_net);
	lstr_vec_strings(&t->cfg->input_files, &jg->inputs);
	lstr_vec_strings(&t->cfg->input_ws_files, &jg->ws_inputs);
	sandbox_jobs_task_writes(sj->ws, t, &jg->allow_write);
	lstr_vec_strings(&t->cfg->outputs, &jg->outputs);
	if (sjob->keyed)
		judging_keyed(sj, i, jg);
	other_outputs(sj, i, jg);
	const struct project *p = sj->ws->projects.v[t->project];
	for (size_t k = 0; k < p->deps.n; k++) {
		char *real = realpath(sj->ws->projects.v[p->deps.v[k]]->dir, NULL);
		if (real)
			strvec_push_nodup(&jg->proj_deps, real);
	}
	for (size_t k = 0; k < sjob->net.relays.n; k++)
		vec_push(&jg->ports, sjob->net.relays.v[k].port);
	for (size_t k = 0; k < sjob->net.binds.n; k++)
		vec_push(&jg->ports, sjob->net.binds.v[k]);
	jg->in = (struct judge_input){
	    .workspace_root = sj->ws->root,
	    .home = getenv("HOME"),
	    .tmpdir = "/tmp",
	    .wrapped = true,
	    .ignore_read = SV(jg->ignore_read),
	    .n_ignore_read = jg->ignore_read.n,
	    .ignore_write = SV(jg->ignore_write),
	    .n_ignore_write = jg->ignore_write.n,
	    .ignore_network = SV(jg->ignore_net),
	    .n_ignore_network = jg->ignore_net.n,
	    .cached = taskcache_cacheable(t),
	    .input_files = SV(jg->inputs),
	    .n_input_files = jg->inputs.n,
	    .inputs_explicit = (t->cfg->set & TF_INPUT_FILES) != 0,
	    .input_ws_files = SV(jg->ws_inputs),
	    .n_input_ws_files = jg->ws_inputs.n,
	    .allow_write = SV(jg->allow_write),
	    .n_allow_write = jg->allow_write.n,
	    .keyed = sjob->keyed ? SV(*sjob->keyed) : NULL,
	    .n_keyed = sjob->keyed ? sjob->keyed->n : 0,
	    .dep_keyed = SV(jg->dep_keyed),
	    .n_dep_keyed = jg->dep_keyed.n,
	    .dep_outputs = SV(jg->dep_outs),
	    .n_dep_outputs = jg->dep_outs.n,
	    .deps = jg->deps.v,
	    .n_deps = jg->deps.n,
	    .project_deps = SV(jg->proj_deps),
	    .n_project_deps = jg->proj_deps.n,
	    .task = t->task,
	    .other_outputs = jg->others.v,
	    .n_other_outputs = jg->others.n,
	    .own_outputs = SV(jg->outputs),
	    .n_own_outputs = jg->outputs.n,
	    .externals_keyed = sj->externals_keyed,
	    .run_started = sj->run_started,
	    .outside_grants = SV(jg->outside),
	    .n_outside_grants = jg->outside.n,
	    .toolchain = SV(jg->tools),
	    .n_toolchain = jg->tools.n,
	    .net_allowed = sjob->net.proxied ? net_allowed : NULL,
	    .net_ctx = &sjob->net.rules,
	    .host_listens = bridge_host_listens,
	    .net_ports = jg->ports.v,
	    .n_net_ports = jg->ports.n,
	};
	judge_input_from_request(&jg->in, &sjob->req, &jg->roots, &jg->unwritten);
	jg->in.output = scheduler_job_log_end(job, &jg->in.output_len);
	jg->in.failed = job->state != JOB_SUCCEEDED;
}

static void judging_release(struct judging *jg)
{
	struct strvec *all[] = {
	    &jg->ignore_read, &jg->ignore_write, &jg->ignore_net, &jg->inputs,	  &jg->ws_inputs,
	    &jg->allow_write, &jg->outputs,	 &jg->roots,	  &jg->unwritten, &jg->dep_keyed,
	    &jg->dep_outs,    &jg->dep_cfg,	 &jg->outside,	  &jg->tools,	  &jg->proj_deps,
	    &jg->other_tasks, &jg->other_globs};
	for (size_t k = 0; k < sizeof all / sizeof *all; k++)
		strvec_clear(all[k]);
	vec_free(&jg->deps);
	vec_free(&jg->ports);
	vec_free(&jg->others);
	vec_free(&jg->other_cycle);
}

/* A persistent task ran untraced: when it failed on its own (not stopped
 * by vx), beside its output go the walls it ran under and what its output
 * alone tells (a hidden path its last line names, a name that did not
 * resolve), each with the grant that would have let it through. */
static int judge_untraced(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	const struct task_node *t = sj->g->nodes.v[i];
	if (!sjob->built || job->state != JOB_FAILED || job->reason || sj->quiet_report)
		return 0;
	struct judging jg;
	judging_init(sj, i, job, &jg);
	struct verdict v;
	judge_output(&jg.in, &v);
	proxy_violations(sjob->net.proxy, &jg.in, &v);
	struct strbuf out = STRBUF_INIT;
	strbuf_addf(&out, "%s: it ran untraced in its sandbox (a persistent task), where it could ",
		    t->id);
	walls_line(sjob, t->cfg->sandbox, &out);
	strbuf_addch(&out, '\n');
	if (v.notes.n || v.violations.n) {
		char *yaml = sandbox_jobs_project_yaml(sj, t);
		report_text(t->id, yaml, t->task, &jg.in, &v, &out);
		free(yaml);
	}
	fputs(out.buf, stderr);
	strbuf_release(&out);
	sjob->project_dir = xstrdup(sjob->req.cwd);
	sjob->verdict = v;
	sjob->judged = true;
	judging_release(&jg);
	return 0;
}

static int judge(struct sandbox_jobs *sj, size_t i, struct job *job);

int sandbox_jobs_judge(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	long long t = loop_now_us();
	int rc = judge(sj, i, job);
	if (guard_verdict(sj, i, job) < 0)
		rc = -1;
	sj->jobs[i].us_judge = loop_now_us() - t;
	return rc;
}

static int judge(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	if (sj->g->nodes.v[i]->cfg->persistent)
		return judge_untraced(sj, i, job);
	size_t n_refused = 0;
	if (sjob->net.proxy)
		proxy_refusals(sjob->net.proxy, &n_refused);
	if (!sjob->built || (!sjob->trace.dir && !n_refused))
		return 0;
	const struct task_node *t = sj->g->nodes.v[i];
	struct judging jg;
	judging_init(sj, i, job, &jg);
	struct verdict v;
	if (sjob->trace.dir)
		judge_trace(&jg.in, sjob->trace.path, &v);
	else
		memset(&v, 0, sizeof v); /* untraced: the proxy's word is all there is */
	proxy_violations(sjob->net.proxy, &jg.in, &v);
	sjob->project_dir = xstrdup(sjob->req.cwd);
	bool succeeded = job->state == JOB_SUCCEEDED;
	/* what it read of the other packages, for vx boundaries */
	if (succeeded && sjob->trace.dir && !v.incomplete &&
	    taskreads_save(sj->ws, t->id, sjob->req.cwd, &v.reads) < 0)
		warning("%s: its reads could not be kept in .vx/reads: %s", t->id, strerror(errno));
	int rc = 0;
	if (!sj->quiet_report && (v.violations.n || (!succeeded && (v.notes.n || v.fix_read.n)))) {
		struct strbuf out = STRBUF_INIT;
		char *yaml = sandbox_jobs_project_yaml(sj, t);
		report_text(t->id, yaml, t->task, &jg.in, &v, &out);
		fputs(out.buf, stderr);
		strbuf_release(&out);
		free(yaml);
	}
	if (succeeded && v.violations.n) {
		snprintf(sjob->reason, sizeof sjob->reason, "%zu sandbox violation%s",
			 v.violations.n, v.violations.n == 1 ? "" : "s");
		job->reason = sjob->reason; /* lives as long as sj: the summary reads it */
		rc = -1;
	} else if (succeeded && v.incomplete) {
		fprintf(
		    stderr,
		    "%s: the trace ended before the command did (its tracer died or was killed): "
		    "failed, and not cached\n",
		    t->id);
		job->reason = "incomplete trace";
		rc = -1;
	}
	sjob->verdict = v; /* kept for --report json|sarif|github */
	sjob->judged = true;
	judging_release(&jg);
	return rc;
}

const struct verdict *sandbox_jobs_verdict(const struct sandbox_jobs *sj, size_t i)
{
	return sj->jobs && sj->jobs[i].judged ? &sj->jobs[i].verdict : NULL;
}

struct judge_input sandbox_jobs_report_input(const struct sandbox_jobs *sj, size_t i)
{
	struct judge_input in = {
	    .project_dir = sj->jobs[i].project_dir,
	    .workspace_root = sj->ws->root,
	    .home = getenv("HOME"),
	    .tmpdir = "/tmp",
	};
	return in;
}

void sandbox_jobs_configs_written(const struct sandbox_jobs *sj, struct strvec *paths,
				  struct strvec *ids)
{
	for (size_t i = 0; sj->jobs && i < sj->g->nodes.n; i++) {
		const struct sandbox_job *sjob = &sj->jobs[i];
		for (size_t k = 0; sjob->judged && k < sjob->verdict.notes.n; k++) {
			const struct judge_note *n = &sjob->verdict.notes.v[k];
			if (strcmp(n->kind, "config"))
				continue;
			strvec_push(paths, n->path);
			strvec_push(ids, sj->g->nodes.v[i]->id);
		}
	}
}