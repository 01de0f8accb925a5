/* profile.c - a finished run as a Chrome trace (profile.h). Turborepo's
 * --profile writes one to open in Perfetto (issue 42 item 7); vx's tasks
 * are its events, each on a lane of its own while it runs. */
#include "orchestrator/run/profile.h"

#include <stdlib.h>

#include "util/die.h"
#include "util/io.h"
#include "util/strbuf.h"

struct started {
	long long at; /* µs */
	size_t i;
};

static int by_start(const void *a, const void *b)
{
	const struct started *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at ? 1 : x->i < y->i ? -1 : x->i > y->i;
}

int profile_write(const char *path, const struct graph *g, const struct job *jobs,
		  const struct taskcache *tc, const struct sandbox_jobs *sj)
{
	size_t n = g->nodes.n, nt = 0;
	struct started *order = xcalloc(n + 1, sizeof *order);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].state == JOB_SUCCEEDED || jobs[i].state == JOB_FAILED ||
		    jobs[i].state == JOB_CACHED)
			order[nt++] = (struct started){jobs[i].start_us, i};
	qsort(order, nt, sizeof *order, by_start);
	long long *lane_end = xcalloc(nt + 1, sizeof *lane_end);
	size_t lanes = 0;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
			   "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
			   "\"args\":{\"name\":\"vx run\"}}");
	for (size_t k = 0; k < nt; k++) {
		const struct job *j = &jobs[order[k].i];
		long long dur = j->duration_us > 0 ? j->duration_us : 0;
		size_t lane = 0;
		while (lane < lanes && lane_end[lane] > j->start_us)
			lane++;
		if (lane == lanes)
			lanes++;
		lane_end[lane] = j->start_us + (dur ? dur : 1);
		strbuf_addstr(&sb, ",\n{\"name\":");
		strbuf_add_json_string(&sb, g->nodes.v[order[k].i]->id);
		strbuf_addf(&sb,
			    ",\"cat\":\"task\",\"ph\":\"X\",\"pid\":1,\"tid\":%zu,\"ts\":%lld,"
			    "\"dur\":%lld,\"args\":{\"status\":\"%s\",\"cache\":\"%s\"",
			    lane + 1, j->start_us, dur, job_state_name(j->state),
			    cache_status_name(tc->status[order[k].i]));
		if (sj)
			sandbox_jobs_phases(sj, order[k].i, &sb);
		strbuf_addstr(&sb, "}}");
	}
	strbuf_addstr(&sb, "\n]}\n");
	int rc = write_file_atomic(path, sb.buf, sb.len);
	if (rc)
		error_errno("cannot write the profile %s", path);
	strbuf_release(&sb);
	free(lane_end);
	free(order);
	return rc;
}
