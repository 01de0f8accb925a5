/* Unit tests for util/ring.c: the last max elements of a sequence,
 * addressed by their number in the whole of it; what the TUI's line
 * index is made of (its starts were a vector kept whole: 8 bytes a line
 * of every task for the whole run, the session 29 review). */
#include "check.h"
#include "util/ring.h"

int main(void)
{
	struct ring r;
	ring_init(&r, sizeof(size_t), 1000);
	CHECK_INT(ring_first(&r), 0);
	CHECK_INT(ring_end(&r), 0);
	CHECK(!ring_at(&r, 0));

	/* below max: everything kept, the memory grown as needed */
	for (size_t i = 0; i < 10; i++)
		*(size_t *)ring_push(&r) = i * 7;
	CHECK_INT(ring_first(&r), 0);
	CHECK_INT(ring_end(&r), 10);
	CHECK_INT(*(size_t *)ring_at(&r, 9), 63);
	CHECK(!ring_at(&r, 10));
	CHECK(r.cap < 1000);

	/* ten million pushed: the last 1000 kept, in order, no more memory */
	for (size_t i = 10; i < 10000000; i++)
		*(size_t *)ring_push(&r) = i * 7;
	CHECK_INT(ring_end(&r), 10000000);
	CHECK_INT(ring_first(&r), 10000000 - 1000);
	CHECK_INT(r.cap, 1000);
	CHECK(!ring_at(&r, 10000000 - 1001));
	size_t bad = 0;
	for (size_t k = ring_first(&r); k < ring_end(&r); k++)
		if (*(size_t *)ring_at(&r, k) != k * 7)
			bad++;
	CHECK_INT(bad, 0);

	/* truncated: the newest go, the numbering of the rest stays */
	ring_truncate(&r, 10000000 - 10);
	CHECK_INT(ring_end(&r), 10000000 - 10);
	CHECK(!ring_at(&r, 10000000 - 10));
	CHECK_INT(*(size_t *)ring_at(&r, 10000000 - 11), (10000000 - 11) * 7);
	*(size_t *)ring_push(&r) = 1;
	CHECK_INT(*(size_t *)ring_at(&r, 10000000 - 10), 1);
	CHECK_INT(ring_first(&r), 10000000 - 1000);

	/* reset: empty, numbered from 0 again */
	ring_reset(&r);
	CHECK_INT(ring_first(&r), 0);
	CHECK_INT(ring_end(&r), 0);
	*(size_t *)ring_push(&r) = 5;
	CHECK_INT(*(size_t *)ring_at(&r, 0), 5);

	/* a ring of one */
	struct ring one;
	ring_init(&one, sizeof(int), 1);
	for (int i = 0; i < 5; i++)
		*(int *)ring_push(&one) = i;
	CHECK_INT(ring_first(&one), 4);
	CHECK_INT(*(int *)ring_at(&one, 4), 4);
	ring_free(&one);
	ring_free(&r);
	return check_finish("ring");
}
