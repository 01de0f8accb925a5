/* manifest.h - a cache entry's manifest, <key>.json: the key, the inputs
 * as hashed, the outputs as the archive holds them, the exit code, and the
 * archive's size and hash (docs/cache-store.md). */
#ifndef VX_CACHE_MANIFEST_H
#define VX_CACHE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "cache/archive.h"
#include "util/strbuf.h"
#include "util/vec.h"

#define MANIFEST_FORMAT 1

/* An input (as the caller hashed it) or an output (as the archive holds it). */
struct manifest_file {
	char *path;
	char hash[ARCHIVE_HASH_HEX]; /* content or link text; "" for a directory */
	enum archive_type type;	     /* outputs only */
	unsigned mode;		     /* outputs only: permission bits */
	uint64_t size;		     /* outputs only: a file's bytes */
	char *target;		     /* outputs only: a symlink's text */
};

/* Built by entry_save, read back by entry_open. */
struct manifest {
	char *key, *task, *vx_version;
	VEC(struct manifest_file) inputs;
	VEC(struct manifest_file) outputs; /* sorted by path; parents before children */
	int exit_code;
	uint64_t duration_ms;
	uint64_t log_size;
	uint64_t archive_size;
	char archive_hash[ARCHIVE_HASH_HEX]; /* XXH3-128 of the archive file's bytes */
};

void manifest_release(struct manifest *m);
/* Returns the manifest as JSON; caller frees. */
char *manifest_format(const struct manifest *m);
/* Parses a manifest. Returns 0, or -1 with the reason appended to why (no
 * message printed): not JSON, a field missing or of the wrong type, an
 * unknown format number, an unsafe output path. */
int manifest_parse(const char *json, size_t len, struct manifest *m, struct strbuf *why);

/* Orders manifest_files by path (qsort, bsearch): outputs are kept so. */
int manifest_file_cmp(const void *a, const void *b);

#endif
