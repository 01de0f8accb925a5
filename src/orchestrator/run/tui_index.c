#include "orchestrator/run/tui_index.h"

#include <string.h>

void tui_index_init(struct tui_index *x, size_t keep)
{
	/* one more start than lines kept: the unfinished line's */
	ring_init(&x->starts, sizeof(size_t), keep + 1);
	tui_index_reset(x);
}

void tui_index_reset(struct tui_index *x)
{
	ring_reset(&x->starts);
	*(size_t *)ring_push(&x->starts) = 0;
	x->seen = 0;
}

void tui_index_free(struct tui_index *x)
{
	ring_free(&x->starts);
	x->seen = 0;
}

size_t tui_index_add(struct tui_index *x, const char *buf, size_t n)
{
	size_t ended = 0;
	for (const char *p = buf, *end = buf + n; (p = memchr(p, '\n', (size_t)(end - p)));) {
		p++;
		*(size_t *)ring_push(&x->starts) = x->seen + (size_t)(p - buf);
		ended++;
	}
	x->seen += n;
	return ended;
}

void tui_index_skip(struct tui_index *x, size_t to)
{
	if (to > x->seen)
		x->seen = to;
}

static size_t last_start(const struct tui_index *x)
{
	return *(const size_t *)ring_at(&x->starts, ring_end(&x->starts) - 1);
}

bool tui_index_unfinished(const struct tui_index *x)
{
	return last_start(x) < x->seen;
}

size_t tui_index_count(const struct tui_index *x)
{
	return ring_end(&x->starts) - !tui_index_unfinished(x);
}

size_t tui_index_ended(const struct tui_index *x)
{
	return ring_end(&x->starts) - 1;
}

size_t tui_index_first(const struct tui_index *x)
{
	return ring_first(&x->starts);
}

size_t tui_index_seen(const struct tui_index *x)
{
	return x->seen;
}

size_t tui_index_bytes(const struct tui_index *x)
{
	return x->starts.cap * x->starts.size;
}

bool tui_index_span(const struct tui_index *x, size_t k, size_t *start, size_t *len)
{
	const size_t *s = ring_at(&x->starts, k);
	if (!s || k >= tui_index_count(x))
		return false;
	const size_t *next = ring_at(&x->starts, k + 1);
	*start = *s;
	*len = (next ? *next - 1 : x->seen) - *s;
	return true;
}
