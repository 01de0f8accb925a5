/* Unit tests for cache/statcache.c: hits without reading, re-hash on change,
 * the racy-timestamp rule across a reload and against a skewed clock,
 * corrupt files, atomic saves. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache/filehash.h"
#include "cache/statcache.h"
#include "check.h"
#include "skew_clock.h"
#include "util/fsclock.h"
#include "util/strbuf.h"

static char dir[] = "/tmp/vx-test-statcache-XXXXXX";
static char *cache_file;

static char *in_dir(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void write_file(const char *path, const char *data)
{
	FILE *f = fopen(path, "wb");
	if (!f || fputs(data, f) < 0 || fclose(f))
		die_errno("cannot write %s", path);
}

/* Sets path's mtime to `ago` seconds before now (ctime becomes now). */
static void age(const char *path, time_t ago)
{
	struct timespec ts[2];
	if (clock_gettime(CLOCK_REALTIME, &ts[0]))
		die_errno("clock_gettime");
	ts[0].tv_sec -= ago;
	ts[1] = ts[0];
	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW))
		die_errno("utimensat %s", path);
}

/* Waits until the wall clock's second changes, so a file written before is
 * strictly older than anything stamped after. */
static void next_second(void)
{
	time_t t = time(NULL);
	while (time(NULL) == t) {
		struct timespec d = {0, 20 * 1000 * 1000};
		nanosleep(&d, NULL);
	}
}

/* Runs fn with stderr sent to a file; returns what it printed. */
static char *capture_stderr(struct statcache *(*fn)(const char *), const char *arg,
			    struct statcache **result)
{
	char *log = in_dir("stderr.log");
	fflush(stderr);
	int saved = dup(2);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (saved < 0 || fd < 0 || dup2(fd, 2) < 0)
		die_errno("redirecting stderr");
	*result = fn(arg);
	fflush(stderr);
	if (dup2(saved, 2) < 0)
		die_errno("restoring stderr");
	close(saved);
	close(fd);
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, log) < 0)
		die_errno("reading %s", log);
	unlink(log);
	free(log);
	return strbuf_detach(&sb, NULL);
}

static void check_hit_and_change(void)
{
	char *a = in_dir("a.txt");
	write_file(a, "alpha\n");
	age(a, 100);
	char hex[KEY_HEX_SIZE], want[KEY_HEX_SIZE];
	CHECK_INT(filehash_path(a, want), 0);

	struct statcache *sc = statcache_load(cache_file); /* missing: empty */
	CHECK_INT(statcache_stats(sc).loaded, 0);
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);
	CHECK_STR(hex, want);
	CHECK_INT(statcache_stats(sc).hashed, 1);
	/* Unchanged and old: answered without reading. */
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);
	CHECK_STR(hex, want);
	CHECK_INT(statcache_stats(sc).hashed, 1);
	CHECK_INT(statcache_stats(sc).hits, 1);

	/* Same size, new content, an mtime set back to another old second:
	 * the stat data (mtime, ctime) differ, so it is read again. */
	write_file(a, "omega\n");
	age(a, 50);
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);
	CHECK_INT(filehash_path(a, want), 0);
	CHECK_STR(hex, want);
	CHECK_INT(statcache_stats(sc).hashed, 2);

	/* Saved and reloaded, the old entry is trusted: no read. */
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_stats(sc).loaded, 1);
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);
	CHECK_STR(hex, want);
	CHECK_INT(statcache_stats(sc).hashed, 0);
	CHECK_INT(statcache_stats(sc).hits, 1);

	/* A vanished file fails with ENOENT and is not saved. */
	char *b = in_dir("b.txt");
	write_file(b, "beta\n");
	age(b, 100);
	CHECK_INT(statcache_lookup_or_hash(sc, b, hex), 0);
	unlink(b);
	errno = 0;
	CHECK_INT(statcache_lookup_or_hash(sc, b, hex), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_stats(sc).loaded, 1);
	statcache_free(sc);
	unlink(a);
	free(a);
	free(b);
}

static void check_racy(void)
{
	/* Written this very second: a write later in the same second could
	 * keep its mtime, so the entry must not be trusted after a reload. */
	char *r = in_dir("racy.txt");
	write_file(r, "fresh\n");
	struct statcache *sc = statcache_load(cache_file);
	char hex[KEY_HEX_SIZE];
	CHECK_INT(statcache_lookup_or_hash(sc, r, hex), 0);
	CHECK_INT(statcache_stats(sc).racy, 1);
	/* Not even within the run. */
	CHECK_INT(statcache_lookup_or_hash(sc, r, hex), 0);
	CHECK_INT(statcache_stats(sc).hits, 0);
	CHECK_INT(statcache_stats(sc).hashed, 2);
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);

	/* Same size, same mtime, new content: the case the rule exists for. */
	struct stat st;
	if (lstat(r, &st))
		die_errno("lstat");
	write_file(r, "fresH\n");
	struct timespec ts[2] = {st.st_mtim, st.st_mtim};
	if (utimensat(AT_FDCWD, r, ts, 0))
		die_errno("utimensat");
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, r, hex), 0);
	char want[KEY_HEX_SIZE];
	CHECK_INT(filehash_path(r, want), 0);
	CHECK_STR(hex, want);
	CHECK_INT(statcache_stats(sc).hashed, 1);
	CHECK_INT(statcache_stats(sc).hits, 0);

	/* Once its second is past, the re-hashed entry is trusted. */
	next_second();
	CHECK_INT(statcache_lookup_or_hash(sc, r, hex), 0);
	CHECK_INT(statcache_stats(sc).hashed, 2);
	CHECK_INT(statcache_stats(sc).racy, 1); /* the first hash only */
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, r, hex), 0);
	CHECK_INT(statcache_stats(sc).hits, 1);
	CHECK_INT(statcache_stats(sc).hashed, 0);
	statcache_free(sc);

	/* An mtime in the future is never trusted. */
	age(r, -3600);
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, r, hex), 0);
	CHECK_INT(statcache_lookup_or_hash(sc, r, hex), 0);
	CHECK_INT(statcache_stats(sc).hashed, 2);
	statcache_free(sc);
	unlink(r);
	free(r);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		die_errno("cannot write %s", path);
}

/* Counts directory entries whose name starts with prefix. */
static int count_named(const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		die_errno("opendir");
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static void check_corrupt(void)
{
	/* A good file with three old entries to break. */
	char *files[3];
	struct statcache *sc = statcache_load(cache_file);
	char hex[KEY_HEX_SIZE];
	for (int i = 0; i < 3; i++) {
		files[i] = xasprintf("%s/c%d", dir, i);
		write_file(files[i], "some content\n");
		age(files[i], 1000);
		CHECK_INT(statcache_lookup_or_hash(sc, files[i], hex), 0);
	}
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	struct strbuf good = STRBUF_INIT;
	if (strbuf_read_file(&good, cache_file) < 0)
		die_errno("read %s", cache_file);

	char *err = capture_stderr(statcache_load, cache_file, &sc);
	CHECK_STR(err, "");
	CHECK(statcache_stats(sc).loaded >= 3);
	statcache_free(sc);
	free(err);

	/* Garbage: empty, one warning line naming the file. */
	write_bytes(cache_file, "not a cache at all, just text\n", 30);
	err = capture_stderr(statcache_load, cache_file, &sc);
	CHECK(strstr(err, "warning") && strstr(err, cache_file) && strstr(err, "corrupt"));
	CHECK_INT(strchr(err, '\n') - err + 1, (long)strlen(err));
	CHECK_INT(statcache_stats(sc).loaded, 0);
	CHECK_INT(statcache_lookup_or_hash(sc, files[0], hex), 0);
	CHECK_INT(statcache_stats(sc).hashed, 1);
	statcache_free(sc);
	free(err);

	/* Every truncation and every flipped byte is caught: empty, a warning,
	 * no crash (ASan watches the parser's bounds). */
	for (size_t cut = 0; cut < good.len; cut++) {
		write_bytes(cache_file, good.buf, cut);
		err = capture_stderr(statcache_load, cache_file, &sc);
		if (!strstr(err, "warning") || statcache_stats(sc).loaded != 0)
			fprintf(stderr, "truncation at %zu not caught\n", cut);
		CHECK(strstr(err, "warning") != NULL);
		CHECK_INT(statcache_stats(sc).loaded, 0);
		statcache_free(sc);
		free(err);
	}
	for (size_t at = 0; at < good.len; at++) {
		good.buf[at] ^= 0x20;
		write_bytes(cache_file, good.buf, good.len);
		good.buf[at] ^= 0x20;
		err = capture_stderr(statcache_load, cache_file, &sc);
		/* Bytes 8-11 are the version: another one is silently empty. */
		if (at < 8 || at > 11)
			CHECK(strstr(err, "warning") != NULL);
		CHECK_INT(statcache_stats(sc).loaded, 0);
		statcache_free(sc);
		free(err);
	}

	/* Another version: empty and quiet (an upgrade is not corruption). */
	good.buf[8] = STATCACHE_VERSION + 1;
	write_bytes(cache_file, good.buf, good.len);
	err = capture_stderr(statcache_load, cache_file, &sc);
	CHECK_STR(err, "");
	CHECK_INT(statcache_stats(sc).loaded, 0);
	statcache_free(sc);
	free(err);

	/* A cache file that is a directory: a warning, not a crash. */
	unlink(cache_file);
	if (mkdir(cache_file, 0700))
		die_errno("mkdir");
	err = capture_stderr(statcache_load, cache_file, &sc);
	CHECK(strstr(err, "warning") != NULL);
	/* ... and saving over it fails with an error (printed below), leaving
	 * no temporary. */
	CHECK_INT(statcache_save(sc), -1);
	CHECK_INT(count_named("statcache.tmp-"), 0);
	statcache_free(sc);
	free(err);
	if (rmdir(cache_file))
		die_errno("rmdir");

	for (int i = 0; i < 3; i++) {
		unlink(files[i]);
		free(files[i]);
	}
	strbuf_release(&good);
}

static void check_atomic_save(void)
{
	char *a = in_dir("atomic.txt");
	write_file(a, "x\n");
	age(a, 100);
	struct statcache *sc = statcache_load(cache_file);
	char hex[KEY_HEX_SIZE];
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);

	/* The old file is replaced by rename, not rewritten in place: a reader
	 * holding it open keeps the old inode whole. */
	write_file(cache_file, "old");
	int fd = open(cache_file, O_RDONLY | O_CLOEXEC);
	struct stat before, after, held;
	if (fd < 0 || fstat(fd, &before))
		die_errno("open %s", cache_file);
	CHECK_INT(statcache_save(sc), 0);
	if (lstat(cache_file, &after) || fstat(fd, &held))
		die_errno("stat %s", cache_file);
	CHECK(after.st_ino != before.st_ino);
	CHECK_INT(held.st_size, 3);
	close(fd);
	CHECK_INT(count_named("statcache.tmp-"), 0);

	/* Two caches saved in turn: the last writer's content wins, whole. */
	struct statcache *other = statcache_load(cache_file);
	char *b = in_dir("atomic2.txt");
	write_file(b, "y\n");
	age(b, 100);
	CHECK_INT(statcache_lookup_or_hash(other, b, hex), 0);
	CHECK_INT(statcache_save(other), 0);
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(other);
	other = statcache_load(cache_file);
	CHECK_INT(statcache_stats(other).loaded, 1);
	statcache_free(other);

	/* Concurrent savers never tear the file: every load is clean. */
	pid_t pid = fork();
	if (pid < 0)
		die_errno("fork");
	if (pid == 0) {
		for (int i = 0; i < 200; i++)
			if (statcache_save(sc))
				_exit(1);
		_exit(0);
	}
	int torn = 0;
	for (int i = 0; i < 200; i++) {
		if (statcache_save(sc))
			torn++;
		struct statcache *r;
		char *err = capture_stderr(statcache_load, cache_file, &r);
		torn += *err != '\0' || statcache_stats(r).loaded != 1;
		statcache_free(r);
		free(err);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		die_errno("waitpid");
	CHECK_INT(torn, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_INT(count_named("statcache.tmp-"), 0);

	statcache_free(sc);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

static void check_many(void)
{
	char *paths[6];
	for (int i = 0; i < 5; i++) {
		paths[i] = xasprintf("%s/m%d", dir, i);
		char body[32];
		snprintf(body, sizeof body, "file %d\n", i);
		write_file(paths[i], body);
		age(paths[i], 100);
	}
	paths[5] = in_dir("missing");
	struct statcache *sc = statcache_load(cache_file);
	char hex[KEY_HEX_SIZE];
	CHECK_INT(statcache_lookup_or_hash(sc, paths[0], hex), 0); /* one warm already */

	char out[6][KEY_HEX_SIZE];
	int errs[6];
	CHECK_INT(statcache_lookup_many(sc, (const char *const *)paths, 6, out, errs, 2), 1);
	CHECK_INT(statcache_stats(sc).hashed, 5);
	CHECK_INT(statcache_stats(sc).hits, 1);
	for (int i = 0; i < 5; i++) {
		CHECK_INT(errs[i], 0);
		CHECK_INT(filehash_path(paths[i], hex), 0);
		CHECK_STR(out[i], hex);
	}
	CHECK_INT(errs[5], ENOENT);
	CHECK_STR(out[5], "");
	/* All warm now. */
	CHECK_INT(statcache_lookup_many(sc, (const char *const *)paths, 5, out, errs, 2), 0);
	CHECK_INT(statcache_stats(sc).hashed, 5);
	CHECK_INT(statcache_stats(sc).hits, 6);
	statcache_free(sc);
	for (int i = 0; i < 6; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
}

/* The cache file's inode and ctime: a save that writes makes a new file
 * (an inode number may come back, a ctime does not). */
static long long cache_ino(void)
{
	struct stat st;
	if (stat(cache_file, &st) < 0)
		return 0;
	return (long long)st.st_ino * 1000000007LL + st.st_ctim.tv_sec * 1000000000LL +
	       st.st_ctim.tv_nsec;
}

/* A run that answered everything from the file writes nothing (issue 20:
 * a no-op run writes only its run log); a hash, a vanished path or an
 * entry the racy rule dropped at load does write. */
static void check_clean_save(void)
{
	char *a = in_dir("c1"), *b = in_dir("c2");
	write_file(a, "one\n");
	write_file(b, "two\n");
	age(a, 100);
	age(b, 100);
	char hex[KEY_HEX_SIZE];
	struct statcache *sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);
	CHECK_INT(statcache_lookup_or_hash(sc, b, hex), 0);
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	long long first = cache_ino();
	CHECK(first != 0);

	sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);
	CHECK_INT(statcache_stats(sc).hits, 1);
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	CHECK(cache_ino() == first); /* nothing new: not written */

	sc = statcache_load(cache_file); /* b is kept though nobody asked */
	CHECK_INT(statcache_stats(sc).loaded, 2);
	write_file(a, "uno\n");
	age(a, 50);
	CHECK_INT(statcache_lookup_or_hash(sc, a, hex), 0);
	CHECK_INT(statcache_stats(sc).hashed, 1);
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	CHECK(cache_ino() != first);
	first = cache_ino();

	unlink(b);
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, b, hex), -1);
	CHECK_INT(statcache_save(sc), 0);
	statcache_free(sc);
	CHECK(cache_ino() != first);
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_stats(sc).loaded, 1);
	statcache_free(sc);
	unlink(a);
	free(a);
	free(b);
}

/* The save second in the file's header (docs/cache-hashing.md). */
static long long saved_sec(void)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, cache_file) < 0 || sb.len < 24)
		die("cannot read %s", cache_file);
	long long v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | (unsigned char)sb.buf[16 + i];
	strbuf_release(&sb);
	return v;
}

/* Issue 57 item 5: with vx's clock ahead of the files', a file written in
 * the second it was hashed looked old, its entry was trusted and saved, and
 * a same-size rewrite in that second replayed the old hash. Behind, every
 * file younger than the skew was racy: hashed on every run. The racy rule
 * reads the file system's clock, stamped in the cache's directory. */
static void check_skewed_clock(void)
{
	char *f = in_dir("skew.txt"), *old = in_dir("old.txt"), *stamp = in_dir(FS_CLOCK_FILE);
	char hex[KEY_HEX_SIZE];
	write_file(old, "old\n");
	age(old, 100);
	next_second();
	write_file(f, "fresh\n");

	/* The skew is real to the code under test: by its own clock (nothing
	 * anchored) an hour ahead trusts the fresh file, an hour behind
	 * distrusts the old one. */
	clock_skew = 3600;
	struct statcache *sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, f, hex), 0);
	CHECK_INT(statcache_stats(sc).racy, 0);
	statcache_free(sc);
	clock_skew = -3600;
	sc = statcache_load(cache_file);
	CHECK_INT(statcache_lookup_or_hash(sc, old, hex), 0);
	CHECK_INT(statcache_stats(sc).racy, 1);
	statcache_free(sc);

	fs_clock_anchor(dir);
	for (int i = 0; i < 2; i++) {
		clock_skew = i ? -3600 : 3600;
		sc = statcache_load(cache_file);
		/* the fresh file is racy, not even trusted within the run */
		CHECK_INT(statcache_lookup_or_hash(sc, f, hex), 0);
		CHECK_INT(statcache_lookup_or_hash(sc, f, hex), 0);
		CHECK_INT(statcache_stats(sc).racy, 2);
		CHECK_INT(statcache_stats(sc).hits, 0);
		/* the old one is trusted */
		CHECK_INT(statcache_lookup_or_hash(sc, old, hex), 0);
		CHECK_INT(statcache_lookup_or_hash(sc, old, hex), 0);
		CHECK_INT(statcache_stats(sc).racy, 2);
		CHECK_INT(statcache_stats(sc).hits, 1);
		CHECK_INT(statcache_save(sc), 0);
		statcache_free(sc);
		/* the save second is the stamp's, the file system's */
		struct stat st;
		CHECK_INT(stat(stamp, &st), 0);
		CHECK_INT(saved_sec(), st.st_mtim.tv_sec);
		sc = statcache_load(cache_file);
		CHECK_INT(statcache_stats(sc).loaded, 1);
		CHECK_INT(statcache_lookup_or_hash(sc, old, hex), 0);
		CHECK_INT(statcache_stats(sc).hits, 1);
		statcache_free(sc);
		unlink(cache_file);
	}
	fs_clock_anchor(NULL);
	clock_skew = 0;
	unlink(stamp);
	unlink(f);
	unlink(old);
	free(f);
	free(old);
	free(stamp);
}

int main(void)
{
	if (!mkdtemp(dir))
		die_errno("mkdtemp");
	cache_file = in_dir("statcache");
	check_hit_and_change();
	unlink(cache_file);
	check_racy();
	unlink(cache_file);
	check_corrupt();
	unlink(cache_file);
	check_many();
	unlink(cache_file);
	check_atomic_save();
	unlink(cache_file);
	check_clean_save();
	unlink(cache_file);
	check_skewed_clock();
	unlink(cache_file);
	if (rmdir(dir))
		die_errno("rmdir %s", dir);
	free(cache_file);
	return check_finish("test_statcache");
}
