/* Unit tests for run/tui_index.c: where each line of a task's log starts,
 * for the TUI to read it back. The index kept every line's start for the
 * whole run (8 bytes a line: a billion-line task cost 8 GB; the session
 * 29 review); it keeps the last TUI_LINES_KEPT lines' now. */
#include "check.h"
#include "orchestrator/run/tui_index.h"

static void check_span(const struct tui_index *x, size_t k, size_t start, size_t len, int line)
{
	size_t s = 0, n = 0;
	check_count++;
	if (!tui_index_span(x, k, &s, &n) || s != start || n != len) {
		check_failures++;
		fprintf(stderr, "%s:%d: line %zu: got %zu+%zu, want %zu+%zu\n", __FILE__, line, k,
			s, n, start, len);
	}
}
#define CHECK_SPAN(x, k, start, len) check_span((x), (k), (start), (len), __LINE__)

int main(void)
{
	struct tui_index x;
	tui_index_init(&x, 3);
	CHECK_INT(tui_index_count(&x), 0);
	CHECK_INT(tui_index_first(&x), 0);

	/* lines across chunks; an unfinished last one counts */
	CHECK_INT(tui_index_add(&x, "ab\nc", 4), 1);
	CHECK_INT(tui_index_count(&x), 2);
	CHECK_SPAN(&x, 0, 0, 2);
	CHECK_SPAN(&x, 1, 3, 1);
	CHECK_INT(tui_index_add(&x, "d\n\n", 3), 2);
	CHECK_INT(tui_index_count(&x), 3);
	CHECK_SPAN(&x, 1, 3, 2);
	CHECK_SPAN(&x, 2, 6, 0);
	CHECK(!tui_index_span(&x, 3, &(size_t){0}, &(size_t){0}));
	CHECK_INT(tui_index_first(&x), 0);

	/* past 3 lines ended, the oldest go: the numbers stay */
	CHECK_INT(tui_index_add(&x, "e\nf\n", 4), 2);
	CHECK_INT(tui_index_count(&x), 5);
	CHECK_INT(tui_index_ended(&x), 5);
	CHECK_INT(tui_index_first(&x), 2);
	CHECK(!tui_index_span(&x, 1, &(size_t){0}, &(size_t){0}));
	CHECK_SPAN(&x, 2, 6, 0);
	CHECK_SPAN(&x, 3, 7, 1);
	CHECK_SPAN(&x, 4, 9, 1);
	CHECK_INT(tui_index_seen(&x), 11);

	/* an unfinished line is kept beside the 3 that ended */
	CHECK_INT(tui_index_add(&x, "gh", 2), 0);
	CHECK_INT(tui_index_count(&x), 6);
	CHECK_INT(tui_index_ended(&x), 5);
	CHECK(tui_index_unfinished(&x));
	CHECK_INT(tui_index_first(&x), 2);
	CHECK_SPAN(&x, 5, 11, 2);

	/* a retry starts it anew */
	tui_index_reset(&x);
	CHECK_INT(tui_index_count(&x), 0);
	CHECK_INT(tui_index_first(&x), 0);
	tui_index_add(&x, "x\n", 2);
	CHECK_SPAN(&x, 0, 0, 1);
	tui_index_free(&x);

	/* a task printing ten million lines: what is kept is the ring's */
	struct tui_index big;
	tui_index_init(&big, TUI_LINES_KEPT);
	static char chunk[65536];
	memset(chunk, '\n', sizeof chunk);
	size_t ended = 0;
	while (ended < 10000000)
		ended += tui_index_add(&big, chunk, sizeof chunk);
	CHECK_INT(tui_index_count(&big), ended);
	CHECK_INT(tui_index_first(&big), ended - TUI_LINES_KEPT);
	CHECK(tui_index_bytes(&big) <= (TUI_LINES_KEPT + 1) * sizeof(size_t));
	CHECK_SPAN(&big, ended - 1, ended - 1, 0);
	CHECK(!tui_index_span(&big, ended - TUI_LINES_KEPT - 1, &(size_t){0}, &(size_t){0}));
	tui_index_free(&big);
	return check_finish("tui_index");
}
