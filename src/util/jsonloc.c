/* jsonloc.c - see jsonloc.h. A scanner of just enough JSON to step over a
 * value: strings (with their escapes), nesting, and the rest up to a
 * delimiter. It runs on text cJSON has already accepted. */
#include "util/jsonloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/die.h"
#include "util/hex.h"
#include "util/strbuf.h"
#include "util/vec.h"

size_t jsonloc_skip_space(const char *s, size_t len, size_t i)
{
	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		if (i + 1 < len && s[i] == '/' && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
		} else if (i + 1 < len && s[i] == '/' && s[i + 1] == '*') {
			const char *e = memmem(s + i + 2, len - i - 2, "*/", 2);
			i = e ? (size_t)(e - s) + 2 : len;
		} else {
			return i;
		}
	}
}

/* i at a '"': the offset past its closing quote. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
	for (i++; i < len && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i < len ? i + 1 : len;
}

/* i at a value: the offset past it. */
static size_t skip_value(const char *s, size_t len, size_t i)
{
	if (i >= len)
		return len;
	if (s[i] == '"')
		return skip_string(s, len, i);
	if (s[i] != '{' && s[i] != '[') {
		while (i < len && !strchr(",}] \t\r\n", s[i]))
			i++;
		return i;
	}
	size_t depth = 0;
	for (; i < len; i++) {
		if (s[i] == '"') {
			i = skip_string(s, len, i) - 1;
		} else if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if ((s[i] == '}' || s[i] == ']') && --depth == 0) {
			return i + 1;
		}
	}
	return len;
}

/* i at a '{': the offset of key's value in that object, or len. */
static size_t member(const char *s, size_t len, size_t i, const char *key)
{
	size_t klen = strlen(key);
	for (i = jsonloc_skip_space(s, len, i + 1); i < len && s[i] == '"';) {
		size_t end = skip_string(s, len, i);
		bool match = end - i == klen + 2 && !memcmp(s + i + 1, key, klen);
		i = jsonloc_skip_space(s, len, end);
		if (i >= len || s[i] != ':')
			return len;
		i = jsonloc_skip_space(s, len, i + 1);
		if (match)
			return i;
		i = jsonloc_skip_space(s, len, skip_value(s, len, i));
		if (i >= len || s[i] != ',')
			return len;
		i = jsonloc_skip_space(s, len, i + 1);
	}
	return len;
}

size_t jsonloc_members(const char *text, size_t len, size_t at, struct jsonloc_member *m,
		       size_t max, size_t *n)
{
	*n = 0;
	size_t i = jsonloc_skip_space(text, len, at);
	if (i >= len || text[i] != '{')
		return len;
	for (i = jsonloc_skip_space(text, len, i + 1); i < len && text[i] == '"';) {
		size_t key_at = i, key_end = skip_string(text, len, i);
		i = jsonloc_skip_space(text, len, key_end);
		if (i >= len || text[i] != ':')
			return len;
		size_t value_at = jsonloc_skip_space(text, len, i + 1);
		size_t end = skip_value(text, len, value_at);
		if (*n < max)
			m[*n] = (struct jsonloc_member){key_at, key_end - key_at, value_at, end};
		++*n;
		i = jsonloc_skip_space(text, len, end);
		if (i < len && text[i] == ',') /* a trailing one too (JSONC) */
			i = jsonloc_skip_space(text, len, i + 1);
		else if (i < len && text[i] != '}')
			return len;
	}
	return i < len && text[i] == '}' ? i : len;
}

size_t jsonloc_find(const char *text, size_t len, const char *const *keys, size_t n)
{
	size_t at = jsonloc_skip_space(text, len, 0), found = 0;
	for (size_t k = 0; k < n && at < len && text[at] == '{'; k++) {
		at = member(text, len, at, keys[k]);
		if (at >= len)
			break;
		found = at;
	}
	return found;
}

size_t jsonloc_item(const char *text, size_t len, size_t at, size_t index)
{
	if (at >= len || text[at] != '[')
		return at;
	size_t i = jsonloc_skip_space(text, len, at + 1);
	for (size_t k = 0; k < index && i < len && text[i] != ']'; k++) {
		i = jsonloc_skip_space(text, len, skip_value(text, len, i));
		if (i >= len || text[i] != ',')
			return at;
		i = jsonloc_skip_space(text, len, i + 1);
	}
	return i < len && text[i] != ']' ? i : at;
}

size_t jsonloc_bad_byte(const char *text, size_t len, const char **why)
{
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		unsigned c = s[i];
		if (c == 0) {
			*why = "a NUL byte";
			return i;
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t n = c >= 0xC2 && c <= 0xDF   ? 2
			   : c >= 0xE0 && c <= 0xEF ? 3
			   : c >= 0xF0 && c <= 0xF4 ? 4
						    : 0;
		bool ok = n && i + n <= len;
		for (size_t k = 1; ok && k < n; k++)
			ok = (s[i + k] & 0xC0) == 0x80;
		/* no overlong form, no surrogate, nothing past U+10FFFF */
		if (ok && n == 3)
			ok = !(c == 0xE0 && s[i + 1] < 0xA0) && !(c == 0xED && s[i + 1] >= 0xA0);
		if (ok && n == 4)
			ok = !(c == 0xF0 && s[i + 1] < 0x90) && !(c == 0xF4 && s[i + 1] >= 0x90);
		if (!ok) {
			*why = "invalid UTF-8";
			return i;
		}
		i += n;
	}
	return len;
}

void jsonloc_line_col(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

static int hex4(const char *s, size_t len, size_t i)
{
	int v = 0;
	for (size_t k = 0; k < 4; k++) {
		char c = i + k < len ? s[i + k] : 0;
		int d = hex_value(c);
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* The string at i (a '"') with its escapes read, into sb (a \u0000 is
 * kept: sb->len counts it). */
static void read_string(const char *s, size_t len, size_t i, struct strbuf *sb)
{
	size_t end = skip_string(s, len, i);
	for (i++; i + 1 < end; i++) {
		if (s[i] != '\\') {
			strbuf_addch(sb, s[i]);
			continue;
		}
		char c = s[++i];
		const char *from = "bfnrt", *to = "\b\f\n\r\t";
		const char *e = strchr(from, c);
		if (c == 'u') {
			int hi = hex4(s, len, i + 1), lo;
			unsigned long cp = hi < 0 ? 0xFFFD : (unsigned long)hi;
			i += hi < 0 ? 0 : 4;
			/* a surrogate pair is one character */
			if (hi >= 0xD800 && hi < 0xDC00 && i + 2 < end && s[i + 1] == '\\' &&
			    s[i + 2] == 'u' && (lo = hex4(s, len, i + 3)) >= 0xDC00 &&
			    lo < 0xE000) {
				cp = 0x10000 + (((unsigned long)hi - 0xD800) << 10) +
				     ((unsigned long)lo - 0xDC00);
				i += 6;
			}
			strbuf_add_utf8(sb, cp);
		} else {
			strbuf_addch(sb, e && c ? to[e - from] : c);
		}
	}
}

char *jsonloc_string(const char *text, size_t len, size_t at)
{
	struct strbuf sb = STRBUF_INIT;
	read_string(text, len, at, &sb);
	return strbuf_detach(&sb, NULL);
}

/* A key of an open object: its bytes as JSON reads them (into the text,
 * or its own allocation when it holds an escape) and where it lies. */
struct key {
	const char *s;
	size_t n, at;
	bool owned;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
	if (c || x->n != y->n)
		return c ? c : x->n < y->n ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* An open object or array: whether the next string is a key, and where
 * its keys begin in the key vector. */
struct open_value {
	bool object, want_key;
	size_t keys;
};

bool jsonloc_repeated_key(const char *text, size_t len, struct jsonloc_repeat *r)
{
	VEC(struct key) keys = {0};
	VEC(struct open_value) open = {0};
	bool found = false;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		struct open_value *top = open.n ? &open.v[open.n - 1] : NULL;
		if (c == '"') {
			size_t end = skip_string(text, len, i);
			if (end < i + 2 || text[end - 1] != '"')
				break; /* unterminated: no key to read (ASan) */
			if (top && top->want_key) {
				struct key k = {text + i + 1, end - i - 2, i, false};
				if (memchr(k.s, '\\', k.n)) {
					struct strbuf sb = STRBUF_INIT;
					read_string(text, len, i, &sb);
					k.n = sb.len;
					k.s = strbuf_detach(&sb, NULL);
					k.owned = true;
				}
				vec_push(&keys, k);
				top->want_key = false;
			}
			i = end - 1;
		} else if (c == '{' || c == '[') {
			struct open_value o = {c == '{', c == '{', keys.n};
			vec_push(&open, o);
		} else if (c == ',' && top) {
			top->want_key = top->object;
		} else if ((c == '}' || c == ']') && top) {
			struct key *k = keys.v + top->keys;
			size_t n = keys.n - top->keys;
			if (n > 1)
				qsort(k, n, sizeof *k, key_cmp);
			/* runs of one key, each in the order written */
			for (size_t j = 0, e; j < n; j = e) {
				for (e = j + 1;
				     e < n && k[e].n == k[j].n && !memcmp(k[e].s, k[j].s, k[j].n);
				     e++)
					;
				if (e - j > 1 && (!found || k[j + 1].at < r->second)) {
					r->first = k[j].at;
					r->second = k[j + 1].at;
					found = true;
				}
			}
			for (size_t j = 0; j < n; j++)
				if (k[j].owned)
					free((char *)k[j].s);
			keys.n = top->keys;
			open.n--;
		}
	}
	for (size_t j = 0; j < keys.n; j++)
		if (keys.v[j].owned)
			free((char *)keys.v[j].s);
	vec_free(&keys);
	vec_free(&open);
	return found;
}
