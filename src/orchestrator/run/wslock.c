/* wslock.c - one run at a time in a workspace: CACHE/locks/<its hash>.lock. */
#include "orchestrator/run/wslock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "util/die.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"

/* How often a waiter tries again, and looks for a signal. */
#define WAIT_STEP_MS 100

static bool interrupted(void)
{
	sigset_t pending;
	return sigpending(&pending) == 0 &&
	       (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1);
}

/* The holder's line, as it wrote it (bounded: the file is ours, but any
 * process of the user may write it). */
static void say_holder(int fd)
{
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fprintf(stderr, "vx: another vx holds this workspace (%s); waiting for it to end\n",
		*buf ? buf : "its pid is not written yet");
}

/* The holder's pid, from its line ("pid N, ..."), or 0. */
static pid_t holder_pid(int fd)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	int pid = 0;
	return sscanf(buf, "pid %d,", &pid) == 1 && pid > 0 ? (pid_t)pid : 0;
}

/* Is pid this process's parent, or its parent's, ...? A vx a task of
 * the holder started (a root task running `vx run` again) must not wait
 * for its own ancestor: it would wait forever. */
static bool is_ancestor(pid_t pid)
{
	pid_t at = getppid();
	for (int depth = 0; at > 1 && depth < 64; depth++) {
		if (at == pid)
			return true;
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%d/stat", (int)at);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		/* "PID (COMM) STATE PPID ...": COMM may hold spaces and ')' */
		const char *close_paren = strrchr(buf, ')');
		int ppid = 0;
		if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
			return false;
		at = (pid_t)ppid;
	}
	return false;
}

int wslock_take(const char *cache_dir, const char *ws_root, const char *what)
{
	char *dir = path_join(cache_dir, "locks");
	char name[32];
	snprintf(name, sizeof name, "%016llx.lock",
		 (unsigned long long)XXH3_64bits(ws_root, strlen(ws_root)));
	char *file = path_join(dir, name);
	int fd = -1, dfd = -1;
	/* the file through its directory's fd: a workspace ~4000 characters
	 * deep puts the whole path past PATH_MAX */
	const char *rel;
	int at = fs_at(dir, &rel);
	int made = fs_mkdirs(dir, 0777) == 0 ? 0 : errno;
	if (!made || made == EROFS || made == EACCES)
		dfd = openat(at, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* no locks/ in a read-only cache: why it could not be made is the
	 * reason, not the ENOENT of opening it (issue 57) */
	if (dfd < 0 && made && errno == ENOENT)
		errno = made;
	if (dfd >= 0)
		fd =
		    openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (dfd >= 0 && fd < 0 && (errno == EROFS || errno == EACCES)) {
		/* a read-only cache (said once by the run): its lock file, when
		 * a writer made one, still takes a lock opened read-only */
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			close(dfd);
			free(file);
			free(dir);
			return -1;
		}
	}
	if (dfd >= 0) {
		int e = errno;
		close(dfd);
		errno = e;
	}
	if (fd < 0) {
		warning("cannot lock the workspace (%s: %s): this run is not kept apart from "
			"another one",
			file, strerror(errno));
		free(file);
		free(dir);
		return -1;
	}
	free(file);
	free(dir);
	bool said = false;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			warning("cannot lock the workspace: %s", strerror(errno));
			close(fd);
			return -1;
		}
		pid_t holder = holder_pid(fd);
		if (holder && is_ancestor(holder)) {
			/* run by a task of the holder: it is that run's own work */
			close(fd);
			return -1;
		}
		if (!said)
			say_holder(fd);
		said = true;
		if (interrupted()) {
			close(fd);
			return -2;
		}
		struct timespec step = {0, WAIT_STEP_MS * 1000000L};
		nanosleep(&step, NULL);
	}
	struct strbuf who = STRBUF_INIT;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof when, "%H:%M:%S", localtime_r(&now, &tm));
	strbuf_addf(&who, "pid %d, %s, since %s\n", (int)getpid(), what, when);
	/* the line is for the eyes of a waiter only: a failure costs nothing */
	if (ftruncate(fd, 0) == 0)
		(void)!pwrite(fd, who.buf, who.len, 0);
	strbuf_release(&who);
	return fd;
}

void wslock_release(int fd)
{
	if (fd < 0)
		return;
	(void)!ftruncate(fd, 0); /* the lock goes with the fd whatever this says */
	close(fd);
}
