/* die.h - how vx says it cannot go on, and the allocators that never fail. */
#ifndef VX_UTIL_DIE_H
#define VX_UTIL_DIE_H

#include <stdarg.h>
#include <stddef.h>

#define VX_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Prints "vx: MESSAGE" and exits with status 2 (vx itself could not do the job). */
_Noreturn void die(const char *fmt, ...) VX_PRINTF(1, 2);
/* Like die(), with ": strerror(errno)" appended. */
_Noreturn void die_errno(const char *fmt, ...) VX_PRINTF(1, 2);
/* Prints "vx: MESSAGE" and returns -1, so a caller can `return error(...)`. */
int error(const char *fmt, ...) VX_PRINTF(1, 2);
/* Like error(), with ": strerror(errno)" appended. */
int error_errno(const char *fmt, ...) VX_PRINTF(1, 2);
/* Prints "vx: warning: MESSAGE". */
void warning(const char *fmt, ...) VX_PRINTF(1, 2);

/* Sends this thread's error() and warning() lines ("vx: ...\n") to fn
 * instead of stderr, until called again with NULL: a worker thread hands
 * them to the loop's thread, which prints them where the display allows.
 * die() always prints. */
void report_to(void (*fn)(const char *line, void *ctx), void *ctx);

/* Allocators that die on exhaustion; they never return NULL. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) VX_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap) VX_PRINTF(1, 0);

#endif
