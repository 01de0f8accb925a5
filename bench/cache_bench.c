/* cache_bench.c - the figures in docs/cache-store.md: save, verify and
 * restore of a 100 MiB output, and what fsync costs per small entry.
 * Not built by CMake; run from the worktree after a Release build:
 *   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
 *   cc -O2 -D_GNU_SOURCE -DVX_VERSION='"bench"' -Isrc bench/cache_bench.c \
 *      build-rel/libvxcore.a -lzstd -lxxhash -lcjson -lyaml -o /tmp/cache_bench
 *   /tmp/cache_bench [DIR]   (DIR: where to work, default /tmp) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/entry.h"
#include "util/die.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* 100 MiB: half the bytes xorshift noise masked to 4 bits, half counters,
 * a stand-in for a build output (compresses about 3.5:1 at level 3). */
static void blob_write(const char *path, size_t total, int random)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die_errno("open %s", path);
	enum { CHUNK = 64 * 1024 };
	unsigned char *chunk = xmalloc(CHUNK);
	unsigned long long x = 88172645463325252ULL;
	for (size_t off = 0; off < total; off += CHUNK) {
		for (size_t i = 0; i < CHUNK; i += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			unsigned long long v = random		 ? x
					       : (i % 512 < 256) ? x & 0x0f0f0f0f0f0f0f0fULL
								 : off;
			memcpy(chunk + i, &v, 8);
		}
		if (write(fd, chunk, CHUNK) != CHUNK)
			die_errno("write %s", path);
	}
	free(chunk);
	close(fd);
}

static void run(const char *base, const char *what, int random, int level)
{
	char *proj = xasprintf("%s/proj", base), *out = xasprintf("%s/out", base);
	char *cache = xasprintf("%s/cache", base), *blob = xasprintf("%s/proj/blob", base);
	mkdir(proj, 0755);
	mkdir(out, 0755);
	blob_write(blob, 100 << 20, random);
	struct store st;
	if (store_open(&st, cache) < 0)
		exit(1);
	const char *outputs[] = {"blob"};
	struct entry_save_request req = {.key = "ab01",
					 .task = "b#b",
					 .project_dir = proj,
					 .outputs = outputs,
					 .n_outputs = 1,
					 .log_fd = -1,
					 .level = level};
	double t0 = now();
	if (entry_save(&st, &req, NULL) < 0)
		exit(1);
	double t1 = now();
	struct entry e;
	struct strbuf why = STRBUF_INIT;
	if (entry_open(&st, "ab01", &e, &why) != ENTRY_HIT)
		die("open: %s", why.buf);
	double t2 = now();
	if (entry_restore(&e, out, NULL, 0, NULL) != ENTRY_RESTORED)
		exit(1);
	double t3 = now();
	const char *cur[] = {"blob"};
	if (entry_restore(&e, out, cur, 1, NULL) != ENTRY_IN_PLACE)
		exit(1);
	double t4 = now();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%s, level %d: archive %.1f MiB; save %.0f ms (%.0f MiB/s), open+verify %.0f ms, "
	       "restore %.0f ms (%.0f MiB/s), in-place check %.0f ms; max RSS %ld KiB\n",
	       what, level ? level : 3, (double)e.m.archive_size / (1 << 20), (t1 - t0) * 1e3,
	       100 / (t1 - t0), (t2 - t1) * 1e3, (t3 - t2) * 1e3, 100 / (t3 - t2), (t4 - t3) * 1e3,
	       ru.ru_maxrss);
	entry_close(&e);
	store_clean(&st);
	store_close(&st);
	unlink(blob);
	char *ob = xasprintf("%s/blob", out);
	unlink(ob);
	free(ob);
	strbuf_release(&why);
	free(proj);
	free(out);
	free(cache);
	free(blob);
}

static void small(const char *base, bool durable)
{
	char *proj = xasprintf("%s/proj", base), *cache = xasprintf("%s/cache", base);
	char *f = xasprintf("%s/small.js", proj);
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "console.log(42)\n", 16) != 16)
		die_errno("write");
	close(fd);
	struct store st;
	if (store_open(&st, cache) < 0)
		exit(1);
	const char *outputs[] = {"small.js"};
	enum { N = 200 };
	double t0 = now();
	for (int i = 0; i < N; i++) {
		char key[16];
		snprintf(key, sizeof key, "%08x", i);
		struct entry_save_request req = {.key = key,
						 .task = "s#s",
						 .project_dir = proj,
						 .outputs = outputs,
						 .n_outputs = 1,
						 .log_fd = -1,
						 .log = "ok\n",
						 .log_len = 3,
						 .durable = durable};
		if (entry_save(&st, &req, NULL) < 0)
			exit(1);
	}
	double t = (now() - t0) / N;
	printf("small entry save, durable=%d: %.2f ms each (%d entries)\n", durable, t * 1e3, N);
	store_clean(&st);
	store_close(&st);
	unlink(f);
	free(f);
	free(proj);
	free(cache);
}

int main(int argc, char **argv)
{
	char *base = xasprintf("%s/vx-bench-XXXXXX", argc > 1 ? argv[1] : "/tmp");
	if (!mkdtemp(base))
		die_errno("mkdtemp");
	run(base, "100 MiB build-like", 0, 0);
	run(base, "100 MiB random", 1, 0);
	run(base, "100 MiB build-like", 0, 1);
	small(base, false);
	small(base, true);
	char *cmd = xasprintf("rm -rf %s", base);
	if (system(cmd))
		return 1;
	free(cmd);
	free(base);
	return 0;
}
