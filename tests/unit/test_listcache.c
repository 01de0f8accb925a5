/* Unit tests for util/listcache.c: a listing is answered only while its
 * directory's stat data is the same and it was not taken in the tick the
 * directory last changed (the racy rule); saved only when changed; a
 * corrupt file is a warning and an empty cache. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fstest.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/listcache.h"

static char *root;

/* dir's stat data with its times set back ago seconds (so a listing is not racy) */
static void age_dir(const char *dir, time_t ago, struct stat *st)
{
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= ago;
	t[1] = t[0];
	if (utimensat(AT_FDCWD, dir, t, 0) < 0 || lstat(dir, st) < 0)
		die_errno("age %s", dir);
}

static const struct listcache_entry two[] = {{"b.txt", DT_REG}, {"a", DT_DIR}};

static void test_get_put(void)
{
	char *file = xasprintf("%s/listings", root), *dir = xasprintf("%s/d", root);
	fs_mkdir(root, "d", 0755);
	struct stat st;
	age_dir(dir, 100, &st);
	struct listcache *lc = listcache_load(file);
	size_t n = 9;
	CHECK(listcache_get(lc, dir, &st, &n) == NULL);
	listcache_put(lc, dir, &st, fs_clock_sec(), two, 2);
	const struct listcache_entry *e = listcache_get(lc, dir, &st, &n);
	CHECK(e != NULL);
	CHECK_INT(n, 2);
	if (e) {
		CHECK_STR(e[0].name, "a"); /* sorted */
		CHECK_INT(e[0].type, DT_DIR);
		CHECK_STR(e[1].name, "b.txt");
	}
	/* another time, inode or device: not this listing */
	struct stat other = st;
	other.st_mtim.tv_nsec ^= 1;
	CHECK(listcache_get(lc, dir, &other, &n) == NULL);
	other = st;
	other.st_ctim.tv_sec++;
	CHECK(listcache_get(lc, dir, &other, &n) == NULL);
	other = st;
	other.st_ino++;
	CHECK(listcache_get(lc, dir, &other, &n) == NULL);
	/* saved, and loaded again */
	CHECK_INT(listcache_save(lc), 0);
	listcache_free(lc);
	lc = listcache_load(file);
	e = listcache_get(lc, dir, &st, &n);
	CHECK(e != NULL && n == 2);
	/* nothing changed: not written again (the file keeps its inode and ctime) */
	struct stat f1, f2;
	CHECK_INT(stat(file, &f1), 0);
	CHECK_INT(listcache_save(lc), 0);
	CHECK_INT(stat(file, &f2), 0);
	CHECK(f1.st_ino == f2.st_ino && f1.st_ctim.tv_nsec == f2.st_ctim.tv_nsec);
	listcache_free(lc);
	free(file);
	free(dir);
}

/* The racy rule: a listing taken in the second its directory last changed
 * (or earlier) answers nobody, not this run and not the next: an entry
 * added in that same clock tick would leave the times as they were. */
static void test_racy(void)
{
	char *file = xasprintf("%s/racy", root), *dir = xasprintf("%s/r", root);
	fs_mkdir(root, "r", 0755);
	struct stat st;
	if (lstat(dir, &st) < 0)
		die_errno("lstat");
	struct listcache *lc = listcache_load(file);
	int64_t t0 = st.st_mtim.tv_sec; /* listed in the second it changed */
	listcache_put(lc, dir, &st, t0, two, 2);
	size_t n;
	CHECK(listcache_get(lc, dir, &st, &n) == NULL);
	listcache_put(lc, dir, &st, t0 + 1, two, 1); /* a second later: trusted */
	CHECK(listcache_get(lc, dir, &st, &n) != NULL && n == 1);
	listcache_put(lc, dir, &st, t0, two, 2); /* racy again: replaces it */
	CHECK_INT(listcache_save(lc), 0);
	listcache_free(lc);
	lc = listcache_load(file); /* a racy listing is not saved */
	CHECK(listcache_get(lc, dir, &st, &n) == NULL);
	listcache_free(lc);
	free(file);
	free(dir);
}

static void test_corrupt(void)
{
	char *file = xasprintf("%s/bad", root);
	const char *bodies[] = {"", "VXLIST 1\n",
				"VXLIST 1\n1 2 3 4 1 2\n/x\n8 1 a\nend 0000000000000000\n",
				"garbage\nend 0123456789abcdef\n"};
	for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
		fs_write(root, "bad", bodies[i], 0644);
		struct listcache *lc = listcache_load(file);
		size_t hits, puts;
		listcache_counts(lc, &hits, &puts);
		CHECK_INT(hits + puts, 0);
		struct stat st = {0};
		size_t n;
		CHECK(listcache_get(lc, "/x", &st, &n) == NULL);
		listcache_free(lc);
	}
	free(file);
}

/* An empty directory's listing is kept like any other: a kept listing of
 * no entries once read as "none kept", so each run read the directory
 * again and wrote the whole file anew. listcache_list answers from it
 * without opening the directory, and reads one that changed. */
static void test_empty_and_list(void)
{
	char *file = xasprintf("%s/listings-empty", root), *dir = xasprintf("%s/e", root);
	fs_mkdir(root, "e", 0755);
	struct stat st;
	age_dir(dir, 100, &st);
	struct listcache *lc = listcache_load(file);
	listcache_put(lc, dir, &st, fs_clock_sec(), NULL, 0);
	size_t n = 9;
	CHECK(listcache_get(lc, dir, &st, &n) != NULL);
	CHECK_INT(n, 0);
	CHECK_INT(listcache_save(lc), 0);
	listcache_free(lc);
	lc = listcache_load(file);
	struct listcache_scratch scratch = {0};
	size_t hits, puts;
	CHECK(listcache_list(lc, AT_FDCWD, dir, dir, false, NULL, &scratch, &n) != NULL);
	CHECK_INT(n, 0);
	listcache_counts(lc, &hits, &puts);
	CHECK_INT(hits, 1);
	CHECK_INT(puts, 0);
	/* an entry added (times moved on and set back): read, and kept */
	fs_write(dir, "new.txt", "x", 0644);
	age_dir(dir, 50, &st);
	const struct listcache_entry *e =
	    listcache_list(lc, AT_FDCWD, dir, dir, false, NULL, &scratch, &n);
	CHECK(e != NULL && n == 1);
	if (e && n == 1)
		CHECK_STR(e[0].name, "new.txt");
	listcache_counts(lc, &hits, &puts);
	CHECK_INT(puts, 1);
	/* a file is no directory; a link to one is not followed unless asked */
	char *f = xasprintf("%s/new.txt", dir), *l = xasprintf("%s/link", root);
	CHECK(listcache_list(lc, AT_FDCWD, f, f, false, NULL, &scratch, &n) == NULL);
	CHECK(symlink(dir, l) == 0);
	CHECK(listcache_list(lc, AT_FDCWD, l, l, false, NULL, &scratch, &n) == NULL);
	CHECK(listcache_list(NULL, AT_FDCWD, l, l, true, NULL, &scratch, &n) != NULL && n == 1);
	listcache_scratch_release(&scratch);
	listcache_free(lc);
	free(f);
	free(l);
	free(file);
	free(dir);
}

int main(void)
{
	root = fs_tmpdir();
	test_get_put();
	test_racy();
	test_corrupt();
	test_empty_and_list();
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
	free(cmd);
	free(root);
	return check_finish("listcache");
}
