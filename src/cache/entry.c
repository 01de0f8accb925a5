/* entry.c - save and verify one cache entry (archive + manifest); restore.c puts it back. */
#include "cache/entry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/filehash.h"
#include "cache/fsafe.h"
#include "util/io.h"
#include "util/die.h"
#include "util/path.h"

/* ---- saving ---- */

/* The caller's matches, normalised and sorted (named), and each with its
 * parent directories (paths, sorted): the members before any directory
 * named is opened. A directory's tree is taken as the directory is
 * archived (archive_write), so a match is not tried as a directory first
 * (issue 43: 100 000 outputs, 100 000 openat failing ENOTDIR). */
static int members_collect(const char *const *outputs, size_t n, struct strvec *named,
			   struct strvec *paths)
{
	const char *last = NULL; /* the match before: its parents are pushed */
	for (size_t i = 0; i < n; i++) {
		char *p = path_normalize(outputs[i]);
		if (!archive_path_ok(p)) {
			free(p);
			return error("cannot save output '%s': it is not inside the project",
				     outputs[i]);
		}
		/* siblings come together (the caller's matches are sorted): their
		 * parents once, not once each */
		if (!last || !path_same_dir(last, p))
			for (char *s = p; (s = strchr(s, '/')); s++) {
				*s = '\0';
				strvec_push(paths, p);
				*s = '/';
			}
		last = p;
		strvec_push(paths, p);
		strvec_push_nodup(named, p);
	}
	strvec_sort_unique(named);
	strvec_sort_unique(paths);
	return 0;
}

static bool below_any(const struct strvec *dirs, const char *path)
{
	for (size_t i = 0; i < dirs->n; i++) {
		size_t n = strlen(dirs->v[i]);
		if (!strncmp(dirs->v[i], path, n) && path[n] == '/')
			return true;
	}
	return false;
}

int entry_tmp_create(const struct store *st, const char *key, char **name)
{
	int fd = store_tmp_create(st, key, name);
	/* Locked while it is written: a file nobody holds is a killed save's,
	 * which the next save of the key or a prune removes at once
	 * (store_sweep_tmp) rather than after an hour. */
	if (fd >= 0)
		(void)flock(fd, LOCK_EX | LOCK_NB);
	return fd;
}

/* Adds path and, into m and seen, what it was. */
static int member_add(struct archive_writer *w, int rootfd, const char *path, struct manifest *m,
		      struct inplace_seen *seen, struct strvec *links, enum archive_type *type)
{
	struct archive_member am;
	if (archive_writer_add(w, rootfd, path, &am) < 0) {
		archive_member_release(&am); /* what it filled before it refused */
		return -1;
	}
	if (am.type == ARCHIVE_SYMLINK)
		strvec_push(links, am.path);
	if (seen)
		inplace_seen_add(seen, am.path, &am.lstat);
	struct manifest_file f = {.path = am.path,
				  .type = am.type,
				  .mode = am.mode,
				  .size = am.size,
				  .target = am.target};
	memcpy(f.hash, am.hash, sizeof f.hash);
	vec_push(&m->outputs, f);
	*type = am.type;
	return 0;
}

/* A named directory's tree, to be added at paths' index first (where
 * "dir/" sorts: after what sorts between "dir" and "dir/", such as
 * "dir-old"), in place of the k paths listed below it there. */
struct tree_at {
	size_t first, k;
	struct strvec tree;
};

/* Adds the members in path order: a directory the caller named brings its
 * whole tree, merged with the members already listed below it; what lies
 * below a symlink is not taken (the link is). */
static int members_add(struct archive_writer *w, int rootfd, struct strvec *paths,
		       const struct strvec *named, struct manifest *m, struct inplace_seen *seen)
{
	struct strvec links = STRVEC_INIT;
	struct fsafe_parent pc = {.fd = -1};
	VEC(struct tree_at) due = {0}; /* a stack: an inner tree falls due first */
	enum archive_type type;
	int ret = 0;
	for (size_t i = 0; !ret && (i < paths->n || due.n);) {
		struct tree_at *t = due.n ? &due.v[due.n - 1] : NULL;
		if (t && (i == t->first || i >= paths->n)) {
			for (size_t j = 0; !ret && j < t->tree.n; j++)
				if (!below_any(&links, t->tree.v[j]))
					ret = member_add(w, rootfd, t->tree.v[j], m, seen, &links,
							 &type);
			i = t->first + t->k;
			strvec_clear(&t->tree);
			due.n--;
			continue;
		}
		const char *path = paths->v[i++];
		if (below_any(&links, path))
			continue;
		if ((ret = member_add(w, rootfd, path, m, seen, &links, &type)) < 0 ||
		    type != ARCHIVE_DIR ||
		    !bsearch(&path, named->v, named->n, sizeof *named->v, str_ptr_cmp))
			continue;
		struct tree_at at = {0};
		at.k = strvec_sorted_below(paths, path, &at.first);
		for (size_t j = at.first; j < at.first + at.k; j++)
			strvec_push(&at.tree, paths->v[j]);
		ret = fsafe_tree(&pc, rootfd, path, &at.tree);
		strvec_sort_unique(&at.tree);
		vec_push(&due, at);
	}
	for (size_t j = 0; j < due.n; j++)
		strvec_clear(&due.v[j].tree);
	vec_free(&due);
	fsafe_parent_release(&pc);
	strvec_clear(&links);
	return ret;
}

static int archive_write(int fd, const char *name, int rootfd, const struct entry_save_request *req,
			 struct manifest *m)
{
	struct archive_writer *w = archive_writer_new(fd, name, req->level);
	struct strvec paths = STRVEC_INIT, named = STRVEC_INIT;
	int ret;
	/* The log goes first, so a hit whose outputs are already in place reads
	 * it without decompressing the rest. */
	if (req->log_fd >= 0) {
		off_t at = lseek(req->log_fd, 0, SEEK_CUR);
		struct stat lst;
		ret = at < 0 || fstat(req->log_fd, &lst) < 0
			  ? error_errno("cannot read the task log")
			  : 0;
		m->log_size = !ret && lst.st_size > at ? (uint64_t)(lst.st_size - at) : 0;
		if (!ret)
			ret = archive_writer_add_log_fd(w, req->log_fd);
	} else {
		m->log_size = req->log_len;
		ret = archive_writer_add_log(w, req->log ? req->log : "", req->log_len);
	}
	if (req->seen)
		inplace_seen_begin(req->seen);
	if (!ret)
		ret = members_collect(req->outputs, req->n_outputs, &named, &paths);
	if (!ret)
		ret = members_add(w, rootfd, &paths, &named, m, req->seen);
	if (!ret)
		ret = archive_writer_finish(w, &m->archive_size, m->archive_hash);
	archive_writer_free(w);
	strvec_clear(&paths);
	strvec_clear(&named);
	return ret;
}

static int fsync_dir(const struct store *st, const char *key)
{
	char shard[3];
	store_shard_name(key, shard);
	int fd = openat(st->dirfd, shard, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		int ret = error_errno("cannot fsync %s/%s", st->path, shard);
		if (fd >= 0)
			close(fd);
		return ret;
	}
	close(fd);
	return 0;
}

int entry_save(const struct store *st, const struct entry_save_request *req, struct manifest *out)
{
	if (!store_key_valid(req->key))
		return error("invalid cache key '%s'", req->key);
	struct manifest m = {0};
	m.key = xstrdup(req->key);
	m.task = xstrdup(req->task ? req->task : "");
	m.vx_version = xstrdup(VX_VERSION);
	m.exit_code = req->exit_code;
	m.duration_ms = req->duration_ms;
	for (size_t i = 0; i < req->n_inputs; i++) {
		if (strlen(req->inputs[i].hash) != ARCHIVE_HASH_HEX - 1) {
			manifest_release(&m);
			return error("cannot save input %s: its hash '%s' is not 128 bits in hex",
				     req->inputs[i].path, req->inputs[i].hash);
		}
		struct manifest_file f = {.path = xstrdup(req->inputs[i].path)};
		snprintf(f.hash, sizeof f.hash, "%s", req->inputs[i].hash);
		vec_push(&m.inputs, f);
	}
	char *arc_tmp = NULL, *man_tmp = NULL, *json = NULL, *shown = NULL;
	char *arc_name = store_entry_name(req->key, STORE_ARCHIVE_SUFFIX);
	char *man_name = store_entry_name(req->key, STORE_MANIFEST_SUFFIX);
	int afd = -1, mfd = -1, ret = -1, lock = -1;
	int rootfd = open(req->project_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		error_errno("cannot open %s", req->project_dir);
		goto out;
	}
	if (store_shard_make(st, req->key) < 0)
		goto out;
	store_sweep_tmp(st, req->key);
	if ((afd = entry_tmp_create(st, req->key, &arc_tmp)) < 0)
		goto out;
	shown = xasprintf("%s/%s", st->path, arc_tmp);
	if (archive_write(afd, shown, rootfd, req, &m) < 0)
		goto out;
	if (req->durable && fsync(afd) < 0) {
		error_errno("cannot fsync %s/%s", st->path, arc_tmp);
		goto out;
	}
	json = manifest_format(&m);
	if ((mfd = entry_tmp_create(st, req->key, &man_tmp)) < 0)
		goto out;
	if (write_all(mfd, json, strlen(json)) < 0 || (req->durable && fsync(mfd) < 0)) {
		error_errno("cannot write %s/%s", st->path, man_tmp);
		goto out;
	}
	/* The manifest is renamed last: its presence says the entry is whole.
	 * The lock pairs the two renames against a concurrent writer of the
	 * same key (else its archive could end up beside this manifest) and
	 * against a reader opening the pair. */
	if ((lock = store_lock(st, true)) < 0 || store_repair(st, arc_name, false) < 0 ||
	    store_repair(st, man_name, false) < 0)
		goto out;
	if (renameat(st->dirfd, arc_tmp, st->dirfd, arc_name) < 0) {
		error_errno("cannot rename %s/%s", st->path, arc_tmp);
		goto out;
	}
	free(arc_tmp);
	arc_tmp = NULL;
	if (renameat(st->dirfd, man_tmp, st->dirfd, man_name) < 0) {
		error_errno("cannot rename %s/%s", st->path, man_tmp);
		/* An archive with no manifest is a miss; prune removes it. */
		goto out;
	}
	free(man_tmp);
	man_tmp = NULL;
	store_unlock(lock);
	lock = -1;
	if (req->durable && fsync_dir(st, req->key) < 0)
		goto out;
	ret = 0;
out:
	store_unlock(lock);
	if (afd >= 0)
		close(afd);
	if (mfd >= 0)
		close(mfd);
	if (rootfd >= 0)
		close(rootfd);
	if (arc_tmp)
		unlinkat(st->dirfd, arc_tmp, 0);
	if (man_tmp)
		unlinkat(st->dirfd, man_tmp, 0);
	free(arc_tmp);
	free(man_tmp);
	free(shown);
	free(arc_name);
	free(man_name);
	free(json);
	if (!ret && out)
		*out = m;
	else
		manifest_release(&m);
	return ret;
}

/* ---- reading ---- */

/* A manifest lists inputs and outputs: large, but not this large. */
#define MANIFEST_MAX ((size_t)64 << 20)

int entry_bundle_head(const char *buf, size_t n, uint64_t *manifest_len)
{
	size_t ml = strlen(ENTRY_BUNDLE_MAGIC);
	if (memcmp(buf, ENTRY_BUNDLE_MAGIC, n < ml ? n : ml))
		return -1;
	if (n <= ml)
		return 0;
	uint64_t len = 0;
	size_t at = ml;
	for (; at < n && at < ENTRY_BUNDLE_HEAD_MAX && buf[at] != '\n'; at++) {
		if (buf[at] < '0' || buf[at] > '9' || (at == ml && buf[at] == '0'))
			return -1;
		len = len * 10 + (uint64_t)(buf[at] - '0');
		if (len > MANIFEST_MAX)
			return -1;
	}
	if (at >= ENTRY_BUNDLE_HEAD_MAX)
		return -1; /* no line of digits this long names a manifest vx reads */
	if (at == n)
		return 0;
	if (at == ml)
		return -1; /* no length */
	*manifest_len = len;
	return (int)(at + 1);
}

int entry_bundle_read(int fd, struct manifest *m, off_t *archive_off, struct strbuf *why)
{
	char buf[ENTRY_BUNDLE_HEAD_MAX];
	ssize_t n = pread(fd, buf, sizeof buf, 0);
	if (n < 0)
		return strbuf_addf(why, "cannot read it: %s", strerror(errno)), 1;
	uint64_t len = 0;
	int head = entry_bundle_head(buf, (size_t)n, &len);
	size_t ml = strlen(ENTRY_BUNDLE_MAGIC);
	if (head <= 0 && ((size_t)n < ml || memcmp(buf, ENTRY_BUNDLE_MAGIC, ml)))
		return strbuf_addstr(why, "not a vx cache entry (its head is missing)"), 1;
	if (head <= 0)
		return strbuf_addstr(why, "not a vx cache entry (its head is malformed)"), 1;
	off_t at = head;
	char *json = xmalloc((size_t)len + 1);
	if (pread(fd, json, (size_t)len, at) != (ssize_t)len) {
		free(json);
		return strbuf_addstr(why, "it ends inside its manifest"), 1;
	}
	json[len] = 0;
	struct manifest tmp = {0};
	int rc = manifest_parse(json, (size_t)len, &tmp, why) < 0 ? 1 : 0;
	free(json);
	if (rc)
		return 1;
	*m = tmp;
	*archive_off = at + (off_t)len;
	return 0;
}

int entry_archive_check(int fd, off_t off, const struct manifest *m, struct strbuf *why)
{
	struct stat st;
	char hash[ARCHIVE_HASH_HEX];
	if (fstat(fd, &st) < 0)
		return -1;
	uint64_t size =
	    (uint64_t)st.st_size - (st.st_size >= off ? (uint64_t)off : (uint64_t)st.st_size);
	if (st.st_size < off || size != m->archive_size) {
		strbuf_addf(why, "archive is %llu bytes, the manifest says %llu",
			    (unsigned long long)size, (unsigned long long)m->archive_size);
		return 1;
	}
	if (lseek(fd, off, SEEK_SET) < 0 || filehash_fd(fd, hash) < 0)
		return -1;
	if (strcmp(hash, m->archive_hash)) {
		strbuf_addf(why, "archive checksum %s, the manifest says %s", hash,
			    m->archive_hash);
		return 1;
	}
	return 0;
}

static bool fd_is_regular(int fd)
{
	struct stat s;
	return !fstat(fd, &s) && S_ISREG(s.st_mode);
}

/* Whether an entry file's open failed (err), or gave what is no regular
 * file (err EISDIR), because the store is damaged there: its shard is no
 * directory, or the name holds a directory, a link or a special file. Such
 * an entry is bad, not an error: the task runs and its save repairs the
 * store (store_repair). */
static bool damaged(const struct store *st, const char *name, int err, struct strbuf *why)
{
	if (err != ENOTDIR && err != ELOOP && err != EISDIR)
		return false;
	char shard[3] = {name[0], name[1], 0};
	struct stat s;
	if (err == ENOTDIR)
		strbuf_addf(why, "its shard %s/%s is no directory", st->path, shard);
	else if (!fstatat(st->dirfd, name, &s, AT_SYMLINK_NOFOLLOW) && S_ISLNK(s.st_mode))
		strbuf_addf(why, "%s/%s is a symbolic link", st->path, name);
	else
		strbuf_addf(why, "%s/%s is no regular file", st->path, name);
	return true;
}

/* key's bundle (STORE_BUNDLE_SUFFIX), opened and verified into e. */
static int bundle_open(const struct store *st, const char *key, struct entry *e, struct strbuf *why)
{
	char *name = store_entry_name(key, STORE_BUNDLE_SUFFIX);
	int lock = store_lock(st, false), status = ENTRY_ERROR;
	int fd =
	    lock < 0 ? -1 : openat(st->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int err = errno;
	store_unlock(lock);
	if (lock < 0)
		goto out;
	if (fd < 0) {
		if (err == ENOENT)
			status = ENTRY_MISS;
		else if (damaged(st, name, err, why))
			status = ENTRY_BAD;
		else
			error("cannot open %s/%s: %s", st->path, name, strerror(err));
		goto out;
	}
	if (damaged(st, name, fd_is_regular(fd) ? 0 : EISDIR, why)) {
		status = ENTRY_BAD;
		goto out;
	}
	status = ENTRY_BAD;
	off_t off;
	if (entry_bundle_read(fd, &e->m, &off, why))
		goto out;
	e->archive_fd = fd;
	e->archive_off = off;
	fd = -1;
	if (strcmp(e->m.key, key)) {
		strbuf_addf(why, "manifest is for key %s", e->m.key);
		goto out;
	}
	int r = entry_archive_check(e->archive_fd, off, &e->m, why);
	if (r < 0) {
		error_errno("cannot read %s/%s", st->path, name);
		status = ENTRY_ERROR;
	} else if (r == 0) {
		status = ENTRY_HIT;
	}
out:
	if (fd >= 0)
		close(fd);
	free(name);
	return status;
}

int entry_open(const struct store *st, const char *key, struct entry *e, struct strbuf *why)
{
	memset(e, 0, sizeof *e);
	e->archive_fd = -1;
	e->archive_off = 0;
	if (!store_key_valid(key))
		return error("invalid cache key '%s'", key), ENTRY_ERROR;
	char *man_name = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	char *arc_name = store_entry_name(key, STORE_ARCHIVE_SUFFIX);
	struct strbuf json = STRBUF_INIT;
	int status = ENTRY_ERROR, mfd = -1;
	/* Shared lock: the manifest and archive opened here are one writer's
	 * pair, never one writer's manifest and another's archive. */
	int lock = store_lock(st, false);
	if (lock < 0)
		goto out;
	mfd = openat(st->dirfd, man_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (mfd < 0) {
		if (errno == ENOENT) {
			store_unlock(lock);
			lock = -1;
			status = bundle_open(st, key, e, why);
		} else if (damaged(st, man_name, errno, why)) {
			status = ENTRY_BAD;
		} else {
			error_errno("cannot open %s/%s", st->path, man_name);
		}
		goto out;
	}
	if (damaged(st, man_name, fd_is_regular(mfd) ? 0 : EISDIR, why)) {
		status = ENTRY_BAD;
		goto out;
	}
	e->archive_fd = openat(st->dirfd, arc_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int arc_errno = errno;
	store_unlock(lock);
	lock = -1;
	if (strbuf_read_fd(&json, mfd) < 0) {
		error_errno("cannot read %s/%s", st->path, man_name);
		goto out;
	}
	status = ENTRY_BAD;
	if (e->archive_fd < 0) {
		strbuf_addf(why, "archive %s: %s", arc_name, strerror(arc_errno));
		goto out;
	}
	if (manifest_parse(json.buf, json.len, &e->m, why) < 0)
		goto out;
	if (strcmp(e->m.key, key)) {
		strbuf_addf(why, "manifest is for key %s", e->m.key);
		goto out;
	}
	int r = entry_archive_check(e->archive_fd, 0, &e->m, why);
	if (r < 0) {
		error_errno("cannot read %s/%s", st->path, arc_name);
		status = ENTRY_ERROR;
		goto out;
	}
	if (r == 0)
		status = ENTRY_HIT;
out:
	store_unlock(lock);
	if (mfd >= 0)
		close(mfd);
	if (status != ENTRY_HIT)
		entry_close(e);
	strbuf_release(&json);
	free(man_name);
	free(arc_name);
	return status;
}

void entry_close(struct entry *e)
{
	if (e->archive_fd >= 0)
		close(e->archive_fd);
	e->archive_fd = -1;
	manifest_release(&e->m);
}
