/* keptfile.h - the frame of vx's text cache files (kept listings, kept
 * reads): a magic line ("VXLIST 1\n"), the body, and a trailer
 * "end XXH3\n", the XXH3-64 in hex of every byte before it. A file cut
 * short or changed by hand fails the check and is rebuilt, never believed. */
#ifndef VX_UTIL_KEPTFILE_H
#define VX_UTIL_KEPTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum keptfile_state {
	KEPT_OK,      /* *body .. *end is the body */
	KEPT_OTHER,   /* a good frame of another version: rebuild silently */
	KEPT_CORRUPT, /* *why says what is wrong */
	KEPT_UNREAD,  /* keptfile_load only: the file could not be read (errno) */
};

/* Checks the frame of text (len bytes) against magic, whose part up to and
 * including its first space names the kind and the rest the version. */
enum keptfile_state keptfile_check(const char *text, size_t len, const char *magic,
				   const char **body, const char **end, const char **why);

/* Appends the trailer to sb (which starts with the magic). */
void keptfile_seal(struct strbuf *sb);

/* Reads a body from the text between body and end into ctx: NULL, or
 * what is wrong with it. */
typedef const char *keptfile_parse_fn(void *ctx, const char *body, const char *end);

/* The load every kept file shares: reads path, checks its frame against
 * magic and hands the body to parse. Returns KEPT_OK when parse took it;
 * KEPT_OTHER for another version (nothing parsed); KEPT_UNREAD when the
 * file could not be read (errno: ENOENT for none); KEPT_CORRUPT after the
 * warning "WHAT PATH is corrupt (WHY); INSTEAD" (what: "listing cache",
 * instead: what the caller does without it), when the frame or parse
 * refused it: the caller drops what parse may have half filled. */
enum keptfile_state keptfile_load(const char *path, const char *magic, keptfile_parse_fn *parse,
				  void *ctx, const char *what, const char *instead);

/* The save every kept file shares: seals sb (the magic, then the body),
 * writes it to path atomically and releases sb. Returns 0, or -1 after
 * the warning "cannot write the WHAT PATH: strerror". */
int keptfile_save(struct strbuf *sb, const char *path, const char *what);

/* Reads a decimal number (a leading '-' allowed) ended by c at *p, moving
 * past c. Returns false, *p unmoved, on anything else or on overflow. */
bool keptfile_num(const char **p, const char *end, char c, int64_t *out);

#endif
