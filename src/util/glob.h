/* glob.h - glob patterns over '/'-separated relative paths (SPEC §2.2):
 * `*` `?` `[...]` `**` `{a,b}` and `\` escapes. Pure: no I/O but glob_walk. */
#ifndef VX_UTIL_GLOB_H
#define VX_UTIL_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#include "util/vec.h"

/* True when the whole of path matches pat. `*` and `?` and `[...]` never match
 * '/'; a `**` segment matches zero or more whole segments; `[!...]`/`[^...]`
 * negate a class, ranges are `a-z`; `{a,b}` alternates (nested allowed);
 * `\c` is the literal c. A leading "./" in pat or path is ignored, and so is a
 * trailing '/'. A hidden file (a segment starting with '.') is matched by
 * wildcards like any other. */
bool glob_match(const char *pat, const char *path);

/* Checks pat's syntax. Returns 0 when usable; otherwise -1 with *why set to a
 * static message and *offset to the byte where the problem is: an unclosed
 * `[` or `{`, a trailing `\`, an empty pattern, an empty class `[]`, a
 * reversed range `[z-a]` (a glob that cannot match). */
int glob_check(const char *pat, const char **why, size_t *offset);

/* Appends to out every pattern pat's braces expand to, in order
 * ("a/{b,c{d,e}}" -> "a/b", "a/cd", "a/ce"). Returns the number appended, or
 * -1 when the braces do not balance (nothing appended). */
int glob_expand_braces(const char *pat, struct strvec *out);

/* True when pat has any of `*?[{` (unescaped). */
bool glob_has_magic(const char *pat);

/* Returns the length of pat's literal leading directory: the bytes before the
 * '/' that precedes the first segment holding magic (for "src/a/" followed by
 * "*.ts": 5; for "*.ts": 0; for "src/a.ts", no magic: strlen). */
size_t glob_literal_prefix(const char *pat);

/* An include/exclude list: entries starting with '!' take matches back.
 * Later entries win over earlier ones, as in .gitignore and Turborepo's
 * outputs. */
bool globlist_match(char *const *pats, size_t n, const char *path);

enum glob_walk_flags {
	GLOB_WALK_FILES = 1 << 0, /* report regular files (and symlinks to them) */
	GLOB_WALK_DIRS = 1 << 1,  /* report directories */
};

/* Calls cb(relpath, ctx) for each entry under root (an absolute directory)
 * whose root-relative path matches pat, in sorted order, starting the walk at
 * the pattern's literal prefix so "packages/" + "*" reads one directory. Never
 * descends into a directory named in skip_names (NULL-terminated, e.g. ".git",
 * "node_modules"), nor follows a symlink to a directory. A non-zero return of
 * cb stops the walk and is returned. Returns 0, or -1 with errno set when root
 * cannot be read (a missing prefix directory is no error: nothing matches). */
int glob_walk(const char *root, const char *pat, int flags, const char *const *skip_names,
	      int (*cb)(const char *relpath, void *ctx), void *ctx);

#endif
