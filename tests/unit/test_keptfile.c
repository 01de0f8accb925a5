/* Unit tests for util/keptfile.c: the frame of the kept files, and the
 * load and save the listing, read and ignore caches share (each had its
 * own copy of the read-check-parse-warn and seal-write-warn tails). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "util/io.h"
#include "util/keptfile.h"

#define MAGIC "VXTEST 2\n"

struct seen {
	int calls;
	char body[64];
	const char *refuse; /* what parse says is wrong; NULL: takes it */
};

static const char *parse(void *ctx, const char *body, const char *end)
{
	struct seen *s = ctx;
	s->calls++;
	snprintf(s->body, sizeof s->body, "%.*s", (int)(end - body), body);
	return s->refuse;
}

static void put(const char *path, const char *magic, const char *body)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, magic);
	strbuf_addstr(&sb, body);
	CHECK_INT(keptfile_save(&sb, path, "test cache"), 0);
	CHECK(sb.buf == NULL || sb.len == 0); /* released */
}

int main(void)
{
	char dir[] = "/tmp/vx-keptfile-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[256];
	snprintf(path, sizeof path, "%s/kept", dir);
	struct seen s = {0};

	/* none: unread, ENOENT, nothing said */
	capture_begin();
	CHECK_INT(keptfile_load(path, MAGIC, parse, &s, "test cache", "doing without"),
		  KEPT_UNREAD);
	CHECK_INT(errno, ENOENT);
	CHECK_STR(capture_end(), "");
	CHECK_INT(s.calls, 0);

	/* saved, then loaded: the body parsed */
	put(path, MAGIC, "a 1\nb 2\n");
	CHECK_INT(keptfile_load(path, MAGIC, parse, &s, "test cache", "doing without"), KEPT_OK);
	CHECK_INT(s.calls, 1);
	CHECK_STR(s.body, "a 1\nb 2\n");

	/* parse refuses it: a warning with the caller's words */
	s.refuse = "a bad line";
	capture_begin();
	CHECK_INT(keptfile_load(path, MAGIC, parse, &s, "test cache", "doing without"),
		  KEPT_CORRUPT);
	char want[512];
	snprintf(want, sizeof want,
		 "vx: warning: test cache %s is corrupt (a bad line); doing without\n", path);
	CHECK_STR(capture_end(), want);
	s.refuse = NULL;

	/* another version: nothing parsed, nothing said */
	put(path, "VXTEST 1\n", "old\n");
	s.calls = 0;
	capture_begin();
	CHECK_INT(keptfile_load(path, MAGIC, parse, &s, "test cache", "doing without"), KEPT_OTHER);
	CHECK_STR(capture_end(), "");
	CHECK_INT(s.calls, 0);

	/* a byte changed: the checksum refuses it before parse */
	CHECK_INT(write_file_atomic(path, MAGIC "a 1\nend 0000000000000000\n",
				    strlen(MAGIC "a 1\nend 0000000000000000\n")),
		  0);
	capture_begin();
	CHECK_INT(keptfile_load(path, MAGIC, parse, &s, "test cache", "doing without"),
		  KEPT_CORRUPT);
	CHECK(strstr(capture_end(), "is corrupt (its checksum does not match); doing without"));
	CHECK_INT(s.calls, 0);

	/* a save that cannot write says so */
	char bad[300];
	snprintf(bad, sizeof bad, "%s/no/such/dir/kept", dir);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, MAGIC);
	capture_begin();
	CHECK_INT(keptfile_save(&sb, bad, "test cache"), -1);
	CHECK(strstr(capture_end(), "cannot write the test cache ") != NULL);

	unlink(path);
	rmdir(dir);
	return check_finish("keptfile");
}
