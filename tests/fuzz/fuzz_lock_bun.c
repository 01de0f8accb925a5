/* libFuzzer target: the bun.lock reader (fuzz_lockfile.h). */
#include "fuzz_lockfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lockfile(LOCK_BUN, NULL, data, size);
}
