/* fuzz_lockfile.h - the body every lockfile reader's libFuzzer target
 * shares: the reader must reject or accept any bytes without crashing,
 * leaking or reading out of bounds, and a closure it answers must list,
 * diff, hash and prune. Each fuzz_lock_*.c names its kind and prefix. */
#ifndef VX_FUZZ_LOCKFILE_H
#define VX_FUZZ_LOCKFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lockfile/lockfile.h"
#include "util/die.h"

static const char *const names[] = {"is-odd", "ui", "left-pad"};
static const char *const specs[] = {"3.0.1", "workspace:*", "^1.3.0"};
static const struct lock_importer importers[] = {
    {".", "root", names + 2, specs + 2, 1},
    {"apps/a", "a", names, specs, 2},
    {"packages/ui", "ui", NULL, NULL, 0},
};

/* Reads prefix (NULL: none) then data as a lockfile of kind; aborts when
 * a closure it answers cannot be hashed, or a prune refuses without a
 * reason. */
static inline int fuzz_lockfile(enum lock_format kind, const char *prefix, const uint8_t *data,
				size_t size)
{
	size_t plen = prefix ? strlen(prefix) : 0;
	char *text = xmalloc(plen + size + 1); /* +1: malloc(0) */
	if (plen)
		memcpy(text, prefix, plen);
	memcpy(text + plen, data, size);
	struct strbuf err = STRBUF_INIT;
	struct lockset *ls = lockset_read(kind, "fuzz", text, plen + size, importers, 3, &err);
	if (ls) {
		struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
		lockset_lines(ls, 1, &a);
		lockset_lines(ls, 2, &b);
		struct strbuf diff = STRBUF_INIT;
		lock_lines_diff(&a, &b, 4, &diff);
		strbuf_release(&diff);
		strvec_clear(&a);
		strvec_clear(&b);
		if (strlen(lockset_hash(ls, 0)) != 32)
			abort();
		/* and cut down to the root and ui */
		const bool keep[3] = {true, false, true};
		struct strbuf out = STRBUF_INIT, perr = STRBUF_INIT;
		struct strvec extra = STRVEC_INIT;
		if (lockset_prune(ls, kind, text, plen + size, keep, &out, &extra, &perr) &&
		    !perr.len)
			abort(); /* a refusal says why */
		strbuf_release(&out);
		strbuf_release(&perr);
		strvec_clear(&extra);
	}
	lockset_free(ls);
	strbuf_release(&err);
	free(text);
	return 0;
}

#endif
