/* Unit tests for cache/inplace.c (issue 58 item 6: the fully cached run's
 * fast path was tested only through shell runs): a record answers a hit
 * only while every output it lists is on disk exactly as recorded, in the
 * tree it was made in, and not modified in or after the second it was
 * recorded; it survives a save and a load, and a damaged record file reads
 * as empty. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cache/inplace.h"
#include "check.h"
#include "fixture.h"
#include "util/die.h"
#include "util/fsclock.h"
#include "util/vec.h"

static const char *root;

/* Sets path's mtime (and so, by the write, its ctime's second) back by
 * secs: an output made long before its record. */
static void age(const char *rel, int secs)
{
	char *p = xasprintf("%s/%s", root, rel);
	struct stat st;
	CHECK(lstat(p, &st) == 0);
	struct timeval tv[2] = {{st.st_atime - secs, 0}, {st.st_mtime - secs, 0}};
	CHECK(utimes(p, tv) == 0);
	free(p);
}

/* A record made now of dist/a.js and dist/b.js, whose files (and their
 * ctimes: a file's ctime cannot be set back) are older than the record's
 * second: the record is made a second after them. */
static struct inplace *record(const char *file)
{
	struct inplace *ip = inplace_load(file);
	char *outs[] = {"dist", "dist/a.js", "dist/b.js"};
	inplace_put(ip, "app#build", "0123456789abcdef0123456789abcdef", root, outs, 3, "built\n",
		    6, "", NULL);
	return ip;
}

static void make_outputs(void)
{
	root = fixture_dir();
	fixture_write(root, "dist/a.js", "a\n");
	fixture_write(root, "dist/b.js", "bb\n");
	age("dist/a.js", 10);
	age("dist/b.js", 10);
	/* the ctimes above are this second's: wait until the clock the
	 * record takes (fs_clock_sec) is past every output's ctime second, so
	 * the record's second is later than each (a plain sleep(1) was not
	 * always enough under ASan and load: a check failed once in CI) */
	const char *outs[] = {"dist/a.js", "dist/b.js"};
	for (int i = 0; i < 2; i++) {
		char *p = xasprintf("%s/%s", root, outs[i]);
		struct stat st;
		CHECK(lstat(p, &st) == 0);
		for (int tries = 0; fs_clock_sec() <= (int64_t)st.st_ctim.tv_sec && tries < 60;
		     tries++)
			usleep(50000);
		free(p);
	}
}

static void test_check(void)
{
	make_outputs();
	char *file = xasprintf("%s/inplace", root);
	struct inplace *ip = record(file);
	const struct inplace_record *rec = inplace_get(ip, "app#build");
	CHECK(rec != NULL);
	if (!rec)
		return;
	CHECK_STR(rec->key, "0123456789abcdef0123456789abcdef");
	CHECK(rec->has_log && rec->log_len == 6 && !memcmp(rec->log, "built\n", 6));
	CHECK(inplace_check(rec, root, NULL));
	CHECK(!inplace_check(rec, "/elsewhere", NULL)); /* another tree */
	CHECK(inplace_get(ip, "lib#build") == NULL);

	/* saved and loaded: the same answer */
	CHECK(inplace_save(ip) == 0);
	inplace_free(ip);
	ip = inplace_load(file);
	rec = inplace_get(ip, "app#build");
	CHECK(rec && inplace_check(rec, root, NULL));

	/* one output changed (same size, new bytes: its mtime moves): the
	 * check fails, and with trusted the other, unchanged and old, is
	 * listed (the slow path hashes only the rest) */
	fixture_write(root, "dist/b.js", "BB\n");
	struct strvec trusted = STRVEC_INIT;
	CHECK(rec && !inplace_check(rec, root, &trusted));
	CHECK_INT(trusted.n, 1);
	if (trusted.n)
		CHECK_STR(trusted.v[0], "dist/a.js");
	strvec_clear(&trusted);

	/* aged back to before the record, its ctime still says it changed */
	age("dist/b.js", 60);
	CHECK(rec && !inplace_check(rec, root, NULL));

	/* an output gone */
	inplace_free(ip);
	ip = record(file);
	rec = inplace_get(ip, "app#build");
	char *b = xasprintf("%s/dist/b.js", root);
	unlink(b);
	CHECK(rec && !inplace_check(rec, root, NULL));
	free(b);

	/* dropped: no record */
	inplace_drop(ip, "app#build");
	CHECK(inplace_get(ip, "app#build") == NULL);
	inplace_free(ip);
	free(file);
	fixture_remove(root);
}

/* Outputs written in the very second of the record are not trusted: the
 * file clock's second could hide a write just after the lstat. The record
 * counts from the first stat it holds (a save's), taken here before the
 * output is written: always the same second or an earlier one. */
static void test_racy(void)
{
	root = fixture_dir();
	char *file = xasprintf("%s/inplace", root);
	struct inplace_seen seen = {0};
	inplace_seen_begin(&seen);
	fixture_write(root, "dist/a.js", "a\n");
	char *a = xasprintf("%s/dist/a.js", root);
	struct stat st;
	CHECK(lstat(a, &st) == 0);
	inplace_seen_add(&seen, "dist/a.js", &st);
	struct inplace *ip = inplace_load(file);
	char *outs[] = {"dist/a.js"};
	inplace_put(ip, "app#build", "0123456789abcdef0123456789abcdef", root, outs, 1, "", 0, "",
		    &seen);
	const struct inplace_record *rec = inplace_get(ip, "app#build");
	struct strvec trusted = STRVEC_INIT;
	CHECK(rec && !inplace_check(rec, root, &trusted));
	CHECK_INT(trusted.n, 0);
	strvec_clear(&trusted);
	inplace_seen_release(&seen);
	free(a);
	inplace_free(ip);
	free(file);
	fixture_remove(root);
}

/* A record file cut short or changed reads as empty, never believed. */
static void test_damaged(void)
{
	make_outputs();
	char *file = xasprintf("%s/inplace", root);
	struct inplace *ip = record(file);
	CHECK(inplace_save(ip) == 0);
	inplace_free(ip);
	struct stat st;
	CHECK(stat(file, &st) == 0);
	CHECK(truncate(file, st.st_size - 3) == 0);
	ip = inplace_load(file);
	CHECK(inplace_get(ip, "app#build") == NULL);
	inplace_free(ip);
	int fd = open(file, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "vxinplace2\ngarbage", 18) == 18);
	close(fd);
	ip = inplace_load(file);
	CHECK(inplace_get(ip, "app#build") == NULL);
	inplace_free(ip);
	free(file);
	fixture_remove(root);
}

int main(void)
{
	test_check();
	test_racy();
	test_damaged();
	return check_finish("inplace");
}
