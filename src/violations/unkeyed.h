/* unkeyed.h - read-unkeyed (SPEC §4): a file a cached task read that its
 * key does not hold, and the fix that keys it. */
#ifndef VX_VIOLATIONS_UNKEYED_H
#define VX_VIOLATIONS_UNKEYED_H

#include <stddef.h>

#include "util/strmap.h"
#include "util/vec.h"
#include "violations/judge.h"

/* What an unkeyed read is, for its fix. */
enum unkeyed {
	KEYED = 0,
	UNKEYED_PROJECT,    /* the task's own file: inputs.files, or workspaceFiles */
	UNKEYED_WORKSPACE,  /* another file of the workspace: inputs.workspaceFiles */
	UNKEYED_DEP_OUTPUT, /* a file a dependency wrote in this run: its outputs */
	UNKEYED_EXTERNAL,   /* node_modules with no lockfile keying it (once) */
	UNKEYED_OUTSIDE,    /* a file under a read grant outside the workspace: inputs.toolchain */
	UNKEYED_LEFTOVER,   /* a file in a write grant the task read before writing it:
			     * left by an earlier run (a tool's cache: ignore.read) */
};

/* The paths the task made in this run, each with the index of its first
 * event, into written (keys borrowed from ev, or owned by keys). */
void unkeyed_written(const struct judge_input *in, struct strmap *written, struct strvec *keys,
		     const struct access_event *ev, size_t nev);
/* What e (the at'th event) read, if the key does not hold it; *real_out
 * gets where it was judged (owned) when not KEYED. Each path once (seen). */
enum unkeyed unkeyed_read(const struct judge_input *in, const struct access_event *e, size_t at,
			  const struct strmap *written, struct strset *seen, char **real_out);
/* The violation for an unkeyed read of where, and its fix or note. */
void unkeyed_verdict(const struct judge_input *in, struct verdict *out,
		     const struct access_event *e, const char *where, enum unkeyed u);
/* A read granted by a fix is keyed by it too: the inputs entry for path. */
void unkeyed_key_fix(const struct judge_input *in, struct verdict *out, const char *path);

#endif
