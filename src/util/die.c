#include "util/die.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local void (*sink)(const char *line, void *ctx);
static _Thread_local void *sink_ctx;

void report_to(void (*fn)(const char *line, void *ctx), void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

static void report(const char *prefix, const char *fmt, va_list ap, int errnum, bool fatal)
{
	/* One fprintf per line so concurrent writers do not interleave mid-line. */
	char msg[4096], line[4352];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (errnum)
		snprintf(line, sizeof line, "vx: %s%s: %s\n", prefix, msg, strerror(errnum));
	else
		snprintf(line, sizeof line, "vx: %s%s\n", prefix, msg);
	if (sink && !fatal)
		sink(line, sink_ctx);
	else
		fputs(line, stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, 0, true);
	va_end(ap);
	exit(2);
}

void die_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, errnum, true);
	va_end(ap);
	exit(2);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, 0, false);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;
	va_start(ap, fmt);
	report("", fmt, ap, errnum, false);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("warning: ", fmt, ap, 0, false);
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

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		die("out of memory formatting a string");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
