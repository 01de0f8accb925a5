/* libFuzzer target: the listing cache's file (util/listcache.h), as a
 * damaged or hostile cache directory may hold it: it must load or be
 * refused (a warning, an empty cache) without crashing, leaking or reading
 * out of bounds, answer lookups, and save what it loaded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "util/die.h"
#include "util/io.h"
#include "util/listcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[] = "/tmp/vx-fuzz-listcache-XXXXXX";
	static char *file;
	if (!file) {
		if (!mkdtemp(dir))
			abort();
		file = xasprintf("%s/listings", dir);
	}
	/* Half the inputs get their checksum trailer added, so the parser
	 * behind it is reached; the other half are taken as they come. */
	char trailer[32];
	int n_tr = 0;
	if (size && (data[0] & 1))
		n_tr = snprintf(trailer, sizeof trailer, "end %016llx\n",
				(unsigned long long)XXH3_64bits(data + 1, size - 1));
	FILE *f = fopen(file, "wb");
	const uint8_t *body = n_tr ? data + 1 : data;
	size_t blen = n_tr ? size - 1 : size;
	if (!f || fwrite(body, 1, blen, f) != blen ||
	    fwrite(trailer, 1, (size_t)n_tr, f) != (size_t)n_tr || fclose(f))
		abort();
	fflush(stderr);
	struct listcache *lc = listcache_load(file);
	struct stat st = {0};
	size_t n;
	listcache_get(lc, "/x", &st, &n);
	listcache_get(lc, "/tmp", &st, &n);
	struct listcache_entry e = {"a", 8};
	listcache_put(lc, "/y", &st, 0, &e, 1);
	listcache_save(lc);
	listcache_free(lc);
	return 0;
}
