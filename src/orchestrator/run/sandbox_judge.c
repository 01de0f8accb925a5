/* sandbox_judge.c - a sandboxed task's verdict after it ran: the judge's
 * input (a view of its facts and its request), the trace judged (or,
 * untraced, the proxy's refusals and the guard's record), the reason a
 * task fails. The report is printed where reports are, runreport_task. Its calls are
 * sandbox_job.h's (sandbox_jobs_judge and the verdict's readers). */
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
#include "orchestrator/run/joblog.h"
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
		    .reason = xstrdup("a config that was missing when it started, made where it "
				      "could write: vx plans from none until it is removed"),
		};
		vec_push(&v->violations, x);
		added++;
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

#define SV(sv) ((const char *const *)(sv).v)

/* The judge's input for task i: a view of its facts (taskfacts.h, as its
 * request started them), of its request (judge_input_from_request) and of
 * its network, copying nothing. One builder for the traced and the
 * untraced path; in borrows until the verdict is made. */
static void judging_init(struct sandbox_jobs *sj, size_t i, const struct job *job,
			 struct judge_input *in)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	const struct task_node *t = sj->g->nodes.v[i];
	const struct taskfacts *f = &sj->facts[i];
	/* What the key holds through the dependencies of a cached task (their
	 * keys fold into its own), its read grants outside the workspace and
	 * the programs its key holds: told only when it is cached. */
	bool keyed = sjob->keyed != NULL;
	*in = (struct judge_input){
	    .workspace_root = sj->ws->root,
	    .home = getenv("HOME"),
	    .tmpdir = "/tmp",
	    .wrapped = true,
	    .ignore_read = SV(f->ignore_read),
	    .n_ignore_read = f->ignore_read.n,
	    .ignore_write = SV(f->ignore_write),
	    .n_ignore_write = f->ignore_write.n,
	    .ignore_network = SV(f->ignore_network),
	    .n_ignore_network = f->ignore_network.n,
	    .cached = taskcache_cacheable(t),
	    .input_files = SV(f->input_files),
	    .n_input_files = f->input_files.n,
	    .inputs_explicit = (t->cfg->set & TF_INPUT_FILES) != 0,
	    .input_ws_files = SV(f->ws_inputs),
	    .n_input_ws_files = f->ws_inputs.n,
	    .allow_write = SV(f->writes),
	    .n_allow_write = f->writes.n,
	    .keyed = keyed ? SV(*sjob->keyed) : NULL,
	    .n_keyed = keyed ? sjob->keyed->n : 0,
	    .dep_keyed = keyed ? SV(f->dep_keyed) : NULL,
	    .n_dep_keyed = keyed ? f->dep_keyed.n : 0,
	    .dep_outputs = keyed ? SV(f->dep_outputs) : NULL,
	    .n_dep_outputs = keyed ? f->dep_outputs.n : 0,
	    .deps = keyed ? f->judge_deps.v : NULL,
	    .n_deps = keyed ? f->judge_deps.n : 0,
	    .project_deps = SV(f->project_deps),
	    .n_project_deps = f->project_deps.n,
	    .task = t->task,
	    .other_outputs = f->others.v,
	    .n_other_outputs = f->others.n,
	    .own_outputs = SV(f->outputs),
	    .n_own_outputs = f->outputs.n,
	    .externals_keyed = sj->externals_keyed,
	    .run_started = sj->run_started,
	    .outside_grants = keyed ? SV(f->outside) : NULL,
	    .n_outside_grants = keyed ? f->outside.n : 0,
	    .toolchain = keyed ? SV(f->tools) : NULL,
	    .n_toolchain = keyed ? f->tools.n : 0,
	    .net_allowed = sjob->net.proxied ? net_allowed : NULL,
	    .net_ctx = &sjob->net.rules,
	    .host_listens = bridge_host_listens,
	    .relay_ports = sjob->net.relay_ports.v,
	    .n_relay_ports = sjob->net.relay_ports.n,
	    .bound_ports = sjob->net.binds.v,
	    .n_bound_ports = sjob->net.binds.n,
	};
	judge_input_from_request(in, &sjob->req);
	in->output = joblog_end(job, &in->output_len);
	in->failed = job->state != JOB_SUCCEEDED;
}

/* A persistent task ran untraced: when it failed on its own (not stopped
 * by vx), its verdict is what its output alone tells (a hidden path its
 * last line names, a name that did not resolve), each with the grant that
 * would have let it through; its report (runreport_task) shows the walls
 * it ran under beside it. */
static int judge_untraced(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	if (!sjob->built || job->state != JOB_FAILED || job->reason || sj->quiet_report)
		return 0;
	struct judge_input in;
	judging_init(sj, i, job, &in);
	struct verdict v;
	judge_output(&in, &v);
	proxy_violations(sjob->net.proxy, &in, &v);
	sjob->untraced = true; /* its report begins with its walls */
	sjob->project_dir = xstrdup(sjob->req.cwd);
	sjob->verdict = v;
	sjob->judged = true;
	return 0;
}

static int judge(struct sandbox_jobs *sj, size_t i, struct job *job);

int sandbox_jobs_judge(struct sandbox_jobs *sj, size_t i, struct job *job)
{
	long long t = loop_now_us();
	/* what the task left of its placeholders, read once it ended (its
	 * staged grants are back): the judge asks the disk nothing */
	if (sj->jobs[i].built)
		sandbox_request_ended(&sj->jobs[i].req);
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
	struct judge_input in;
	judging_init(sj, i, job, &in);
	struct verdict v;
	if (sjob->trace.dir)
		judge_trace(&in, sjob->trace.path, &v);
	else
		memset(&v, 0, sizeof v); /* untraced: the proxy's word is all there is */
	proxy_violations(sjob->net.proxy, &in, &v);
	sjob->project_dir = xstrdup(sjob->req.cwd);
	bool succeeded = job->state == JOB_SUCCEEDED;
	/* what it read of the other packages, for vx boundaries */
	if (succeeded && sjob->trace.dir && !v.incomplete &&
	    taskreads_save(sj->ws, t->id, sjob->req.cwd, &v.reads) < 0)
		warning("%s: its reads could not be kept in .vx/reads: %s", t->id, strerror(errno));
	int rc = 0;
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