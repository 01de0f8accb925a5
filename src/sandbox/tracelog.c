/* tracelog.c - making and removing a task's trace log (tracelog.h). */
#include "sandbox/tracelog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/die.h"
#include "util/path.h"

int trace_log_make(struct trace_log *tl, const char *run_dir)
{
	tl->dir = tl->path = NULL;
	tl->fd = -1;
	char *dir = path_join(run_dir ? run_dir : "/tmp", "trace-XXXXXX");
	if (!mkdtemp(dir)) {
		int e = errno;
		free(dir);
		errno = e;
		return -1;
	}
	char *log = path_join(dir, "log");
	int fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		rmdir(dir);
		free(log);
		free(dir);
		errno = e;
		return -1;
	}
	tl->fd = fd;
	tl->dir = dir;
	tl->path = log;
	return 0;
}

void trace_log_remove(struct trace_log *tl)
{
	if (!tl->dir)
		return;
	close(tl->fd);
	tl->fd = -1;
	if (unlink(tl->path) && errno != ENOENT)
		warning("cannot remove %s: %s", tl->path, strerror(errno));
	if (rmdir(tl->dir) && errno != ENOENT) /* the run dir's removal took it */
		warning("cannot remove %s: %s", tl->dir, strerror(errno));
	free(tl->path);
	free(tl->dir);
	tl->dir = tl->path = NULL;
}
