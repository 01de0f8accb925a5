/* errnames.h - errno's symbolic names, one table both ways: the strace
 * parser reads "ENOENT" into a number, the reports print a number as
 * "ENOENT". The names are glibc 2.36's strerrorname_np answers (tests/unit/
 * test_errnames.c compares every number where the C library has it), so no
 * build asks the C library: the portable build's glibc 2.30 floor has no
 * strerrorname_np, and macOS's libc none at all. */
#ifndef VX_UTIL_ERRNAMES_H
#define VX_UTIL_ERRNAMES_H

#include <stddef.h>

/* The name of errno value err ("ENOENT"; "0" for 0, as glibc), or NULL for
 * a number with no name. Where two names share a number (EAGAIN and
 * EWOULDBLOCK, EOPNOTSUPP and ENOTSUP on Linux) the first, glibc's. */
const char *errname_of(int err);

/* The errno value of the len bytes at name ("EROFS"), aliases included;
 * 0 when unknown. */
int errname_value(const char *name, size_t len);

#endif
