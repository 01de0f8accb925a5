/* compat.h - the one seam between Linux and the other POSIX systems vx
 * builds on (macOS): each call is Linux's own where Linux has it and a
 * POSIX equivalent elsewhere. Shared code calls these, never the Linux
 * originals: tests/posix/check.sh compiles it as a POSIX system that is
 * not Linux would, and fails on a Linux-only call. */
#ifndef VX_UTIL_COMPAT_H
#define VX_UTIL_COMPAT_H

#include <sys/types.h>

/* pipe(2) with flags (O_CLOEXEC, O_NONBLOCK) set on both ends: pipe2 on
 * Linux; pipe and fcntl elsewhere (not atomic with a fork: vx spawns with
 * posix_spawn from one thread). Returns 0, or -1 with errno. */
int compat_pipe(int fds[2], int flags);

/* An anonymous read-write file, close-on-exec: memfd_create on Linux, an
 * unlinked file under TMPDIR elsewhere. Returns the fd, or -1 with errno. */
int compat_anon_file(const char *name);

/* An unnamed file in directory dir, close-on-exec: O_TMPFILE on Linux, a
 * file made and unlinked at once elsewhere. Returns the fd, or -1. */
int compat_tmpfile(const char *dir);

/* Marks every descriptor from lowest up close-on-exec: close_range(2) on
 * Linux 5.11+, else a walk of /proc/self/fd (Linux) or /dev/fd. Returns 0,
 * or -1 with errno. */
int compat_cloexec_from(int lowest);

/* A descriptor that becomes readable when process pid exits: pidfd_open
 * on Linux (5.3+); -1 with ENOSYS elsewhere. */
int compat_pidfd(pid_t pid);

/* The abbreviation of signal sig ("TERM"), or NULL when unknown. */
const char *compat_signame(int sig);

/* Calls fn for each entry of the directory open at fd (not "." or ".."),
 * with its d_type (DT_UNKNOWN where the file system gives none), and
 * closes fd: getdents64 on Linux (fdopendir costs an fstat and two fcntl
 * a directory, and a walk reads thousands), fdopendir and readdir
 * elsewhere. fn returns 0 to go on. Returns 0, fn's non-zero, or -1 with
 * errno; fd is closed in every case. */
int compat_read_dir(int fd, int (*fn)(const char *name, unsigned char type, void *ctx), void *ctx);

/* One above the highest signal number. */
#define COMPAT_NSIG 65

#endif
