/* libFuzzer target: the yarn.lock reader, berry's: the input follows a __metadata
 * header (fuzz_lockfile.h). */
#include "fuzz_lockfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lockfile(LOCK_YARN, "__metadata:\n  version: 8\n\n", data, size);
}
