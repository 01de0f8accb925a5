/* store.c - the cache directory: layout, lock, last use, stats, clean, prune. */
#include "cache/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/die.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/vec.h"

#define LOCK_NAME ".lock"
/* A temporary file this old belongs to a writer that died: a save takes
 * seconds, not an hour. */
#define TMP_STALE_SECONDS 3600

int store_open(struct store *st, const char *dir)
{
	st->path = path_absolute(dir);
	st->dirfd = -1;
	if (fs_mkdirs(st->path, 0755) < 0) {
		error_errno("cannot make the cache directory %s", st->path);
		goto fail;
	}
	const char *rel; /* from the anchor, as every file below it is reached */
	int at = fs_at(st->path, &rel);
	st->dirfd = openat(at, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->dirfd < 0) {
		error_errno("cannot open %s", st->path);
		goto fail;
	}
	st->read_only = 0;
	if (faccessat(st->dirfd, ".", W_OK, AT_EACCESS) < 0)
		st->read_only = errno;
	return 0;
fail:
	free(st->path);
	st->path = NULL;
	return -1;
}

void store_close(struct store *st)
{
	if (st->dirfd >= 0)
		close(st->dirfd);
	free(st->path);
	st->path = NULL;
	st->dirfd = -1;
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool store_key_valid(const char *key)
{
	size_t n = strlen(key);
	return n >= 2 && n <= 64 && is_hex(key, n);
}

void store_shard_name(const char *key, char shard[3])
{
	shard[0] = key[0];
	shard[1] = key[0] ? key[1] : '\0';
	shard[2] = '\0';
}

char *store_entry_name(const char *key, const char *suffix)
{
	char shard[3];
	store_shard_name(key, shard);
	return xasprintf("%s/%s%s", shard, key, suffix);
}

char *store_entry_path(const struct store *st, const char *key, const char *suffix)
{
	char *name = store_entry_name(key, suffix);
	char *path = xasprintf("%s/%s", st->path, name);
	free(name);
	return path;
}

int store_tmp_create(const struct store *st, const char *key, char **name)
{
	static const char letters[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char shard[3];
	store_shard_name(key, shard);
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char r[6];
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
			unsigned long long x = (unsigned long long)getpid() * 2654435761ULL ^
					       (unsigned long long)time(NULL) ^
					       (unsigned long long)attempt << 40;
			for (size_t i = 0; i < sizeof r; i++, x >>= 8)
				r[i] = (unsigned char)x;
		}
		char suffix[7];
		for (size_t i = 0; i < 6; i++)
			suffix[i] = letters[r[i] % (sizeof letters - 1)];
		suffix[6] = 0;
		*name = xasprintf("%s/%s%s-%s", shard, STORE_TMP_PREFIX, key, suffix);
		int fd = openat(st->dirfd, *name,
				O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		int e = errno;
		if (e != EEXIST) {
			error("cannot create %s/%s: %s", st->path, *name, strerror(e));
			free(*name);
			*name = NULL;
			errno = e;
			return -1;
		}
		free(*name);
	}
	*name = NULL;
	errno = EEXIST;
	return error("cannot create a temporary file in %s/%s", st->path, shard);
}

/* What a damaged store holds where it keeps something else (issue 39: a
 * directory at an entry's name, a file at a shard's, a bad .lock made
 * every later run rebuild and say "not saved", forever). These names are
 * vx's alone, so what is there of the wrong type is debris: removed, and
 * said. */
static const char *type_name(mode_t m)
{
	return S_ISDIR(m)   ? "a directory"
	       : S_ISLNK(m) ? "a symbolic link"
	       : S_ISREG(m) ? "a file"
			    : "a special file";
}

int store_repair(const struct store *st, const char *name, bool dir)
{
	struct stat s;
	if (fstatat(st->dirfd, name, &s, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT || errno == ENOTDIR
			   ? 0
			   : error_errno("cannot stat %s/%s", st->path, name);
	if (dir ? S_ISDIR(s.st_mode) : S_ISREG(s.st_mode))
		return 0;
	if (S_ISDIR(s.st_mode) ? remove_tree_at(st->dirfd, name) < 0
			       : unlinkat(st->dirfd, name, 0) < 0 && errno != ENOENT)
		return error_errno("cannot remove %s/%s", st->path, name);
	warning("removed %s/%s: %s where the cache keeps %s (a damaged cache, repaired)", st->path,
		name, type_name(s.st_mode), dir ? "a directory" : "a file");
	return 0;
}

int store_shard_make(const struct store *st, const char *key)
{
	char shard[3];
	store_shard_name(key, shard);
	if (store_repair(st, shard, true) < 0)
		return -1;
	if (mkdirat(st->dirfd, shard, 0755) < 0 && errno != EEXIST)
		return error_errno("cannot mkdir %s/%s", st->path, shard);
	return 0;
}

int store_lock(const struct store *st, bool exclusive)
{
	int fd;
	if (st->read_only && !exclusive) {
		fd = openat(st->dirfd, LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			return fcntl(st->dirfd, F_DUPFD_CLOEXEC, 0); /* nothing to wait for */
	} else {
		fd = openat(st->dirfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && (errno == EISDIR || errno == ELOOP) &&
		    !store_repair(st, LOCK_NAME, false))
			fd = openat(st->dirfd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
				    0644);
	}
	if (fd < 0)
		return error_errno("cannot open %s/%s", st->path, LOCK_NAME);
	while (flock(fd, exclusive ? LOCK_EX : LOCK_SH) < 0) {
		if (errno == EINTR)
			continue;
		error_errno("cannot lock %s/%s", st->path, LOCK_NAME);
		close(fd);
		return -1;
	}
	return fd;
}

void store_unlock(int fd)
{
	/* Closing the only descriptor of this open file releases the flock. */
	if (fd >= 0)
		close(fd);
}

int store_touch(const struct store *st, const char *key)
{
	char *name = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	int ret = utimensat(st->dirfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	free(name);
	if (ret < 0 && errno == ENOENT) {
		name = store_entry_name(key, STORE_BUNDLE_SUFFIX);
		ret = utimensat(st->dirfd, name, NULL, AT_SYMLINK_NOFOLLOW);
		free(name);
	}
	return ret;
}

int store_remove(const struct store *st, const char *key)
{
	static const char *const suffixes[] = {STORE_MANIFEST_SUFFIX, STORE_ARCHIVE_SUFFIX,
					       STORE_BUNDLE_SUFFIX};
	int lock = store_lock(st, true), rc = lock < 0 ? -1 : 0;
	for (size_t i = 0; !rc && i < sizeof suffixes / sizeof *suffixes; i++) {
		char *name = store_entry_name(key, suffixes[i]);
		if (unlinkat(st->dirfd, name, 0) && errno != ENOENT)
			rc = error_errno("cannot remove %s/%s", st->path, name);
		free(name);
	}
	store_unlock(lock);
	return rc;
}

/* ---- scanning ---- */

enum scan_kind { SCAN_MANIFEST, SCAN_ARCHIVE, SCAN_TMP, SCAN_BUNDLE /* both in one */ };

struct scan_file {
	char *name; /* "<shard>/<file>" relative to the store */
	char *key;  /* NULL for SCAN_TMP */
	enum scan_kind kind;
	struct stat st;
};

typedef VEC(struct scan_file) scan_vec;

static void scan_free(scan_vec *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].name);
		free(v->v[i].key);
	}
	vec_free(v);
}

/* Returns the key when file is "<key><suffix>" of shard, else NULL. */
static char *file_key(const char *shard, const char *file, const char *suffix)
{
	size_t n = strlen(file), s = strlen(suffix);
	if (n <= s || strcmp(file + n - s, suffix))
		return NULL;
	char *key = xstrndup(file, n - s);
	if (!store_key_valid(key) || strncmp(key, shard, 2)) {
		free(key);
		return NULL;
	}
	return key;
}

static int scan_shard(const struct store *st, const char *shard, scan_vec *out)
{
	int fd = openat(st->dirfd, shard, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR
			   ? 0
			   : error_errno("cannot open %s/%s", st->path, shard);
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return error_errno("cannot open %s/%s", st->path, shard);
	}
	struct dirent *de;
	while ((errno = 0, de = readdir(d))) {
		const char *f = de->d_name;
		struct scan_file sf = {0};
		if ((sf.key = file_key(shard, f, STORE_MANIFEST_SUFFIX)))
			sf.kind = SCAN_MANIFEST;
		else if ((sf.key = file_key(shard, f, STORE_ARCHIVE_SUFFIX)))
			sf.kind = SCAN_ARCHIVE;
		else if ((sf.key = file_key(shard, f, STORE_BUNDLE_SUFFIX)))
			sf.kind = SCAN_BUNDLE;
		else if (!strncmp(f, STORE_TMP_PREFIX, strlen(STORE_TMP_PREFIX)))
			sf.kind = SCAN_TMP;
		else
			continue;
		/* Only regular files are the store's: a planted link is left alone. */
		if (fstatat(dirfd(d), f, &sf.st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(sf.st.st_mode)) {
			free(sf.key);
			continue;
		}
		sf.name = xasprintf("%s/%s", shard, f);
		vec_push(out, sf);
	}
	int ret = errno ? error_errno("cannot read %s/%s", st->path, shard) : 0;
	closedir(d);
	return ret;
}

/* Collects the store's own files; shard directories are the 2-hex names. */
static int scan(const struct store *st, scan_vec *out, struct strvec *shards)
{
	int fd = openat(st->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno("cannot open %s", st->path);
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return error_errno("cannot open %s", st->path);
	}
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	while ((errno = 0, de = readdir(d)))
		if (strlen(de->d_name) == 2 && is_hex(de->d_name, 2))
			strvec_push(&names, de->d_name);
	int ret = errno ? error_errno("cannot read %s", st->path) : 0;
	closedir(d);
	strvec_sort_unique(&names);
	for (size_t i = 0; !ret && i < names.n; i++)
		ret = scan_shard(st, names.v[i], out);
	if (shards)
		strvec_extend(shards, &names);
	strvec_clear(&names);
	return ret;
}

struct scan_entry {
	const char *key;
	const struct scan_file *manifest, *archive;
	uint64_t bytes;
};

typedef VEC(struct scan_entry) entry_vec;

static int cmp_file_key(const void *a, const void *b)
{
	const struct scan_file *x = a, *y = b;
	if (!x->key || !y->key)
		return !x->key - !y->key;
	return strcmp(x->key, y->key);
}

/* Groups files by key (files sorted in place); temporaries are skipped. */
static void scan_group(scan_vec *files, entry_vec *out)
{
	if (files->n)
		qsort(files->v, files->n, sizeof *files->v, cmp_file_key);
	for (size_t i = 0; i < files->n; i++) {
		struct scan_file *f = &files->v[i];
		if (!f->key)
			continue;
		if (!out->n || strcmp(out->v[out->n - 1].key, f->key))
			vec_push(out, ((struct scan_entry){.key = f->key}));
		struct scan_entry *e = &out->v[out->n - 1];
		if (f->kind == SCAN_MANIFEST || (f->kind == SCAN_BUNDLE && !e->manifest))
			e->manifest = f;
		if (f->kind == SCAN_ARCHIVE || (f->kind == SCAN_BUNDLE && !e->archive))
			e->archive = f;
		e->bytes += (uint64_t)f->st.st_size;
	}
}

int store_stats(const struct store *st, struct store_stats *out)
{
	memset(out, 0, sizeof *out);
	scan_vec files = {0};
	int ret = scan(st, &files, NULL);
	for (size_t i = 0; !ret && i < files.n; i++) {
		const struct scan_file *f = &files.v[i];
		out->bytes += (uint64_t)f->st.st_size;
		if (f->kind != SCAN_MANIFEST && f->kind != SCAN_BUNDLE)
			continue;
		time_t t = f->st.st_mtime;
		if (!out->entries || t < out->oldest)
			out->oldest = t;
		if (!out->entries || t > out->newest)
			out->newest = t;
		out->entries++;
	}
	scan_free(&files);
	return ret;
}

static int unlink_store_file(const struct store *st, const char *name)
{
	if (unlinkat(st->dirfd, name, 0) < 0 && errno != ENOENT)
		return error_errno("cannot remove %s/%s", st->path, name);
	return 0;
}

/* A temporary file (name relative to the store) whose writer is gone:
 * unlocked and untouched for STORE_TMP_GRACE seconds, or for an hour. */
static bool tmp_dead(const struct store *st, const char *name, const struct stat *s, time_t now)
{
	if (now - s->st_mtime > TMP_STALE_SECONDS)
		return true;
	if (now - s->st_mtime <= STORE_TMP_GRACE)
		return false;
	int fd = openat(st->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool dead = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return dead;
}

int store_sweep_tmp(const struct store *st, const char *key)
{
	char shard[3];
	store_shard_name(key, shard);
	int fd = openat(st->dirfd, shard, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	char *prefix = xasprintf("%s%s-", STORE_TMP_PREFIX, key);
	size_t plen = strlen(prefix);
	time_t now = time(NULL);
	int n = 0;
	unsigned long long bytes = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat s;
		char *name = xasprintf("%s/%s", shard, de->d_name);
		if (!strncmp(de->d_name, prefix, plen) &&
		    !fstatat(st->dirfd, name, &s, AT_SYMLINK_NOFOLLOW) && S_ISREG(s.st_mode) &&
		    tmp_dead(st, name, &s, now) && !unlinkat(st->dirfd, name, 0)) {
			n++;
			bytes += (unsigned long long)s.st_size;
		}
		free(name);
	}
	closedir(d);
	if (n)
		warning(
		    "removed %d temporary file%s (%llu bytes) a killed save of %s left in %s/%s", n,
		    n == 1 ? "" : "s", bytes, key, st->path, shard);
	free(prefix);
	return n;
}

int store_clean(const struct store *st)
{
	int lock = store_lock(st, true);
	if (lock < 0)
		return -1;
	scan_vec files = {0};
	struct strvec shards = STRVEC_INIT;
	int ret = scan(st, &files, &shards);
	/* Manifests first, so a reader never finds a manifest without its archive. */
	for (int pass = 0; !ret && pass < 2; pass++)
		for (size_t i = 0; !ret && i < files.n; i++)
			if ((files.v[i].kind == SCAN_MANIFEST || files.v[i].kind == SCAN_BUNDLE) ==
			    (pass == 0))
				ret = unlink_store_file(st, files.v[i].name);
	for (size_t i = 0; !ret && i < shards.n; i++)
		if (unlinkat(st->dirfd, shards.v[i], AT_REMOVEDIR) < 0 && errno != ENOTEMPTY &&
		    errno != EEXIST && errno != ENOENT && errno != ENOTDIR)
			ret = error_errno("cannot remove %s/%s", st->path, shards.v[i]);
	scan_free(&files);
	strvec_clear(&shards);
	store_unlock(lock);
	return ret;
}

/* Removes an entry's files under the exclusive lock, manifest first. With
 * orphan_only, keeps them if a manifest appeared since the scan (a writer
 * finished in between). */
static int entry_remove(const struct store *st, const char *key, bool orphan_only)
{
	int lock = store_lock(st, true);
	if (lock < 0)
		return -1;
	char *man = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	char *arc = store_entry_name(key, STORE_ARCHIVE_SUFFIX);
	char *bundle = store_entry_name(key, STORE_BUNDLE_SUFFIX);
	int ret = 0;
	if (orphan_only && (!faccessat(st->dirfd, man, F_OK, AT_SYMLINK_NOFOLLOW) ||
			    !faccessat(st->dirfd, bundle, F_OK, AT_SYMLINK_NOFOLLOW)))
		ret = 1;
	else
		ret = unlink_store_file(st, man) || unlink_store_file(st, bundle) ||
			      unlink_store_file(st, arc)
			  ? -1
			  : 0;
	free(man);
	free(arc);
	free(bundle);
	store_unlock(lock);
	return ret;
}

static int cmp_entry_age(const void *a, const void *b)
{
	const struct scan_entry *x = a, *y = b;
	const struct timespec *tx = &x->manifest->st.st_mtim, *ty = &y->manifest->st.st_mtim;
	if (tx->tv_sec != ty->tv_sec)
		return tx->tv_sec < ty->tv_sec ? -1 : 1;
	if (tx->tv_nsec != ty->tv_nsec)
		return tx->tv_nsec < ty->tv_nsec ? -1 : 1;
	return strcmp(x->key, y->key);
}

long store_prune(const struct store *st, uint64_t max_bytes)
{
	scan_vec files = {0};
	entry_vec all = {0}, live = {0};
	long evicted = 0;
	uint64_t total = 0;
	int ret = scan(st, &files, NULL);
	time_t now = time(NULL);
	for (size_t i = 0; !ret && i < files.n; i++) {
		const struct scan_file *f = &files.v[i];
		if (f->kind == SCAN_TMP && tmp_dead(st, f->name, &f->st, now)) {
			ret = unlink_store_file(st, f->name);
			if (!ret)
				printf("cache: removed %s/%s (%lld bytes): a killed save's\n",
				       st->path, f->name, (long long)f->st.st_size);
		} else if (f->kind == SCAN_TMP) {
			total += (uint64_t)f->st.st_size;
		}
	}
	if (!ret)
		scan_group(&files, &all);
	for (size_t i = 0; !ret && i < all.n; i++) {
		struct scan_entry *e = &all.v[i];
		if (e->manifest) {
			vec_push(&live, *e);
			total += e->bytes;
		} else {
			int r = entry_remove(st, e->key, true);
			if (r < 0)
				ret = -1;
			else if (r > 0)
				total += e->bytes;
		}
	}
	if (!ret && live.n)
		qsort(live.v, live.n, sizeof *live.v, cmp_entry_age);
	for (size_t i = 0; !ret && i < live.n && total > max_bytes; i++) {
		if (entry_remove(st, live.v[i].key, false) < 0)
			ret = -1;
		total -= live.v[i].bytes;
		evicted++;
	}
	vec_free(&all);
	vec_free(&live);
	scan_free(&files);
	return ret ? -1 : evicted;
}
