/* runreport.c - a finished run's --report document (runreport.h). */
#include "orchestrator/run/runreport.h"

#include <stdlib.h>
#include <string.h>

#include "util/die.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/report.h"

/* A task the run never finished is "skipped" to a report. */
static const char *report_state(enum job_state st)
{
	return st == JOB_PENDING || st == JOB_RUNNING ? "skipped" : job_state_name(st);
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

void runreport_task(const struct sandbox_jobs *sj, size_t i, const struct job *job, FILE *out)
{
	const struct sandbox_job *sjob = sj->jobs ? &sj->jobs[i] : NULL;
	if (!sjob || !sjob->judged || sj->quiet_report)
		return;
	const struct task_node *t = sj->g->nodes.v[i];
	const struct verdict *v = &sjob->verdict;
	bool failed = job->state != JOB_SUCCEEDED;
	struct strbuf sb = STRBUF_INIT;
	if (sjob->untraced) {
		strbuf_addf(
		    &sb, "%s: it ran untraced in its sandbox (a persistent task), where it could ",
		    t->id);
		walls_line(sjob, t->cfg->sandbox, &sb);
		strbuf_addch(&sb, '\n');
	}
	bool show = v->violations.n ||
		    (sjob->untraced ? v->notes.n != 0 : failed && (v->notes.n || v->fix_read.n));
	if (show) {
		struct judge_input in = sandbox_jobs_report_input(sj, i);
		report_text(t->id, sj->facts[i].yaml, t->task, &in, v, &sb);
	}
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

void runreport_print(enum run_report mode, const struct graph *g, const struct job *jobs,
		     const struct taskcache *tc, const struct sandbox_jobs *sj, FILE *out)
{
	size_t n = g->nodes.n;
	struct task_report *tr = xcalloc(n + 1, sizeof *tr);
	struct judge_input *ins = xcalloc(n + 1, sizeof *ins);
	char **yamls = xcalloc(n + 1, sizeof *yamls);
	for (size_t i = 0; i < n; i++) {
		const struct task_node *t = g->nodes.v[i];
		const struct project *p = g->ws->projects.v[t->project];
		const struct job *j = &jobs[i];
		const struct loc *l = t->cfg->sandbox ? &t->cfg->sandbox->loc : &t->cfg->loc;
		yamls[i] =
		    l->file ? path_relative(g->ws->root, l->file) : xasprintf("%s/vx.yaml", p->rel);
		bool ran = j->state == JOB_SUCCEEDED || j->state == JOB_FAILED;
		tr[i] = (struct task_report){
		    .id = t->id,
		    .project = p->rel,
		    .name = p->name,
		    .task = t->task,
		    .status = report_state(j->state),
		    .reason = j->state == JOB_FAILED || j->state == JOB_SKIPPED ? j->reason : NULL,
		    .cache = cache_status_name(tc->status[i]),
		    .cache_source = tc->status[i] != CACHE_HIT ? NULL
				    : tc->from_remote[i]       ? "remote"
							       : "local",
		    .key = tc->ks.keys[i],
		    .yaml = yamls[i],
		    .line = l->line,
		    .col = l->col,
		    .ran = ran,
		    .exit_code = j->state == JOB_FAILED && !j->exit_code ? 1 : j->exit_code,
		    .command_exit_code = j->exit_code,
		    .duration_ms = j->duration_ms,
		};
		if ((tr[i].v = sandbox_jobs_verdict(sj, i))) {
			ins[i] = sandbox_jobs_report_input(sj, i);
			tr[i].in = &ins[i];
			tr[i].fix_yaml = sj->facts[i].yaml; /* as runreport_task's fix */
		}
	}
	struct strbuf sb = STRBUF_INIT;
	if (mode == REPORT_JSON)
		report_json(tr, n, &sb);
	else if (mode == REPORT_SARIF)
		report_sarif(tr, n, &sb);
	else
		report_github(tr, n, &sb);
	fwrite(sb.buf, 1, sb.len, out);
	fflush(out);
	strbuf_release(&sb);
	for (size_t i = 0; i < n; i++)
		free(yamls[i]);
	free(yamls);
	free(ins);
	free(tr);
}
