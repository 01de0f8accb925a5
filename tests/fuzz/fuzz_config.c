/* libFuzzer target: the vx.yaml loader must reject or accept any bytes
 * without crashing, leaking or reading out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "orchestrator/config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config *cfg = config_parse("fuzz/vx.yaml", (const char *)data, size);
	if (cfg) {
		/* exercise the merge too, on every task against itself */
		for (size_t i = 0; i < cfg->tasks.n; i++)
			task_cfg_free(config_task_merge(cfg->tasks.v[i], cfg->tasks.v[i]));
	}
	config_free(cfg);
	return 0;
}
