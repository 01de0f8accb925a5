#include "util/die.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(const char *prefix, const char *fmt, va_list ap, int errnum)
{
	/* One fprintf per line so concurrent writers do not interleave mid-line. */
	char msg[4096];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (errnum)
		fprintf(stderr, "vx: %s%s: %s\n", prefix, msg, strerror(errnum));
	else
		fprintf(stderr, "vx: %s%s\n", prefix, msg);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, 0);
	va_end(ap);
	exit(2);
}

void die_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, errnum);
	va_end(ap);
	exit(2);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, errnum);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("warning: ", fmt, ap, 0);
	va_end(ap);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		die("out of memory allocating %zu bytes", size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("out of memory allocating %zu bytes", size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		die("out of memory formatting a string");
	va_end(ap);
	return p;
}
