/* path.h - lexical path arithmetic on '/'-separated strings. No I/O. */
#ifndef VX_UTIL_PATH_H
#define VX_UTIL_PATH_H

#include <stdbool.h>

/* Returns a + "/" + b (b as is when absolute), normalized; caller frees. */
char *path_join(const char *a, const char *b);
/* Returns p with "//", "." and "x/.." removed lexically; "" becomes ".".
 * A leading ".." of a relative path stays; "/.." is "/". Caller frees. */
char *path_normalize(const char *p);
/* Returns the path of `to` relative to directory `from` (both absolute and
 * normalized), e.g. ("/w/a", "/w/b/c") -> "../b/c"; caller frees. */
char *path_relative(const char *from, const char *to);
/* True when path equals dir or lies below it (both normalized). */
bool path_is_within(const char *dir, const char *path);
/* Returns everything before the last '/' ("." when none, "/" for "/x"); caller frees. */
char *path_dirname(const char *p);
/* Whether a and b lie in the same directory (the same text before their
 * last '/', or neither has one): sorted siblings come together. */
bool path_same_dir(const char *a, const char *b);
/* Returns a pointer into p after the last '/'. */
const char *path_basename(const char *p);
/* Returns the absolute, normalized form of p against the current directory,
 * without resolving links; caller frees. Dies if the cwd cannot be read. */
char *path_absolute(const char *p);

#endif
