/* libFuzzer target: yamledit must add to any YAML text, or refuse it,
 * without crashing, leaking or reading out of bounds; what it returns as
 * added holds the values (it checks itself), and adding again changes
 * nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/yamledit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const path[] = {"tasks", "build", "sandbox", "allow", "read"};
	static const char *const values[] = {"dist/", "../x y"};
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct yamlload_error err;
	bool changed;
	size_t nv = size && data[0] & 1 ? 2 : 0; /* a list, or a mapping */
	size_t np = size && data[0] & 2 ? 3 : 5;
	if (!yamledit_add((const char *)data, size, path, np, values, nv, &out, &changed, &err)) {
		if (yamledit_add(out.buf, out.len, path, np, values, nv, &again, &changed, &err) ||
		    changed)
			abort();
	}
	strbuf_release(&out);
	strbuf_release(&again);
	return 0;
}
