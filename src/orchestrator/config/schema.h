/* schema.h - the keys of a task and of its sandbox: block, one row each.
 *
 * A field of struct task_cfg or struct sandbox_cfg is written once, as a
 * row: parsing (config.c) reads the rows to know which keys a mapping takes
 * and how to read each value, and freeing, copying, merging the workspace
 * defaults under a project's task, and folding a sandbox block into the
 * cache key walk the same rows. A new key is one row (and its field). */
#ifndef VX_CONFIG_SCHEMA_H
#define VX_CONFIG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/taskcfg.h"
#include "util/strbuf.h"
#include "util/vec.h"

enum schema_kind {
	SCHEMA_MAP,	 /* a mapping of the rows named below it ("inputs" holds "inputs.files") */
	SCHEMA_STR,	 /* struct lstr */
	SCHEMA_LIST,	 /* lstr_vec */
	SCHEMA_GRANTS,	 /* struct grant_list: true, false or a list */
	SCHEMA_PORTS,	 /* struct grant_list of port numbers (1-65535) as text */
	SCHEMA_BOOL,	 /* bool */
	SCHEMA_BOOL_NOT, /* bool, stored negated (verifyKey: false sets no_verify_key) */
	SCHEMA_DURATION, /* long long milliseconds, written "90s", "1h30m" */
	SCHEMA_ENV,	 /* kv_vec: a mapping of variable names to text */
	SCHEMA_SANDBOX,	 /* struct sandbox_cfg *, its keys the rows of schema_sandbox */
};

enum {
	SCHEMA_EXPAND = 1, /* ${VAR} in the value is expanded from vx's environment */
	SCHEMA_GLOBS = 2,  /* each entry is a glob (a leading '!' takes away) that can match:
			    * glob_check's refusals are configuration errors */
};

struct schema_row {
	const char *name; /* dotted path below the table's root ("allow.read"); NULL ends */
	enum schema_kind kind;
	size_t off;	  /* offsetof the field in the table's struct (not for a map) */
	unsigned flags;	  /* SCHEMA_EXPAND, SCHEMA_GLOBS */
	unsigned field;	  /* enum task_field bit, set when the key is written (tasks) */
	const char *fold; /* a bool's name in the folded key text (sandbox); NULL: none */
	/* A string, or a list entry, the row refuses: refuses(entry) true gets
	 * refusal, a printf format of one %s (the entry). NULL: every string
	 * is taken. */
	bool (*refuses)(const char *entry);
	const char *refusal;
};

/* The rows of a task (struct task_cfg) and of a sandbox: block (struct
 * sandbox_cfg), in the order the keys are listed to the user. */
extern const struct schema_row schema_task[];
extern const struct schema_row schema_sandbox[];

/* The row for key directly below prefix ("" for the table's root), or NULL. */
const struct schema_row *schema_find(const struct schema_row *t, const char *prefix,
				     const char *key);
/* Sets out[0..] to the keys valid directly below prefix, in table order
 * (pointing into t's static names), then a NULL. Returns how many; dies
 * when they do not fit in max - 1 (a table outgrew its caller's array). */
size_t schema_keys(const struct schema_row *t, const char *prefix, const char **out, size_t max);

/* Frees what every row of t holds in base (not base itself). */
void schema_free(const struct schema_row *t, void *base);
/* Sets row r's field in dst to a deep copy of src's. */
void schema_copy_row(const struct schema_row *r, void *dst, const void *src);
/* A sandbox_cfg's deep copy. */
struct sandbox_cfg *schema_sandbox_copy(const struct sandbox_cfg *s);
/* Appends the canonical text of a sandbox block, the cache key folds: each
 * list sorted ("allow.read:" then length-prefixed entries), then each
 * bool by its fold name on one line, so the order grants are written in
 * does not change the key, but any grant does. */
void schema_sandbox_fold(const struct sandbox_cfg *sb, struct strbuf *out);

#endif
