/* denies.h - the mandatory denies: inside a write grant, the startup files
 * and hooks of shells and tools stay read-only, whatever the grant says. */
#ifndef VX_SANDBOX_DENIES_H
#define VX_SANDBOX_DENIES_H

#include <stddef.h>

#include "util/strbuf.h"
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

/* The mandatory deny path (absolute, canonical) is or lies in, judged on
 * its components below the first of bases (NULL-terminated: the
 * workspace root, home) that holds it, or all of them: a workspace in an
 * agent's `.claude/worktrees/` is no deny. Returns the rule and sets *len
 * to the length of the path's prefix it names, or NULL. */
const struct deny_rule *denies_holding(const char *path, const char *const *bases, size_t *len);

/* Says in err (replacing it) that write grant entry names or lies in the
 * mandatory deny path[0..len) of rule r: the bwrap plan's and the Seatbelt
 * profile's words. Returns -1. */
int denies_say_no_writes(struct strbuf *err, const char *entry, const char *path, size_t len,
			 const struct deny_rule *r);

/* Refuses write grant entry when path (absolute, canonical) names or lies
 * in a mandatory deny, judged below the workspace root ws or home (may be
 * NULL): the bwrap plan and the Seatbelt profile both ask. Returns 0, or
 * -1 with the reason in err. */
int denies_refuse_write(struct strbuf *err, const char *entry, const char *path, const char *ws,
			const char *home);

/* Walks the write grant dir (canonical, absolute) and appends to out the
 * absolute path of each entry a rule names, a symlink counted by its own name
 * (never followed) and node_modules entered. A matched directory is not
 * entered (it is made read-only whole). Returns 0, or -1 with errno set when
 * a directory cannot be read (a vanished one is skipped). */
int denies_walk(const char *dir, struct strvec *out);

#endif
