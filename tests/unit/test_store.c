/* Unit tests for cache/store.c: open, touch, stats, prune in LRU order,
 * orphans, clean touching only the store's own files. */
#include <sys/time.h>

#include "cache/entry.h"
#include "cache/store.h"
#include "check.h"
#include "fstest.h"

static char *root, *proj;
static struct store st;

static const char *const K[] = {
    "aa000000000000000000000000000001",
    "bb000000000000000000000000000002",
    "cc000000000000000000000000000003",
};

static void save(const char *key, size_t log_len)
{
	char *log = xmalloc(log_len + 1);
	/* Incompressible-ish, so the entry's size is about log_len. */
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < log_len; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		log[i] = (char)('!' + x % 90);
	}
	log[log_len] = '\0';
	const char *outputs[] = {"out.txt"};
	struct entry_save_request req = {.key = key,
					 .task = "p#t",
					 .project_dir = proj,
					 .outputs = outputs,
					 .n_outputs = 1,
					 .log_fd = -1,
					 .log = log,
					 .log_len = log_len};
	CHECK_INT(entry_save(&st, &req, NULL), 0);
	free(log);
}

/* Sets the entry's last use to t seconds since the epoch. */
static void age(const char *key, time_t t)
{
	char *name = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	struct timespec ts[2] = {{t, 0}, {t, 0}};
	CHECK_INT(utimensat(st.dirfd, name, ts, AT_SYMLINK_NOFOLLOW), 0);
	free(name);
}

static bool present(const char *key)
{
	struct entry e;
	struct strbuf why = STRBUF_INIT;
	int s = entry_open(&st, key, &e, &why);
	entry_close(&e);
	strbuf_release(&why);
	return s == ENTRY_HIT;
}

static uint64_t entry_bytes(const char *key)
{
	char *m = store_entry_path(&st, key, STORE_MANIFEST_SUFFIX);
	char *a = store_entry_path(&st, key, STORE_ARCHIVE_SUFFIX);
	uint64_t n = (uint64_t)fs_size(m) + (uint64_t)fs_size(a);
	free(m);
	free(a);
	return n;
}

static void test_keys(void)
{
	CHECK(store_key_valid(K[0]));
	CHECK(store_key_valid("ab"));
	CHECK(!store_key_valid("a"));
	CHECK(!store_key_valid("AB00"));
	CHECK(!store_key_valid("../x"));
	CHECK(!store_key_valid(""));
	char *n = store_entry_name(K[1], STORE_ARCHIVE_SUFFIX);
	CHECK_STR(n, "bb/bb000000000000000000000000000002.tar.zst");
	free(n);
}

static void test_stats_touch_prune(void)
{
	struct store_stats s;
	CHECK_INT(store_stats(&st, &s), 0);
	CHECK_INT(s.entries, 0);
	CHECK_INT(s.bytes, 0);
	CHECK_INT(s.oldest, 0);

	for (size_t i = 0; i < 3; i++)
		save(K[i], 20000);
	age(K[0], 1000);
	age(K[1], 2000);
	age(K[2], 3000);
	CHECK_INT(store_stats(&st, &s), 0);
	CHECK_INT(s.entries, 3);
	CHECK_INT(s.bytes, entry_bytes(K[0]) + entry_bytes(K[1]) + entry_bytes(K[2]));
	CHECK(s.bytes > 40000);
	CHECK_INT(s.oldest, 1000);
	CHECK_INT(s.newest, 3000);

	/* A hit on the oldest makes it the newest. */
	time_t now = time(NULL);
	CHECK_INT(store_touch(&st, K[0]), 0);
	CHECK_INT(store_stats(&st, &s), 0);
	CHECK_INT(s.oldest, 2000);
	CHECK(s.newest >= now);
	errno = 0;
	CHECK_INT(store_touch(&st, "dd000000000000000000000000000004"), -1);
	CHECK_INT(errno, ENOENT);

	/* Room for all: nothing goes. */
	CHECK_INT(store_prune(&st, s.bytes), 0);
	CHECK(present(K[0]) && present(K[1]) && present(K[2]));

	/* One byte too many: the least recently used (K[1]) goes, alone. */
	uint64_t b1 = entry_bytes(K[1]);
	CHECK_INT(store_prune(&st, s.bytes - 1), 1);
	CHECK(!present(K[1]));
	CHECK(present(K[0]) && present(K[2]));
	char *a1 = store_entry_path(&st, K[1], STORE_ARCHIVE_SUFFIX);
	CHECK_INT(fs_size(a1), -1);
	free(a1);

	/* Room for one: K[2] (used at 3000) goes before K[0] (touched now). */
	CHECK_INT(store_prune(&st, entry_bytes(K[0])), 1);
	CHECK(present(K[0]));
	CHECK(!present(K[2]));
	CHECK_INT(store_stats(&st, &s), 0);
	CHECK_INT(s.entries, 1);
	CHECK(s.bytes < b1 + entry_bytes(K[0]));

	CHECK_INT(store_prune(&st, 0), 1);
	CHECK_INT(store_stats(&st, &s), 0);
	CHECK_INT(s.entries, 0);
	CHECK_INT(s.bytes, 0);
}

static void test_orphans(void)
{
	save(K[0], 100);
	save(K[1], 100);
	/* A crash between the renames: an archive with no manifest. */
	char *m1 = store_entry_path(&st, K[1], STORE_MANIFEST_SUFFIX);
	char *a1 = store_entry_path(&st, K[1], STORE_ARCHIVE_SUFFIX);
	CHECK_INT(unlink(m1), 0);
	CHECK(!present(K[1]));
	/* A dead writer's temporary, and a live one's. */
	char *shard = xasprintf("%s/aa", st.path);
	fs_write(shard, ".tmp-dead-123456", "partial", 0644);
	fs_write(shard, ".tmp-live-123456", "partial", 0644);
	char *dead = xasprintf("%s/.tmp-dead-123456", shard);
	struct timeval old[2] = {{1000, 0}, {1000, 0}};
	CHECK_INT(utimes(dead, old), 0);

	CHECK_INT(store_prune(&st, UINT64_MAX), 0);
	CHECK_INT(fs_size(a1), -1);
	CHECK_INT(fs_size(dead), -1);
	CHECK_INT(fs_type(shard, ".tmp-live-123456"), S_IFREG);
	CHECK(present(K[0]));
	free(m1);
	free(a1);
	free(dead);
	free(shard);
}

static void test_clean(void)
{
	save(K[1], 100);
	save(K[2], 100);
	/* Not the store's: a note in a shard, a file at the top, a shard-named
	 * link to a directory outside holding an entry-named file. */
	char *shard = xasprintf("%s/aa", st.path);
	fs_write(shard, "notes.txt", "mine", 0644);
	fs_write(st.path, "README", "mine", 0644);
	fs_mkdir(root, "outside", 0755);
	char *outside = xasprintf("%s/outside", root);
	fs_write(outside, "dd000000000000000000000000000004.json", "{}", 0644);
	fs_symlink(st.path, "dd", outside);

	CHECK_INT(store_clean(&st), 0);
	struct store_stats s;
	CHECK_INT(store_stats(&st, &s), 0);
	CHECK_INT(s.entries, 0);
	CHECK_INT(s.bytes, 0);
	CHECK(!present(K[0]) && !present(K[1]) && !present(K[2]));
	CHECK_INT(fs_type(shard, "notes.txt"), S_IFREG);
	CHECK_INT(fs_type(st.path, "README"), S_IFREG);
	CHECK_INT(fs_type(st.path, "bb"), 0);
	CHECK_INT(fs_type(st.path, "cc"), 0);
	CHECK_INT(fs_type(outside, "dd000000000000000000000000000004.json"), S_IFREG);
	CHECK_INT(fs_type(st.path, "dd"), S_IFLNK);
	/* The store still works after a clean. */
	save(K[0], 100);
	CHECK(present(K[0]));
	free(shard);
	free(outside);
}

int main(void)
{
	root = fs_tmpdir();
	proj = xasprintf("%s/proj", root);
	fs_mkdir(root, "proj", 0755);
	fs_write(proj, "out.txt", "output", 0644);
	char *dir = xasprintf("%s/a/b/cache", root);
	CHECK_INT(store_open(&st, dir), 0);
	CHECK_INT(fs_type(root, "a/b/cache"), S_IFDIR);
	/* Opening again is fine; a file where the store should be is not. */
	struct store again;
	CHECK_INT(store_open(&again, dir), 0);
	store_close(&again);
	fs_write(root, "file", "x", 0644);
	char *file = xasprintf("%s/file", root);
	CHECK_INT(store_open(&again, file), -1);
	free(file);

	test_keys();
	test_stats_touch_prune();
	test_orphans();
	test_clean();
	store_close(&st);
	fs_rmtree(root);
	free(dir);
	free(proj);
	free(root);
	return check_finish("test_store");
}
