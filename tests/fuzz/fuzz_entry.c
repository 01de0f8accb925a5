/* libFuzzer target: a cache entry as the remote cache hands it over (a
 * bundle: "vx-entry 1 N\n", N bytes of manifest JSON, then the archive),
 * read and checked the way a download is before it enters the local store
 * (entry_bundle_read, then entry_archive_check). Any bytes must be taken
 * or refused with a reason, never crash, leak or read out of bounds.
 *
 * The first byte picks the form: bit 0 clear, the rest is the bundle as
 * sent; set, the second byte says how much of the rest is the manifest
 * (times 16) and the head is written here, so the manifest's reader is
 * reached without the fuzzer having to find a valid head. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cache/entry.h"
#include "cache/manifest.h"
#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf bundle = STRBUF_INIT, why = STRBUF_INIT;
	if (size >= 2 && (data[0] & 1)) {
		size_t rest = size - 2, mlen = (size_t)data[1] * 16;
		if (mlen > rest)
			mlen = rest;
		strbuf_addf(&bundle, "vx-entry 1 %zu\n", mlen);
		strbuf_add(&bundle, data + 2, rest);
	} else if (size) {
		strbuf_add(&bundle, data + 1, size - 1);
	}
	int fd = memfd_create("bundle", MFD_CLOEXEC);
	if (fd < 0 || (bundle.len && write(fd, bundle.buf, bundle.len) != (ssize_t)bundle.len))
		abort();
	struct manifest m = {0};
	off_t off = 0;
	fflush(stderr);
	if (entry_bundle_read(fd, &m, &off, &why) == 0) {
		entry_archive_check(fd, off, &m, &why);
		char *again = manifest_format(&m);
		free(again);
		manifest_release(&m);
	}
	close(fd);
	strbuf_release(&bundle);
	strbuf_release(&why);
	return 0;
}
