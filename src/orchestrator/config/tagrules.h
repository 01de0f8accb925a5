/* tagrules.h - turbo.json's "boundaries" and "tags": the rules `turbo
 * boundaries` checks (the root's boundaries.tags, a package's tags and its
 * own boundaries.dependencies/dependents, implicitDependencies anywhere),
 * each name with its place. One reader: turbo.c calls it on the keys as
 * it loads a turbo.json (a malformed one refused there, for every verb),
 * and `vx boundaries` loads the rules with it (docs/boundaries.md). */
#ifndef VX_CONFIG_TAGRULES_H
#define VX_CONFIG_TAGRULES_H

#include <stdbool.h>
#include <yaml.h>

#include "orchestrator/config/config.h"

/* An "allow" or "deny" list: its names (tags, or package names) and where
 * the list stood; set when the key was written (an empty allow list
 * allows nothing, an absent one everything). */
struct tagrules_list {
	bool set;
	struct loc loc;
	lstr_vec names;
};

/* A "dependencies" or "dependents" object. */
struct tagrules_perms {
	bool set;
	struct tagrules_list allow, deny;
};

/* One rule of the root's boundaries.tags: the tag it is for, where that
 * key stood, and what its packages may depend on and be depended on by. */
struct tagrules_rule {
	struct lstr tag;
	struct tagrules_perms dependencies, dependents;
};

/* What one turbo.json says for boundaries. Every loc.file points at path. */
struct tagrules {
	char *path;	      /* the turbo.json read (absolute), NULL when there is none */
	bool has_tags;	      /* "tags" written (not null) */
	struct loc tags_loc;  /* where its list stood */
	lstr_vec tags;	      /* "tags": a package's own */
	bool has_rules;	      /* boundaries.tags written */
	struct loc rules_loc; /* the boundaries.tags key */
	VEC(struct tagrules_rule) rules; /* boundaries.tags, in file order */
	/* boundaries.dependencies and .dependents: a package's own rules
	 * (turbo reads them in a package's turbo.json only) */
	struct tagrules_perms dependencies, dependents;
	lstr_vec implicit; /* boundaries.implicitDependencies */
};

/* Reads the value v of the top-level key k of a turbo.json (path, in
 * doc) when k is "boundaries" or "tags", into out (NULL: only checked).
 * Returns 1 when k is one of those and is well formed, 0 when k is
 * another key, -1 after "vx: FILE:LINE:COL: MESSAGE" (a wrong type, an
 * unknown key with the closest known one). null stands for the key left
 * out, as turbo takes it. */
int tagrules_read_key(const char *path, yaml_document_t *doc, const yaml_node_t *k,
		      const yaml_node_t *v, struct tagrules *out);

/* Reads the turbo.json (else turbo.jsonc) in dir into out (zeroed first).
 * Returns 1 when one was read, 0 when there is none (out->path NULL), -1
 * after an error line (it cannot be read, is no JSON, or its boundaries
 * or tags are malformed). */
int tagrules_load(const char *dir, struct tagrules *out);

void tagrules_release(struct tagrules *r);

/* The rule of the tag, or NULL. */
const struct tagrules_rule *tagrules_find(const struct tagrules *r, const char *tag);

#endif
