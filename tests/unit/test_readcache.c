/* Unit tests for util/readcache.c: kept bytes are answered only while the
 * file's stat data is the same and they were not read in the tick it last
 * changed (the racy rule); a name found missing stays missing only while
 * its directory is unchanged (a file added, the directory replaced by a
 * link); saved only when the run's reads differ from what was loaded; a
 * corrupt file is a warning and an empty cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fstest.h"
#include "util/io.h"
#include "util/keptfile.h"
#include "util/readcache.h"

static char *root;

/* Sets path's times back ago seconds, so what is read of it is not racy. */
static void age(const char *path, time_t ago)
{
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= ago;
	t[1] = t[0];
	if (utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW) < 0)
		die_errno("age %s", path);
}

#define counts(rc, hits, puts) counts_at(rc, hits, puts, __LINE__)
static void counts_at(struct readcache *rc, size_t want_hits, size_t want_puts, int line)
{
	size_t h, p;
	readcache_counts(rc, &h, &p);
	CHECK_INT(h, want_hits);
	CHECK_INT(p, want_puts);
	if (h != want_hits || p != want_puts)
		fprintf(stderr, "  (the counts at line %d)\n", line);
}

/* Reads path through rc and checks the bytes. */
static void read_is(struct readcache *rc, const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, ">"); /* appended to, not replaced */
	CHECK_INT(readcache_read(rc, path, &sb), 0);
	CHECK_STR(sb.buf + 1, want);
	strbuf_release(&sb);
}

static struct stat stat_of(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		die_errno("stat %s", path);
	return st;
}

static void test_bytes(void)
{
	char *file = xasprintf("%s/reads", root);
	fs_mkdir(root, "p", 0755);
	fs_write(root, "p/vx.yaml", "tasks: {}\n", 0644);
	char *yaml = xasprintf("%s/p/vx.yaml", root);
	age(yaml, 100);

	struct readcache *rc = readcache_load(file);
	read_is(rc, yaml, "tasks: {}\n");
	counts(rc, 0, 1);
	read_is(rc, yaml, "tasks: {}\n");
	counts(rc, 1, 1);
	CHECK_INT(readcache_save(rc), 0);
	readcache_free(rc);

	/* a new run: answered from the file; nothing changed, nothing written */
	struct stat before = stat_of(file);
	rc = readcache_load(file);
	read_is(rc, yaml, "tasks: {}\n");
	counts(rc, 1, 0);
	CHECK_INT(readcache_save(rc), 0);
	CHECK(stat_of(file).st_ino == before.st_ino);
	readcache_free(rc);

	/* the same size, other bytes, the time set back to another old one:
	 * mtime differs, so it is read again */
	fs_write(root, "p/vx.yaml", "tasks: []\n", 0644);
	age(yaml, 200);
	rc = readcache_load(file);
	read_is(rc, yaml, "tasks: []\n");
	counts(rc, 0, 1);
	readcache_save(rc);
	readcache_free(rc);

	/* written now: read, but not kept (a change in this second could keep
	 * every stat field as it is) */
	fs_write(root, "p/vx.yaml", "tasks: {a: {}}\n", 0644);
	rc = readcache_load(file);
	read_is(rc, yaml, "tasks: {a: {}}\n");
	counts(rc, 0, 0);
	read_is(rc, yaml, "tasks: {a: {}}\n");
	counts(rc, 0, 0);
	readcache_save(rc);
	readcache_free(rc);
	rc = readcache_load(file);
	read_is(rc, yaml, "tasks: {a: {}}\n");
	counts(rc, 0, 0);
	readcache_free(rc);

	/* replaced by another file with the same bytes and times (another
	 * inode): read again */
	age(yaml, 300);
	rc = readcache_load(file);
	read_is(rc, yaml, "tasks: {a: {}}\n");
	counts(rc, 0, 1);
	readcache_save(rc);
	readcache_free(rc);
	fs_write(root, "p/new", "tasks: {a: {}}\n", 0644);
	char *nw = xasprintf("%s/p/new", root);
	struct timespec t[2] = {stat_of(yaml).st_mtim, stat_of(yaml).st_mtim};
	if (utimensat(AT_FDCWD, nw, t, 0) < 0 || rename(nw, yaml) < 0)
		die_errno("replace");
	rc = readcache_load(file);
	read_is(rc, yaml, "tasks: {a: {}}\n");
	counts(rc, 0, 1);
	readcache_free(rc);

	/* a kept file gone: ENOENT, not the kept bytes */
	rc = readcache_load(file);
	unlink(yaml);
	struct strbuf sb = STRBUF_INIT;
	CHECK_INT(readcache_read(rc, yaml, &sb), -1);
	CHECK_INT(errno, ENOENT);
	strbuf_release(&sb);
	readcache_free(rc);

	/* NULL: a plain read */
	fs_write(root, "p/vx.yaml", "x\n", 0644);
	read_is(NULL, yaml, "x\n");
	free(nw);
	free(yaml);
	free(file);
}

static void test_missing(void)
{
	char *file = xasprintf("%s/reads2", root);
	fs_mkdir(root, "q", 0755);
	char *dir = xasprintf("%s/q", root);
	char *tj = xasprintf("%s/q/turbo.json", root), *pkg = xasprintf("%s/q/package.json", root);
	age(dir, 100);

	struct readcache *rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 0);
	struct strbuf sb = STRBUF_INIT;
	CHECK_INT(readcache_read(rc, pkg, &sb), -1);
	CHECK_INT(errno, ENOENT);
	counts(rc, 0, 2);
	CHECK_INT(readcache_exists(rc, tj), 0);
	counts(rc, 1, 2);
	readcache_save(rc);
	readcache_free(rc);

	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 0);
	CHECK_INT(readcache_read(rc, pkg, &sb), -1);
	CHECK_INT(errno, ENOENT);
	counts(rc, 2, 0);
	struct stat dst;
	CHECK(readcache_dir_stat(rc, dir, &dst) && S_ISDIR(dst.st_mode));
	readcache_forget_stats(rc);
	CHECK(!readcache_dir_stat(rc, dir, &dst));
	/* a name made after the first look, in the same process: seen once
	 * the stats are forgotten */
	fs_write(root, "q/turbo.json", "{}", 0644);
	CHECK_INT(readcache_exists(rc, tj), 1);
	unlink(tj);
	age(dir, 100);
	readcache_free(rc);

	/* forgetting the stats keeps what is known for the save */
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 0);
	readcache_forget_stats(rc);
	CHECK_INT(readcache_exists(rc, tj), 0); /* looked at again: still kept */
	counts(rc, 1, 1); /* (the directory changed just above: found anew, then kept) */
	readcache_save(rc);
	readcache_free(rc);
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 0);
	counts(rc, 1, 0);
	readcache_free(rc);

	/* a file added: the directory's times change */
	fs_write(root, "q/turbo.json", "{}", 0644);
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 1);
	CHECK_INT(readcache_read(rc, pkg, &sb), -1); /* still missing, looked at again */
	counts(rc, 0, 0); /* and not kept: the directory changed this second */
	readcache_free(rc);

	/* added and its directory's times set back to what they were: ctime
	 * still moved */
	unlink(tj);
	age(dir, 100);
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 0);
	readcache_save(rc);
	readcache_free(rc);
	struct stat was = stat_of(dir);
	fs_write(root, "q/turbo.json", "{}", 0644);
	struct timespec t[2] = {was.st_mtim, was.st_mtim};
	if (utimensat(AT_FDCWD, dir, t, 0) < 0)
		die_errno("utimensat");
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 1);
	readcache_free(rc);

	/* the directory replaced by a link to one that has the file */
	unlink(tj);
	age(dir, 100);
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 0);
	readcache_save(rc);
	readcache_free(rc);
	fs_mkdir(root, "other", 0755);
	fs_write(root, "other/turbo.json", "{}", 0644);
	char *other = xasprintf("%s/other", root);
	age(other, 100);
	fs_rmtree(dir);
	fs_symlink(root, "q", other);
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, tj), 1);
	readcache_free(rc);

	/* a directory changed in this second: its missing names are not kept */
	fs_mkdir(root, "r", 0755);
	char *rj = xasprintf("%s/r/turbo.json", root);
	rc = readcache_load(file);
	CHECK_INT(readcache_exists(rc, rj), 0);
	counts(rc, 0, 0);
	readcache_free(rc);

	strbuf_release(&sb);
	free(rj);
	free(other);
	free(tj);
	free(pkg);
	free(dir);
	free(file);
}

/* A kept file not read by a run is dropped at its save. */
static void test_unused(void)
{
	char *file = xasprintf("%s/reads3", root);
	fs_mkdir(root, "u", 0755);
	fs_write(root, "u/a", "a", 0644);
	fs_write(root, "u/b", "b", 0644);
	char *a = xasprintf("%s/u/a", root), *b = xasprintf("%s/u/b", root);
	age(a, 100);
	age(b, 100);
	struct readcache *rc = readcache_load(file);
	read_is(rc, a, "a");
	read_is(rc, b, "b");
	readcache_save(rc);
	readcache_free(rc);
	rc = readcache_load(file);
	read_is(rc, a, "a");
	struct stat before = stat_of(file);
	readcache_save(rc);
	CHECK(stat_of(file).st_ino != before.st_ino);
	readcache_free(rc);
	rc = readcache_load(file);
	read_is(rc, b, "b");
	counts(rc, 0, 1);
	readcache_free(rc);
	free(a);
	free(b);
	free(file);
}

static void test_corrupt(void)
{
	char *file = xasprintf("%s/bad", root);
	const char *bodies[] = {
	    "",
	    "VXREADS 2\n",
	    "VXREADS 2\nF 1 2 3 4 5 2 3\n/x\nabc\nend 0000000000000000\n",
	    "garbage\nend 0123456789abcdef\n",
	};
	for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
		fs_write(root, "bad", bodies[i], 0644);
		struct readcache *rc = readcache_load(file);
		counts(rc, 0, 0);
		readcache_free(rc);
	}
	/* good frames around bad bodies: each refused whole, the file read */
	const char *sealed[] = {
	    "VXREADS 2\nF 1 2 9 4 5 2 9\n/x\nabc\n", /* cut short */
	    "VXREADS 2\nF 1 2 3 4 5 2 4\n/x\nabc\n", /* F with a length not its size */
	    "VXREADS 2\nQ 1 2 3 4 5 2 3\n/x\nabc\n", /* no such record */
	    "VXREADS 2\nB 1 2 3 4 5 2 3\nx\nabc\n",  /* a relative path */
	    "VXREADS 1\n1 2 3 4 5 2\n/x\nabc\n",     /* another version: silently */
	};
	char *x = xasprintf("%s/x", root);
	fs_write(root, "x", "abc", 0644);
	for (size_t i = 0; i < sizeof sealed / sizeof *sealed; i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, sealed[i]);
		keptfile_seal(&sb);
		if (write_file_atomic(file, sb.buf, sb.len) < 0)
			die_errno("write");
		struct readcache *rc = readcache_load(file);
		read_is(rc, x, "abc");
		counts(rc, 0, 0);
		readcache_free(rc);
		strbuf_release(&sb);
	}
	free(x);
	free(file);
}

/* What a caller made of a file's bytes is kept in their place, trusted as
 * they were, and given back only while the file is unchanged. */
static void test_blob(void)
{
	char *file = xasprintf("%s/reads4", root);
	fs_mkdir(root, "b", 0755);
	fs_write(root, "b/vx.yaml", "tasks: {}\n", 0644);
	char *yaml = xasprintf("%s/b/vx.yaml", root);
	age(yaml, 100);
	struct strbuf sb = STRBUF_INIT;
	struct readcache *rc = readcache_load(file);
	CHECK_INT(readcache_blob(rc, yaml, &sb), 0); /* nothing kept yet */
	read_is(rc, yaml, "tasks: {}\n");
	readcache_keep_blob(rc, yaml, "PARSED", 6);
	readcache_save(rc);
	readcache_free(rc);

	rc = readcache_load(file);
	CHECK_INT(readcache_blob(rc, yaml, &sb), 1);
	CHECK_STR(sb.buf, "PARSED");
	struct stat st;
	CHECK(readcache_lstat(rc, yaml, &st) && S_ISREG(st.st_mode));
	/* lent to one computation of the keys, then forgotten */
	readcache_forget_stats(rc);
	CHECK(!readcache_lstat(rc, yaml, &st));
	/* the bytes are not kept beside it: a plain read reads the file */
	read_is(rc, yaml, "tasks: {}\n");
	readcache_free(rc);

	/* changed: no blob; the read keeps bytes again */
	fs_write(root, "b/vx.yaml", "tasks: []\n", 0644);
	age(yaml, 200);
	strbuf_reset(&sb);
	rc = readcache_load(file);
	CHECK_INT(readcache_blob(rc, yaml, &sb), 0);
	CHECK_INT(sb.len, 0);
	read_is(rc, yaml, "tasks: []\n");
	readcache_free(rc);

	/* a read not kept (this second) keeps no blob either */
	fs_write(root, "b/vx.yaml", "tasks: {x: {}}\n", 0644);
	rc = readcache_load(file);
	read_is(rc, yaml, "tasks: {x: {}}\n");
	readcache_keep_blob(rc, yaml, "NEW", 3);
	readcache_save(rc);
	readcache_free(rc);
	rc = readcache_load(file);
	CHECK_INT(readcache_blob(rc, yaml, &sb), 0);
	readcache_free(rc);
	strbuf_release(&sb);
	free(yaml);
	free(file);
}

int main(void)
{
	root = fs_tmpdir();
	test_bytes();
	test_missing();
	test_unused();
	test_corrupt();
	test_blob();
	fs_rmtree(root);
	free(root);
	return check_finish("readcache");
}
