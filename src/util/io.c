#include "util/io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/vec.h"

int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int push_name(const char *name, unsigned char type, void *ctx)
{
	(void)type;
	strvec_push(ctx, name);
	return 0;
}

int dir_names_at(int dirfd, struct strvec *out)
{
	int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	return dup < 0 ? -1 : compat_read_dir(dup, push_name, out);
}

static int clear_dir(int fd)
{
	/* A restored 0555 directory must still be emptied. */
	struct stat st;
	if (fstat(fd, &st) < 0 || fchmod(fd, (st.st_mode & 07777) | 0700) < 0)
		return -1;
	struct strvec kids = STRVEC_INIT;
	int ret = dir_names_at(fd, &kids);
	int e = errno;
	for (size_t i = 0; !ret && i < kids.n; i++) {
		ret = remove_tree_at(fd, kids.v[i]);
		e = errno;
	}
	strvec_clear(&kids);
	errno = e;
	return ret;
}

int remove_tree_at(int dfd, const char *leaf)
{
	if (!unlinkat(dfd, leaf, 0) || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	int fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int ret = clear_dir(fd);
	int e = errno;
	close(fd);
	if (!ret && unlinkat(dfd, leaf, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -1;
	errno = e;
	return ret;
}

int write_file_atomic(const char *path, const void *buf, size_t n)
{
	/* from the anchor when the file lies under it, as reads are: a
	 * workspace ~4000 characters deep puts its cache's files past
	 * PATH_MAX (issue 39) */
	const char *rel;
	int at = fs_at(path, &rel);
	char *tmp = xasprintf("%s.tmp-%ld", rel, (long)getpid());
	int fd = openat(at, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	int rc = -1;
	if (fd >= 0) {
		rc = write_all(fd, buf, n);
		if (close(fd))
			rc = -1;
		if (!rc)
			rc = renameat(at, tmp, at, rel);
		if (rc) {
			int e = errno;
			unlinkat(at, tmp, 0);
			errno = e;
		}
	}
	free(tmp);
	return rc;
}

static int anchor_fd = -1;
static char *anchor_dir;
static size_t anchor_len;

void fs_anchor(const char *dir)
{
	/* vx watch loads the same workspace every cycle: the fd stays while
	 * it is still that directory, and no thread of the last cycle can
	 * meet a closed (or reused) one */
	struct stat a, b;
	if (anchor_dir && !strcmp(anchor_dir, dir) && fstat(anchor_fd, &a) == 0 &&
	    stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return;
	if (anchor_fd >= 0)
		close(anchor_fd);
	free(anchor_dir);
	anchor_fd = -1;
	anchor_dir = NULL;
	/* "/": every absolute path starts there already */
	if (dir[0] != '/' || !dir[1])
		return;
	anchor_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (anchor_fd >= 0) {
		anchor_dir = xstrdup(dir);
		anchor_len = strlen(dir);
	}
}

int fs_at(const char *abs, const char **rel)
{
	if (anchor_fd >= 0 && !strncmp(abs, anchor_dir, anchor_len) && abs[anchor_len] == '/' &&
	    abs[anchor_len + 1]) {
		*rel = abs + anchor_len + 1;
		return anchor_fd;
	}
	*rel = abs;
	return AT_FDCWD;
}

int fs_stat(const char *abs, struct stat *st, int flags)
{
	const char *rel;
	int at = fs_at(abs, &rel);
	return fstatat(at, rel, st, flags);
}

int64_t fs_ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int64_t fs_sec_of(int64_t ns)
{
	return ns >= 0 ? ns / 1000000000 : -((-ns + 999999999) / 1000000000);
}

/* dir's parent, lexically ("/a" -> "/", "a" -> "."): io.c stays below
 * path.c, whose strbuf reads files through here (no circle of includes). */
static char *parent_of(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (n > 0 && dir[n - 1] != '/')
		n--;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n ? xstrndup(dir, n) : xstrdup(".");
}

int fs_mkdirs(const char *dir, mode_t mode)
{
	/* from the anchor under it, as fs_stat looks: a deep workspace's
	 * path may pass PATH_MAX below it */
	struct stat st;
	if (fs_stat(dir, &st, 0) == 0)
		return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	char *parent = parent_of(dir);
	int rc = strcmp(parent, dir) ? fs_mkdirs(parent, mode) : 0;
	free(parent);
	const char *rel;
	int at = fs_at(dir, &rel);
	if (rc == 0 && mkdirat(at, rel, mode) && errno != EEXIST)
		rc = -1;
	return rc;
}

bool fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
