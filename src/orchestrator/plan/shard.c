/* shard.c - the split of a task graph over N CI jobs (docs/ci.md). */
#include "orchestrator/plan/shard.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/die.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/vec.h"

static bool parse_uint(const char *s, size_t len, unsigned *out)
{
	if (!len || len > 4)
		return false;
	unsigned v = 0;
	for (size_t k = 0; k < len; k++) {
		if (s[k] < '0' || s[k] > '9')
			return false;
		v = v * 10 + (unsigned)(s[k] - '0');
	}
	*out = v;
	return true;
}

int shard_parse(const char *spec, unsigned *index, unsigned *count)
{
	const char *slash = strchr(spec, '/');
	unsigned i, n;
	if (!slash || !parse_uint(spec, (size_t)(slash - spec), &i) ||
	    !parse_uint(slash + 1, strlen(slash + 1), &n))
		return error("--shard %s: expected I/N, as in --shard 2/4", spec);
	if (n < 1 || n > SHARD_MAX)
		return error("--shard %s: N must be between 1 and %d", spec, SHARD_MAX);
	if (i < 1 || i > n)
		return error("--shard %s: I must be between 1 and %u", spec, n);
	*index = i - 1;
	*count = n;
	return 0;
}

/* One summary file's ran tasks into the weights. */
static int timings_file(const char *path, const struct strmap *ids, struct shard_task *tasks)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path)) {
		int rc = error_errno("--shard-timings: cannot read %s", path);
		strbuf_release(&sb);
		return rc;
	}
	cJSON *doc = cJSON_ParseWithLength(sb.buf, sb.len);
	strbuf_release(&sb);
	cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "tasks");
	if (!cJSON_IsArray(list)) {
		cJSON_Delete(doc);
		return error("--shard-timings: %s is not a run summary (no \"tasks\" array)", path);
	}
	cJSON *t;
	cJSON_ArrayForEach(t, list)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "id");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(t, "status");
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(t, "durationMs");
		size_t k;
		if (cJSON_IsString(id) && cJSON_IsString(st) &&
		    !strcmp(st->valuestring, "succeeded") && cJSON_IsNumber(ms) &&
		    ms->valuedouble >= 0 && ms->valuedouble < 1e12 &&
		    strmap_get(ids, id->valuestring, &k))
			tasks[k].weight_ms = (long long)ms->valuedouble;
	}
	cJSON_Delete(doc);
	return 0;
}

int shard_timings_load(const char *path, struct shard_task *tasks, size_t n)
{
	struct strmap ids = STRMAP_INIT;
	for (size_t k = 0; k < n; k++)
		strmap_put(&ids, tasks[k].id, k);
	struct stat st;
	int rc = 0;
	if (stat(path, &st)) {
		rc = error_errno("--shard-timings: cannot read %s", path);
	} else if (!S_ISDIR(st.st_mode)) {
		rc = timings_file(path, &ids, tasks);
	} else {
		DIR *d = opendir(path);
		if (!d) {
			rc = error_errno("--shard-timings: cannot read %s", path);
		} else {
			struct strvec names = STRVEC_INIT;
			struct dirent *de;
			while ((de = readdir(d))) {
				size_t len = strlen(de->d_name);
				if (len > 5 && !strcmp(de->d_name + len - 5, ".json"))
					strvec_push(&names, de->d_name);
			}
			closedir(d);
			strvec_sort(&names);
			for (size_t k = 0; k < names.n && !rc; k++) {
				char *file = path_join(path, names.v[k]);
				rc = timings_file(file, &ids, tasks);
				free(file);
			}
			strvec_clear(&names);
		}
	}
	strmap_clear(&ids);
	return rc;
}

struct weighed {
	const char *id;
	long long w;
	size_t i;
};

static int cmp_weighed(const void *a, const void *b)
{
	const struct weighed *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return strcmp(x->id, y->id);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

void shard_split(const struct shard_task *tasks, size_t n, unsigned count, unsigned *owner)
{
	long long *known = xcalloc(n + 1, sizeof *known);
	size_t nk = 0;
	for (size_t k = 0; k < n; k++)
		if (!tasks[k].noop && tasks[k].weight_ms >= 0)
			known[nk++] = tasks[k].weight_ms;
	qsort(known, nk, sizeof *known, cmp_ll);
	/* At least 1: a task that ran in no time still has to be run by someone. */
	long long guess = nk ? known[nk / 2] : 1;
	free(known);
	struct weighed *w = xcalloc(n + 1, sizeof *w);
	for (size_t k = 0; k < n; k++) {
		long long x = tasks[k].noop		? 0
			      : tasks[k].weight_ms >= 0 ? tasks[k].weight_ms
							: guess;
		w[k] = (struct weighed){.id = tasks[k].id, .w = x ? x : !tasks[k].noop, .i = k};
	}
	qsort(w, n, sizeof *w, cmp_weighed);
	long long *load = xcalloc(count, sizeof *load);
	for (size_t k = 0; k < n; k++) {
		unsigned best = 0;
		for (unsigned s = 1; s < count; s++)
			if (load[s] < load[best])
				best = s;
		owner[w[k].i] = best;
		load[best] += w[k].w;
	}
	free(load);
	free(w);
}
