/* Unit tests for src/util/errnames.c: errno's names, one table read both
 * ways. Where the C library has strerrorname_np (glibc 2.32+), every number
 * is named as it names it: a name missing from the table printed "refused"
 * in a violation where glibc said ENOTEMPTY. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "util/errnames.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
static void same_as_glibc(void)
{
	for (int e = -1; e < 200; e++) {
		const char *got = errname_of(e), *want = strerrorname_np(e);
		check_count++;
		if ((got == NULL) != (want == NULL) || (got && strcmp(got, want))) {
			check_failures++;
			fprintf(stderr, "errname_of(%d): got %s, glibc says %s\n", e,
				got ? got : "NULL", want ? want : "NULL");
		}
	}
}
#else
static void same_as_glibc(void)
{
}
#endif

/* Every name printed reads back as its number. */
static void round_trip(void)
{
	for (int e = 1; e < 200; e++) {
		const char *name = errname_of(e);
		if (name)
			CHECK_INT(errname_value(name, strlen(name)), e);
	}
}

int main(void)
{
	same_as_glibc();
	round_trip();
	CHECK_STR(errname_of(ENOENT), "ENOENT");
	CHECK_STR(errname_of(EAGAIN), "EAGAIN");
	CHECK(errname_of(-1) == NULL);
	CHECK_INT(errname_value("EROFS", 5), EROFS);
	CHECK_INT(errname_value("EROFSX", 5), EROFS); /* len bytes, not the string */
	CHECK_INT(errname_value("ENOPE", 5), 0);
	CHECK_INT(errname_value("0", 1), 0);
	CHECK_INT(errname_value("", 0), 0);
	/* aliases read, as strace may print them */
	CHECK_INT(errname_value("EWOULDBLOCK", 11), EWOULDBLOCK);
	CHECK_INT(errname_value("ENOTSUP", 7), ENOTSUP);
	/* names strace.c's old table lacked: a failed connect's ECONNRESET
	 * line was counted as unparsable */
	CHECK_INT(errname_value("ECONNRESET", 10), ECONNRESET);
	CHECK_INT(errname_value("ENOBUFS", 7), ENOBUFS);
	return check_finish("errnames");
}
