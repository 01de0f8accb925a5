/* libFuzzer target: pnpm-workspace.yaml's reader must reject or accept
 * any bytes without crashing, leaking or reading out of bounds. */
#include <stddef.h>
#include <stdint.h>

#include "orchestrator/config/pnpm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lstr_vec out = {0};
	pnpm_workspace_parse("fuzz/pnpm-workspace.yaml", (const char *)data, size, &out);
	lstr_vec_free(&out);
	return 0;
}
