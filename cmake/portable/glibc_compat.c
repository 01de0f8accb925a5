/* glibc_compat.c - close_range and sigabbrev_np for a glibc older than
 * the one that added each (glibc_compat.h). The names are glibc 2.36's,
 * printed by it for every number (tests/unit/test_glibc_compat.c compares
 * the two where both exist). errno's names are no longer asked of glibc:
 * src/util/errnames.c holds them for every build. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_close_range
#define __NR_close_range 436 /* the same number on every architecture */
#endif

int vx_glibc_close_range(unsigned int first, unsigned int last, int flags)
{
	return (int)syscall(__NR_close_range, first, last, flags);
}

const char *vx_glibc_sigabbrev_np(int sig)
{
	static const char *const names[] = {
#define S(x) [SIG##x] = #x
	    S(HUP),  S(INT),	S(QUIT), S(ILL),   S(TRAP), S(ABRT), S(BUS),  S(FPE),
	    S(KILL), S(USR1),	S(SEGV), S(USR2),  S(PIPE), S(ALRM), S(TERM), S(STKFLT),
	    S(CHLD), S(CONT),	S(STOP), S(TSTP),  S(TTIN), S(TTOU), S(URG),  S(XCPU),
	    S(XFSZ), S(VTALRM), S(PROF), S(WINCH), S(POLL), S(PWR),  S(SYS),
#undef S
	};
	if (sig < 0 || (size_t)sig >= sizeof names / sizeof *names)
		return NULL;
	return names[sig];
}
