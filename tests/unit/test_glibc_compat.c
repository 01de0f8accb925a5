/* Unit tests for cmake/portable/glibc_compat.c, the portable build's
 * close_range and sigabbrev_np for a glibc older than 2.32/2.34: each
 * answers as this machine's glibc does, for every number (a name missing
 * from the table would print "(null)" where Debian's vx prints TERM). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
/* CLOSE_RANGE_CLOEXEC: glibc 2.34's <unistd.h> includes it, 2.31's (the
 * portable build's sysroot) does not, as src/util/compat.c */
#include <linux/close_range.h>
#endif

#include "check.h"

#include "../../cmake/portable/glibc_compat.c"

/* (a portable build compares nothing with glibc: see main) */
#ifndef VX_COMPAT_SIGABBREV_NP
static void same(const char *what, int n, const char *got, const char *want)
{
	check_count++;
	if ((got == NULL) != (want == NULL) || (got && strcmp(got, want))) {
		check_failures++;
		fprintf(stderr, "%s(%d): got %s, glibc says %s\n", what, n, got ? got : "NULL",
			want ? want : "NULL");
	}
}
#endif

int main(void)
{
	/* In a portable build these names are glibc_compat's own (the
	 * sysroot's glibc has none): nothing to compare there. */
#ifndef VX_COMPAT_SIGABBREV_NP
	for (int s = -1; s < 80; s++)
		same("sigabbrev_np", s, vx_glibc_sigabbrev_np(s), sigabbrev_np(s));
#endif
	CHECK_STR(vx_glibc_sigabbrev_np(SIGTERM), "TERM");

	int fds[2];
	CHECK(pipe(fds) == 0);
	int lo = fds[0] < fds[1] ? fds[0] : fds[1], hi = fds[0] < fds[1] ? fds[1] : fds[0];
	CHECK(fcntl(lo, F_GETFD) == 0);
	CHECK_INT(vx_glibc_close_range((unsigned)lo, (unsigned)hi, CLOSE_RANGE_CLOEXEC), 0);
	CHECK_INT(fcntl(lo, F_GETFD), FD_CLOEXEC);
	CHECK_INT(fcntl(hi, F_GETFD), FD_CLOEXEC);
	CHECK_INT(vx_glibc_close_range((unsigned)lo, (unsigned)hi, 0), 0);
	CHECK(fcntl(lo, F_GETFD) < 0 && errno == EBADF);
	CHECK(fcntl(hi, F_GETFD) < 0 && errno == EBADF);
	return check_finish("glibc_compat");
}
