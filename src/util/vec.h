/* vec.h - growable arrays: a typed VEC(T) and the NULL-terminated strvec. */
#ifndef VX_UTIL_VEC_H
#define VX_UTIL_VEC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/die.h"

#define VEC(T)                                                                                     \
	struct {                                                                                   \
		T *v;                                                                              \
		size_t n, alloc;                                                                   \
	}

/* Grows *v so it holds at least need elements of size elem. */
void vec_reserve_(void **v, size_t *alloc, size_t need, size_t elem);

#define vec_reserve(vec, need)                                                                     \
	vec_reserve_((void **)&(vec)->v, &(vec)->alloc, (need), sizeof *(vec)->v)
#define vec_push(vec, x) (vec_reserve((vec), (vec)->n + 1), (vec)->v[(vec)->n++] = (x))
#define vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->alloc = 0)

/* v is NULL-terminated whenever n > 0 or after strvec_init; it owns its strings. */
struct strvec {
	char **v;
	size_t n, alloc;
};
#define STRVEC_INIT                                                                                \
	{                                                                                          \
		0                                                                                  \
	}

void strvec_push(struct strvec *sv, const char *s);
void strvec_push_nodup(struct strvec *sv, char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) VX_PRINTF(2, 3);
void strvec_clear(struct strvec *sv);
/* Copies every string of src to the end of dst. */
void strvec_extend(struct strvec *dst, const struct strvec *src);
/* Returns the index of s, or -1. */
long strvec_find(const struct strvec *sv, const char *s);
/* Sorts with strcmp and drops repeats. */
void strvec_sort_unique(struct strvec *sv);
/* How many strings of sv, sorted in strcmp order, lie below the directory
 * dir (start with "dir/"): they are consecutive, found by bisection, the
 * first at *first (where one would go when none; first may be NULL). */
size_t strvec_sorted_below(const struct strvec *sv, const char *dir, size_t *first);
/* Sorts in strcmp order, keeping duplicates. */
void strvec_sort(struct strvec *sv);
/* The qsort comparator of two char * in strcmp order. */
int str_ptr_cmp(const void *a, const void *b);
/* Returns sv->v, allocating an empty NULL-terminated array if none yet. */
char **strvec_argv(struct strvec *sv);

#endif
