/* glibc_compat.h - the glibc calls vx makes that an older glibc lacks
 * (close_range: 2.34; sigabbrev_np: 2.32), for the
 * portable build against Debian 11's glibc 2.31 (cmake/portable.cmake
 * forces this header into every source, and defines VX_COMPAT_NAME for
 * each call the sysroot's glibc has not). Each call is renamed to
 * vx_glibc_NAME, defined in glibc_compat.c: a glibc that has it is never
 * shadowed, and a binary built so asks for no newer symbol version. */
#ifndef VX_GLIBC_COMPAT_H
#define VX_GLIBC_COMPAT_H

#ifdef VX_COMPAT_CLOSE_RANGE
/* the system call itself (Linux 5.9; ENOSYS before), as glibc's wrapper */
int vx_glibc_close_range(unsigned int first, unsigned int last, int flags);
#define close_range vx_glibc_close_range
#endif

#ifdef VX_COMPAT_CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2) /* Linux 5.11 */
#endif

#ifdef VX_COMPAT_SIGABBREV_NP
/* "HUP" for SIGHUP, NULL for a real-time or unknown signal: glibc's */
const char *vx_glibc_sigabbrev_np(int sig);
#define sigabbrev_np vx_glibc_sigabbrev_np
#endif

#endif
