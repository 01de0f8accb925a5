/* denies.h - the mandatory denies: inside a write grant, the startup files
 * and hooks of shells and tools stay read-only, whatever the grant says. */
#ifndef VX_SANDBOX_DENIES_H
#define VX_SANDBOX_DENIES_H

#include <stddef.h>

#include "util/vec.h"

struct deny_rule {
	const char
	    *name; /* a file or directory name, or "a/b" matched as the path's last two names */
	const char *why; /* one line: what writing it would let a task do */
};

/* The table, terminated by {NULL, NULL}. */
extern const struct deny_rule denies_table[];

/* Returns the rule matching the entry at dir/name (rel is its path below the
 * grant, '/'-separated), or NULL. */
const struct deny_rule *denies_match(const char *rel);

/* Walks the write grant dir (canonical, absolute) and appends to out the
 * absolute path of each entry a rule names, a symlink counted by its own name
 * (never followed) and node_modules entered. A matched directory is not
 * entered (it is made read-only whole). Returns 0, or -1 with errno set when
 * a directory cannot be read (a vanished one is skipped). */
int denies_walk(const char *dir, struct strvec *out);

#endif
