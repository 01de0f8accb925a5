/* compat.c - Linux's calls, and their POSIX stand-ins elsewhere. */
#include "util/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#ifdef __linux__
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#endif

#include "util/die.h"

int compat_pipe(int fds[2], int flags)
{
#ifdef __linux__
	return pipe2(fds, flags);
#else
	if (pipe(fds) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (((flags & O_CLOEXEC) && fcntl(fds[i], F_SETFD, FD_CLOEXEC) < 0) ||
		    ((flags & O_NONBLOCK) &&
		     fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK) < 0)) {
			int e = errno;
			close(fds[0]);
			close(fds[1]);
			errno = e;
			return -1;
		}
	}
	return 0;
#endif
}

#ifndef __linux__
/* A file made in dir and unlinked at once. */
static int unlinked(const char *dir, const char *name)
{
	char *path = xasprintf("%s/.vx-%s-XXXXXX", dir, name);
	int fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	free(path);
	return fd;
}
#endif

int compat_anon_file(const char *name)
{
#ifdef __linux__
	return memfd_create(name, MFD_CLOEXEC);
#else
	const char *t = getenv("TMPDIR");
	return unlinked(t && *t ? t : "/tmp", name);
#endif
}

int compat_tmpfile(const char *dir)
{
#ifdef __linux__
	return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
	return unlinked(dir, "tmp");
#endif
}

int compat_cloexec_from(int lowest)
{
#ifdef __linux__
	if (close_range((unsigned)lowest, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	DIR *d = opendir("/proc/self/fd");
#else
	DIR *d = opendir("/dev/fd");
#endif
	if (!d)
		return -1;
	int self = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd < lowest || fd == self)
			continue;
		int flags = fcntl((int)fd, F_GETFD);
		if (flags >= 0 && fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC)) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static bool dot_or_dotdot(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

int compat_read_dir(int fd, int (*fn)(const char *name, unsigned char type, void *ctx), void *ctx)
{
	int ret = 0;
#ifdef __linux__
	_Alignas(8) char buf[16384];
	for (ssize_t n; !ret && (n = getdents64(fd, buf, sizeof buf)) != 0;) {
		if (n < 0) {
			ret = -1;
			break;
		}
		for (ssize_t off = 0; !ret && off < n;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);
			off += d->d_reclen;
			if (!dot_or_dotdot(d->d_name))
				ret = fn(d->d_name, d->d_type, ctx);
		}
	}
	int e = errno;
	close(fd);
#else
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	struct dirent *de;
	while (!ret) {
		errno = 0;
		if (!(de = readdir(d))) {
			ret = errno ? -1 : 0;
			break;
		}
		if (!dot_or_dotdot(de->d_name))
			ret = fn(de->d_name, de->d_type, ctx);
	}
	int e = errno;
	closedir(d);
#endif
	errno = e;
	return ret;
}

int compat_pidfd(pid_t pid)
{
#ifdef __linux__
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

const char *compat_signame(int sig)
{
#ifdef __linux__
	return sigabbrev_np(sig);
#else
	static const struct {
		int sig;
		const char *name;
	} names[] = {
	    {SIGHUP, "HUP"},	   {SIGINT, "INT"},   {SIGQUIT, "QUIT"}, {SIGILL, "ILL"},
	    {SIGTRAP, "TRAP"},	   {SIGABRT, "ABRT"}, {SIGBUS, "BUS"},	 {SIGFPE, "FPE"},
	    {SIGKILL, "KILL"},	   {SIGUSR1, "USR1"}, {SIGSEGV, "SEGV"}, {SIGUSR2, "USR2"},
	    {SIGPIPE, "PIPE"},	   {SIGALRM, "ALRM"}, {SIGTERM, "TERM"}, {SIGCHLD, "CHLD"},
	    {SIGCONT, "CONT"},	   {SIGSTOP, "STOP"}, {SIGTSTP, "TSTP"}, {SIGTTIN, "TTIN"},
	    {SIGTTOU, "TTOU"},	   {SIGURG, "URG"},   {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"},
	    {SIGVTALRM, "VTALRM"}, {SIGPROF, "PROF"}, {SIGSYS, "SYS"},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
#endif
}
