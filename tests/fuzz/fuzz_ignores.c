/* libFuzzer target: the kept ignore answers' file (keys/ignores.h),
 * as a damaged or hostile cache directory may hold it: it must load or be
 * refused (a warning, no answers) without crashing, leaking or reading out
 * of bounds, answer lookups and walks into directories, and save what it
 * kept. Nothing asks git here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "orchestrator/keys/ignores.h"
#include "util/die.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[] = "/tmp/vx-fuzz-ignores-XXXXXX";
	static char *file;
	if (!file) {
		if (!mkdtemp(dir))
			abort();
		file = xasprintf("%s/ignores", dir);
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
	struct ignores *ig = ignores_load(file, dir);
	ignores_get(ig, "a");
	ignores_get(ig, "dist/");
	ignores_enter(ig, "", false);
	ignores_enter(ig, "a", true);
	ignores_get(ig, "a/b");
	ignores_save(ig);
	ignores_free(ig);
	return 0;
}
