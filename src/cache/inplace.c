#include "cache/inplace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "cache/fsafe.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"

#define MAGIC "vxinplace2\n"
/* Another version of the format: read as empty, silently (an upgrade). */
#define MAGIC_ANY "vxinplace"

struct inplace {
	char *file;
	VEC(struct inplace_record *) recs; /* a dropped task's slot is NULL */
	struct strmap index;		   /* id -> slot; keys borrowed from ids[] */
	struct strvec ids;		   /* one per slot, never freed before the map */
	bool dirty;
};

static void record_free(struct inplace_record *r)
{
	if (!r)
		return;
	free(r->id);
	free(r->project_dir);
	free(r->log);
	free(r->tools);
	for (size_t i = 0; i < r->outputs.n; i++)
		free(r->outputs.v[i].path);
	vec_free(&r->outputs);
	free(r);
}

/* A little-endian reader over a buffer that fails softly at its end. */
struct reader {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t rd_u64(struct reader *r)
{
	if (r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | r->p[i];
	r->p += 8;
	return v;
}

static char *rd_bytes(struct reader *r, size_t *len)
{
	uint64_t n = rd_u64(r);
	if (r->bad || n > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		return NULL;
	}
	char *s = xstrndup((const char *)r->p, (size_t)n);
	r->p += n;
	if (len)
		*len = (size_t)n;
	return s;
}

static void wr_u64(struct strbuf *sb, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	strbuf_add(sb, b, 8);
}

static void wr_bytes(struct strbuf *sb, const char *s, size_t n)
{
	wr_u64(sb, n);
	strbuf_add(sb, s, n);
}

static void add_slot(struct inplace *ip, struct inplace_record *rec)
{
	strvec_push(&ip->ids, rec->id);
	strmap_put(&ip->index, ip->ids.v[ip->ids.n - 1], ip->recs.n);
	vec_push(&ip->recs, rec);
}

struct inplace *inplace_load(const char *file)
{
	struct inplace *ip = xcalloc(1, sizeof *ip);
	ip->file = xstrdup(file);
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, file)) {
		if (errno != ENOENT)
			warning("cannot read %s: %s; cached outputs will be checked the slow way",
				file, strbuf_read_strerror(errno));
		strbuf_release(&sb);
		return ip;
	}
	size_t ml = strlen(MAGIC);
	struct reader tail = {(const unsigned char *)sb.buf + (sb.len >= 8 ? sb.len - 8 : 0),
			      (const unsigned char *)sb.buf + sb.len, false};
	if (sb.len < ml + 8 || memcmp(sb.buf, MAGIC, ml) ||
	    XXH3_64bits(sb.buf, sb.len - 8) != rd_u64(&tail)) {
		bool other_version = sb.len >= ml &&
				     !memcmp(sb.buf, MAGIC_ANY, strlen(MAGIC_ANY)) &&
				     memcmp(sb.buf, MAGIC, ml);
		if (sb.len && !other_version)
			warning("%s is damaged; cached outputs will be checked the slow way", file);
		strbuf_release(&sb);
		return ip;
	}
	struct reader r = {(const unsigned char *)sb.buf + ml,
			   (const unsigned char *)sb.buf + sb.len - 8, false};
	uint64_t n = rd_u64(&r);
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		struct inplace_record *rec = xcalloc(1, sizeof *rec);
		rec->id = rd_bytes(&r, NULL);
		rec->project_dir = rd_bytes(&r, NULL);
		char *key = rd_bytes(&r, NULL);
		if (key && strlen(key) == KEY_HEX_SIZE - 1)
			memcpy(rec->key, key, KEY_HEX_SIZE);
		else
			r.bad = true;
		free(key);
		rec->recorded_ns = (int64_t)rd_u64(&r);
		rec->has_log = rd_u64(&r) != 0;
		rec->log = rd_bytes(&r, &rec->log_len);
		rec->tools = rd_bytes(&r, NULL);
		uint64_t nout = rd_u64(&r);
		for (uint64_t k = 0; k < nout && !r.bad; k++) {
			struct inplace_output o;
			o.path = rd_bytes(&r, NULL);
			o.size = rd_u64(&r);
			o.ino = rd_u64(&r);
			o.mtime_ns = (int64_t)rd_u64(&r);
			o.ctime_ns = (int64_t)rd_u64(&r);
			o.mode = (uint32_t)rd_u64(&r);
			vec_push(&rec->outputs, o);
		}
		if (r.bad) {
			record_free(rec);
			break;
		}
		add_slot(ip, rec);
	}
	if (r.bad) {
		warning("%s is damaged; cached outputs will be checked the slow way", file);
		for (size_t i = 0; i < ip->recs.n; i++)
			record_free(ip->recs.v[i]);
		ip->recs.n = 0;
		strmap_clear(&ip->index);
		strvec_clear(&ip->ids);
	}
	strbuf_release(&sb);
	return ip;
}

const struct inplace_record *inplace_get(const struct inplace *ip, const char *id)
{
	size_t i;
	return strmap_get(&ip->index, id, &i) ? ip->recs.v[i] : NULL;
}

bool inplace_check(const struct inplace_record *rec, const char *project_dir,
		   struct strvec *trusted)
{
	if (strcmp(rec->project_dir, project_dir))
		return false;
	int64_t racy_from = rec->recorded_ns / 1000000000 * 1000000000;
	const char *rel;
	int at = fs_at(project_dir, &rel);
	int dirfd = openat(at, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return false;
	/* each output by its parent's fd, kept for its siblings (issue 43: a
	 * walk of the whole path per output was most of a 100 000-output
	 * hit); a parent that is a link now is no output in place */
	struct fsafe_parent pc = {.fd = -1};
	bool ok = true;
	for (size_t i = 0; i < rec->outputs.n && (ok || trusted); i++) {
		const struct inplace_output *o = &rec->outputs.v[i];
		struct stat st;
		const char *leaf;
		int pfd = fsafe_parent_open(&pc, dirfd, o->path, false, &leaf);
		bool same = pfd >= 0 && fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    (uint32_t)st.st_mode == o->mode && (uint64_t)st.st_size == o->size &&
			    (uint64_t)st.st_ino == o->ino && fs_ns(st.st_mtim) == o->mtime_ns &&
			    fs_ns(st.st_ctim) == o->ctime_ns;
		bool good = same && o->mtime_ns < racy_from && o->ctime_ns < racy_from;
		/* listed only once the check fails: a fast hit lists nothing */
		if (trusted && ok && !good)
			for (size_t j = 0; j < i; j++)
				if (S_ISREG(rec->outputs.v[j].mode))
					strvec_push(trusted, rec->outputs.v[j].path);
		if (trusted && !ok && good && S_ISREG(o->mode))
			strvec_push(trusted, o->path);
		ok = ok && good;
	}
	fsafe_parent_release(&pc);
	close(dirfd);
	if (trusted)
		strvec_sort_unique(trusted);
	return ok;
}

void inplace_drop(struct inplace *ip, const char *id)
{
	size_t i;
	if (!strmap_get(&ip->index, id, &i) || !ip->recs.v[i])
		return;
	record_free(ip->recs.v[i]);
	ip->recs.v[i] = NULL;
	ip->dirty = true;
}

void inplace_seen_begin(struct inplace_seen *s)
{
	/* the file system's second, as its outputs' times are (issue 57) */
	s->from_ns = fs_clock_sec() * 1000000000;
}

void inplace_seen_release(struct inplace_seen *s)
{
	for (size_t i = 0; i < s->v.n; i++)
		free(s->v.v[i].path);
	vec_free(&s->v);
	s->from_ns = 0;
}

static struct inplace_output output_of(const char *path, const struct stat *st)
{
	return (struct inplace_output){xstrdup(path),	     (uint64_t)st->st_size,
				       (uint64_t)st->st_ino, fs_ns(st->st_mtim),
				       fs_ns(st->st_ctim),   (uint32_t)st->st_mode};
}

void inplace_seen_add(struct inplace_seen *s, const char *path, const struct stat *st)
{
	struct inplace_output o = output_of(path, st);
	vec_push(&s->v, o);
}

static int seen_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct inplace_output *)elem)->path);
}

/* path's output record: as seen has it, else lstat'ed now by its parent's
 * fd (pc keeps it for the siblings). False when it cannot be had. */
static bool output_stat(const struct inplace_seen *seen, int dirfd, struct fsafe_parent *pc,
			const char *path, struct inplace_output *o)
{
	const struct inplace_output *k =
	    seen && seen->v.n ? bsearch(path, seen->v.v, seen->v.n, sizeof *seen->v.v, seen_cmp)
			      : NULL;
	if (k) {
		*o = *k;
		o->path = xstrdup(path);
		return true;
	}
	struct stat st;
	const char *leaf;
	int pfd = dirfd < 0 ? -1 : fsafe_parent_open(pc, dirfd, path, false, &leaf);
	if (pfd < 0 || fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW))
		return false;
	*o = output_of(path, &st);
	return true;
}

void inplace_put(struct inplace *ip, const char *id, const char *key, const char *project_dir,
		 char *const *outputs, size_t n, const char *log, size_t log_len, const char *tools,
		 const struct inplace_seen *seen)
{
	inplace_drop(ip, id);
	ip->dirty = true;
	int64_t now_ns = fs_clock_sec() * 1000000000;
	struct inplace_record *rec = xcalloc(1, sizeof *rec);
	rec->id = xstrdup(id);
	rec->project_dir = xstrdup(project_dir);
	memcpy(rec->key, key, KEY_HEX_SIZE);
	/* the racy rule counts from the first stat the record holds */
	rec->recorded_ns = seen && seen->from_ns < now_ns ? seen->from_ns : now_ns;
	rec->has_log = log_len <= INPLACE_MAX_LOG;
	rec->log = rec->has_log ? xstrndup(log ? log : "", log_len) : xstrdup("");
	rec->log_len = rec->has_log ? log_len : 0;
	rec->tools = xstrdup(tools ? tools : "");
	int dirfd = open(project_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok = dirfd >= 0 || seen;
	struct fsafe_parent pc = {.fd = -1}; /* as inplace_check looks them up */
	for (size_t i = 0; i < n && ok; i++) {
		struct inplace_output o;
		if (!(ok = output_stat(seen, dirfd, &pc, outputs[i], &o)))
			break;
		vec_push(&rec->outputs, o);
	}
	/* Each directory an output lies in (the project's own dir aside: its
	 * sources change it): a file a late daemon adds there changes the
	 * directory's mtime, and the fast path must not vouch for it (issue
	 * 37: it survived every later run as a hit). */
	struct strvec dirs = STRVEC_INIT;
	/* by hash and bisection, not by scans of the lists: 100 000 outputs
	 * in 1000 directories were 2 x 10^8 strcmp (issue 43) */
	struct strmap seen_dirs = STRMAP_INIT;
	size_t at;
	const char *last = NULL;
	for (size_t i = 0; i < n && ok; i++) {
		if (last && path_same_dir(last, outputs[i]))
			continue; /* a sibling of the output before: its dirs are in */
		last = outputs[i];
		char *d = path_dirname(outputs[i]);
		while (strcmp(d, ".") && *d && strcmp(d, "/") && !strmap_get(&seen_dirs, d, &at)) {
			char *up = path_dirname(d);
			strvec_push_nodup(&dirs, d);
			strmap_put(&seen_dirs, d, 0);
			d = up;
		}
		free(d);
	}
	/* a directory that is an output itself is listed once */
	char **sorted = xmalloc((n + 1) * sizeof *sorted);
	if (n)
		memcpy(sorted, outputs, n * sizeof *sorted);
	size_t k = 1;
	while (k < n && strcmp(sorted[k - 1], sorted[k]) <= 0)
		k++;
	if (k < n)
		qsort(sorted, n, sizeof *sorted, str_ptr_cmp);
	for (size_t i = 0; i < dirs.n && ok; i++) {
		struct inplace_output o;
		if (bsearch(&dirs.v[i], sorted, n, sizeof *sorted, str_ptr_cmp))
			continue;
		if (!(ok = output_stat(seen, dirfd, &pc, dirs.v[i], &o)))
			break;
		vec_push(&rec->outputs, o);
	}
	free(sorted);
	fsafe_parent_release(&pc);
	strmap_clear(&seen_dirs);
	strvec_clear(&dirs);
	if (dirfd >= 0)
		close(dirfd);
	if (!ok) {
		record_free(rec);
		return;
	}
	size_t slot;
	if (strmap_get(&ip->index, id, &slot))
		ip->recs.v[slot] = rec;
	else
		add_slot(ip, rec);
}

int inplace_save(struct inplace *ip)
{
	if (!ip->dirty)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, MAGIC);
	size_t live = 0;
	for (size_t i = 0; i < ip->recs.n; i++)
		live += ip->recs.v[i] != NULL;
	wr_u64(&sb, live);
	for (size_t i = 0; i < ip->recs.n; i++) {
		const struct inplace_record *r = ip->recs.v[i];
		if (!r)
			continue;
		wr_bytes(&sb, r->id, strlen(r->id));
		wr_bytes(&sb, r->project_dir, strlen(r->project_dir));
		wr_bytes(&sb, r->key, strlen(r->key));
		wr_u64(&sb, (uint64_t)r->recorded_ns);
		wr_u64(&sb, r->has_log);
		wr_bytes(&sb, r->log, r->log_len);
		wr_bytes(&sb, r->tools, strlen(r->tools));
		wr_u64(&sb, r->outputs.n);
		for (size_t k = 0; k < r->outputs.n; k++) {
			const struct inplace_output *o = &r->outputs.v[k];
			wr_bytes(&sb, o->path, strlen(o->path));
			wr_u64(&sb, o->size);
			wr_u64(&sb, o->ino);
			wr_u64(&sb, (uint64_t)o->mtime_ns);
			wr_u64(&sb, (uint64_t)o->ctime_ns);
			wr_u64(&sb, o->mode);
		}
	}
	wr_u64(&sb, XXH3_64bits(sb.buf, sb.len));
	int rc = 0;
	if (write_file_atomic(ip->file, sb.buf, sb.len) < 0)
		rc = error_errno("cannot write %s", ip->file);
	strbuf_release(&sb);
	if (!rc)
		ip->dirty = false;
	return rc;
}

void inplace_free(struct inplace *ip)
{
	if (!ip)
		return;
	for (size_t i = 0; i < ip->recs.n; i++)
		record_free(ip->recs.v[i]);
	vec_free(&ip->recs);
	strmap_clear(&ip->index);
	strvec_clear(&ip->ids);
	free(ip->file);
	free(ip);
}
