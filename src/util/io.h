/* io.h - whole writes on file descriptors. */
#ifndef VX_UTIL_IO_H
#define VX_UTIL_IO_H

#include <stddef.h>

/* Writes all n bytes of buf to fd, retrying on EINTR and short writes.
 * Returns 0, or -1 with errno set. */
int write_all(int fd, const void *buf, size_t n);

#endif
