/* config_blob.h - a parsed project config as bytes, kept beside the file
 * in the kept reads (util/readcache.h) so that a run whose configs did not
 * change parses none of them (issue 20: libyaml and cJSON made 100 of the
 * ~250 allocations a project cost a no-op run).
 *
 * A blob starts with a signature of this build's config structs (the
 * schema rows' names, kinds and offsets, the structs' sizes, the format's
 * version): another vx's blob is refused and the file parsed. A blob is
 * made only of what the parse gave, never of what the environment gave: a
 * file with "${" in it (SCHEMA_EXPAND values) is never made one. */
#ifndef VX_CONFIG_CONFIG_BLOB_H
#define VX_CONFIG_CONFIG_BLOB_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/config.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* Appends cfg (a project's vx.yaml, parsed from text) to out. Returns false,
 * out unchanged, when it cannot be one: a workspace file, a value from the
 * environment, a place in another file. */
bool config_blob_write(const struct config *cfg, const char *text, size_t len, struct strbuf *out);
/* The config a blob holds, its places in path; NULL when the blob is not
 * one this build wrote (or is damaged). */
struct config *config_blob_read(const char *path, const char *blob, size_t len);

/* What vx takes from a package.json. */
struct pkg_fields {
	char *name;			     /* "name", or NULL */
	int name_line, name_col;	     /* where its value is in the file (1-based) */
	char *version;			     /* "version", or NULL */
	struct strvec deps, dep_specs;	     /* the four dependency kinds, parallel */
	size_t peer_at;			     /* deps[peer_at..] are peerDependencies */
	struct strvec script_names, scripts; /* string "scripts", parallel */
};
void pkg_fields_free(struct pkg_fields *f);
void pkg_blob_write(const struct pkg_fields *f, struct strbuf *out);
/* Fills f (zeroed first) from a blob. Returns false, f empty, when the blob
 * is not one this build wrote. */
bool pkg_blob_read(const char *blob, size_t len, struct pkg_fields *f);

#endif
