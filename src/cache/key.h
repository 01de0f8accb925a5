/* key.h - the task key (SPEC §6): xxHash3-128 over a sequence of tagged,
 * length-prefixed fields, so that no two different field sequences hash the
 * same bytes. The encoding is in docs/cache-hashing.md; changing it means
 * bumping VX_KEY_VERSION. */
#ifndef VX_CACHE_KEY_H
#define VX_CACHE_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "util/vec.h"

/* Folded first into every key: a new encoding, or a new meaning of a field,
 * bumps it so no old cache entry can answer a new key. */
#define VX_KEY_VERSION 2

/* Hex digits of a 128-bit hash, plus the NUL. */
#define KEY_HEX_SIZE 33

struct key {
	void *state; /* the XXH3 streaming state; set by key_init, freed by key_finish */
};

/* Starts a key and folds VX_KEY_VERSION into it. Dies on OOM. */
void key_init(struct key *k);

/* Folds a string field. s may be NULL, which hashes differently from "" (an
 * unset env var is not an empty one). tag names the field; it is hashed too. */
void key_add_str(struct key *k, const char *tag, const char *s);

/* Folds len bytes of data (which may hold NULs) as one field. */
void key_add_bytes(struct key *k, const char *tag, const void *data, size_t len);

/* Folds an integer field (as 8 little-endian bytes). */
void key_add_int(struct key *k, const char *tag, int64_t v);

/* Folds the strings of sv as one field, in strcmp order, so the order they
 * were written in does not change the key. Repeats are kept (["a","a"] is not
 * ["a"]); sv itself is not modified. */
void key_add_strvec_sorted(struct key *k, const char *tag, const struct strvec *sv);

/* Writes the key as 32 lowercase hex digits (high 64 bits first, as
 * xxh128sum prints) and a NUL into hex, and frees the state: k may be
 * key_init'ed again. */
void key_finish(struct key *k, char hex[KEY_HEX_SIZE]);

/* Frees a key abandoned before key_finish. Safe on a finished key. */
void key_release(struct key *k);

/* Writes h (the 16 canonical bytes of an XXH128 hash, high half first) as 32
 * lowercase hex digits and a NUL. Shared with filehash and statcache. */
void key_hex(const unsigned char h[16], char hex[KEY_HEX_SIZE]);

#endif
