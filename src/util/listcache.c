/* listcache.c - directory listings by their directory's stat data.
 *
 * The file: "VXLIST 1\n", then per listing a line
 * "DEV INO MTIME_NS CTIME_NS COUNT DIRLEN\n" and the dir's bytes and "\n",
 * then per entry "TYPE NAMELEN " and the name's bytes and "\n"; last
 * "end XXH3\n", the hash of every byte before it in hex. Lengths, not
 * delimiters, carry the names: a name may hold any byte but NUL and '/'. */
#include "util/listcache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/keptfile.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/vec.h"

#define MAGIC "VXLIST 1\n"

struct listing {
	char *dir;
	uint64_t dev, ino;
	int64_t mtime_ns, ctime_ns;
	bool racy; /* listed in the tick it last changed: answers nobody */
	VEC(struct listcache_entry) entries;
};

struct listcache {
	char *file;
	VEC(struct listing *) all;
	struct strmap by_dir; /* dir -> index in all (keys borrowed from the listings) */
	bool dirty;
	size_t hits, puts;
};

/* What an empty listing returns: an array of none, never NULL. */
static const struct listcache_entry none;

static void listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->entries.n; i++)
		free(l->entries.v[i].name);
	vec_free(&l->entries);
	free(l->dir);
	free(l);
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct listcache_entry *)a)->name,
		      ((const struct listcache_entry *)b)->name);
}

/* Adds l, or replaces the listing of the same dir (l takes the old one's
 * dir string: the map borrows it as its key). */
static void add(struct listcache *lc, struct listing *l)
{
	size_t at;
	if (strmap_get(&lc->by_dir, l->dir, &at)) {
		struct listing *old = lc->all.v[at];
		free(l->dir);
		l->dir = old->dir;
		old->dir = NULL;
		listing_free(old);
		lc->all.v[at] = l;
		return;
	}
	vec_push(&lc->all, l);
	strmap_put(&lc->by_dir, l->dir, lc->all.n - 1);
}

/* Parses body (the file without its trailer line). Returns NULL, or why not. */
static const char *parse(void *ctx, const char *p, const char *end)
{
	struct listcache *lc = ctx;
	while (p < end) {
		int64_t dev, ino, mt, ct, count, dlen;
		if (!keptfile_num(&p, end, ' ', &dev) || !keptfile_num(&p, end, ' ', &ino) ||
		    !keptfile_num(&p, end, ' ', &mt) || !keptfile_num(&p, end, ' ', &ct) ||
		    !keptfile_num(&p, end, ' ', &count) || !keptfile_num(&p, end, '\n', &dlen) ||
		    dlen <= 0 || count < 0 || dlen > end - p - 1 || p[dlen] != '\n' ||
		    memchr(p, '\0', (size_t)dlen))
			return "a bad listing header";
		struct listing *l = xcalloc(1, sizeof *l);
		l->dir = xstrndup(p, (size_t)dlen);
		p += dlen + 1;
		l->dev = (uint64_t)dev, l->ino = (uint64_t)ino, l->mtime_ns = mt, l->ctime_ns = ct;
		for (int64_t i = 0; i < count; i++) {
			int64_t type, nlen;
			if (!keptfile_num(&p, end, ' ', &type) ||
			    !keptfile_num(&p, end, ' ', &nlen) || type > 255 || type < 0 ||
			    nlen <= 0 || nlen > end - p - 1 || p[nlen] != '\n' ||
			    memchr(p, '\0', (size_t)nlen) || memchr(p, '/', (size_t)nlen)) {
				listing_free(l);
				return "a bad entry";
			}
			struct listcache_entry e = {xstrndup(p, (size_t)nlen), (unsigned char)type};
			vec_push(&l->entries, e);
			p += nlen + 1;
		}
		add(lc, l);
	}
	return NULL;
}

static void clear(struct listcache *lc)
{
	for (size_t i = 0; i < lc->all.n; i++)
		listing_free(lc->all.v[i]);
	vec_free(&lc->all);
	strmap_clear(&lc->by_dir);
}

struct listcache *listcache_load(const char *file)
{
	struct listcache *lc = xcalloc(1, sizeof *lc);
	lc->file = xstrdup(file);
	switch (keptfile_load(file, MAGIC, parse, lc, "listing cache", "reading every directory")) {
	case KEPT_OK:
		break;
	case KEPT_UNREAD:
		lc->dirty = errno != ENOENT;
		break;
	case KEPT_CORRUPT:
		clear(lc);
		/* fallthrough */
	case KEPT_OTHER: /* another version: rebuilt silently */
		lc->dirty = true;
	}
	return lc;
}

const struct listcache_entry *listcache_get(struct listcache *lc, const char *dir,
					    const struct stat *st, size_t *n)
{
	size_t at;
	if (!strmap_get(&lc->by_dir, dir, &at))
		return NULL;
	const struct listing *l = lc->all.v[at];
	if (l->racy || l->dev != (uint64_t)st->st_dev || l->ino != (uint64_t)st->st_ino ||
	    l->mtime_ns != fs_ns(st->st_mtim) || l->ctime_ns != fs_ns(st->st_ctim))
		return NULL;
	lc->hits++;
	*n = l->entries.n;
	return l->entries.v ? l->entries.v : &none;
}

void listcache_put(struct listcache *lc, const char *dir, const struct stat *st, int64_t t0,
		   const struct listcache_entry *e, size_t n)
{
	struct listing *l = xcalloc(1, sizeof *l);
	l->dir = xstrdup(dir);
	l->dev = (uint64_t)st->st_dev;
	l->ino = (uint64_t)st->st_ino;
	l->mtime_ns = fs_ns(st->st_mtim);
	l->ctime_ns = fs_ns(st->st_ctim);
	/* a change in the tick it was listed in keeps its times: git's racy
	 * rule (an entry added, removed or renamed sets mtime and ctime
	 * alike; a ctime alone, a chmod, changes no entry) */
	l->racy = fs_sec_of(l->mtime_ns) >= t0;
	for (size_t i = 0; i < n; i++) {
		struct listcache_entry c = {xstrdup(e[i].name), e[i].type};
		vec_push(&l->entries, c);
	}
	if (l->entries.n)
		qsort(l->entries.v, l->entries.n, sizeof *l->entries.v, entry_cmp);
	add(lc, l);
	lc->dirty = true;
	lc->puts++;
}

static int read_one(const char *name, unsigned char type, void *ctx)
{
	struct listcache_scratch *r = ctx;
	struct listcache_entry e = {xstrdup(name), type};
	vec_push(r, e);
	return 0;
}

static void scratch_empty(struct listcache_scratch *scratch)
{
	for (size_t i = 0; i < scratch->n; i++)
		free(scratch->v[i].name);
	scratch->n = 0;
}

void listcache_scratch_release(struct listcache_scratch *scratch)
{
	scratch_empty(scratch);
	vec_free(scratch);
}

const struct listcache_entry *listcache_list(struct listcache *lc, int atfd, const char *at,
					     const char *dir, bool follow, const struct stat *st,
					     struct listcache_scratch *scratch, size_t *n)
{
	struct stat now;
	int64_t t0 = 0;
	scratch_empty(scratch);
	*n = 0;
	if (lc) {
		if (!st) {
			if (fstatat(atfd, at, &now, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
				return NULL;
			st = &now;
		}
		if (!S_ISDIR(st->st_mode)) {
			errno = ENOTDIR;
			return NULL;
		}
		const struct listcache_entry *e = listcache_get(lc, dir, st, n);
		if (e)
			return e;
		t0 = fs_clock_sec();
	}
	int fd = openat(atfd, at, O_RDONLY | O_DIRECTORY | (follow ? 0 : O_NOFOLLOW) | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (lc && fstat(fd, &now) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (compat_read_dir(fd, read_one, scratch) < 0) {
		int e = errno;
		scratch_empty(scratch);
		errno = e;
		return NULL;
	}
	if (scratch->n)
		qsort(scratch->v, scratch->n, sizeof *scratch->v, entry_cmp);
	if (lc)
		listcache_put(lc, dir, &now, t0, scratch->v, scratch->n);
	*n = scratch->n;
	return scratch->v ? scratch->v : &none;
}

int listcache_save(struct listcache *lc)
{
	if (!lc->dirty)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, MAGIC);
	for (size_t i = 0; i < lc->all.n; i++) {
		const struct listing *l = lc->all.v[i];
		if (l->racy)
			continue;
		strbuf_addf(&sb, "%" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %zu %zu\n",
			    l->dev, l->ino, l->mtime_ns, l->ctime_ns, l->entries.n, strlen(l->dir));
		strbuf_addstr(&sb, l->dir);
		strbuf_addch(&sb, '\n');
		for (size_t k = 0; k < l->entries.n; k++)
			strbuf_addf(&sb, "%u %zu %s\n", (unsigned)l->entries.v[k].type,
				    strlen(l->entries.v[k].name), l->entries.v[k].name);
	}
	int rc = keptfile_save(&sb, lc->file, "listing cache");
	if (!rc)
		lc->dirty = false;
	return rc;
}

void listcache_counts(const struct listcache *lc, size_t *hits, size_t *puts)
{
	*hits = lc->hits;
	*puts = lc->puts;
}

void listcache_free(struct listcache *lc)
{
	if (!lc)
		return;
	clear(lc);
	free(lc->file);
	free(lc);
}
