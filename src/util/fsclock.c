#include "util/fsclock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/die.h"
#include "util/io.h"
#include "util/path.h"

/* How long a reading serves. Each is a write and an fstat (a round trip
 * each on NFS): a cold run lists and reads thousands of files, and asks
 * before each; 50 ms old costs at most the racy second of a file changed
 * in those 50 ms around a second's turn (one more hash next run). */
#define FRESH_NS (50 * 1000 * 1000)

static struct {
	pthread_mutex_t mu;
	char *file;	 /* the stamp's path; NULL: vx's own clock (fs_clock_anchor) */
	int fd;		 /* the stamp open for writing; -1 until it could be (stamp) */
	bool tried;	 /* a reading was attempted at mono_ns (fs_clock_sec) */
	bool ok;	 /* and it gave sec (else vx's clock serves until FRESH_NS) */
	int64_t mono_ns; /* CLOCK_MONOTONIC of the last attempt */
	int64_t sec;	 /* the stamp's mtime second at the last good reading */
} clk = {PTHREAD_MUTEX_INITIALIZER, NULL, -1, false, false, 0, 0};

void fs_clock_anchor(const char *dir)
{
	char *file = dir ? path_join(dir, FS_CLOCK_FILE) : NULL;
	pthread_mutex_lock(&clk.mu);
	if (!file || !clk.file || strcmp(file, clk.file)) {
		if (clk.fd >= 0)
			close(clk.fd);
		clk.fd = -1;
		clk.tried = false;
		free(clk.file);
		clk.file = file;
		file = NULL;
	}
	pthread_mutex_unlock(&clk.mu);
	free(file);
}

static int64_t own_clock_sec(void)
{
	struct timespec ts;
#ifdef CLOCK_REALTIME_COARSE
	/* Linux stamps files with the coarse clock, which may trail
	 * CLOCK_REALTIME by a tick */
	if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) == 0)
		return ts.tv_sec;
#endif
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		die_errno("clock_gettime");
	return ts.tv_sec;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		die_errno("clock_gettime");
	return fs_ns(ts);
}

/* Has the file system stamp the file and reads the stamp: a write sets
 * the mtime from the clock of whatever keeps the file (the kernel's, an
 * NFS server's, a VM's host), as it does for every input. futimens(NULL)
 * would do it without data, but a preloaded libfaketime fakes that one
 * too. Returns 0 with *sec, or -1. Called under clk.mu. */
static int stamp(int64_t *sec)
{
	if (clk.fd < 0) {
		const char *rel;
		int at = fs_at(clk.file, &rel);
		clk.fd = openat(at, rel, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (clk.fd < 0)
			return -1;
		/* a hard link planted there would have its first byte
		 * written (a review): only a file of vx's own */
		struct stat own;
		if (fstat(clk.fd, &own) < 0 || !S_ISREG(own.st_mode) || own.st_nlink != 1) {
			close(clk.fd);
			clk.fd = -1;
			return -1;
		}
	}
	ssize_t n;
	while ((n = pwrite(clk.fd, "\n", 1, 0)) < 0 && errno == EINTR)
		;
	struct stat st;
	if (n != 1 || fstat(clk.fd, &st) < 0)
		return -1;
	*sec = fs_sec_of(fs_ns(st.st_mtim));
	return 0;
}

int64_t fs_clock_sec(void)
{
	int64_t now = mono_ns(), sec = 0;
	bool ok = false;
	pthread_mutex_lock(&clk.mu);
	if (clk.file) {
		if (!clk.tried || now - clk.mono_ns >= FRESH_NS || now < clk.mono_ns) {
			clk.tried = true;
			clk.mono_ns = now;
			clk.ok = stamp(&clk.sec) == 0;
		}
		ok = clk.ok;
		sec = clk.sec;
	}
	pthread_mutex_unlock(&clk.mu);
	return ok ? sec : own_clock_sec();
}
