/* guard.h - the config files a sandboxed task could make where no mount
 * can stop it (issue 53 item 11).
 *
 * A config that exists inside a write grant is bound read-only over itself
 * (request.h, configs); one that does not exist yet cannot be: bwrap would
 * create the mount point on the host, through the grant's bind, which is
 * the very file. A traced task's write that makes one is a violation, but
 * an untraced task (a persistent one, or any without strace) is judged by
 * nobody, and a traced one's file stays on disk after its violation: the
 * next `vx run` planned from it and ran the script it planted.
 *
 * So vx writes, before such a task starts, a record in WS/.vx/guard (a
 * wall: no task can reach it) of the configs that are missing where it can
 * write, and holds an flock on it for as long as the task may run. After
 * the task, a file of the record that exists fails the task and keeps the
 * record; none removes it. Every verb that plans asks guard_check first,
 * which refuses to plan while a record names a file that exists: a kill -9
 * of vx, which skips the after-task check, is covered too. A record no one
 * holds whose files are all still missing is stale (its vx died) and is
 * removed. */
#ifndef VX_SANDBOX_GUARD_H
#define VX_SANDBOX_GUARD_H

#include <stddef.h>

#include "util/strbuf.h"
#include "util/vec.h"

struct guard {
	char *path; /* the record, or NULL: none (set by guard_begin) */
	int fd;	    /* it, open and flocked while the task may run (valid with path) */
};

/* Records in dir (made 0700 if missing) that task id may make the files of
 * missing (absolute; n of them), and locks the record. With n 0 it records
 * nothing. Returns 0, or -1 with errno (nothing left behind, g->path NULL). */
int guard_begin(struct guard *g, const char *dir, const char *task, const char *const *missing,
		size_t n);

/* After the task: appends to appeared each file of the record that exists
 * now. With none, the record is removed; with any, it stays (unlocked) so
 * that no plan is made from them. Closes it either way; a no-op when
 * g->path is NULL. */
void guard_end(struct guard *g, struct strvec *appeared);

/* At plan time: reads each record in dir (a missing dir holds none).
 * Returns 0, or -1 with one line in err (replacing it) for the first file
 * of a record that exists: its path relative to ws, the task that could
 * write there, and what to do. Records whose owner is gone and whose files
 * are all missing are removed. */
int guard_check(const char *dir, const char *ws, struct strbuf *err);

#endif
