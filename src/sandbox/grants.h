/* grants.h - one allow.read/allow.write entry, as written, turned into the
 * absolute, canonical paths the sandbox binds (SPEC §4, issue 5). */
#ifndef VX_SANDBOX_GRANTS_H
#define VX_SANDBOX_GRANTS_H

#include <stdbool.h>

#include "util/strbuf.h"
#include "util/vec.h"

/* One resolved path. Set by grants_resolve; request.c reads it. */
struct grant {
	char *path;	   /* canonical absolute path (links resolved in its existing prefix) */
	char *lexical;	   /* absolute, normalized, links NOT resolved: what the user meant */
	const char *entry; /* the entry as written (borrowed from the input) */
	bool from_glob;	   /* a hit of a glob expanded at task start */
	bool want_dir;	   /* written with a trailing '/' */
	bool exists;	   /* lstat of path succeeded when resolved */
	bool is_dir;	   /* path is a directory (followed) */
};
typedef VEC(struct grant) grant_vec;

/* Returns the canonical form of the absolute path p: the realpath of its
 * longest existing prefix with the rest re-appended lexically, so a workspace
 * reached through a symlink, or a grant not yet created, still compares equal
 * to what the kernel will mount. Caller frees. Never fails (a prefix that
 * cannot be resolved is kept as written). */
char *grants_canonical(const char *p);

/* grants_canonical of p's directory, with p's own name kept: a link at p
 * stays the link (a dependency's output is shown as the file it is, never
 * as what it points at). p absolute; "." and ".." are taken lexically
 * first. Caller frees. */
char *grants_canonical_dir(const char *p);

/* Expands one entry: braces first ("g/{a,b}.txt" is two), "~" or "~/" to home,
 * a relative path against project_dir (both canonical), "dir/" + "**" and
 * "dir/" + "**" + "/" + "*" collapse to "dir"; a glob is expanded now (the hits on disk,
 * files and directories; a symlink to a directory is never a hit), and a hit
 * whose canonical path leaves the canonical directory of the pattern's first
 * wildcard is dropped. Appends to out; for each glob, when glob_heads is
 * non-NULL, appends its literal head directory there (canonical; entry,
 * exists and is_dir set), whether or not it matched anything.
 * Returns 0, or -1 with one line in err (a bad pattern, "~user"). */
int grants_resolve(const char *entry, const char *project_dir, const char *home, grant_vec *out,
		   grant_vec *glob_heads, struct strbuf *err);

/* One brace-expanded pattern made absolute: "~" or "~/" under home, a
 * relative one under project_dir, escapes kept (a glob still). Returns it
 * (caller frees), or NULL with one line in err ("~user", "~" without home). */
char *grants_absolute(const char *pat, const char *entry, const char *project_dir, const char *home,
		      struct strbuf *err);

/* "dir/" + "**" (and + "/" + "*") grant the same tree as "dir": cuts the
 * tail off pat in place, and returns true when it did. */
bool grants_collapse_tree(char *pat);

void grants_clear(grant_vec *g);

/* Whether a write grant named lexical (in project proj, canonical) but
 * reaching real through a link leaves the project: refused on every
 * platform (a link made in the project must not carry writes out of it),
 * with grants_say_link_out's words in err. */
bool grants_link_out(const char *proj, const char *lexical, const char *real);
void grants_say_link_out(struct strbuf *err, const char *entry, const char *real, const char *proj);

/* The next absolute directory of a PATH value at *s (malloc'd), moving *s
 * past it; NULL at its end. Relative and empty entries are skipped. */
char *grants_path_next(const char **s);

/* What to grant for dir, a toolchain directory on PATH (canonical): a bin/
 * under home brings its install prefix (~/.nvm/versions/node/vX/bin gives
 * ~/.nvm/versions/node/vX), unless that prefix is home itself; else dir.
 * home may be NULL. Caller frees. */
char *grants_toolchain_dir(const char *dir, const char *home);

/* A grant outside the workspace ("/..." or "~/...") with a version or a
 * build hash in its path, as written from where that part begins: the
 * directory above it ("~/.local/share/fnm/node-versions/v20.11.1/lib/" →
 * "~/.local/share/fnm/node-versions/"), so it holds after the next upgrade
 * (issue 40: `vx sandbox learn`). A version is [v]N[.N...][-pre|+build];
 * a hash twelve or more hex digits with a letter and a digit. The entry
 * as it is when nothing is versioned, when the version is its first part
 * (no grant of all of home or of /), or when it lies in the workspace.
 * Returns a new string. */
char *grants_generalised(const char *entry);

#endif
