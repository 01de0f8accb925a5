/* Unit tests for cache/key.c and cache/filehash.c: the key's encoding is
 * stable, injective over field sequences, and file hashes match xxh128sum. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/filehash.h"
#include "cache/key.h"
#include "check.h"

/* A key over a typical set of ingredients; `change` names the one to alter
 * ("" for none) so each ingredient can be shown to matter. */
static void sample_key(const char *change, char hex[KEY_HEX_SIZE])
{
	struct key k;
	struct strvec env = STRVEC_INIT;
	strvec_push(&env, "NODE_ENV");
	strvec_push(&env, !strcmp(change, "env") ? "CI" : "HOME");

	key_init(&k);
	key_add_str(&k, "task", !strcmp(change, "task") ? "app#test" : "app#build");
	key_add_str(&k, "command", !strcmp(change, "command") ? "tsc -b" : "tsc");
	key_add_int(&k, "argc", !strcmp(change, "int") ? 2 : 1);
	key_add_bytes(&k, "blob", "a\0b", !strcmp(change, "bytes") ? 2 : 3);
	key_add_str(&k, !strcmp(change, "tag") ? "platforn" : "platform", "linux-x86_64");
	key_add_strvec_sorted(&k, "env-names", &env);
	key_add_str(&k, "env:HOME", !strcmp(change, "null") ? NULL : "");
	key_finish(&k, hex);
	strvec_clear(&env);
}

static void check_each_ingredient_matters(void)
{
	static const char *const changes[] = {"task", "command", "int", "bytes",
					      "tag",  "env",	 "null"};
	char base[KEY_HEX_SIZE], other[KEY_HEX_SIZE], again[KEY_HEX_SIZE];
	sample_key("", base);
	sample_key("", again);
	CHECK_STR(again, base);
	CHECK_INT(strlen(base), 32);
	CHECK_INT(strspn(base, "0123456789abcdef"), 32);
	for (size_t i = 0; i < sizeof changes / sizeof *changes; i++) {
		sample_key(changes[i], other);
		if (!strcmp(other, base))
			fprintf(stderr, "changing %s did not change the key\n", changes[i]);
		CHECK(strcmp(other, base) != 0);
	}
}

/* Pins the encoding: if this value changes, the key format changed, and
 * VX_KEY_VERSION must be bumped (then update the value here). */
static void check_known_answer(void)
{
	char hex[KEY_HEX_SIZE];
	sample_key("", hex);
	CHECK_STR(hex, "7b03110bf7e635089ebb73e4a546a5ea");

	struct key k;
	key_init(&k);
	key_finish(&k, hex);
	CHECK_STR(hex, "48f0271c6a3d88736150e7ae4a07afb9");
}

static void two_strs(const char *tag1, const char *a, const char *tag2, const char *b,
		     char hex[KEY_HEX_SIZE])
{
	struct key k;
	key_init(&k);
	key_add_str(&k, tag1, a);
	key_add_str(&k, tag2, b);
	key_finish(&k, hex);
}

static void check_boundaries(void)
{
	char x[KEY_HEX_SIZE], y[KEY_HEX_SIZE];
	two_strs("t", "ab", "t", "c", x);
	two_strs("t", "a", "t", "bc", y);
	CHECK(strcmp(x, y) != 0);

	/* A value cannot leak into the next field's tag. */
	two_strs("t", "a", "bc", "d", x);
	two_strs("t", "ab", "c", "d", y);
	CHECK(strcmp(x, y) != 0);

	/* NULL is not "", and neither is an absent field. */
	struct key k;
	char none[KEY_HEX_SIZE], null[KEY_HEX_SIZE], empty[KEY_HEX_SIZE], bytes[KEY_HEX_SIZE];
	key_init(&k);
	key_finish(&k, none);
	key_init(&k);
	key_add_str(&k, "v", NULL);
	key_finish(&k, null);
	key_init(&k);
	key_add_str(&k, "v", "");
	key_finish(&k, empty);
	key_init(&k);
	key_add_bytes(&k, "v", "", 0);
	key_finish(&k, bytes);
	CHECK(strcmp(null, empty) != 0);
	CHECK(strcmp(null, none) != 0);
	CHECK(strcmp(empty, none) != 0);
	CHECK(strcmp(bytes, empty) != 0);

	/* Bytes with a NUL inside are hashed whole. */
	key_init(&k);
	key_add_bytes(&k, "v", "a\0b", 3);
	key_finish(&k, x);
	key_init(&k);
	key_add_bytes(&k, "v", "a\0c", 3);
	key_finish(&k, y);
	CHECK(strcmp(x, y) != 0);

	/* An int is not its 8 bytes given as bytes. */
	key_init(&k);
	key_add_int(&k, "v", 1);
	key_finish(&k, x);
	key_init(&k);
	key_add_bytes(&k, "v", "\1\0\0\0\0\0\0\0", 8);
	key_finish(&k, y);
	CHECK(strcmp(x, y) != 0);
}

static void vec_key(const char *const *items, size_t n, char hex[KEY_HEX_SIZE])
{
	struct strvec sv = STRVEC_INIT;
	for (size_t i = 0; i < n; i++)
		strvec_push(&sv, items[i]);
	struct key k;
	key_init(&k);
	key_add_strvec_sorted(&k, "globs", &sv);
	key_finish(&k, hex);
	/* The caller's order is left alone. */
	for (size_t i = 0; i < n; i++)
		CHECK_STR(sv.v[i], items[i]);
	strvec_clear(&sv);
}

static void check_sorted_lists(void)
{
	static const char *const abc[] = {"src/**", "!src/*.test.ts", "package.json"};
	static const char *const cba[] = {"package.json", "src/**", "!src/*.test.ts"};
	static const char *const ab_c[] = {"ab", "c"};
	static const char *const a_bc[] = {"a", "bc"};
	static const char *const aa[] = {"a", "a"};
	static const char *const a[] = {"a"};
	char x[KEY_HEX_SIZE], y[KEY_HEX_SIZE];

	vec_key(abc, 3, x);
	vec_key(cba, 3, y);
	CHECK_STR(x, y);
	vec_key(ab_c, 2, x);
	vec_key(a_bc, 2, y);
	CHECK(strcmp(x, y) != 0);
	vec_key(aa, 2, x);
	vec_key(a, 1, y);
	CHECK(strcmp(x, y) != 0);
	vec_key(NULL, 0, x);
	vec_key(a, 1, y);
	CHECK(strcmp(x, y) != 0);

	/* A list is not the same strings given one by one. */
	struct key k;
	key_init(&k);
	key_add_str(&k, "globs", "a");
	key_finish(&k, x);
	vec_key(a, 1, y);
	CHECK(strcmp(x, y) != 0);
}

static char tmpdir[] = "/tmp/vx-test-key-XXXXXX";

static char *write_file(const char *name, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		die_errno("cannot write %s", path);
	return path;
}

/* Returns xxh128sum's hash of path, or NULL when the tool is not installed. */
static char *xxh128sum_of(const char *path)
{
	char *cmd = xasprintf("xxh128sum '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	char line[256] = "";
	char *ok = fgets(line, sizeof line, p);
	int status = pclose(p);
	if (!ok || status != 0 || strlen(line) < 33 || line[32] != ' ')
		return NULL;
	return xstrndup(line, 32);
}

static void check_file_against_tool(const char *name, size_t len)
{
	unsigned char *data = xmalloc(len ? len : 1);
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		data[i] = (unsigned char)x;
	}
	char *path = write_file(name, data, len);
	free(data);

	char hex[KEY_HEX_SIZE];
	CHECK_INT(filehash_path(path, hex), 0);
	char *want = xxh128sum_of(path);
	if (want) {
		CHECK_STR(hex, want);
	} else {
		static int said;
		if (!said++)
			fprintf(stderr, "xxh128sum not found: comparing with pinned values only\n");
	}
	free(want);
	free(path);
}

static void check_filehash(void)
{
	char hex[KEY_HEX_SIZE], other[KEY_HEX_SIZE];

	/* Pinned, and what `printf 'hello\n' | xxh128sum` prints. */
	char *hello = write_file("hello", "hello\n", 6);
	CHECK_INT(filehash_path(hello, hex), 0);
	CHECK_STR(hex, "6bba86c7e069f56d5a10b435f1c8e49c");
	char *empty = write_file("empty", "", 0);
	CHECK_INT(filehash_path(empty, hex), 0);
	CHECK_STR(hex, "99aa06d3014798d86001c324468d497f");

	/* Sizes around the 128 KiB chunk, where one-shot turns to streaming. */
	static const size_t sizes[] = {1, 240, 4096, 131071, 131072, 131073, 262144, 1000003};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char name[32];
		snprintf(name, sizeof name, "rand-%zu", sizes[i]);
		check_file_against_tool(name, sizes[i]);
	}

	/* A symlink hashes its target text, not the target's content, and not
	 * like a file holding that text. */
	char *link = xasprintf("%s/link", tmpdir);
	char *dangling = xasprintf("%s/dangling", tmpdir);
	if (symlink("hello", link) || symlink("nowhere/at/all", dangling))
		die_errno("symlink");
	CHECK_INT(filehash_path(link, hex), 0);
	CHECK_STR(hex, "309ca96ee24faac7a78c33d52759b39d");
	CHECK_INT(filehash_path(hello, other), 0);
	CHECK(strcmp(hex, other) != 0);
	char *text = write_file("text", "hello", 5);
	CHECK_INT(filehash_path(text, other), 0);
	CHECK(strcmp(hex, other) != 0);
	CHECK_INT(filehash_path(dangling, other), 0);
	CHECK(strcmp(hex, other) != 0);

	/* Failures name their errno. */
	char *missing = xasprintf("%s/missing", tmpdir);
	errno = 0;
	CHECK_INT(filehash_path(missing, hex), -1);
	CHECK_INT(errno, ENOENT);
	errno = 0;
	CHECK_INT(filehash_path(tmpdir, hex), -1);
	CHECK_INT(errno, EISDIR);
	char *fifo = xasprintf("%s/fifo", tmpdir);
	if (mkfifo(fifo, 0600))
		die_errno("mkfifo");
	errno = 0;
	CHECK_INT(filehash_path(fifo, hex), -1); /* and does not hang */
	CHECK_INT(errno, EINVAL);

	/* The batch gives what one-by-one gives, failures included, whatever
	 * the thread count. */
	const char *paths[] = {hello, empty, link, missing, text, dangling, tmpdir};
	size_t n = sizeof paths / sizeof *paths;
	for (int threads = 0; threads <= 4; threads++) {
		char out[7][KEY_HEX_SIZE];
		int errs[7];
		CHECK_INT(filehash_many(paths, n, out, errs, threads), 2);
		for (size_t i = 0; i < n; i++) {
			int r = filehash_path(paths[i], hex);
			CHECK_INT(errs[i], r == 0 ? 0 : errno);
			CHECK_STR(out[i], r == 0 ? hex : "");
		}
	}
	CHECK_INT(filehash_many(paths, 0, NULL, NULL, 2), 0);
	CHECK(filehash_default_threads() >= 2 && filehash_default_threads() <= 8);

	const char *const all[] = {hello, empty, link, dangling, text, fifo, missing};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		unlink(all[i]);
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char *p = xasprintf("%s/rand-%zu", tmpdir, sizes[i]);
		unlink(p);
		free(p);
	}
	free(hello), free(empty), free(link), free(dangling), free(text), free(fifo), free(missing);
	if (rmdir(tmpdir))
		die_errno("rmdir %s", tmpdir);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		die_errno("mkdtemp");
	check_each_ingredient_matters();
	check_known_answer();
	check_boundaries();
	check_sorted_lists();
	check_filehash();
	return check_finish("test_key");
}
