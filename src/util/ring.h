/* ring.h - the last max elements of a sequence: a push past max drops the
 * oldest. Elements are addressed by their number in the whole sequence,
 * so a reader's place survives the drops (and says how many went). */
#ifndef VX_UTIL_RING_H
#define VX_UTIL_RING_H

#include <stddef.h>

struct ring {
	char *v;      /* cap slots of size bytes; v[head] is element first */
	size_t size;  /* an element's bytes */
	size_t max;   /* the most kept, from ring_init */
	size_t cap;   /* slots allocated: grown by doubling up to max */
	size_t head;  /* the slot of element first (0 until cap reaches max) */
	size_t n;     /* elements kept: first .. first + n - 1 */
	size_t first; /* the number of the oldest kept: how many were dropped */
};

/* An empty ring of elements of size bytes keeping at most max (> 0); it
 * holds no memory until the first push. */
void ring_init(struct ring *r, size_t size, size_t max);
/* Appends an element and returns its slot (size bytes, to be filled),
 * element ring_end() - 1; drops the oldest when max are kept. Dies when
 * memory runs out, as xrealloc does. */
void *ring_push(struct ring *r);
/* Element k, or NULL when it was dropped (k < ring_first) or is not
 * there yet (k >= ring_end). */
void *ring_at(const struct ring *r, size_t k);
/* The number of the oldest element kept; that of the one the next push
 * makes. */
size_t ring_first(const struct ring *r);
size_t ring_end(const struct ring *r);
/* Drops the elements from end on (ring_first <= end <= ring_end): the
 * next push makes element end. */
void ring_truncate(struct ring *r, size_t end);
/* Drops every element; the numbering starts at 0 again. Keeps the memory. */
void ring_reset(struct ring *r);
/* Frees the memory; r is an empty ring again. */
void ring_free(struct ring *r);

#endif
