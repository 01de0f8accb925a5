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
};

/* Checks the frame of text (len bytes) against magic, whose part up to and
 * including its first space names the kind and the rest the version. */
enum keptfile_state keptfile_check(const char *text, size_t len, const char *magic,
				   const char **body, const char **end, const char **why);

/* Appends the trailer to sb (which starts with the magic). */
void keptfile_seal(struct strbuf *sb);

/* Reads a decimal number (a leading '-' allowed) ended by c at *p, moving
 * past c. Returns false, *p unmoved, on anything else or on overflow. */
bool keptfile_num(const char **p, const char *end, char c, int64_t *out);

#endif
