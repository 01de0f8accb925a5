/* mounts.h - a plan's mounts: the list bwrap carries out, in its order
 * (masks, binds, the punched directories around walls, the stubs of the
 * root's hidden files). Private to src/sandbox; what a plan shows is asked
 * through sandbox_request_sees (request.h). */
#ifndef VX_SANDBOX_MOUNTS_H
#define VX_SANDBOX_MOUNTS_H

#include "sandbox/plan.h"
#include "sandbox/request.h"

/* Appends one mount of kind to req (src and dst copied; fd -1, by fd). */
void mount_add(struct sandbox_request *req, enum sandbox_mount_kind kind, const char *src,
	       const char *dst);

/* Lays out b's resolved grants, walls and denies as req's mounts, in bwrap
 * order, and decides which go by path. Returns 0, or -1 with one line in
 * b->err (a write grant that cannot be walked for its denies). */
int mounts_assemble(struct builder *b);

#endif
