/* summary.c - `vx run --summarize` (summary.h). The document is
 * Turborepo's run summary (turbodoc.c: turbo 2.11.13's fields and types,
 * t0191 compares them with turbo's own for the same run), so tools that
 * read .turbo/runs/ID.json read it; vx's own fields stand beside turbo's
 * under names turbo does not use, never instead (docs/output.md). */
#include "orchestrator/run/summary.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orchestrator/run/turbodoc.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"

long long summary_clock_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The run's id: its start to the ms (UTC), then vx's pid, so ids sort as
 * the runs began and two runs at once differ; a later run of the same
 * process in the same ms (vx watch) adds a count. Caller frees. */
static char *summary_id(long long start_ms)
{
	static long long last_ms = -1;
	static unsigned again;
	time_t secs = (time_t)(start_ms / 1000);
	struct tm tm;
	char stamp[32];
	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	again = start_ms == last_ms ? again + 1 : 0;
	last_ms = start_ms;
	if (again)
		return xasprintf("%s.%03lldZ-%d-%u", stamp, start_ms % 1000, (int)getpid(), again);
	return xasprintf("%s.%03lldZ-%d", stamp, start_ms % 1000, (int)getpid());
}

/* vx's own fields of node i's task, beside turbo's in o (SPEC §5): its
 * id, project directory and name, key, status, cache word and source,
 * exit code, timings (ms from the scheduler's start). */
static void vx_fields(cJSON *o, const struct graph *g, const struct job *j,
		      const struct taskcache *tc, size_t i)
{
	const struct task_node *t = g->nodes.v[i];
	cJSON_AddStringToObject(o, "id", t->id);
	cJSON_AddStringToObject(o, "project", g->ws->projects.v[t->project]->rel);
	cJSON_AddStringToObject(o, "name", g->ws->projects.v[t->project]->name);
	if (!cJSON_HasObjectItem(o, "task"))
		cJSON_AddStringToObject(o, "task", t->task);
	cJSON_AddStringToObject(o, "key", tc->ks.keys[i]);
	cJSON_AddStringToObject(o, "status", job_state_name(j->state));
	cJSON_AddStringToObject(o, "cacheStatus", cache_status_name(tc->status[i]));
	if (tc->status[i] == CACHE_HIT)
		cJSON_AddStringToObject(o, "cacheSource", tc->from_remote[i] ? "remote" : "local");
	else
		cJSON_AddNullToObject(o, "cacheSource");
	if (j->state == JOB_SUCCEEDED || j->state == JOB_FAILED)
		cJSON_AddNumberToObject(o, "exitCode", j->exit_code);
	else
		cJSON_AddNullToObject(o, "exitCode");
	if (j->timed_out)
		cJSON_AddTrueToObject(o, "timedOut");
	if (j->reason)
		cJSON_AddStringToObject(o, "reason", j->reason);
	/* a sandboxed task opted out of reads checked against its key */
	if (t->cfg->sandbox && t->cfg->sandbox->no_verify_key)
		cJSON_AddFalseToObject(o, "verifyKey");
	cJSON_AddNumberToObject(o, "startMs", (double)j->start_ms);
	cJSON_AddNumberToObject(o, "durationMs", (double)j->duration_ms);
}

/* Whether the missing directory dir would be made inside the workspace at
 * root: judged where its deepest existing ancestor leads, not by its
 * spelling (a link in the workspace, which a task can leave among its
 * outputs, may lead anywhere). errno is ENOENT when it would not. */
static bool made_inside(const char *root, const char *dir)
{
	char *at = xstrdup(dir), *real = NULL;
	struct stat st;
	while (lstat(at, &st) < 0 && strcmp(at, "/")) {
		char *up = path_dirname(at);
		free(at);
		at = up;
	}
	real = realpath(at, NULL);
	char *real_root = realpath(root, NULL);
	bool inside = real && real_root && path_is_within(real_root, real);
	free(real_root);
	free(real);
	free(at);
	errno = ENOENT;
	return inside;
}

int summary_write(const struct run_opts *o, const struct graph *g, const struct job *jobs,
		  struct taskcache *tc, int exit_code, long long total_ms, long long jobs_t0_ms)
{
	long long end_ms = summary_clock_ms(), start_ms = end_ms - total_ms;
	char *id = summary_id(start_ms);
	char *file = o->summary_path ? path_absolute(o->summary_path)
				     : xasprintf("%s/.vx/runs/%s.json", g->ws->root, id);
	struct turbodoc_run run = {
	    .id = id,
	    .command = turbodoc_command(o),
	    .start_ms = start_ms,
	    .end_ms = end_ms,
	    .jobs_t0_ms = jobs_t0_ms,
	    .exit_code = exit_code,
	};
	bool *expanded = xcalloc(g->nodes.n + 1, sizeof *expanded);
	for (size_t i = 0; i < g->nodes.n; i++)
		expanded[i] = jobs[i].state == JOB_SUCCEEDED || jobs[i].state == JOB_CACHED;
	run.expanded = expanded;
	cJSON *root = turbodoc_new(g, jobs, tc, &run);
	free(expanded);
	free(run.command);

	/* turbo's tasks[] holds the tasks that started, in the graph's order:
	 * vx's fields join each; the others (nothing to run, kept from
	 * starting by a failure) are listed, vx's fields only, beside */
	cJSON *tasks = cJSON_GetObjectItemCaseSensitive(root, "tasks");
	cJSON *task = tasks ? tasks->child : NULL;
	cJSON *rest = cJSON_CreateArray();
	for (size_t i = 0; i < g->nodes.n; i++) {
		if (turbodoc_started(&jobs[i])) {
			vx_fields(task, g, &jobs[i], tc, i);
			task = task->next;
			continue;
		}
		cJSON *n = cJSON_CreateObject();
		vx_fields(n, g, &jobs[i], tc, i);
		if (jobs[i].command)
			cJSON_AddStringToObject(n, "command", jobs[i].command);
		else
			cJSON_AddNullToObject(n, "command");
		/* its inputs too (SPEC §5: every task's), package-relative as
		 * tasks[]' are */
		const struct project *p = g->ws->projects.v[g->nodes.v[i]->project];
		const struct task_inputs *in = &tc->ks.inputs[i];
		cJSON *inputs = cJSON_AddObjectToObject(n, "inputs");
		for (size_t k = 0; k < in->paths.n; k++) {
			char *abs = path_join(g->ws->root, in->paths.v[k]);
			char *rel = path_relative(p->dir, abs);
			cJSON_AddStringToObject(inputs, rel, in->hashes[k]);
			free(rel);
			free(abs);
		}
		cJSON_AddItemToArray(rest, n);
	}
	cJSON_AddItemToObject(root, "tasksNotStarted", rest);
	cJSON_AddStringToObject(root, "vxVersion", VX_VERSION);
	cJSON_AddStringToObject(root, "workspace", g->ws->root);
	cJSON_AddNumberToObject(root, "exitCode", exit_code);
	cJSON_AddNumberToObject(root, "durationMs", (double)total_ms);
	cJSON_AddNumberToObject(root, "hashMs", (double)tc->ks.hash_ms);

	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		die("out of memory writing the run summary");
	int rc = 0;
	char *dir = path_dirname(file);
	size_t n = strlen(text);
	text = xrealloc(text, n + 2);
	memcpy(text + n, "\n", 2);
	/* A warning: the run's status is its tasks', not a report file's
	 * (issue 39: a fully cached run on a full disk exited 2). */
	struct stat st;
	/* made inside the workspace only: outside it a mistyped path made
	 * directories anywhere, silently (issue 57 item 7) */
	if (stat(dir, &st) < 0 && !made_inside(g->ws->root, dir))
		rc = -1, warning("cannot write the run summary %s: %s: %s (vx makes a summary's "
				 "directory only inside the workspace)",
				 file, dir, strerror(errno));
	else if (fs_mkdirs(dir, 0755))
		rc = -1, warning("cannot make %s for the run summary: %s", dir, strerror(errno));
	else if (write_file_atomic(file, text, n + 1))
		rc = -1, warning("cannot write the run summary %s: %s", file, strerror(errno));
	else
		fprintf(stderr, "vx: run summary: %s\n", file);
	free(text);
	free(dir);
	free(file);
	free(id);
	return rc;
}
