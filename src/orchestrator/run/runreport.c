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

void runreport_print(const char *mode, const struct graph *g, const struct job *jobs,
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
		}
	}
	struct strbuf sb = STRBUF_INIT;
	if (!strcmp(mode, "json"))
		report_json(tr, n, &sb);
	else if (!strcmp(mode, "sarif"))
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
