/* restore.c - an entry's archive extracted into a project, link-safe, and
 * the outputs it replaces removed first (or nothing written when they are
 * already in place). */
#include "cache/restore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/archive.h"
#include "cache/filehash.h"
#include "cache/fsafe.h"
#include "util/die.h"
#include "util/io.h"
#include "util/path.h"
#include "util/vec.h"

/* The unit a hole is made of: a block of zeros this long, aligned in the
 * file (ARCHIVE_IOBUF is a multiple of it), is skipped, not written. */
#define HOLE_BLOCK 4096

struct dir_mode {
	char *path;
	unsigned mode;
};

/* Clears leaf's place for a new non-directory: a file or link is unlinked
 * (a link is never followed), an empty directory removed; a non-empty
 * directory is refused, since deleting what the output list did not name
 * could lose a user's files. */
static int place_clear(int dfd, const char *leaf, const char *path)
{
	if (!unlinkat(dfd, leaf, 0) || errno == ENOENT)
		return 0;
	if ((errno == EISDIR || errno == EPERM) && !unlinkat(dfd, leaf, AT_REMOVEDIR))
		return 0;
	return error_errno("cannot replace %s", path);
}

/* Writes the member's bytes into leaf, its content hash into hash. */
static int extract_file(struct archive_reader *r, int dfd, const char *leaf,
			const struct archive_member *m, unsigned char *buf,
			char hash[ARCHIVE_HASH_HEX])
{
	if (place_clear(dfd, leaf, m->path) < 0)
		return -1;
	int fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return error_errno("cannot create %s", m->path);
	int ret = 0;
	static const unsigned char zeros[HOLE_BLOCK];
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		die("out of memory");
	XXH3_128bits_reset(st);
	for (;;) {
		ssize_t k = archive_reader_read(r, buf, ARCHIVE_IOBUF);
		if (k < 0) {
			ret = -1;
			break;
		}
		if (k == 0)
			break;
		XXH3_128bits_update(st, buf, (size_t)k);
		/* a whole block of zeros is skipped: the file gets a hole; a
		 * run of blocks of either kind is one write or one seek */
		for (size_t at = 0; at < (size_t)k && !ret;) {
			bool hole =
			    (size_t)k - at >= HOLE_BLOCK && !memcmp(buf + at, zeros, HOLE_BLOCK);
			size_t end = at;
			for (;;) {
				size_t n =
				    (size_t)k - end < HOLE_BLOCK ? (size_t)k - end : HOLE_BLOCK;
				bool zero =
				    n == HOLE_BLOCK && !memcmp(buf + end, zeros, HOLE_BLOCK);
				if (!n || zero != hole)
					break;
				end += n;
			}
			if (hole ? lseek(fd, (off_t)(end - at), SEEK_CUR) < 0
				 : write_all(fd, buf + at, end - at) < 0)
				ret = error_errno("cannot write %s", m->path);
			at = end;
		}
		if (ret)
			break;
	}
	archive_hash_hex(XXH3_128bits_digest(st), hash);
	XXH3_freeState(st);
	/* a trailing hole: the size is the member's */
	if (!ret && ftruncate(fd, (off_t)m->size) < 0)
		ret = error_errno("cannot write %s", m->path);
	/* fchmod, not the open mode: the umask must not change a restored mode. */
	if (!ret && fchmod(fd, m->mode) < 0)
		ret = error_errno("cannot chmod %s", m->path);
	if (close(fd) < 0 && !ret)
		ret = error_errno("cannot close %s", m->path);
	return ret;
}

static int extract_dir(int dfd, const char *leaf, const char *path)
{
	if (!mkdirat(dfd, leaf, 0700))
		return 0;
	struct stat st;
	if (errno != EEXIST || fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return error_errno("cannot mkdir %s", path);
	if (S_ISDIR(st.st_mode))
		return 0;
	/* A symlink (or file) where the archive has a directory: replace the
	 * link itself, so a planted `dist -> /elsewhere` redirects nothing. */
	if (unlinkat(dfd, leaf, 0) < 0 || mkdirat(dfd, leaf, 0700) < 0)
		return error_errno("cannot mkdir %s", path);
	return 0;
}

static int cmp_dir_desc(const void *a, const void *b)
{
	return strcmp(((const struct dir_mode *)b)->path, ((const struct dir_mode *)a)->path);
}

/* Sets the directory modes deepest first, after their contents are
 * written, so a 0555 directory can still be filled. */
static int dirs_chmod(int rootfd, struct dir_mode *d, size_t n)
{
	if (n)
		qsort(d, n, sizeof *d, cmp_dir_desc);
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		const char *leaf;
		int dfd = fsafe_open_parent(rootfd, d[i].path, false, &leaf);
		int fd = dfd < 0
			     ? -1
			     : openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fchmod(fd, d[i].mode) < 0)
			ret = error_errno("cannot chmod %s", d[i].path);
		if (fd >= 0)
			close(fd);
		if (dfd >= 0)
			close(dfd);
	}
	return ret;
}

static int strbuf_sink(void *ctx, const char *buf, size_t n)
{
	strbuf_add(ctx, buf, n);
	return 0;
}

struct restore_log restore_log_strbuf(struct strbuf *sb)
{
	return (struct restore_log){strbuf_sink, sb};
}

/* The manifest's record of member m, or NULL. */
static const struct manifest_file *expected(const struct manifest *e, const char *path)
{
	struct manifest_file key = {.path = (char *)path};
	return bsearch(&key, e->outputs.v, e->outputs.n, sizeof *e->outputs.v, manifest_file_cmp);
}

/* Does member m (its content hash, for a file, in hash) differ from its
 * record? Says how when it does. */
static bool differs(const struct manifest_file *f, const struct archive_member *m, const char *hash)
{
	const char *what =
	    !f			 ? "is not in the manifest"
	    : f->type != m->type ? "is not of the type the manifest records"
	    : f->mode != m->mode ? "has another mode than the manifest records"
	    : m->type == ARCHIVE_FILE && (f->size != m->size || strcmp(f->hash, hash))
		? "does not hold what the manifest records (its content hash differs)"
	    : m->type == ARCHIVE_SYMLINK && (!f->target || strcmp(f->target, m->target))
		? "points elsewhere than the manifest records"
		: NULL;
	if (what)
		error("refusing the entry: its member %s %s", m->path, what);
	return what != NULL;
}

int restore_archive(int fd, int rootfd, const struct restore_opts *o)
{
	const struct restore_log *log = o->log;
	bool log_only = o->log_only;
	uint64_t limit = o->limit, total = 0;
	size_t matched = 0;
	struct archive_reader *r = archive_reader_new(fd);
	unsigned char *buf = xmalloc(ARCHIVE_IOBUF);
	VEC(struct dir_mode) dirs = {0};
	struct archive_member m;
	/* the last member's directory, kept for the next (an archive's
	 * members come sorted: a directory's files together) */
	struct fsafe_parent parent = {.fd = -1};
	int ret = 0, got;
	while ((got = archive_reader_next(r, &m)) > 0) {
		if (m.type == ARCHIVE_LOG) {
			ssize_t k;
			while ((k = archive_reader_read(r, buf, ARCHIVE_IOBUF)) > 0)
				if (log && log->add(log->ctx, (const char *)buf, (size_t)k) < 0) {
					k = -1;
					break;
				}
			archive_member_release(&m);
			if (k < 0) {
				ret = -1;
				break;
			}
			continue;
		}
		if (log_only) {
			archive_member_release(&m);
			break;
		}
		const char *leaf;
		int dfd = fsafe_parent_open(&parent, rootfd, m.path, true, &leaf);
		if (dfd < 0) {
			ret = errno == ELOOP || errno == ENOTDIR
				  ? error("refusing %s: a parent is a symlink or not a "
					  "directory",
					  m.path)
				  : error_errno("cannot restore %s", m.path);
		} else if (m.type == ARCHIVE_FILE && limit &&
			   (m.size > limit || total > limit - m.size)) {
			ret = error("refusing %s: the entry would write more than %llu bytes "
				    "(cache.maxSize)",
				    m.path, (unsigned long long)limit);
		} else if (o->expect && m.type != ARCHIVE_FILE &&
			   differs(expected(o->expect, m.path), &m, NULL)) {
			ret = -1;
		} else if (m.type == ARCHIVE_FILE) {
			total += m.size;
			char hash[ARCHIVE_HASH_HEX];
			if (o->made)
				strvec_push(o->made, m.path);
			ret = extract_file(r, dfd, leaf, &m, buf, hash);
			if (!ret && o->expect && differs(expected(o->expect, m.path), &m, hash))
				ret = -1;
		} else if (m.type == ARCHIVE_SYMLINK) {
			if (o->made)
				strvec_push(o->made, m.path);
			ret = place_clear(dfd, leaf, m.path);
			if (!ret && symlinkat(m.target, dfd, leaf) < 0)
				ret = error_errno("cannot symlink %s", m.path);
		} else {
			if (o->made)
				strvec_push(o->made, m.path);
			ret = extract_dir(dfd, leaf, m.path);
			if (!ret)
				vec_push(&dirs, ((struct dir_mode){xstrdup(m.path), m.mode}));
		}
		matched += !ret;
		archive_member_release(&m);
		if (ret)
			break;
	}
	fsafe_parent_release(&parent);
	if (got < 0)
		ret = -1;
	if (!ret && !log_only && o->expect && matched != o->expect->outputs.n)
		ret = error("refusing the entry: its archive holds %zu of the %zu outputs its "
			    "manifest records",
			    matched, o->expect->outputs.n);
	if (!ret)
		ret = dirs_chmod(rootfd, dirs.v, dirs.n);
	for (size_t i = 0; i < dirs.n; i++)
		free(dirs.v[i].path);
	vec_free(&dirs);
	free(buf);
	archive_reader_free(r);
	return ret;
}

/* The parent directory of the last output checked is kept open (pd):
 * outputs are sorted, so a directory's files come together, and each
 * directory is walked to once (it was once per file: 287 opens of "dist"
 * for 242 outputs, issue 20). */
static bool output_matches(struct fsafe_parent *pd, int rootfd, const struct manifest_file *f,
			   const struct strvec *trusted, struct inplace_seen *seen)
{
	const char *leaf;
	int dfd = fsafe_parent_open(pd, rootfd, f->path, false, &leaf);
	if (dfd < 0)
		return false;
	struct stat st;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (seen)
		inplace_seen_add(seen, f->path, &st);
	bool ok = false;
	if (f->type == ARCHIVE_DIR) {
		ok = S_ISDIR(st.st_mode) && (st.st_mode & 0777) == f->mode;
	} else if (f->type == ARCHIVE_SYMLINK) {
		char *buf = S_ISLNK(st.st_mode) ? xmalloc((size_t)st.st_size + 2) : NULL;
		ssize_t n = buf ? readlinkat(dfd, leaf, buf, (size_t)st.st_size + 1) : -1;
		ok = n >= 0 && (size_t)n == strlen(f->target) && !memcmp(buf, f->target, (size_t)n);
		free(buf);
	} else if (S_ISREG(st.st_mode) && (st.st_mode & 0777) == f->mode &&
		   (uint64_t)st.st_size == f->size) {
		const char *path = f->path;
		if (trusted && trusted->n &&
		    bsearch(&path, trusted->v, trusted->n, sizeof *trusted->v, str_ptr_cmp))
			return true;
		char hash[ARCHIVE_HASH_HEX];
		int fd = openat(dfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		ok = fd >= 0 && !filehash_fd(fd, hash) && !strcmp(hash, f->hash);
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

static bool outputs_in_place(const struct entry *e, int rootfd, const struct strvec *current)
{
	for (size_t i = 0; i < current->n; i++) {
		struct manifest_file key = {.path = current->v[i]};
		if (!e->m.outputs.n ||
		    !bsearch(&key, e->m.outputs.v, e->m.outputs.n, sizeof key, manifest_file_cmp))
			return false;
	}
	struct fsafe_parent pd = {.fd = -1};
	bool ok = true;
	if (e->seen)
		inplace_seen_begin(e->seen);
	for (size_t i = 0; ok && i < e->m.outputs.n; i++)
		ok = output_matches(&pd, rootfd, &e->m.outputs.v[i], e->trusted, e->seen);
	fsafe_parent_release(&pd);
	return ok;
}

/* What a restore moved aside: the current matches, in a directory of the
 * project's own (one rename each way, on its file system). */
struct aside {
	char *dir; /* PROJECT/.vx-restore-XXXXXX, or NULL when nothing moved */
	int dfd;
	struct strvec moved; /* project-relative, each renamed to dir/<same path> */
};

static void aside_put_back(struct aside *a, int rootfd);

/* Moves every current match aside (one inside another moves with it).
 * Returns 0, or -1 after error() with whatever moved put back. */
static int aside_begin(struct aside *a, const char *project_dir, int rootfd,
		       const struct strvec *cur)
{
	memset(a, 0, sizeof *a);
	a->dfd = -1;
	a->moved = (struct strvec)STRVEC_INIT;
	if (!cur->n)
		return 0;
	a->dir = path_join(project_dir, RESTORE_ASIDE_PREFIX "XXXXXX");
	if (!mkdtemp(a->dir) ||
	    (a->dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		error_errno("cannot make %s to restore into", a->dir);
		if (a->dfd < 0)
			rmdir(a->dir);
		free(a->dir);
		a->dir = NULL;
		return -1;
	}
	for (size_t i = 0; i < cur->n; i++) {
		const char *p = cur->v[i];
		bool inside = false;
		for (size_t k = 0; k < a->moved.n && !inside; k++)
			inside = path_is_within(a->moved.v[k], p);
		if (inside)
			continue;
		const char *leaf, *to_leaf;
		int from = fsafe_open_parent(rootfd, p, false, &leaf);
		if (from < 0) {
			if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR)
				continue; /* reached through a link: not the project's own */
			error_errno("cannot restore over %s", p);
			aside_put_back(a, rootfd);
			return -1;
		}
		int to = fsafe_open_parent(a->dfd, p, true, &to_leaf);
		int rc = to < 0 ? -1 : renameat(from, leaf, to, to_leaf);
		int e = errno;
		close(from);
		if (to >= 0)
			close(to);
		if (rc < 0 && e != ENOENT) {
			errno = e;
			error_errno("cannot move %s aside to restore over it", p);
			aside_put_back(a, rootfd);
			return -1;
		}
		if (rc == 0)
			strvec_push(&a->moved, p);
	}
	return 0;
}

/* Closes and removes the aside directory with what it holds: after a
 * restore that went through, what was moved aside goes. */
static void aside_free(struct aside *a)
{
	if (a->dfd >= 0)
		close(a->dfd);
	if (a->dir && remove_tree_at(AT_FDCWD, a->dir) < 0)
		warning("cannot remove %s: %s", a->dir, strerror(errno));
	free(a->dir);
	strvec_clear(&a->moved);
}

/* The restore failed: each moved match goes back where it was. */
static void aside_put_back(struct aside *a, int rootfd)
{
	for (size_t i = a->moved.n; i-- > 0;) {
		const char *p = a->moved.v[i], *leaf, *to_leaf;
		int from = fsafe_open_parent(a->dfd, p, false, &leaf);
		int to = fsafe_open_parent(rootfd, p, true, &to_leaf);
		if (from < 0 || to < 0 || renameat(from, leaf, to, to_leaf) < 0)
			warning("cannot put %s back (it is in %s): %s", p, a->dir, strerror(errno));
		if (from >= 0)
			close(from);
		if (to >= 0)
			close(to);
	}
	aside_free(a);
}

/* After a failed extraction: removes what it wrote, deepest first; a
 * directory only when empty (it may hold what no output names). */
static void made_remove(int rootfd, struct strvec *made)
{
	strvec_sort(made);
	for (size_t i = made->n; i-- > 0;) {
		const char *leaf;
		int dfd = fsafe_open_parent(rootfd, made->v[i], false, &leaf);
		if (dfd < 0)
			continue;
		if (unlinkat(dfd, leaf, 0) < 0 && (errno == EISDIR || errno == EPERM))
			unlinkat(dfd, leaf, AT_REMOVEDIR);
		close(dfd);
	}
}

int restore_entry(struct entry *e, const char *project_dir, const char *const *current,
		  size_t n_current, struct strbuf *log)
{
	struct restore_log sink = restore_log_strbuf(log);
	return restore_entry_to(e, project_dir, current, n_current, log ? &sink : NULL);
}

int restore_entry_to(struct entry *e, const char *project_dir, const char *const *current,
		     size_t n_current, const struct restore_log *log)
{
	struct strvec cur = STRVEC_INIT;
	int ret = -1;
	int rootfd = open(project_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		error_errno("cannot open %s", project_dir);
		goto out;
	}
	for (size_t i = 0; i < n_current; i++) {
		char *p = path_normalize(current[i]);
		if (!archive_path_ok(p)) {
			error("cannot restore output '%s': it is not inside the project",
			      current[i]);
			free(p);
			goto out;
		}
		strvec_push_nodup(&cur, p);
	}
	if (lseek(e->archive_fd, e->archive_off, SEEK_SET) < 0) {
		error_errno("cannot read the archive");
		goto out;
	}
	struct restore_opts o = {.log = log, .limit = e->restore_limit, .expect = &e->m};
	if (outputs_in_place(e, rootfd, &cur)) {
		o.log_only = true;
		if (restore_archive(e->archive_fd, rootfd, &o) == 0)
			ret = RESTORE_IN_PLACE;
		goto out;
	}
	struct aside aside;
	if (aside_begin(&aside, project_dir, rootfd, &cur) < 0)
		goto out;
	struct strvec made = STRVEC_INIT;
	o.made = &made;
	if (restore_archive(e->archive_fd, rootfd, &o) == 0) {
		ret = RESTORE_WRITTEN;
		aside_free(&aside);
	} else {
		made_remove(rootfd, &made);
		aside_put_back(&aside, rootfd);
	}
	strvec_clear(&made);
out:
	if (rootfd >= 0)
		close(rootfd);
	strvec_clear(&cur);
	return ret;
}
