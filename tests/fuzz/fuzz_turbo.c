/* libFuzzer target: turbo.json's reader (comments and trailing commas
 * blanked, then libyaml) must reject or accept any bytes without crashing,
 * leaking or reading out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/config.h"
#include "orchestrator/config/turbo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char ws[] = "workspace: {}\n";
	struct config *cfg = config_parse("fuzz/vx.yaml", ws, sizeof ws - 1);
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	turbo_parse("fuzz/turbo.json", text, size, cfg);
	free(text);
	config_free(cfg);
	return 0;
}
