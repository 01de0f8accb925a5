/* libFuzzer target: the package-lock.json reader (fuzz_lockfile.h). */
#include "fuzz_lockfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lockfile(LOCK_NPM, NULL, data, size);
}
