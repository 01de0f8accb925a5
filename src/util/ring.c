#include "util/ring.h"

#include <stdlib.h>

#include "util/die.h"

void ring_init(struct ring *r, size_t size, size_t max)
{
	*r = (struct ring){.size = size, .max = max ? max : 1};
}

static size_t slot(const struct ring *r, size_t k)
{
	size_t s = r->head + (k - r->first);
	return s >= r->cap ? s - r->cap : s;
}

void *ring_push(struct ring *r)
{
	if (r->n == r->cap && r->cap < r->max) {
		/* head is 0 until cap reaches max: nothing wrapped to move */
		size_t cap = r->cap ? r->cap * 2 : 16;
		if (cap > r->max)
			cap = r->max;
		if (cap > (size_t)-1 / r->size)
			die("ring too large");
		r->v = xrealloc(r->v, cap * r->size);
		r->cap = cap;
	}
	if (r->n == r->cap) { /* full at max: the oldest goes */
		r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
		r->first++;
		r->n--;
	}
	r->n++;
	return r->v + slot(r, r->first + r->n - 1) * r->size;
}

void *ring_at(const struct ring *r, size_t k)
{
	if (k < r->first || k - r->first >= r->n)
		return NULL;
	return r->v + slot(r, k) * r->size;
}

size_t ring_first(const struct ring *r)
{
	return r->first;
}

size_t ring_end(const struct ring *r)
{
	return r->first + r->n;
}

void ring_truncate(struct ring *r, size_t end)
{
	if (end >= r->first && end - r->first < r->n)
		r->n = end - r->first;
}

void ring_reset(struct ring *r)
{
	r->head = r->n = r->first = 0;
}

void ring_free(struct ring *r)
{
	free(r->v);
	ring_init(r, r->size, r->max);
}
