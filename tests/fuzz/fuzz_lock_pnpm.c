/* libFuzzer target: the pnpm-lock.yaml reader (fuzz_lockfile.h). */
#include "fuzz_lockfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lockfile(LOCK_PNPM, NULL, data, size);
}
