#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "util/die.h"

static size_t slot_of(const struct strmap *m, const char *key, size_t len)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)XXH3_64bits(key, len) & mask;
	/* Lengths first, then bytes: a lookup key may hold a NUL before len
	 * (fuzz_strace), and a stored key must never be read past its end. */
	while (m->slots[i].key && (m->slots[i].len != len || memcmp(m->slots[i].key, key, len)))
		i = (i + 1) & mask;
	return i;
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 16;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			strmap_put(m, old.slots[i].key, old.slots[i].value);
	free(old.slots);
}

void strmap_put(struct strmap *m, const char *key, size_t value)
{
	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	size_t len = strlen(key);
	size_t i = slot_of(m, key, len);
	if (!m->slots[i].key)
		m->n++;
	m->slots[i].key = key;
	m->slots[i].len = len;
	m->slots[i].value = value;
}

bool strmap_getn(const struct strmap *m, const char *key, size_t len, size_t *value)
{
	if (!m->cap)
		return false;
	size_t i = slot_of(m, key, len);
	if (!m->slots[i].key)
		return false;
	*value = m->slots[i].value;
	return true;
}

bool strmap_get(const struct strmap *m, const char *key, size_t *value)
{
	return strmap_getn(m, key, strlen(key), value);
}

void strmap_clear(struct strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->n = m->cap = 0;
}

bool strset_add(struct strset *s, char *key)
{
	size_t at;
	if (strmap_get(&s->map, key, &at)) {
		free(key);
		return false;
	}
	strvec_push_nodup(&s->keys, key);
	strmap_put(&s->map, key, 0);
	return true;
}

void strset_clear(struct strset *s)
{
	strmap_clear(&s->map);
	strvec_clear(&s->keys);
}
