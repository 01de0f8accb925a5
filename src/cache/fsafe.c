/* fsafe.c - link-safe walks below a directory fd (openat, O_NOFOLLOW). */
#include "cache/fsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/die.h"
#include "util/io.h"

int fsafe_open_parent(int rootfd, const char *path, bool create, const char **leaf)
{
	int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *copy = xstrdup(path);
	char *s = copy;
	for (char *e; (e = strchr(s, '/')); s = e + 1) {
		*e = '\0';
		int next = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, s, 0755) < 0 && errno != EEXIST)
				goto fail;
			next = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0)
			goto fail;
		close(fd);
		fd = next;
	}
	*leaf = path + (s - copy);
	free(copy);
	return fd;
fail:;
	int saved = errno;
	close(fd);
	free(copy);
	errno = saved;
	return -1;
}

/* Appends the names in directory fd (not "." or ".."), fd left open.
 * Returns 0, or -1 after error() naming path. */
static int dir_names(int fd, const char *path, struct strvec *out)
{
	return dir_names_at(fd, out) < 0 ? error_errno("cannot read %s", path) : 0;
}

int fsafe_tree(int rootfd, const char *dir, struct strvec *out)
{
	const char *leaf;
	int pfd = fsafe_open_parent(rootfd, dir, false, &leaf);
	if (pfd < 0)
		return 0;
	int fd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP || errno == ENOENT
			   ? 0
			   : error_errno("cannot open %s", dir);
	struct strvec kids = STRVEC_INIT;
	int ret = dir_names(fd, dir, &kids);
	close(fd);
	for (size_t i = 0; !ret && i < kids.n; i++) {
		char *sub = xasprintf("%s/%s", dir, kids.v[i]);
		strvec_push(out, sub);
		ret = fsafe_tree(rootfd, sub, out);
		free(sub);
	}
	strvec_clear(&kids);
	return ret;
}
