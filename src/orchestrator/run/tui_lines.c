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

/* Indexes n more bytes of job i's log (buf, which start at tj->seen). */
static void index_bytes(struct tui *t, size_t i, const char *buf, size_t n)
{
	struct tui_job *tj = &t->tj[i];
	for (const char *p = buf, *end = buf + n; (p = memchr(p, '\n', (size_t)(end - p)));) {
		p++;
		vec_push(&t->all, ((struct all_line){i, tj->starts.n - 1}));
		vec_push(&tj->starts, tj->seen + (size_t)(p - buf));
	}
	tj->seen += n;
	if (i == t->sel || t->show_all)
		t->dirty = true;
}

static void index_reset(struct tui *t, size_t i)
{
	struct tui_job *tj = &t->tj[i];
	tj->starts.n = 0;
	vec_push(&tj->starts, 0);
	tj->seen = 0;
	/* A retry's old lines leave the "all" view too. */
	size_t kept = 0;
	for (size_t k = 0; k < t->all.n; k++)
		if (t->all.v[k].job != i)
			t->all.v[kept++] = t->all.v[k];
	t->all.n = kept;
}

/* Lines of job i's log, the unfinished last one counted. */
static size_t log_lines(const struct tui *t, size_t i)
{
	const struct tui_job *tj = &t->tj[i];
	return tj->starts.n - (tj->starts.v[tj->starts.n - 1] == tj->seen);
}

size_t tui_job_lines(const struct tui *t, size_t i)
{
	return log_lines(t, i) + t->tj[i].nnotes;
}

/* Line k of job i, raw (vx's notes follow its log). */
void tui_job_line(struct tui *t, size_t i, size_t k, struct strbuf *raw)
{
	const struct tui_job *tj = &t->tj[i];
	strbuf_reset(raw);
	size_t nlog = log_lines(t, i);
	if (k >= nlog) {
		const char *s = tj->notes.buf;
		for (k -= nlog; k; k--)
			s = strchr(s, '\n') + 1;
		strbuf_add(raw, s, strcspn(s, "\n"));
		return;
	}
	size_t start = tj->starts.v[k];
	size_t end = k + 1 < tj->starts.n ? tj->starts.v[k + 1] - 1 : tj->seen;
	size_t n = end - start;
	log_read(&t->jobs[i], start, n < LINE_SHOW_MAX ? n : LINE_SHOW_MAX, raw);
}

static size_t view_max(size_t total, size_t h)
{
	return total > h ? total - h : 0;
}

size_t tui_view_top(const struct view *v, size_t total, size_t h)
{
	size_t max = view_max(total, h);
	return v->follow || v->top > max ? max : v->top;
}

void tui_view_scroll(struct view *v, size_t total, size_t h, long delta)
{
	size_t top = tui_view_top(v, total, h), max = view_max(total, h);
	if (delta < 0)
		top = (size_t)-delta > top ? 0 : top - (size_t)-delta;
	else
		top = top + (size_t)delta > max ? max : top + (size_t)delta;
	v->top = top;
	v->follow = top == max;
}

/* The selected pane's view and its line count. */
struct view *tui_pane_view(struct tui *t, size_t *total)
{
	if (t->show_all) {
		*total = t->all.n;
		return &t->all_view;
	}
	*total = tui_job_lines(t, t->sel);
	return &t->tj[t->sel].view;
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
	if (job->log_len < t->tj[i].seen)
		index_reset(t, i);
	while (t->tj[i].seen < job->log_len) {
		strbuf_reset(&t->raw);
		log_read(job, t->tj[i].seen, INDEX_CHUNK, &t->raw);
		if (!t->raw.len) { /* a lost stretch of a log: nothing to index */
			t->tj[i].seen = job->log_len;
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
	struct tui_job *tj = &t->tj[i];
	/* its unfinished last line joins the "all" view now */
	if (tj->starts.v[tj->starts.n - 1] < tj->seen)
		vec_push(&t->all, ((struct all_line){i, tj->starts.n - 1}));
}
