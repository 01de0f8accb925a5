/* strmap.h - a hash map from borrowed strings to size_t (open addressing). */
#ifndef VX_UTIL_STRMAP_H
#define VX_UTIL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "util/vec.h"

struct strmap_slot {
	const char *key; /* borrowed: must outlive the map; NULL: empty slot */
	size_t len;	 /* strlen(key): a lookup by (bytes, length) compares it first */
	size_t value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t n, cap; /* cap is 0 or a power of two */
};
#define STRMAP_INIT                                                                                \
	{                                                                                          \
		0                                                                                  \
	}

/* Sets key's value (the key pointer is kept, not copied). */
void strmap_put(struct strmap *m, const char *key, size_t value);
/* Returns true and sets *value when key is present. */
bool strmap_get(const struct strmap *m, const char *key, size_t *value);
/* The same for the first len bytes of key. */
bool strmap_getn(const struct strmap *m, const char *key, size_t len, size_t *value);
void strmap_clear(struct strmap *m);

/* A set of strings it owns: the map looks up, the vector owns the keys
 * (which never move). Zeroed is empty. */
struct strset {
	struct strmap map;
	struct strvec keys;
};
/* Takes key (malloc'd): true the first time it is added; else frees it
 * and returns false. */
bool strset_add(struct strset *s, char *key);
void strset_clear(struct strset *s);

#endif
