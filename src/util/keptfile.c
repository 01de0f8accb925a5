/* keptfile.c - the checksummed frame of vx's text cache files. */
#include "util/keptfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "util/die.h"
#include "util/io.h"

#define TRAILER_LEN (4 + 16 + 1) /* "end " + 16 hex + "\n" */

enum keptfile_state keptfile_check(const char *text, size_t len, const char *magic,
				   const char **body, const char **end, const char **why)
{
	size_t ml = strlen(magic);
	const char *sp = strchr(magic, ' ');
	size_t kind = sp ? (size_t)(sp - magic) + 1 : ml;
	char want[17];
	if (len < TRAILER_LEN || memcmp(text + len - TRAILER_LEN, "end ", 4)) {
		*why = "no trailer";
		return KEPT_CORRUPT;
	}
	snprintf(want, sizeof want, "%016" PRIx64, (uint64_t)XXH3_64bits(text, len - TRAILER_LEN));
	if (memcmp(text + len - TRAILER_LEN + 4, want, 16)) {
		*why = "its checksum does not match";
		return KEPT_CORRUPT;
	}
	if (len - TRAILER_LEN < kind || memcmp(text, magic, kind)) {
		*why = "not a file of this kind";
		return KEPT_CORRUPT;
	}
	if (len - TRAILER_LEN < ml || memcmp(text, magic, ml))
		return KEPT_OTHER;
	*body = text + ml;
	*end = text + len - TRAILER_LEN;
	return KEPT_OK;
}

void keptfile_seal(struct strbuf *sb)
{
	strbuf_addf(sb, "end %016" PRIx64 "\n", (uint64_t)XXH3_64bits(sb->buf, sb->len));
}

bool keptfile_num(const char **p, const char *end, char c, int64_t *out)
{
	const char *q = *p;
	bool neg = q < end && *q == '-';
	q += neg;
	if (q >= end || *q < '0' || *q > '9')
		return false;
	uint64_t v = 0;
	while (q < end && *q >= '0' && *q <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*q++ - '0');
	}
	if (q >= end || *q != c || v > INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*p = q + 1;
	return true;
}

enum keptfile_state keptfile_load(const char *path, const char *magic, keptfile_parse_fn *parse,
				  void *ctx, const char *what, const char *instead)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		int e = errno;
		strbuf_release(&sb);
		errno = e;
		return KEPT_UNREAD;
	}
	const char *body, *end, *why = NULL;
	enum keptfile_state st = keptfile_check(sb.buf, sb.len, magic, &body, &end, &why);
	if (st == KEPT_OK && (why = parse(ctx, body, end)))
		st = KEPT_CORRUPT;
	if (st == KEPT_CORRUPT)
		warning("%s %s is corrupt (%s); %s", what, path, why, instead);
	strbuf_release(&sb);
	return st;
}

int keptfile_save(struct strbuf *sb, const char *path, const char *what)
{
	keptfile_seal(sb);
	int rc = write_file_atomic(path, sb->buf, sb->len);
	if (rc < 0)
		warning("cannot write the %s %s: %s", what, path, strerror(errno));
	strbuf_release(sb);
	return rc;
}
