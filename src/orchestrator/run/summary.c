#include "orchestrator/run/summary.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"

int summary_write(const char *path, const struct graph *g, const struct job *jobs,
		  const struct taskcache *tc, int exit_code, long long total_ms)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	char *id = xasprintf("%s-%d", stamp, (int)getpid());
	char *file = path ? path_absolute(path) : xasprintf("%s/.vx/runs/%s.json", g->ws->root, id);

	cJSON *root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddStringToObject(root, "id", id);
	cJSON_AddStringToObject(root, "vxVersion", VX_VERSION);
	cJSON_AddStringToObject(root, "workspace", g->ws->root);
	cJSON_AddNumberToObject(root, "exitCode", exit_code);
	cJSON_AddNumberToObject(root, "durationMs", (double)total_ms);
	cJSON_AddNumberToObject(root, "hashMs", (double)tc->ks.hash_ms);
	cJSON *tasks = cJSON_AddArrayToObject(root, "tasks");
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		const struct job *j = &jobs[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", t->id);
		cJSON_AddStringToObject(o, "project", g->ws->projects.v[t->project]->rel);
		cJSON_AddStringToObject(o, "name", g->ws->projects.v[t->project]->name);
		cJSON_AddStringToObject(o, "task", t->task);
		cJSON_AddStringToObject(o, "key", tc->ks.keys[i]);
		if (j->command)
			cJSON_AddStringToObject(o, "command", j->command);
		else
			cJSON_AddNullToObject(o, "command");
		cJSON_AddStringToObject(o, "status", job_state_name(j->state));
		cJSON_AddStringToObject(o, "cache", cache_status_name(tc->status[i]));
		if (tc->status[i] == CACHE_HIT)
			cJSON_AddStringToObject(o, "cacheSource",
						tc->from_remote[i] ? "remote" : "local");
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
		cJSON *deps = cJSON_AddArrayToObject(o, "dependencies");
		for (size_t k = 0; k < t->deps.n; k++)
			cJSON_AddItemToArray(deps,
					     cJSON_CreateString(g->nodes.v[t->deps.v[k].to]->id));
		cJSON *inputs = cJSON_AddObjectToObject(o, "inputs");
		const struct task_inputs *ti = &tc->ks.inputs[i];
		for (size_t f = 0; f < ti->paths.n; f++)
			cJSON_AddStringToObject(inputs, ti->paths.v[f], ti->hashes[f]);
		cJSON_AddItemToArray(tasks, o);
	}
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
	if (fs_mkdirs(dir, 0755))
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
