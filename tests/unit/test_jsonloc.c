/* Unit tests for util/jsonloc.c: a value found again in the text by its
 * path of keys (escaped strings and nesting stepped over), an array's
 * item, the bytes no JSON may hold, and lines and columns in characters. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/jsonloc.h"

static size_t find(const char *text, const char *const *keys, size_t n)
{
	return jsonloc_find(text, strlen(text), keys, n);
}

int main(void)
{
	const char *t =
	    "{ \"a\": {\"x\": \"}\\\"]\", \"y\": [1, {\"z\": 2}]},\n  \"b\" : [10, \"s,]\", {}],"
	    " \"c\": {\"d\": null} }";
	const char *ka[] = {"a", "y"}, *kb[] = {"b"}, *kc[] = {"c", "d"}, *kn[] = {"c", "nope"};
	const char *kx[] = {"x"};
	CHECK_INT(find(t, ka, 1), 7);
	size_t y = find(t, ka, 2);
	CHECK(!strncmp(t + y, "[1, {", 5));
	size_t b = find(t, kb, 1);
	CHECK(!strncmp(t + b, "[10,", 4));
	CHECK(!strncmp(t + jsonloc_item(t, strlen(t), b, 1), "\"s,]\"", 5));
	CHECK(!strncmp(t + jsonloc_item(t, strlen(t), b, 2), "{}]", 3));
	CHECK_INT(jsonloc_item(t, strlen(t), b, 3), b); /* no such item: the array */
	CHECK(!strncmp(t + find(t, kc, 2), "null", 4));
	CHECK(!strncmp(t + find(t, kn, 2), "{\"d\"", 4)); /* the deepest found */
	CHECK_INT(find(t, kx, 1), 0);			  /* not at the top: the start */
	CHECK_INT(find("[1]", kx, 1), 0);

	/* JSONC: comments are spaces (turbo.jsonc, bun.lock) */
	const char *jc = "// top\n{ /* a } */ \"a\": 1, // b\n \"b\": {\"c\": \"/*\"},}";
	const char *kbc[] = {"b", "c"};
	CHECK(!strncmp(jc + find(jc, kbc, 2), "\"/*\"", 4));
	CHECK_INT(jsonloc_skip_space(jc, strlen(jc), 0), 7);

	/* the members of an object, a trailing comma taken */
	struct jsonloc_member m[4];
	size_t n, len = strlen(jc);
	size_t close = jsonloc_members(jc, len, 0, m, 4, &n);
	CHECK_INT(n, 2);
	CHECK_INT(close, len - 1);
	CHECK(n == 2 && !strncmp(jc + m[0].key_at, "\"a\": 1", 6) && m[0].key_len == 3);
	CHECK(n == 2 && !strncmp(jc + m[1].value_at, "{\"c\"", 4) && jc[m[1].end - 1] == '}');
	CHECK_INT(jsonloc_members(jc, len, 0, m, 1, &n), close); /* counts past max */
	CHECK_INT(n, 2);
	CHECK_INT(jsonloc_members("{\"a\": 1", 8, 0, m, 4, &n), 8); /* never closes */
	CHECK_INT(jsonloc_members("[1]", 3, 0, m, 4, &n), 3);
	CHECK_INT(n, 0);

	const char *why = NULL;
	CHECK_INT(jsonloc_bad_byte("ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, &why), 14);
	CHECK_INT(jsonloc_bad_byte("ab\xff", 3, &why), 2);
	CHECK_STR(why, "invalid UTF-8");
	CHECK_INT(jsonloc_bad_byte("a\xc3", 2, &why), 1);	      /* truncated */
	CHECK_INT(jsonloc_bad_byte("\xc0\xaf", 2, &why), 0);	      /* overlong */
	CHECK_INT(jsonloc_bad_byte("x\xed\xa0\x80", 4, &why), 1);     /* a surrogate */
	CHECK_INT(jsonloc_bad_byte("x\xf4\x90\x80\x80", 5, &why), 1); /* past U+10FFFF */
	CHECK_INT(jsonloc_bad_byte("ab\0c", 4, &why), 2);
	CHECK_STR(why, "a NUL byte");

	/* a key repeated in one object (issue 57 item 2): the first repeat
	 * in the text, by its second occurrence; a string value, an array's
	 * items and the same key in sibling objects are no repeat */
	struct jsonloc_repeat r;
	const char *d1 = "{\"a\": \"b\", \"b\": [\"a\", {\"a\": 1}], \"c\": {\"a\": 2}}";
	CHECK(!jsonloc_repeated_key(d1, strlen(d1), &r));
	const char *d2 = "{\"x\": {\"k\": 1, \"j\": 2, \"k\": 3}, \"y\": 1, \"x\": 0}";
	CHECK(jsonloc_repeated_key(d2, strlen(d2), &r));
	CHECK_INT(r.first, 7); /* the inner "k": its repeat comes before "x"'s */
	CHECK_INT(r.second, 23);
	const char *d3 = "{\"b\": 1, \"a\": 1, \"b\": 2, \"a\": 2, \"b\": 3}";
	CHECK(jsonloc_repeated_key(d3, strlen(d3), &r));
	CHECK(r.first == 1 && r.second == 17); /* "b" again, before "a" again */
	/* escapes read as JSON reads them: "n\u0061me" is "name", "\/" is "/" */
	const char *d4 = "{\"name\": 1, \"n\\u0061me\": 2}";
	CHECK(jsonloc_repeated_key(d4, strlen(d4), &r));
	CHECK(r.first == 1 && r.second == 12);
	const char *d5 =
	    "{\"a/b\": 1, \"a\\/b\": 2, \"\\ud83d\\ude00\": 3, \"\xf0\x9f\x98\x80\": 4}";
	CHECK(jsonloc_repeated_key(d5, strlen(d5), &r));
	CHECK(r.first == 1 && r.second == 11);
	char *k = jsonloc_string(d5, strlen(d5), 22);
	CHECK_STR(k, "\xf0\x9f\x98\x80"); /* a surrogate pair is one character */
	free(k);
	const char *d6 = "{\"\\ud83d\\ude00\": 3, \"\xf0\x9f\x98\x80\": 4}";
	CHECK(jsonloc_repeated_key(d6, strlen(d6), &r));
	const char *d7 = "[{\"a\": 1}, {\"a\": 1}]"; /* its length, not one past (ASan) */
	CHECK(!jsonloc_repeated_key(d7, strlen(d7), &r));
	const char *d8 = "{\"\": 1, \"a\": {\"\": 2}}";
	CHECK(!jsonloc_repeated_key(d8, strlen(d8), &r));

	int line, col;
	jsonloc_line_col("ab\n\xc3\xa9x", 5, &line, &col);
	CHECK_INT(line, 2);
	CHECK_INT(col, 2); /* é is one character */
	jsonloc_line_col("abc", 0, &line, &col);
	CHECK(line == 1 && col == 1);
	return check_finish("jsonloc");
}
