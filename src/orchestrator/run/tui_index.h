/* tui_index.h - where the lines of one task's log start, for the terminal
 * UI to read them back from the log (tui.h): of the last `keep` lines that
 * ended and the unfinished one after them, no more. A task printing
 * without end costs the TUI a bounded index: it kept every line's start,
 * 8 bytes a line for the whole run (a billion lines, 8 GB; the session 29
 * review). Lines are numbered from the log's first, those dropped too. */
#ifndef VX_RUN_TUI_INDEX_H
#define VX_RUN_TUI_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "util/ring.h"

/* The lines the TUI keeps a task, and the "all" view keeps in all (80 KB
 * and 160 KB at most): ten thousand lines are a few hundred pages to
 * scroll back; Turborepo's TUI keeps 1024 rows a task. */
#define TUI_LINES_KEPT 10000

struct tui_index {
	struct ring starts; /* size_t: where each kept line starts; the last
			     * one is the unfinished line's (it may be empty) */
	size_t seen;	    /* the bytes of the log indexed */
};

/* An empty index keeping the last keep (> 0) lines that ended. */
void tui_index_init(struct tui_index *x, size_t keep);
/* Forgets every line: the log starts anew (a retry). */
void tui_index_reset(struct tui_index *x);
void tui_index_free(struct tui_index *x);
/* Indexes buf[0..n), the log's next n bytes. Returns how many lines
 * they ended: tui_index_ended() grew by that much. */
size_t tui_index_add(struct tui_index *x, const char *buf, size_t n);
/* The lines of the log that ended (with a \n): lines 0 .. that - 1. */
size_t tui_index_ended(const struct tui_index *x);
/* The log's bytes up to `to` are not there to read (a stretch the
 * scheduler lost): they count as part of the line being indexed. */
void tui_index_skip(struct tui_index *x, size_t to);
/* The lines of the log: those ended, and an unfinished last one. */
size_t tui_index_count(const struct tui_index *x);
/* The first line whose start is kept: the lines before it are gone. */
size_t tui_index_first(const struct tui_index *x);
/* Whether the log's last line is unfinished (printed without its \n). */
bool tui_index_unfinished(const struct tui_index *x);
/* The bytes of the log indexed. */
size_t tui_index_seen(const struct tui_index *x);
/* The memory the index holds, in bytes. */
size_t tui_index_bytes(const struct tui_index *x);
/* Line k's place in the log: *start, and *len its bytes without the \n.
 * Returns false (nothing set) when k is before tui_index_first or not
 * there (k >= tui_index_count). */
bool tui_index_span(const struct tui_index *x, size_t k, size_t *start, size_t *len);

#endif
