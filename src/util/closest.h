/* closest.h - the nearest of some names to a word, for "did you mean". */
#ifndef VX_UTIL_CLOSEST_H
#define VX_UTIL_CLOSEST_H

#include <stddef.h>

/* Levenshtein distance of a and b, ASCII case ignored. */
size_t closest_distance(const char *a, const char *b);

/* The name of names[0..n) nearest to word when it is near enough to be a
 * typo of it (two edits for a short word, about a third of a longer one),
 * else NULL. NULL entries of names are skipped. */
const char *closest_name(const char *word, const char *const *names, size_t n);

#endif
