/* bsd_ext.h - what shared code may use beyond POSIX.1-2008 with XSI: the
 * BSD extensions macOS's libc has too, declared here because glibc shows
 * them only under _DEFAULT_SOURCE (which would let GNU-only ones pass as
 * well). Force-included by tests/posix/check.sh; a new entry needs a
 * reason macOS has it. Nothing else: pipe2, O_PATH, sigabbrev_np, epoll,
 * memrchr and friends stay out of shared code. */
#ifndef VX_TEST_BSD_EXT_H
#define VX_TEST_BSD_EXT_H

#include <stdarg.h>
#include <stddef.h>

/* struct dirent's d_type: 4.4BSD, macOS <sys/dirent.h> */
#define DT_UNKNOWN 0
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10

/* macOS <stdio.h>, <string.h> (memmem since 10.7), <stdlib.h> (mkostemp
 * since 10.12; POSIX.1-2024 has it too) */
int vasprintf(char **strp, const char *fmt, va_list ap);
void *memmem(const void *hay, size_t hn, const void *needle, size_t nn);
int mkostemp(char *tmpl, int flags);

/* one above the highest signal number: <signal.h> on macOS and the BSDs */
#define NSIG 65

/* macOS <spawn.h> since 10.15 (and glibc 2.29); POSIX_SPAWN_SETSID is
 * POSIX.1-2024's too (glibc 2.26; macOS's value is 0x400) */
#include <spawn.h>
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *fa, const char *path);
#define POSIX_SPAWN_SETSID 0x400

#endif
