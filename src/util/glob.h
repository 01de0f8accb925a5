/* glob.h - glob patterns over '/'-separated relative paths (SPEC §2.2):
 * `*` `?` `[...]` `**` `{a,b}` and `\` escapes. Pure: no I/O but glob_walk. */
#ifndef VX_UTIL_GLOB_H
#define VX_UTIL_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#include "util/listcache.h"
#include "util/vec.h"

/* A pattern may hold at most this many `{` groups, and its braces may expand
 * to at most this many patterns: glob_check refuses more, glob_expand_braces
 * returns -1, and glob_match never matches past the group limit. */
#define GLOB_MAX_BRACES 256
#define GLOB_MAX_EXPANSION 4096

/* True when the whole of path matches pat. `*` and `?` and `[...]` never match
 * '/'; a `**` segment matches zero or more whole segments (so "a/" then
 * "**" also matches "a", and "**" then "/x" matches "x"); a `**` that is not
 * a whole segment is a `*`, and so is one followed by `{`;
 * `[!...]`/`[^...]` negate a class, ranges are `a-z`, a `]` first is a member;
 * `{a,b}` alternates (nested allowed, `{a}` is "a", `{}` is ""); `\c` is the
 * literal c. A leading "./" in pat or path is ignored, and so is a trailing
 * '/'. A hidden file (a segment starting with '.') is matched by wildcards
 * like any other. Never allocates unless pat has two or more groups and path
 * is long; time is polynomial in both lengths. A pattern glob_check refuses
 * still gets an answer: an unclosed `[` or `{` is a literal. */
bool glob_match(const char *pat, const char *path);

/* glob_match, also storing in *steps how many steps the matcher took: for
 * tests and benchmarks, to pin that matching stays polynomial. */
bool glob_match_counted(const char *pat, const char *path, size_t *steps);

/* Checks pat's syntax. Returns 0 when usable; otherwise -1 with *why set to a
 * static message and *offset to the byte where the problem is: an unclosed
 * `[` or `{` (a `}` with no group open is a literal), a trailing `\`, an empty pattern (also "./"
 * or "/"), an empty class `[]`, a reversed range `[z-a]` (a glob that cannot
 * match), more than GLOB_MAX_BRACES groups or GLOB_MAX_EXPANSION expansions.
 * A leading '!' is no syntax of a glob: strip it before. */
int glob_check(const char *pat, const char **why, size_t *offset);

/* Appends to out every pattern pat's braces expand to, in order
 * ("a/{b,c{d,e}}" -> "a/b", "a/cd", "a/ce"); escapes are kept. Returns the
 * number appended, or -1 when a `{` is left open or the braces would expand to
 * more than GLOB_MAX_EXPANSION patterns (nothing appended). */
int glob_expand_braces(const char *pat, struct strvec *out);

/* True when pat has any of `*?[{` (unescaped). */
bool glob_has_magic(const char *pat);

/* The first n bytes of pat (a literal: no unescaped magic) with each `\c`
 * made c: the path it names ("a\\[1].txt" -> "a[1].txt"). Caller frees. */
char *glob_unescape(const char *pat, size_t n);

/* Returns the length of pat's literal leading directory: the bytes before the
 * '/' that precedes the first segment holding magic ("src/a/x*.ts" -> 5, "*.ts"
 * -> 0, "src/a.ts" (no magic) -> strlen). */
size_t glob_literal_prefix(const char *pat);

/* True when a path below the directory dir could match pat (the question
 * glob_walk asks before it descends). */
bool glob_match_below(const char *pat, const char *dir);

/* An include/exclude list: entries starting with '!' take matches back.
 * Later entries win over earlier ones, as in .gitignore and Turborepo's
 * outputs. False when no entry matches. */
bool globlist_match(char *const *pats, size_t n, const char *path);

enum glob_walk_flags {
	GLOB_WALK_FILES = 1 << 0, /* report regular files (and symlinks to them) */
	GLOB_WALK_DIRS = 1 << 1,  /* report directories */
	/* with GLOB_WALK_FILES: report every symlink as a file, whatever it
	 * points at (a directory, nothing), as git lists one; never followed.
	 * A task's inputs and outputs are walked so: a link to a directory
	 * retargeted changes the key, and an output link is saved. */
	GLOB_WALK_LINKS = 1 << 2,
	/* report what is no directory, regular file or link: a fifo, a
	 * socket, a device. A task's outputs are walked so: such a file
	 * matched is one the cache cannot save, and says so (issue 57). */
	GLOB_WALK_OTHER = 1 << 3,
};

/* Calls cb(relpath, ctx) for each entry under root (an absolute directory)
 * whose root-relative path matches pat, starting the walk at the pattern's
 * literal prefix so "packages/" + "*" reads one directory, and descending only
 * where a match may lie. Order: depth first, each directory's entries in
 * strcmp order, a directory before its contents. The literal prefix directory
 * itself is reported when it matches ("dist/" then "**" reports "dist" with
 * GLOB_WALK_DIRS); root itself never is. Entries below the prefix named in
 * skip_names (NULL-terminated, e.g. ".git", "node_modules") are neither
 * reported nor entered. A symlink to a directory is never followed, in the
 * prefix either, and is reported as neither kind; a dangling link is skipped
 * (with GLOB_WALK_LINKS both are reported as files).
 * A non-zero return of cb stops the walk and is returned. Returns 0, or -1
 * with errno set when root or a directory under it cannot be read (a missing
 * prefix directory is no error: nothing matches). */
int glob_walk(const char *root, const char *pat, int flags, const char *const *skip_names,
	      int (*cb)(const char *relpath, void *ctx), void *ctx);
/* What glob_walk_with may be given beyond glob_walk's. */
struct glob_walk_opts {
	const char *const *skip_names; /* as glob_walk's */
	/* asked before entering each directory below root (relative to
	 * it): true leaves it unread, with all it holds; NULL: none */
	bool (*prune)(const char *reldir, void *ctx);
	/* directory listings kept across runs (util/listcache.h): a
	 * directory whose stat data is that of a trusted listing is not
	 * read; NULL: read every one */
	struct listcache *listings;
	/* the kept reads (util/readcache.h), whose stat of the walk's root
	 * this run, when they took one, is taken instead of another; NULL:
	 * none */
	const struct readcache *reads;
};

/* glob_walk with opts. */
int glob_walk_with(const char *root, const char *pat, int flags, const struct glob_walk_opts *opts,
		   int (*cb)(const char *relpath, void *ctx), void *ctx);

/* The paths an include/exclude list pats selects under root, each once:
 * what glob_walk_with of each including entry in turn reports that
 * globlist_match(pats, n, path) keeps, in that order (the first walk to
 * report a path places it), without its repeats. But one walk of the tree
 * for all the globs, each entry's last segment, when a literal, an index
 * (issue 57 item 4: 1000 globalDependencies were 1000 walks), and an entry
 * with no magic one lstat, its parents one lstat each a call. A glob whose
 * literal prefix climbs ("..", "/") or names a skipped directory is walked
 * alone, as glob_walk_with walks it. opts->prune is not asked. The
 * paths are reported after the walk; a non-zero return of cb stops and is
 * returned. Returns 0, or -1 with errno as glob_walk. */
int glob_walk_list(const char *root, char *const *pats, size_t n, int flags,
		   const struct glob_walk_opts *opts, int (*cb)(const char *relpath, void *ctx),
		   void *ctx);

#endif
