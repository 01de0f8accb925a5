/* readcache.c - small files' bytes by their stat data.
 *
 * The file: "VXREADS 2\n", then per file a line
 * "F DEV INO SIZE MTIME_NS CTIME_NS PATHLEN LEN\n", the path's bytes and
 * "\n", LEN bytes and "\n": the file's SIZE bytes (F), or what a caller
 * made of them (B, readcache_keep_blob); per directory known to lack some names
 * a line "D DEV INO MTIME_NS CTIME_NS COUNT DIRLEN\n", the directory's
 * bytes and "\n", then per name "NAMELEN " and the name and "\n"; last the
 * keptfile trailer. */
#include "util/readcache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/die.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/keptfile.h"
#include "util/strmap.h"
#include "util/vec.h"

#define MAGIC "VXREADS 2\n"

struct kept {
	char *path;
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
	char *bytes; /* len bytes and a NUL: the file's, or a blob */
	size_t len;
	bool blob;	  /* bytes is what a caller made of the file's */
	bool used;	  /* read (from here or kept) this run: saved */
	bool lstat_known; /* lst is this run's lstat of path, a regular file */
	struct stat lst;
};

/* A directory and the names it was found without. */
struct lacking {
	char *dir;
	uint64_t dev, ino;
	int64_t mtime_ns, ctime_ns;
	struct strvec names; /* sorted once loaded; appended to when found */
	int state;	     /* this run: 0 not checked, 1 its stat matches, -1 not */
	bool used;
	bool st_known; /* st is this run's stat of dir */
	bool recheck;  /* stats forgotten (readcache_forget_stats): state is
			* kept for the save, looked at again when next asked */
	struct stat st;
};

struct readcache {
	char *file;
	VEC(struct kept *) all;
	struct strmap by_path; /* path -> index in all (keys borrowed) */
	VEC(struct lacking *) dirs;
	struct strmap by_dir; /* dir -> index in dirs (keys borrowed) */
	bool dirty;	      /* something read was not kept, or was replaced */
	size_t hits, puts;
};

static void kept_free(struct kept *k)
{
	free(k->path);
	free(k->bytes);
	free(k);
}

/* Adds k, or puts it in the place of the one of the same path. */
static void add(struct readcache *rc, struct kept *k)
{
	size_t at;
	if (strmap_get(&rc->by_path, k->path, &at)) {
		struct kept *old = rc->all.v[at];
		free(k->path);
		k->path = old->path; /* the map's key */
		old->path = NULL;
		kept_free(old);
		rc->all.v[at] = k;
		return;
	}
	vec_push(&rc->all, k);
	strmap_put(&rc->by_path, k->path, rc->all.n - 1);
}

static void lacking_free(struct lacking *l)
{
	free(l->dir);
	strvec_clear(&l->names);
	free(l);
}

static const char *parse_lacking(struct readcache *rc, const char **pp, const char *end)
{
	const char *p = *pp;
	int64_t dev, ino, mt, ct, count, dlen;
	if (!keptfile_num(&p, end, ' ', &dev) || !keptfile_num(&p, end, ' ', &ino) ||
	    !keptfile_num(&p, end, ' ', &mt) || !keptfile_num(&p, end, ' ', &ct) ||
	    !keptfile_num(&p, end, ' ', &count) || !keptfile_num(&p, end, '\n', &dlen) ||
	    dlen <= 0 || count <= 0 || dlen > end - p - 1 || p[dlen] != '\n' ||
	    memchr(p, '\0', (size_t)dlen) || p[0] != '/')
		return "a bad directory header";
	size_t at;
	if (strmap_getn(&rc->by_dir, p, (size_t)dlen, &at))
		return "a directory twice";
	struct lacking *l = xcalloc(1, sizeof *l);
	l->dir = xstrndup(p, (size_t)dlen);
	l->dev = (uint64_t)dev, l->ino = (uint64_t)ino, l->mtime_ns = mt, l->ctime_ns = ct;
	p += dlen + 1;
	vec_push(&rc->dirs, l);
	strmap_put(&rc->by_dir, l->dir, rc->dirs.n - 1);
	for (int64_t i = 0; i < count; i++) {
		int64_t nlen;
		if (!keptfile_num(&p, end, ' ', &nlen) || nlen <= 0 || nlen > end - p - 1 ||
		    p[nlen] != '\n' || memchr(p, '\0', (size_t)nlen) ||
		    memchr(p, '/', (size_t)nlen))
			return "a bad name";
		strvec_push_nodup(&l->names, xstrndup(p, (size_t)nlen));
		p += nlen + 1;
	}
	strvec_sort_unique(&l->names);
	*pp = p;
	return NULL;
}

static const char *parse(void *ctx, const char *p, const char *end)
{
	struct readcache *rc = ctx;
	while (p < end) {
		int64_t dev, ino, size, mt, ct, plen, blen;
		if (end - p < 2 || p[1] != ' ' || !strchr("DFB", p[0]))
			return "a bad record";
		char kind = p[0];
		p += 2;
		if (kind == 'D') {
			const char *why = parse_lacking(rc, &p, end);
			if (why)
				return why;
			continue;
		}
		if (!keptfile_num(&p, end, ' ', &dev) || !keptfile_num(&p, end, ' ', &ino) ||
		    !keptfile_num(&p, end, ' ', &size) || !keptfile_num(&p, end, ' ', &mt) ||
		    !keptfile_num(&p, end, ' ', &ct) || !keptfile_num(&p, end, ' ', &plen) ||
		    !keptfile_num(&p, end, '\n', &blen) || plen <= 0 || size < 0 ||
		    size > READCACHE_MAX || blen < 0 || blen > READCACHE_MAX ||
		    (kind == 'F' && blen != size) || plen > end - p - 1 || p[plen] != '\n' ||
		    memchr(p, '\0', (size_t)plen) || p[0] != '/')
			return "a bad file header";
		const char *path = p;
		p += plen + 1;
		if (blen > end - p - 1 || p[blen] != '\n')
			return "a file cut short";
		struct kept *k = xcalloc(1, sizeof *k);
		k->path = xstrndup(path, (size_t)plen);
		k->dev = (uint64_t)dev, k->ino = (uint64_t)ino, k->size = (uint64_t)size;
		k->mtime_ns = mt, k->ctime_ns = ct;
		k->blob = kind == 'B';
		k->len = (size_t)blen;
		k->bytes = xmalloc((size_t)blen + 1);
		memcpy(k->bytes, p, (size_t)blen);
		k->bytes[blen] = '\0';
		p += blen + 1;
		add(rc, k);
	}
	return NULL;
}

static void clear(struct readcache *rc)
{
	for (size_t i = 0; i < rc->all.n; i++)
		kept_free(rc->all.v[i]);
	vec_free(&rc->all);
	strmap_clear(&rc->by_path);
	for (size_t i = 0; i < rc->dirs.n; i++)
		lacking_free(rc->dirs.v[i]);
	vec_free(&rc->dirs);
	strmap_clear(&rc->by_dir);
}

struct readcache *readcache_load(const char *file)
{
	struct readcache *rc = xcalloc(1, sizeof *rc);
	rc->file = xstrdup(file);
	switch (keptfile_load(file, MAGIC, parse, rc, "read cache", "reading every config file")) {
	case KEPT_OK:
	case KEPT_UNREAD:
		break;
	case KEPT_CORRUPT:
		clear(rc);
		/* fallthrough */
	case KEPT_OTHER: /* another version: rebuilt silently */
		rc->dirty = true;
	}
	return rc;
}

static bool same(const struct kept *k, const struct stat *st)
{
	return k->dev == (uint64_t)st->st_dev && k->ino == (uint64_t)st->st_ino &&
	       k->size == (uint64_t)st->st_size && k->mtime_ns == fs_ns(st->st_mtim) &&
	       k->ctime_ns == fs_ns(st->st_ctim) && S_ISREG(st->st_mode);
}

/* The entry of dir, its stat checked once this run (state). NULL when
 * none is kept. */
static struct lacking *lacking_of(struct readcache *rc, const char *dir, size_t dlen)
{
	size_t at;
	if (!strmap_getn(&rc->by_dir, dir, dlen, &at))
		return NULL;
	struct lacking *l = rc->dirs.v[at];
	if (!l->state || l->recheck) {
		l->recheck = false;
		struct stat st;
		l->st_known = fs_stat(l->dir, &st, 0) == 0;
		if (l->st_known)
			l->st = st;
		l->state = l->st_known && S_ISDIR(st.st_mode) && l->dev == (uint64_t)st.st_dev &&
				   l->ino == (uint64_t)st.st_ino &&
				   l->mtime_ns == fs_ns(st.st_mtim) &&
				   l->ctime_ns == fs_ns(st.st_ctim)
			       ? 1
			       : -1;
	}
	return l;
}

static bool lacks(const struct lacking *l, const char *name)
{
	return l && l->state > 0 && l->names.n &&
	       bsearch(&name, l->names.v, l->names.n, sizeof *l->names.v, str_ptr_cmp);
}

/* Records that dir (stat st, taken before the look at t0) has no name. */
static void note_lacking(struct readcache *rc, struct lacking *l, const char *dir,
			 const struct stat *st, int64_t t0, const char *name)
{
	if (!*name || strchr(name, '/'))
		return;
	if (!l || l->state <= 0) {
		if (!S_ISDIR(st->st_mode) || fs_sec_of(fs_ns(st->st_mtim)) >= t0)
			return; /* racy: a change in this tick keeps its times */
		if (!l) {
			l = xcalloc(1, sizeof *l);
			l->dir = xstrdup(dir);
			vec_push(&rc->dirs, l);
			strmap_put(&rc->by_dir, l->dir, rc->dirs.n - 1);
		}
		strvec_clear(&l->names); /* what a stale stat said is void */
		l->dev = (uint64_t)st->st_dev, l->ino = (uint64_t)st->st_ino;
		l->mtime_ns = fs_ns(st->st_mtim), l->ctime_ns = fs_ns(st->st_ctim);
		l->state = 1;
		l->st = *st;
		l->st_known = true;
	}
	/* else the stat that matched at its first look this run stands: it was
	 * taken before this look too */
	strvec_push(&l->names, name);
	strvec_sort_unique(&l->names);
	l->used = true;
	rc->dirty = true;
	rc->puts++;
}

/* Looks at k's file now (lstat first: for a regular file it is the stat,
 * and the stat cache takes it as its own, readcache_lstat). Returns 1 when
 * its stat data is as kept, 0 when not, -1 with errno when it is gone. */
static int check(struct kept *k, struct stat *st)
{
	if (fs_stat(k->path, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISREG(st->st_mode)) {
		k->lst = *st;
		k->lstat_known = true;
	} else if (S_ISLNK(st->st_mode) && fs_stat(k->path, st, 0) < 0) {
		return -1;
	}
	return same(k, st);
}

int readcache_blob(struct readcache *rc, const char *path, struct strbuf *out)
{
	size_t at;
	struct stat st;
	if (!rc || !strmap_get(&rc->by_path, path, &at))
		return 0;
	struct kept *k = rc->all.v[at];
	if (!k->blob || check(k, &st) <= 0)
		return 0;
	strbuf_add(out, k->bytes, k->len);
	k->used = true;
	rc->hits++;
	return 1;
}

void readcache_keep_blob(struct readcache *rc, const char *path, const char *blob, size_t len)
{
	size_t at;
	if (!rc || len > READCACHE_MAX || !strmap_get(&rc->by_path, path, &at))
		return;
	struct kept *k = rc->all.v[at];
	if (!k->used)
		return; /* not this run's bytes: kept only if the read just made kept them */
	free(k->bytes);
	k->bytes = xmalloc(len + 1);
	memcpy(k->bytes, blob, len);
	k->bytes[len] = '\0';
	k->len = len;
	k->blob = true;
	rc->dirty = true;
}

int readcache_read(struct readcache *rc, const char *path, struct strbuf *sb)
{
	if (!rc)
		return strbuf_read_file(sb, path);
	size_t at;
	struct stat st;
	bool known = strmap_get(&rc->by_path, path, &at);
	if (known) {
		struct kept *k = rc->all.v[at];
		int c = check(k, &st);
		if (c < 0)
			return -1; /* gone: not used, so not saved */
		if (c > 0 && !k->blob) {
			strbuf_add(sb, k->bytes, k->len);
			k->used = true;
			rc->hits++;
			return 0;
		}
	}
	const char *slash = strrchr(path, '/');
	size_t dlen = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	struct lacking *l = dlen ? lacking_of(rc, path, dlen) : NULL;
	if (lacks(l, slash + 1)) {
		l->used = true;
		rc->hits++;
		errno = ENOENT;
		return -1;
	}
	int64_t t0 = fs_clock_sec();
	struct stat dst = {0};
	char *dir = dlen ? xstrndup(path, dlen) : NULL;
	if (dir && !(l && l->state > 0) && fs_stat(dir, &dst, 0) < 0)
		dst.st_mode = 0;
	size_t from = sb->len;
	if (strbuf_read_file_stat(sb, path, &st) < 0) {
		int e = errno;
		if (dir && e == ENOENT)
			note_lacking(rc, l, dir, &dst, t0, slash + 1);
		free(dir);
		errno = e;
		return -1;
	}
	free(dir);
	size_t n = sb->len - from;
	if (path[0] != '/' || !S_ISREG(st.st_mode) || n != (uint64_t)st.st_size ||
	    n > READCACHE_MAX || fs_sec_of(fs_ns(st.st_mtim)) >= t0) {
		/* not kept: a changed kept file stays out of the next save */
		if (known) {
			rc->all.v[at]->used = false;
			rc->dirty = true;
		}
		return 0;
	}
	struct kept *k = xcalloc(1, sizeof *k);
	k->path = xstrdup(path);
	k->dev = (uint64_t)st.st_dev, k->ino = (uint64_t)st.st_ino, k->size = n;
	k->mtime_ns = fs_ns(st.st_mtim), k->ctime_ns = fs_ns(st.st_ctim);
	k->bytes = xmalloc(n + 1);
	memcpy(k->bytes, sb->buf + from, n);
	k->bytes[n] = '\0';
	k->len = n;
	k->used = true;
	add(rc, k);
	rc->dirty = true;
	rc->puts++;
	return 0;
}

int readcache_exists(struct readcache *rc, const char *path)
{
	const char *rel;
	int at = fs_at(path, &rel);
	if (!rc || path[0] != '/')
		return faccessat(at, rel, F_OK, 0) == 0;
	const char *slash = strrchr(path, '/');
	size_t dlen = slash == path ? 1 : (size_t)(slash - path);
	const char *name = slash + 1;
	struct lacking *l = lacking_of(rc, path, dlen);
	if (lacks(l, name)) {
		l->used = true;
		rc->hits++;
		return 0;
	}
	char *dir = xstrndup(path, dlen);
	int64_t t0 = fs_clock_sec();
	struct stat st = {0};
	if (!(l && l->state > 0) && fs_stat(dir, &st, 0) < 0)
		st.st_mode = 0;
	int found = faccessat(at, rel, F_OK, 0) == 0;
	if (!found && errno == ENOENT)
		note_lacking(rc, l, dir, &st, t0, name);
	free(dir);
	return found;
}

void readcache_forget_stats(struct readcache *rc)
{
	if (!rc)
		return;
	for (size_t i = 0; i < rc->all.n; i++)
		rc->all.v[i]->lstat_known = false;
	for (size_t i = 0; i < rc->dirs.n; i++) {
		rc->dirs.v[i]->st_known = false;
		rc->dirs.v[i]->recheck = true;
	}
}

bool readcache_dir_stat(const struct readcache *rc, const char *dir, struct stat *st)
{
	size_t at;
	if (!rc || !strmap_get(&rc->by_dir, dir, &at) || !rc->dirs.v[at]->st_known)
		return false;
	*st = rc->dirs.v[at]->st;
	return true;
}

bool readcache_lstat(const struct readcache *rc, const char *path, struct stat *st)
{
	size_t at;
	if (!rc || !strmap_get(&rc->by_path, path, &at) || !rc->all.v[at]->lstat_known)
		return false;
	*st = rc->all.v[at]->lst;
	return true;
}

int readcache_save(struct readcache *rc)
{
	if (!rc)
		return 0;
	bool unused = false;
	for (size_t i = 0; i < rc->all.n && !unused; i++)
		unused = !rc->all.v[i]->used;
	for (size_t i = 0; i < rc->dirs.n && !unused; i++)
		unused = !rc->dirs.v[i]->used || rc->dirs.v[i]->state < 0;
	if (!rc->dirty && !unused)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, MAGIC);
	for (size_t i = 0; i < rc->all.n; i++) {
		const struct kept *k = rc->all.v[i];
		if (!k->used)
			continue;
		strbuf_addf(
		    &sb, "%c %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %zu %zu\n",
		    k->blob ? 'B' : 'F', k->dev, k->ino, k->size, k->mtime_ns, k->ctime_ns,
		    strlen(k->path), k->len);
		strbuf_addstr(&sb, k->path);
		strbuf_addch(&sb, '\n');
		strbuf_add(&sb, k->bytes, k->len);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < rc->dirs.n; i++) {
		const struct lacking *l = rc->dirs.v[i];
		if (!l->used || l->state <= 0 || !l->names.n)
			continue;
		strbuf_addf(&sb, "D %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %zu %zu\n",
			    l->dev, l->ino, l->mtime_ns, l->ctime_ns, l->names.n, strlen(l->dir));
		strbuf_addstr(&sb, l->dir);
		strbuf_addch(&sb, '\n');
		for (size_t k = 0; k < l->names.n; k++)
			strbuf_addf(&sb, "%zu %s\n", strlen(l->names.v[k]), l->names.v[k]);
	}
	int rc2 = keptfile_save(&sb, rc->file, "read cache");
	if (!rc2)
		rc->dirty = false;
	return rc2;
}

void readcache_counts(const struct readcache *rc, size_t *hits, size_t *puts)
{
	*hits = rc ? rc->hits : 0;
	*puts = rc ? rc->puts : 0;
}

void readcache_free(struct readcache *rc)
{
	if (!rc)
		return;
	clear(rc);
	free(rc->file);
	free(rc);
}
