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
	if (mfd >= 0) {
		afd = openat(st->dirfd, arc_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	} else if (errno == ENOENT) {
		/* a bundle is the body already: no head to add */
		char *bundle = store_entry_name(key, STORE_BUNDLE_SUFFIX);
		int bfd = openat(st->dirfd, bundle, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		free(bundle);
		store_unlock(lock);
		lock = -1;
		struct stat bst;
		if (bfd < 0 || fstat(bfd, &bst) < 0) {
			rc = bfd < 0 && errno == ENOENT
				 ? 1
				 : error_errno("cannot open the entry %s", key);
			if (bfd >= 0)
				close(bfd);
			goto out;
		}
		*head = xstrdup("");
		*head_len = 0;
		*archive_fd = bfd;
		*archive_size = (uint64_t)bst.st_size;
		rc = 0;
		goto out;
	}
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
	strbuf_addf(&h, ENTRY_BUNDLE_MAGIC "%zu\n", json.len);
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

int transfer_body_begins(const char *buf, size_t n)
{
	uint64_t len;
	int head = entry_bundle_head(buf, n, &len);
	if (head <= 0)
		return head;
	if ((size_t)head == n)
		return 0;
	return buf[head] == '{' ? 1 : -1; /* the manifest is a JSON object */
}

int transfer_tmp(const struct store *st, const char *key, char **path)
{
	if (store_shard_make(st, key) < 0)
		return -1;
	return entry_tmp_create(st, key, path);
}

int transfer_import(const struct store *st, const char *key, int fd, const char *tmp,
		    struct strbuf *why)
{
	struct manifest m = {0};
	char *name = store_entry_name(key, STORE_BUNDLE_SUFFIX);
	off_t off;
	int rc = entry_bundle_read(fd, &m, &off, why);
	bool parsed = rc == 0;
	if (rc)
		goto out;
	rc = 1;
	if (strcmp(m.key, key)) {
		strbuf_addf(why, "its manifest is for key %s", m.key);
		goto out;
	}
	int r = entry_archive_check(fd, off, &m, why);
	if (r) {
		rc = r < 0 ? error_errno("cannot read the download of %s", key) : 1;
		goto out;
	}
	/* Verified whole: the download itself becomes the entry (a bundle),
	 * renamed in under the lock as entry_save renames its pair. */
	int lock = store_shard_make(st, key) < 0 ? -1 : store_lock(st, true);
	if (lock < 0) {
		rc = -1;
		goto out;
	}
	if (renameat(st->dirfd, tmp, st->dirfd, name) < 0)
		rc = error_errno("cannot rename %s/%s", st->path, tmp);
	else
		rc = 0;
	store_unlock(lock);
out:
	free(name);
	if (parsed)
		manifest_release(&m);
	return rc;
}
