/* lockfile.h - a JavaScript lockfile read as a graph of resolved packages,
 * and each workspace project's closure of external dependencies in it
 * (SPEC §6: the key). The formats: package-lock.json v2/v3 (and
 * npm-shrinkwrap.json), pnpm-lock.yaml v6 to v9, yarn.lock v1 and Yarn
 * berry's, bun.lock. docs/lockfiles.md says what a closure holds and why.
 *
 * Pure: no file is opened here; the caller reads the lockfile and says which
 * projects (importers) to answer for. */
#ifndef VX_LOCKFILE_LOCKFILE_H
#define VX_LOCKFILE_LOCKFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/vec.h"

enum lock_format {
	LOCK_NPM,  /* package-lock.json / npm-shrinkwrap.json, lockfileVersion 2 or 3 */
	LOCK_PNPM, /* pnpm-lock.yaml, lockfileVersion 6.x to 9.x */
	LOCK_YARN, /* yarn.lock: v1 (classic) or, with __metadata, Yarn berry's */
	LOCK_BUN,  /* bun.lock (JSONC), lockfileVersion 0 or 1 */
};

/* A workspace project as the lockfile is asked about it. */
struct lock_importer {
	const char *rel;  /* root-relative directory; "." for the root */
	const char *name; /* package.json name, or NULL */
	/* Its package.json dependencies of the four kinds, parallel arrays of
	 * names and specifiers: yarn.lock v1, which lists no importers, needs
	 * them; the other formats say the same themselves. */
	const char *const *dep_names;
	const char *const *dep_specs;
	size_t n_deps;
};

/* A lockfile read against a list of importers. */
struct lockset;

/* Parses text (len bytes; path is for messages) as fmt, for the n
 * importers (borrowed until lockset_free). Returns the set, or NULL with
 * the reason in err (an unknown version, a malformed file): the caller then
 * keys the whole file instead. */
struct lockset *lockset_read(enum lock_format fmt, const char *path, const char *text, size_t len,
			     const struct lock_importer *importers, size_t n, struct strbuf *err);
void lockset_free(struct lockset *ls);

/* Importer i's closure: every resolved package reachable from it, through
 * workspace links to other importers, and from the root importer (".",
 * whose devDependencies every project loads, as Node resolves up the
 * tree). Its hash is 32 hex digits over the distinct (name, version,
 * integrity or resolution) of those packages, whatever their order or
 * place in the file; an importer the lockfile does not know has the empty
 * closure's. */
const char *lockset_hash(const struct lockset *ls, size_t i);
/* Appends importer i's closure to out as sorted "NAME VERSION IDENTITY"
 * lines (IDENTITY: the integrity, else the resolution, else "-"). */
void lockset_lines(const struct lockset *ls, size_t i, struct strvec *out);
/* The number of resolved packages in the whole file. */
size_t lockset_packages(const struct lockset *ls);

/* Writes to out the lockfile text (text, len: what ls was read from, as
 * fmt) pruned to what the importers marked in keep (ls's importer order)
 * and the root need (`vx prune`, lockfile/prune.c): their own entries,
 * the packages they load directly or not, the links to kept workspaces;
 * every other entry is dropped, and a Yarn entry's list of descriptors
 * keeps only those something kept asks for. What is kept is kept byte for
 * byte: the file stays in its manager's own format. Appends to extra the
 * root-relative files the kept part names (pnpm's patch files). Returns 0,
 * or -1 with the reason in err ("LINE: MESSAGE" when it has a line). */
int lockset_prune(const struct lockset *ls, enum lock_format fmt, const char *text, size_t len,
		  const bool *keep, struct strbuf *out, struct strvec *extra, struct strbuf *err);

/* Writes to out what changed from one closure's lines to another's, as
 * "react 18.2.0 → 18.3.1, lodash 4.17.21 added, left-pad 1.3.0 removed",
 * at most max items and then ", and N more"; nothing when they hold the
 * same packages. */
void lock_lines_diff(const struct strvec *old, const struct strvec *now, size_t max,
		     struct strbuf *out);

#endif
