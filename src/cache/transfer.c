/* transfer.c - a cache entry as one body for the remote cache. */
#include "cache/transfer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/entry.h"
#include "cache/filehash.h"
#include "cache/manifest.h"
#include "util/die.h"
#include "util/io.h"

#define MAGIC "vx-entry 1 "
/* A manifest lists inputs and outputs: large, but not this large. */
#define MANIFEST_MAX ((size_t)64 << 20)

int transfer_export(const struct store *st, const char *key, char **head, size_t *head_len,
		    int *archive_fd, uint64_t *archive_size)
{
	char *man_name = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	char *arc_name = store_entry_name(key, STORE_ARCHIVE_SUFFIX);
	struct strbuf json = STRBUF_INIT;
	int rc = -1, mfd = -1, afd = -1;
	int lock = store_lock(st, false);
	if (lock < 0)
		goto out;
	mfd = openat(st->dirfd, man_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (mfd >= 0)
		afd = openat(st->dirfd, arc_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	store_unlock(lock);
	if (mfd < 0 || afd < 0) {
		rc = errno == ENOENT ? 1 : error_errno("cannot open the entry %s", key);
		goto out;
	}
	struct stat ast;
	if (strbuf_read_fd(&json, mfd) < 0 || fstat(afd, &ast) < 0) {
		error_errno("cannot read the entry %s", key);
		goto out;
	}
	struct strbuf h = STRBUF_INIT;
	strbuf_addf(&h, MAGIC "%zu\n", json.len);
	strbuf_add(&h, json.buf, json.len);
	*head_len = h.len;
	*head = strbuf_detach(&h, NULL);
	*archive_fd = afd;
	*archive_size = (uint64_t)ast.st_size;
	afd = -1;
	rc = 0;
out:
	if (mfd >= 0)
		close(mfd);
	if (afd >= 0)
		close(afd);
	strbuf_release(&json);
	free(man_name);
	free(arc_name);
	return rc;
}

int transfer_tmp(const struct store *st, const char *key, char **path)
{
	if (store_shard_make(st, key) < 0)
		return -1;
	return entry_tmp_create(st, key, path);
}

/* Reads the head "vx-entry 1 N\n" at offset 0. Returns N and *at (the
 * manifest's offset), or -1 with why filled. */
static long long read_head(int fd, off_t *at, struct strbuf *why)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n < 0)
		return strbuf_addf(why, "cannot read the download: %s", strerror(errno)), -1;
	buf[n] = 0;
	char *nl = memchr(buf, '\n', (size_t)n);
	size_t ml = strlen(MAGIC);
	if (!nl || (size_t)n < ml || memcmp(buf, MAGIC, ml))
		return strbuf_addstr(why, "not a vx cache entry (its head is missing)"), -1;
	char *end;
	errno = 0;
	unsigned long long len = strtoull(buf + ml, &end, 10);
	if (end != nl || end == buf + ml || errno || len == 0 || len > MANIFEST_MAX)
		return strbuf_addstr(why, "not a vx cache entry (its head is malformed)"), -1;
	*at = nl + 1 - buf;
	return (long long)len;
}

/* Copies len bytes of in from offset off to out (kernel-side when it can). */
static int copy_range(int in, off_t off, int out, uint64_t len)
{
	while (len) {
		ssize_t n = copy_file_range(in, &off, out, NULL, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			char buf[65536];
			ssize_t r = pread(in, buf, len < sizeof buf ? len : sizeof buf, off);
			if (r <= 0 || write_all(out, buf, (size_t)r) < 0)
				return -1;
			off += r;
			len -= (uint64_t)r;
			continue;
		}
		if (n <= 0)
			return -1;
		len -= (uint64_t)n;
	}
	return 0;
}

int transfer_import(const struct store *st, const char *key, int fd, struct strbuf *why)
{
	struct manifest m = {0};
	char *json = NULL, *arc_tmp = NULL, *man_tmp = NULL;
	char *arc_name = store_entry_name(key, STORE_ARCHIVE_SUFFIX);
	char *man_name = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	int rc = 1, afd = -1, mfd = -1, lock = -1;
	bool parsed = false;
	off_t at;
	struct stat bst;
	long long mlen = read_head(fd, &at, why);
	if (mlen < 0)
		goto out;
	if (fstat(fd, &bst) < 0) {
		rc = error_errno("cannot stat the download of %s", key);
		goto out;
	}
	if ((long long)bst.st_size < at + mlen) {
		strbuf_addstr(why, "the download ends inside its manifest");
		goto out;
	}
	json = xmalloc((size_t)mlen + 1);
	if (pread(fd, json, (size_t)mlen, at) != mlen) {
		strbuf_addstr(why, "the download cannot be read back");
		goto out;
	}
	json[mlen] = 0;
	if (manifest_parse(json, (size_t)mlen, &m, why) < 0)
		goto out;
	parsed = true;
	if (strcmp(m.key, key)) {
		strbuf_addf(why, "its manifest is for key %s", m.key);
		goto out;
	}
	uint64_t arc_size = (uint64_t)bst.st_size - (uint64_t)(at + mlen);
	if (arc_size != m.archive_size) {
		strbuf_addf(why, "its archive is %llu bytes, its manifest says %llu",
			    (unsigned long long)arc_size, (unsigned long long)m.archive_size);
		goto out;
	}
	rc = -1;
	if ((afd = transfer_tmp(st, key, &arc_tmp)) < 0)
		goto out;
	if (copy_range(fd, at + mlen, afd, arc_size) < 0) {
		error_errno("cannot write %s", arc_tmp);
		goto out;
	}
	char hash[KEY_HEX_SIZE];
	if (lseek(afd, 0, SEEK_SET) < 0 || filehash_fd(afd, hash) < 0) {
		error_errno("cannot read %s", arc_tmp);
		goto out;
	}
	if (strcmp(hash, m.archive_hash)) {
		strbuf_addf(why, "its archive's checksum is %s, its manifest says %s", hash,
			    m.archive_hash);
		rc = 1;
		goto out;
	}
	if ((mfd = entry_tmp_create(st, key, &man_tmp)) < 0)
		goto out;
	if (write_all(mfd, json, (size_t)mlen) < 0) {
		error_errno("cannot write %s", man_tmp);
		goto out;
	}
	/* As entry_save: archive first, the manifest last, under the lock. */
	if ((lock = store_lock(st, true)) < 0)
		goto out;
	if (renameat(AT_FDCWD, arc_tmp, st->dirfd, arc_name) < 0) {
		error_errno("cannot rename %s", arc_tmp);
		goto out;
	}
	free(arc_tmp);
	arc_tmp = NULL;
	if (renameat(AT_FDCWD, man_tmp, st->dirfd, man_name) < 0) {
		error_errno("cannot rename %s", man_tmp);
		goto out;
	}
	free(man_tmp);
	man_tmp = NULL;
	rc = 0;
out:
	store_unlock(lock);
	if (afd >= 0)
		close(afd);
	if (mfd >= 0)
		close(mfd);
	if (arc_tmp)
		unlink(arc_tmp);
	if (man_tmp)
		unlink(man_tmp);
	free(arc_tmp);
	free(man_tmp);
	free(arc_name);
	free(man_name);
	free(json);
	if (parsed)
		manifest_release(&m);
	return rc;
}
