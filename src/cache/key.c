#include "cache/key.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "util/die.h"

/* The kind byte that opens every field. Distinct kinds keep a NULL string, a
 * string, raw bytes, an integer and a list apart even under the same tag. */
enum field_kind {
	FIELD_STR = 'S',
	FIELD_NULL = 'N',
	FIELD_BYTES = 'B',
	FIELD_INT = 'I',
	FIELD_LIST = 'L',
};

static XXH3_state_t *key_state(struct key *k)
{
	if (!k->state)
		die("BUG: key used before key_init or after key_finish");
	return k->state;
}

static void put_bytes(struct key *k, const void *data, size_t len)
{
	if (XXH3_128bits_update(key_state(k), data, len) != XXH_OK)
		die("BUG: xxhash update failed");
}

/* Lengths are fixed-width little-endian whatever the host, so a key computed
 * on one machine matches the same key computed on another (remote cache). */
static void put_u64(struct key *k, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put_bytes(k, b, sizeof b);
}

static void put_len_prefixed(struct key *k, const void *data, size_t len)
{
	put_u64(k, (uint64_t)len);
	put_bytes(k, data, len);
}

static void put_header(struct key *k, enum field_kind kind, const char *tag)
{
	unsigned char c = (unsigned char)kind;
	put_bytes(k, &c, 1);
	put_len_prefixed(k, tag, strlen(tag));
}

void key_init(struct key *k)
{
	k->state = XXH3_createState();
	if (!k->state)
		die("out of memory");
	if (XXH3_128bits_reset(k->state) != XXH_OK)
		die("BUG: xxhash reset failed");
	key_add_int(k, "vx-key-version", VX_KEY_VERSION);
}

void key_add_str(struct key *k, const char *tag, const char *s)
{
	if (!s) {
		put_header(k, FIELD_NULL, tag);
		return;
	}
	put_header(k, FIELD_STR, tag);
	put_len_prefixed(k, s, strlen(s));
}

void key_add_bytes(struct key *k, const char *tag, const void *data, size_t len)
{
	put_header(k, FIELD_BYTES, tag);
	put_len_prefixed(k, data, len);
}

void key_add_int(struct key *k, const char *tag, int64_t v)
{
	put_header(k, FIELD_INT, tag);
	put_u64(k, (uint64_t)v);
}

void key_add_strvec_sorted(struct key *k, const char *tag, const struct strvec *sv)
{
	/* Sort pointers, not strings: the caller's vector keeps its order. */
	const char **sorted = xcalloc(sv->n ? sv->n : 1, sizeof *sorted);
	for (size_t i = 0; i < sv->n; i++)
		sorted[i] = sv->v[i];
	qsort(sorted, sv->n, sizeof *sorted, str_ptr_cmp);

	put_header(k, FIELD_LIST, tag);
	put_u64(k, (uint64_t)sv->n);
	for (size_t i = 0; i < sv->n; i++)
		put_len_prefixed(k, sorted[i], strlen(sorted[i]));
	free(sorted);
}

void key_hex(const unsigned char h[16], char hex[KEY_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		hex[2 * i] = digits[h[i] >> 4];
		hex[2 * i + 1] = digits[h[i] & 15];
	}
	hex[32] = '\0';
}

void key_finish(struct key *k, char hex[KEY_HEX_SIZE])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(key_state(k)));
	key_hex(c.digest, hex);
	key_release(k);
}

void key_release(struct key *k)
{
	if (k->state)
		XXH3_freeState(k->state);
	k->state = NULL;
}
