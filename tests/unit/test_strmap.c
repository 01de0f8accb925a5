/* Unit tests for util/strmap.c: lookups by (bytes, length), which the
 * strace parser makes on slices that may hold a NUL (fuzz_strace found a
 * read past a stored key's end). */
#include "check.h"
#include "util/strmap.h"

int main(void)
{
	struct strmap m = STRMAP_INIT;
	strmap_put(&m, "openat", 1);
	strmap_put(&m, "open", 2);
	size_t v = 0;
	CHECK(strmap_get(&m, "openat", &v) && v == 1);
	CHECK(strmap_getn(&m, "openat2", 4, &v) && v == 2);
	CHECK(!strmap_getn(&m, "open\0at", 7, &v));   /* a NUL inside: no key matches */
	CHECK(!strmap_getn(&m, "openat\0\0", 8, &v)); /* longer than any key */
	CHECK(!strmap_get(&m, "ope", &v));
	for (size_t i = 0; i < 1000; i++) /* growth keeps every key */
		strmap_put(&m, i % 2 ? "open" : "openat", i);
	CHECK(strmap_get(&m, "open", &v) && v == 999);
	CHECK(m.n == 2);
	strmap_clear(&m);
	return check_finish("strmap");
}
