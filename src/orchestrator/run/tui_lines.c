/* tui_lines.c - the lines each pane of the terminal UI shows (tui.h):
 * where each line of a task's log starts, the order lines ended in for
 * the "all" view, and each line read back from the log the scheduler
 * keeps, so no task's text is held twice. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/run/tui_state.h"

/* A line is read back at most this long: a row shows a few hundred
 * columns, and a 64 KiB minified bundle line must not cost a frame. */
#define LINE_SHOW_MAX 4096
/* A log not indexed yet (a cache hit's) is read this much at a time. */
#define INDEX_CHUNK ((size_t)64 << 10)

/* Appends n bytes of job's log from offset at to raw: from memory, its
 * spill file, or its kept tail; nothing while a worker owns the log. */
static void log_read(const struct job *job, size_t at, size_t n, struct strbuf *raw)
{
	if (job->pending || at >= job->log_len)
		return;
	if (n > job->log_len - at)
		n = job->log_len - at;
	if (job->log_fd >= 0) {
		strbuf_grow(raw, n);
		ssize_t k;
		while ((k = pread(job->log_fd, raw->buf + raw->len, n, (off_t)at)) < 0 &&
		       errno == EINTR)
			;
		if (k > 0)
			strbuf_setlen(raw, raw->len + (size_t)k);
	} else if (at < job->log.len) {
		strbuf_add(raw, job->log.buf + at, n < job->log.len - at ? n : job->log.len - at);
	} else if (job->log_lost && at >= job->log_len - job->log_tail.len) {
		size_t off = at - (job->log_len - job->log_tail.len);
		strbuf_add(raw, job->log_tail.buf + off, n);
	}
}

/* Indexes n more bytes of job i's log (buf); the lines they end join the
 * "all" view. */
static void index_bytes(struct tui *t, size_t i, const char *buf, size_t n)
{
	struct tui_index *x = &t->tj[i].starts;
	size_t from = tui_index_ended(x), ended = tui_index_add(x, buf, n);
	for (size_t k = from; k < from + ended; k++)
		*(struct all_line *)ring_push(&t->all) = (struct all_line){i, k};
	if (i == t->sel || t->show_all)
		t->dirty = true;
}

static void index_reset(struct tui *t, size_t i)
{
	tui_index_reset(&t->tj[i].starts);
	/* A retry's old lines leave the "all" view too; the others keep their
	 * order (and the count of those that went before them). */
	size_t kept = ring_first(&t->all);
	for (size_t k = kept; k < ring_end(&t->all); k++) {
		const struct all_line *al = ring_at(&t->all, k);
		if (al->job != i)
			*(struct all_line *)ring_at(&t->all, kept++) = *al;
	}
	ring_truncate(&t->all, kept);
}

size_t tui_job_lines(const struct tui *t, size_t i)
{
	return tui_index_count(&t->tj[i].starts) + t->tj[i].nnotes;
}

/* Line k of job i, raw (vx's notes follow its log). */
bool tui_job_line(struct tui *t, size_t i, size_t k, struct strbuf *raw)
{
	const struct tui_job *tj = &t->tj[i];
	strbuf_reset(raw);
	size_t nlog = tui_index_count(&tj->starts);
	if (k >= nlog) {
		const char *s = tj->notes.buf;
		for (k -= nlog; k; k--)
			s = strchr(s, '\n') + 1;
		strbuf_add(raw, s, strcspn(s, "\n"));
		return true;
	}
	size_t start, n;
	if (!tui_index_span(&tj->starts, k, &start, &n))
		return false;
	log_read(&t->jobs[i], start, n < LINE_SHOW_MAX ? n : LINE_SHOW_MAX, raw);
	return true;
}

struct pane tui_pane(struct tui *t)
{
	struct pane p;
	size_t first;
	if (t->show_all) {
		p.view = &t->all_view;
		first = ring_first(&t->all);
		p.total = ring_end(&t->all);
	} else {
		p.view = &t->tj[t->sel].view;
		first = tui_index_first(&t->tj[t->sel].starts);
		p.total = tui_job_lines(t, t->sel);
	}
	p.lo = first ? first - 1 : 0;
	return p;
}

static size_t pane_max(const struct pane *p, size_t h)
{
	return p->total > p->lo + h ? p->total - h : p->lo;
}

size_t tui_pane_top(const struct pane *p, size_t h)
{
	size_t max = pane_max(p, h), top = p->view->top;
	return p->view->follow || top > max ? max : top < p->lo ? p->lo : top;
}

void tui_pane_scroll(const struct pane *p, size_t h, long delta)
{
	size_t top = tui_pane_top(p, h), max = pane_max(p, h);
	if (delta < 0)
		top = (size_t)-delta > top - p->lo ? p->lo : top - (size_t)-delta;
	else
		top = (size_t)delta > max - top ? max : top + (size_t)delta;
	p->view->top = top;
	p->view->follow = top == max;
}

void tui_job_started(struct tui *t, size_t i)
{
	index_reset(t, i);
	t->dirty = true;
}

void tui_job_data(struct tui *t, size_t i, const char *buf, size_t n)
{
	index_bytes(t, i, buf, n);
}

void tui_job_log(struct tui *t, size_t i)
{
	const struct job *job = &t->jobs[i];
	if (job->pending)
		return;
	struct tui_index *x = &t->tj[i].starts;
	if (job->log_len < tui_index_seen(x))
		index_reset(t, i);
	while (tui_index_seen(x) < job->log_len) {
		strbuf_reset(&t->raw);
		log_read(job, tui_index_seen(x), INDEX_CHUNK, &t->raw);
		if (!t->raw.len) { /* a lost stretch of a log: nothing to index */
			tui_index_skip(&t->tj[i].starts, job->log_len);
			break;
		}
		index_bytes(t, i, t->raw.buf, t->raw.len);
	}
	t->dirty = true;
}

void tui_job_note(struct tui *t, size_t i, const char *line)
{
	strbuf_addstr(&t->tj[i].notes, line);
	strbuf_addch(&t->tj[i].notes, '\n');
	t->tj[i].nnotes++;
	t->dirty = true;
}

void tui_lines_end(struct tui *t, size_t i)
{
	tui_job_log(t, i);
	const struct tui_index *x = &t->tj[i].starts;
	/* its unfinished last line joins the "all" view now */
	if (tui_index_unfinished(x))
		*(struct all_line *)ring_push(&t->all) = (struct all_line){i, tui_index_ended(x)};
}
