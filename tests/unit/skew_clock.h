/* skew_clock.h - vx's own clock as a unit test skews it: the code under
 * test is linked into the test's binary, so its clock_gettime is this one,
 * while the kernel stamps every file time as always (vx's clock ahead of
 * an NFS server's, a VM's: issue 57 item 5). Include once, in the test's
 * one source file. */
#ifndef VX_TEST_SKEW_CLOCK_H
#define VX_TEST_SKEW_CLOCK_H

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Seconds added to CLOCK_REALTIME and CLOCK_REALTIME_COARSE. */
static time_t clock_skew;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (syscall(SYS_clock_gettime, id, ts))
		return -1;
	if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)
		ts->tv_sec += clock_skew;
	return 0;
}

#endif
