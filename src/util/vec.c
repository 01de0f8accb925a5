#include "util/vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vec_reserve_(void **v, size_t *alloc, size_t need, size_t elem)
{
	if (need <= *alloc)
		return;
	size_t n = *alloc ? *alloc : 8;
	while (n < need)
		n *= 2;
	if (n > (size_t)-1 / elem)
		die("array too large");
	*v = xrealloc(*v, n * elem);
	*alloc = n;
}

void strvec_push_nodup(struct strvec *sv, char *s)
{
	vec_reserve_((void **)&sv->v, &sv->alloc, sv->n + 2, sizeof *sv->v);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	strvec_push_nodup(sv, p);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

void strvec_extend(struct strvec *dst, const struct strvec *src)
{
	for (size_t i = 0; i < src->n; i++)
		strvec_push(dst, src->v[i]);
}

long strvec_find(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}

int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t strvec_sorted_below(const struct strvec *sv, const char *dir, size_t *first)
{
	size_t len = strlen(dir), lo = 0, hi = sv->n;
	/* the first string not before "dir/": every one below dir follows it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(sv->v[mid], dir, len);
		if (c < 0 || (!c && (unsigned char)sv->v[mid][len] < '/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t n = 0;
	if (first)
		*first = lo;
	for (size_t i = lo; i < sv->n && !strncmp(sv->v[i], dir, len) && sv->v[i][len] == '/'; i++)
		n++;
	return n;
}

void strvec_sort(struct strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof *sv->v, str_ptr_cmp);
}

void strvec_sort_unique(struct strvec *sv)
{
	if (sv->n < 2)
		return;
	size_t sorted = 1; /* most come sorted already: one pass says so */
	while (sorted < sv->n && strcmp(sv->v[sorted - 1], sv->v[sorted]) < 0)
		sorted++;
	if (sorted == sv->n)
		return;
	qsort(sv->v, sv->n, sizeof *sv->v, str_ptr_cmp);
	size_t out = 1;
	for (size_t i = 1; i < sv->n; i++) {
		if (!strcmp(sv->v[i], sv->v[out - 1]))
			free(sv->v[i]);
		else
			sv->v[out++] = sv->v[i];
	}
	sv->n = out;
	sv->v[out] = NULL;
}

char **strvec_argv(struct strvec *sv)
{
	if (!sv->v) {
		vec_reserve_((void **)&sv->v, &sv->alloc, 1, sizeof *sv->v);
		sv->v[0] = NULL;
	}
	return sv->v;
}
