/* signature.h - the x-artifact-tag of a remote cache artifact: HMAC-SHA256
 * in the layout Turborepo signs with since its "artifact-signature:v2"
 * (read off turbo 2.11.13's own uploads, docs/remote-cache.md):
 *
 *   HMAC-SHA256(key, L("artifact-signature:v2") L(hash) L(teamId) L(body))
 *
 * where L(x) is x's length as 8 bytes little-endian, then x; teamId is the
 * team's id ("" when the team is named by slug alone); the tag is the MAC
 * in standard base64. A length before every field leaves no two inputs the
 * same bytes: no hash/team boundary to slide. */
#ifndef VX_CACHE_SIGNATURE_H
#define VX_CACHE_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SIGNATURE_TAG_SIZE 45 /* base64 of 32 bytes, and a NUL */

/* The tag of a body made of head (head_len bytes; may be 0) and then size
 * bytes of fd from offset at. Returns 0, or -1 with errno (a read failed,
 * or fd ended early: EIO). */
int signature_tag(const char *key, const char *hash, const char *team_id, const void *head,
		  size_t head_len, int fd, off_t at, uint64_t size, char tag[SIGNATURE_TAG_SIZE]);

/* Whether tag is the body's: computed as above, compared in constant time.
 * Returns 1, 0 (no match, or tag not one), or -1 with errno. */
int signature_verify(const char *key, const char *hash, const char *team_id, int fd, off_t at,
		     uint64_t size, const char *tag);

#endif
