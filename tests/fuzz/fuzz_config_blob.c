/* libFuzzer target: parsed-config blobs (config/config_blob.h), as a
 * damaged cache or another build may hold them: config_blob_read and
 * pkg_blob_read must refuse or load without crashing, leaking or reading
 * out of bounds, and what they load must write back. Inputs whose first
 * byte is odd get this build's valid header, so the body's reader is
 * reached. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/config_blob.h"
#include "util/die.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct strbuf cfg_head = STRBUF_INIT, pkg_head = STRBUF_INIT;
	if (!cfg_head.len) {
		struct config *c = config_new("/w/p/vx.yaml");
		if (!config_blob_write(c, "", 0, &cfg_head))
			abort();
		strbuf_setlen(&cfg_head, 12); /* magic and signature */
		config_free(c);
		struct pkg_fields f = {0};
		pkg_blob_write(&f, &pkg_head);
		strbuf_setlen(&pkg_head, 12);
		pkg_fields_free(&f);
	}
	for (int kind = 0; kind < 2; kind++) {
		struct strbuf in = STRBUF_INIT;
		if (size && (data[0] & 1)) {
			strbuf_add(&in, kind ? pkg_head.buf : cfg_head.buf, 12);
			strbuf_add(&in, (const char *)data + 1, size - 1);
		} else {
			strbuf_add(&in, (const char *)data, size);
		}
		if (!kind) {
			struct config *c = config_blob_read("/w/p/vx.yaml", in.buf, in.len);
			if (c) {
				struct strbuf out = STRBUF_INIT;
				config_blob_write(c, "", 0, &out);
				strbuf_release(&out);
			}
			config_free(c);
		} else {
			struct pkg_fields f;
			if (pkg_blob_read(in.buf, in.len, &f)) {
				struct strbuf out = STRBUF_INIT;
				pkg_blob_write(&f, &out);
				strbuf_release(&out);
				pkg_fields_free(&f);
			}
		}
		strbuf_release(&in);
	}
	return 0;
}
