#include "orchestrator/cli/cache_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "cache/store.h"
#include "orchestrator/run/runlog.h"
#include "orchestrator/config/workspace.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/parseopt.h"
#include "util/path.h"

static const struct opt_usage stats_usage = {
    "usage: vx cache stats\n"
    "\n"
    "The local cache's entries, bytes, oldest and newest use, and the hit rate of\n"
    "the last runs.\n"
    "\n",
    NULL};
static const struct opt_usage clean_usage = {"usage: vx cache clean\n"
					     "\n"
					     "Removes every entry of the local cache.\n"
					     "\n",
					     NULL};
static const struct opt_usage prune_usage = {
    "usage: vx cache prune [--max-size SIZE]\n"
    "\n"
    "Evicts the least recently used entries until the local cache fits its\n"
    "cache.maxSize.\n"
    "\n",
    NULL};

struct opt *cache_opts_rows(struct cache_opts *o, bool prune)
{
	const struct opt prune_rows[] = {
	    OPT_STRING(0, "max-size", &o->max_size, "SIZE",
		       "fit SIZE (5GiB, 500MB) rather than cache.maxSize"),
	    OPT_HELP(),
	    OPT_END(),
	};
	return parseopt_copy(prune ? prune_rows : prune_rows + 1);
}

static void human(long long b, char *out, size_t n)
{
	const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	size_t i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(out, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
}

static void when(time_t t, char *out, size_t n)
{
	struct tm tm;
	if (!t || !localtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(out, n, "-");
}

int cache_main(int argc, char **argv)
{
	const char *sub = argv[0];
	bool prune = !strcmp(sub, "prune");
	const struct opt_usage *usage = prune			? &prune_usage
					: !strcmp(sub, "stats") ? &stats_usage
								: &clean_usage;
	struct cache_opts o = {0};
	struct opt *rows = cache_opts_rows(&o, prune);
	struct strvec operands = STRVEC_INIT;
	int rc = parseopt(argc, argv, rows, usage, &operands, NULL);
	if (!rc && operands.n) {
		error("vx cache %s: unexpected \"%s\"", sub, operands.v[0]);
		parseopt_usage(rows, usage, stderr);
		rc = -1;
	}
	free(rows);
	strvec_clear(&operands);
	if (rc)
		return rc > 0 ? 0 : 2;
	long long max = -1;
	if (o.max_size && config_parse_size(o.max_size, &max)) {
		error("--max-size: \"%s\" is not a size (e.g. 5GiB, 500MB)", o.max_size);
		return 2;
	}
	struct workspace *ws = workspace_load_here();
	if (!ws)
		return 2;
	char *dir = workspace_cache_dir(ws);
	if (max < 0)
		max = ws->cfg->cache_max_size;
	workspace_free(ws);
	struct store st;
	if (store_open(&st, dir)) {
		free(dir);
		return 2;
	}
	if (!strcmp(sub, "stats")) {
		struct store_stats s;
		if (store_stats(&st, &s)) {
			rc = 2;
		} else {
			char b[32], lim[32], o[32], nw[32];
			human((long long)s.bytes, b, sizeof b);
			human(max, lim, sizeof lim);
			when(s.oldest, o, sizeof o);
			when(s.newest, nw, sizeof nw);
			printf("cache: %s\nentries: %llu\nsize: %s (maxSize %s)\noldest use: "
			       "%s\nnewest use: %s\n",
			       dir, (unsigned long long)s.entries, b, lim, o, nw);
			struct runlog_line lines[10];
			size_t n = runlog_read(dir, lines, 10);
			size_t hits = 0, total = 0;
			for (size_t i = 0; i < n; i++) {
				hits += lines[i].hits;
				total += lines[i].hits + lines[i].misses;
			}
			if (total)
				printf("hit rate, last %zu runs: %.0f%% (%zu of %zu cacheable "
				       "tasks)\n",
				       n, 100.0 * (double)hits / (double)total, hits, total);
			else
				printf("hit rate, last runs: no cacheable task has run yet\n");
		}
	} else if (st.read_only) {
		/* a read-only cache is read, never changed (issue 39): one line,
		 * and a prune that has nothing to evict has done its work */
		struct store_stats s;
		char lim[32];
		human(max, lim, sizeof lim);
		if (!strcmp(sub, "prune") && !store_stats(&st, &s) && s.bytes <= (uint64_t)max) {
			printf("cache: evicted 0 entries to fit %s (%s is read-only)\n", lim, dir);
		} else {
			error("the cache %s is read-only (%s): nothing in it can be removed", dir,
			      strerror(st.read_only));
			rc = 2;
		}
	} else if (!strcmp(sub, "clean")) {
		rc = store_clean(&st) ? 2 : 0;
		/* "remove all" includes what vx remembers of outputs in place, so
		 * the next run rebuilds rather than trusting them */
		static const char *const records[] = {"inplace",	   "statcache",	 "runs.log",
						      "lockfile-closures", "listings",	 "configs",
						      "ignores",	   FS_CLOCK_FILE};
		for (size_t i = 0; !rc && i < sizeof records / sizeof *records; i++) {
			char *f = path_join(dir, records[i]);
			if (unlink(f) && errno != ENOENT) {
				error_errno("cannot remove %s", f);
				rc = 2;
			}
			free(f);
		}
		static const char *const trees[] = {"lockfiles", "reads"};
		for (size_t i = 0; !rc && i < 2; i++)
			if (remove_tree_at(st.dirfd, trees[i])) {
				error_errno("cannot remove %s/%s", dir, trees[i]);
				rc = 2;
			}
		if (!rc)
			printf("cache: %s emptied\n", dir);
	} else {
		long evicted = store_prune(&st, (uint64_t)max);
		if (evicted < 0) {
			rc = 2;
		} else {
			char lim[32];
			human(max, lim, sizeof lim);
			printf("cache: evicted %ld entries to fit %s\n", evicted, lim);
		}
	}
	store_close(&st);
	free(dir);
	return rc;
}
