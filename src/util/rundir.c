/* rundir.c - a run's own temporary directory, and the sweep of dead ones. */
#include "util/rundir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/die.h"
#include "util/io.h"
#include "util/path.h"
#include "util/vec.h"

#define PREFIX "vx-run-"
/* A directory younger than this is never swept: its vx may be between
 * mkdtemp and the flock that marks it alive. */
#define GRACE_S 60

/* Is the run that made dir (a child of basefd) gone? Its vx held an
 * exclusive flock on the directory itself while it lived. */
static bool owner_dead(int basefd, const char *name, const struct stat *st)
{
	if (time(NULL) - st->st_mtime <= GRACE_S)
		return false;
	int fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool dead = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd); /* releases the probe's lock */
	return dead;
}

static void sweep(const char *base, void (*reap)(int dirfd))
{
	int basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0)
		return;
	struct strvec names = STRVEC_INIT;
	dir_names_at(basefd, &names);
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		struct stat st;
		if (strncmp(name, PREFIX, strlen(PREFIX)) ||
		    fstatat(basefd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || !owner_dead(basefd, name, &st))
			continue;
		if (reap) {
			int fd =
			    openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				reap(fd);
				close(fd);
			}
		}
		remove_tree_at(basefd, name);
	}
	strvec_clear(&names);
	close(basefd);
}

char *rundir_private_base(void)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	return xasprintf("%s/vx-%lu", tmp, (unsigned long)geteuid());
}

/* Makes base mode 0700 when missing. Returns 0, or -1 with errno: EPERM
 * when it is not a directory of ours, which no run may then use. */
static int make_private(const char *base)
{
	if (mkdir(base, 0700) < 0 && errno != EEXIST)
		return -1;
	/* /tmp is everyone's: what stands at that name may be another user's
	 * or a link planted there, and is then never used. */
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    ((st.st_mode & 077) && fchmod(fd, 0700) < 0)) {
		int e = fd < 0 && errno != ENOTDIR && errno != ELOOP ? errno : EPERM;
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

int rundir_open(struct rundir *rd, const char *base)
{
	return rundir_open_reaping(rd, base, NULL);
}

int rundir_open_reaping(struct rundir *rd, const char *base, void (*reap)(int dirfd))
{
	rd->base = NULL;
	rd->path = NULL;
	rd->lock_fd = -1;
	char *own = base ? xstrdup(base) : rundir_private_base();
	if (!base && make_private(own) < 0) {
		int e = errno;
		free(own);
		errno = e;
		return -1;
	}
	sweep(own, reap);
	char *tmpl = path_join(own, PREFIX "XXXXXX");
	if (!mkdtemp(tmpl)) {
		int e = errno;
		free(tmpl);
		free(own);
		errno = e;
		return -1;
	}
	int fd = open(tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		rmdir(tmpl);
		free(tmpl);
		free(own);
		errno = e;
		return -1;
	}
	rd->base = own;
	rd->path = tmpl;
	rd->lock_fd = fd;
	return 0;
}

void rundir_close(struct rundir *rd)
{
	if (!rd->path)
		return;
	int pfd = open(rd->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd >= 0) {
		remove_tree_at(pfd, path_basename(rd->path));
		close(pfd);
	}
	close(rd->lock_fd);
	free(rd->path);
	free(rd->base);
	rd->path = rd->base = NULL;
	rd->lock_fd = -1;
}
