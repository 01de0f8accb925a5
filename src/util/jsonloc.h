/* jsonloc.h - where things lie in a JSON text, for errors that point at
 * their byte (issue 39: a wrongly typed package.json field was reported
 * at 1:1). cJSON keeps no positions; these find them again in the text it
 * parsed, only when an error is to be printed. */
#ifndef VX_UTIL_JSONLOC_H
#define VX_UTIL_JSONLOC_H

#include <stdbool.h>
#include <stddef.h>

/* The byte offset of the value that keys name, an object path from the
 * top-level object (keys[0] in it, keys[1] in that, ...), or of the
 * deepest value found on the way (0: the text's start). Keys compare as
 * written: one spelled with an escape is not found. */
size_t jsonloc_find(const char *text, size_t len, const char *const *keys, size_t n);

/* The offset of the first byte from i that is no space and in no JSONC
 * comment (turbo.jsonc, bun.lock), or len. */
size_t jsonloc_skip_space(const char *text, size_t len, size_t i);

/* One member of an object: its key's quoted text (key_at, key_len: from
 * the '"' to past the closing one, escapes as written), where its value
 * starts and the offset past it. */
struct jsonloc_member {
	size_t key_at, key_len, value_at, end;
};

/* The members of the object at offset at (spaces, and JSONC's comments,
 * before it): the first max into m, their count into *n. Returns the
 * offset of the object's '}', or len when at holds no object that
 * closes (then *n says how far it got). A trailing ',' is taken. Only
 * finds ends: the text is one a parser took already. */
size_t jsonloc_members(const char *text, size_t len, size_t at, struct jsonloc_member *m,
		       size_t max, size_t *n);

/* The offset of item index of the array at offset at, or at when there
 * is no such item. */
size_t jsonloc_item(const char *text, size_t len, size_t at, size_t index);

/* The offset of the first byte that no JSON text may hold: one that is not
 * UTF-8 (an overlong form, a surrogate, a truncated sequence), or a NUL.
 * Returns len when there is none; else *why says which. */
size_t jsonloc_bad_byte(const char *text, size_t len, const char **why);

/* Where a key is repeated in one object: the offsets of the first and
 * the second occurrence's opening '"'. */
struct jsonloc_repeat {
	size_t first, second;
};

/* Whether an object of text repeats a key (a JSON reader keeps the first
 * or the last, each its own way: issue 57 item 2). Keys compare as JSON
 * reads them: "n\u0061me" is "name". Of all repeats, *r gets the one
 * whose second occurrence comes first in the text. Runs on text a parser
 * took (comments blanked); in time n log n, in memory the keys of the
 * open objects. */
bool jsonloc_repeated_key(const char *text, size_t len, struct jsonloc_repeat *r);

/* The string at offset at (a '"'), its escapes read, NUL-terminated, into
 * a new allocation: a key to print. */
char *jsonloc_string(const char *text, size_t len, size_t at);

/* The 1-based line and column of byte off in text (any UTF-8 text:
 * yamlload.c places libyaml's reader errors with it): columns count
 * characters (a UTF-8 sequence is one), as libyaml's marks do. */
void jsonloc_line_col(const char *text, size_t off, int *line, int *col);

#endif
