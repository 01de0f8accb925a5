/* jsonloc.h - where things lie in a JSON text, for errors that point at
 * their byte (issue 39: a wrongly typed package.json field was reported
 * at 1:1). cJSON keeps no positions; these find them again in the text it
 * parsed, only when an error is to be printed. */
#ifndef VX_UTIL_JSONLOC_H
#define VX_UTIL_JSONLOC_H

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

/* The 1-based line and column of byte off in text (any UTF-8 text:
 * yamlload.c places libyaml's reader errors with it): columns count
 * characters (a UTF-8 sequence is one), as libyaml's marks do. */
void jsonloc_line_col(const char *text, size_t off, int *line, int *col);

#endif
