/* Unit tests for plan/shard.c: the I/N spelling, the split (the
 * same owners from any order, balanced within 20% of the best split on
 * recorded durations, by count when none is known) and the timings read
 * from run summaries. */
#include <stdlib.h>

#include "check.h"
#include "fstest.h"
#include "orchestrator/plan/shard.h"
#include "util/die.h"

static void test_parse(void)
{
	unsigned i = 99, n = 99;
	CHECK_INT(shard_parse("1/1", &i, &n), 0);
	CHECK_INT(i, 0);
	CHECK_INT(n, 1);
	CHECK_INT(shard_parse("3/4", &i, &n), 0);
	CHECK_INT(i, 2);
	CHECK_INT(n, 4);
	const char *bad[] = {"",     "1",    "/4",  "1/",   "0/4",  "5/4",    "1/0",
			     "-1/4", "1/4x", "a/b", "1//4", " 1/4", "1/2000", "1/99999"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		CHECK_INT(shard_parse(bad[k], &i, &n), -1);
}

static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static long long makespan(const struct shard_task *t, size_t n, const unsigned *owner,
			  unsigned count)
{
	long long load[8] = {0}, max = 0;
	for (size_t k = 0; k < n; k++)
		load[owner[k]] += t[k].noop ? 0 : t[k].weight_ms;
	for (unsigned s = 0; s < count; s++)
		max = load[s] > max ? load[s] : max;
	return max;
}

/* The best makespan by trying every assignment (n small). */
static long long best_makespan(const struct shard_task *t, size_t n, unsigned count)
{
	unsigned owner[16] = {0};
	long long best = -1;
	for (;;) {
		long long m = makespan(t, n, owner, count);
		if (best < 0 || m < best)
			best = m;
		size_t k = 0;
		while (k < n && ++owner[k] == count)
			owner[k++] = 0;
		if (k == n)
			return best;
	}
}

static void test_balance(void)
{
	char ids[12][16];
	for (int round = 0; round < 30; round++) {
		struct shard_task t[12];
		size_t n = 12;
		unsigned count = 2 + round % 2; /* 2 or 3 shards */
		for (size_t k = 0; k < n; k++) {
			snprintf(ids[k], sizeof ids[k], "p%02zu#build", k);
			/* durations spread like a real repo: a few long, many short */
			long long w = (long long)(next() % 1000) + 1;
			if (next() % 4 == 0)
				w *= 10;
			t[k] = (struct shard_task){.id = ids[k], .weight_ms = w};
		}
		unsigned owner[12];
		shard_split(t, n, count, owner);
		long long got = makespan(t, n, owner, count), best = best_makespan(t, n, count);
		CHECK(got * 100 <= best * 120);
	}
}

static void test_deterministic(void)
{
	char ids[40][16];
	struct shard_task t[40], u[40];
	for (size_t k = 0; k < 40; k++) {
		snprintf(ids[k], sizeof ids[k], "p%02zu#build", k);
		t[k] = (struct shard_task){.id = ids[k],
					   .weight_ms = k % 3 ? -1 : (long long)(k * 7 % 50)};
	}
	/* The same tasks reversed, then rotated: discovery order must not matter. */
	for (size_t k = 0; k < 40; k++)
		u[k] = t[(k * 17 + 5) % 40];
	unsigned a[40], b[40];
	shard_split(t, 40, 4, a);
	shard_split(u, 40, 4, b);
	for (size_t k = 0; k < 40; k++)
		CHECK_INT(b[k], a[(k * 17 + 5) % 40]);
	/* Nothing known: by count, within one task of each other. */
	for (size_t k = 0; k < 40; k++)
		t[k].weight_ms = -1;
	t[3].noop = t[9].noop = true;
	shard_split(t, 40, 4, a);
	int per[4] = {0};
	for (size_t k = 0; k < 40; k++)
		per[a[k]] += !t[k].noop;
	for (int s = 0; s < 4; s++)
		CHECK(per[s] >= 9 && per[s] <= 10);
	/* One shard owns everything. */
	shard_split(t, 40, 1, a);
	for (size_t k = 0; k < 40; k++)
		CHECK_INT(a[k], 0);
	/* More shards than tasks: each task alone, some shards idle. */
	shard_split(t, 3, 8, a);
	CHECK(a[0] != a[1] && a[1] != a[2] && a[0] != a[2]);
}

static void test_timings(void)
{
	char *dir = fs_tmpdir();
	fs_mkdir(dir, "runs", 0755);
	fs_write(dir, "runs/20260101T000000Z-1.json",
		 "{\"tasks\":[{\"id\":\"a#build\",\"status\":\"succeeded\",\"durationMs\":500},"
		 "{\"id\":\"b#build\",\"status\":\"cached\",\"durationMs\":3},"
		 "{\"id\":\"gone#build\",\"status\":\"succeeded\",\"durationMs\":9}]}",
		 0644);
	fs_write(dir, "runs/20260102T000000Z-1.json",
		 "{\"tasks\":[{\"id\":\"a#build\",\"status\":\"succeeded\",\"durationMs\":700}]}",
		 0644);
	fs_write(dir, "runs/notes.txt", "not a summary", 0644);
	fs_write(dir, "bad.json", "{\"version\":1}", 0644);
	fs_write(dir, "torn.json", "{\"tasks\":[", 0644);
	struct shard_task t[] = {{.id = "a#build", .weight_ms = -1},
				 {.id = "b#build", .weight_ms = -1}};
	char *runs = xasprintf("%s/runs", dir);
	CHECK_INT(shard_timings_load(runs, t, 2), 0);
	CHECK_INT(t[0].weight_ms, 700); /* the later file wins */
	CHECK_INT(t[1].weight_ms, -1);	/* a replay's time is no weight */
	char *bad = xasprintf("%s/bad.json", dir), *torn = xasprintf("%s/torn.json", dir),
	     *none = xasprintf("%s/none.json", dir);
	CHECK_INT(shard_timings_load(bad, t, 2), -1);
	CHECK_INT(shard_timings_load(torn, t, 2), -1);
	CHECK_INT(shard_timings_load(none, t, 2), -1);
	free(bad);
	free(torn);
	free(none);
	free(runs);
	fs_rmtree(dir);
	free(dir);
}

int main(void)
{
	test_parse();
	test_balance();
	test_deterministic();
	test_timings();
	return check_finish("test_shard");
}
