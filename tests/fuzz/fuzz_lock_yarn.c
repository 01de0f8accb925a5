/* libFuzzer target: the yarn.lock (v1) reader (fuzz_lockfile.h). */
#include "fuzz_lockfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_lockfile(LOCK_YARN, NULL, data, size);
}
