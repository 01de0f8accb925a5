/* tui_draw.c - the terminal UI's frame (tui.h): the header, the task
 * list, the selected pane and the key help, drawn whole from the jobs'
 * state and logs each time; curses sends the terminal the difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "orchestrator/run/output.h"
#include "orchestrator/run/tui_state.h"
#include "util/loop.h"

/* Color pairs 1..8: the eight ANSI colours on the default background. */
void tui_colors_init(struct tui *t)
{
	t->color = has_colors() && !getenv("NO_COLOR") && start_color() == OK;
	if (!t->color)
		return;
	use_default_colors();
	for (short c = 0; c < 8; c++)
		init_pair((short)(c + 1), c, -1);
}

static attr_t color_attr(const struct tui *t, int ansi)
{
	return t->color ? COLOR_PAIR(ansi + 1) : A_NORMAL;
}

/* The attributes after an SGR sequence's parameters p[0..n): bold, dim,
 * underline, reverse and the sixteen foreground colours; backgrounds and
 * 256-colour or RGB choices are skipped (the pane keeps one background). */
static attr_t sgr_apply(const struct tui *t, attr_t a, const char *p, size_t n)
{
	const char *end = p + n;
	while (p <= end) {
		char *stop;
		long v = strtol(p, &stop, 10);
		if (stop == p)
			v = 0;
		if (v == 0)
			a = A_NORMAL;
		else if (v == 1)
			a |= A_BOLD;
		else if (v == 2)
			a |= A_DIM;
		else if (v == 4)
			a |= A_UNDERLINE;
		else if (v == 7)
			a |= A_REVERSE;
		else if (v == 22)
			a &= ~(attr_t)(A_BOLD | A_DIM);
		else if (v == 24)
			a &= ~(attr_t)A_UNDERLINE;
		else if (v == 27)
			a &= ~(attr_t)A_REVERSE;
		else if (v >= 30 && v <= 37)
			a = (a & ~(attr_t)A_COLOR) | color_attr(t, (int)v - 30);
		else if (v >= 90 && v <= 97)
			a = (a & ~(attr_t)A_COLOR) | color_attr(t, (int)v - 90) | A_BOLD;
		else if (v == 39)
			a &= ~(attr_t)A_COLOR;
		else if (v == 38 || v == 48) {
			/* 38;5;N or 38;2;R;G;B: its arguments are no codes */
			const char *q = stop;
			long kind = q < end && *q == ';' ? strtol(q + 1, (char **)&q, 10) : 0;
			for (int skip = kind == 5 ? 1 : kind == 2 ? 3 : 0; skip && q < end; skip--)
				strtol(q + 1, (char **)&q, 10);
			stop = (char *)q;
		}
		p = memchr(stop, ';', (size_t)(end - stop));
		if (!p)
			break;
		p++;
	}
	return a;
}

/* Writes s[0..n) (task text as output_add_task_text leaves it: printable
 * bytes, tabs and SGR sequences) at row y from column x, in at most w
 * columns, wide characters by their width. Returns the columns used. */
static int put_text(const struct tui *t, int y, int x, int w, const char *s, size_t n, attr_t base)
{
	attr_t a = base;
	int col = 0;
	mbstate_t ps;
	memset(&ps, 0, sizeof ps);
	move(y, x);
	for (size_t i = 0; i < n && col < w;) {
		if (s[i] == 0x1b && i + 1 < n && s[i + 1] == '[') {
			const char *m = memchr(s + i, 'm', n - i);
			if (!m)
				break;
			a = base | sgr_apply(t, A_NORMAL, s + i + 2, (size_t)(m - (s + i + 2)));
			i = (size_t)(m - s) + 1;
			continue;
		}
		attrset(a);
		if (s[i] == '\t') {
			for (int sp = 8 - col % 8; sp > 0 && col < w; sp--, col++)
				addch(' ');
			i++;
			continue;
		}
		wchar_t wc;
		size_t k = mbrtowc(&wc, s + i, n - i, &ps);
		int cw = k > 0 && k <= n - i ? wcwidth(wc) : -1;
		if (cw < 0) { /* not a character of this locale: shown as '?' */
			memset(&ps, 0, sizeof ps);
			if (col + 1 > w)
				break;
			addch('?');
			col++;
			i++;
			continue;
		}
		if (col + cw > w)
			break;
		addnstr(s + i, (int)k);
		col += cw;
		i += k;
	}
	attrset(A_NORMAL);
	return col;
}

static int put_str(const struct tui *t, int y, int x, int w, const char *s, attr_t a)
{
	return put_text(t, y, x, w, s, strlen(s), a);
}

/* "queued", "running 3.4s", "done 1.20s", "cached", "failed", ... and
 * its colour. */
static attr_t state_text(const struct tui *t, size_t i, struct strbuf *sb)
{
	const struct job *job = &t->jobs[i];
	switch (job->state) {
	case JOB_PENDING:
		strbuf_addstr(sb, "queued");
		return A_DIM;
	case JOB_RUNNING:
		strbuf_addf(sb, "running %lld.%llds", (t->elapsed_ms - job->start_ms) / 1000,
			    (t->elapsed_ms - job->start_ms) % 1000 / 100);
		return color_attr(t, COLOR_YELLOW);
	case JOB_SUCCEEDED:
		strbuf_addstr(sb, "done ");
		output_add_duration(sb, job->duration_ms);
		return color_attr(t, COLOR_GREEN);
	case JOB_NOOP:
		strbuf_addstr(sb, job->handed_off ? "handed off" : "done");
		return color_attr(t, COLOR_GREEN);
	case JOB_CACHED:
		strbuf_addstr(sb, "cached");
		return color_attr(t, COLOR_CYAN);
	case JOB_FAILED:
		strbuf_addstr(sb, job->stopped	   ? "stopped"
				  : job->timed_out ? "timed out"
						   : "failed");
		return job->stopped ? A_DIM : color_attr(t, COLOR_RED) | A_BOLD;
	case JOB_SKIPPED:
		strbuf_addstr(sb, "skipped");
		return A_DIM;
	}
	return A_NORMAL;
}

static void draw_list(struct tui *t, int y0, int h, int w)
{
	if (t->sel < t->list_top)
		t->list_top = t->sel;
	if (t->sel >= t->list_top + (size_t)h)
		t->list_top = t->sel - (size_t)h + 1;
	struct strbuf st = STRBUF_INIT;
	for (int r = 0; r < h && t->list_top + (size_t)r < t->njobs; r++) {
		size_t i = t->list_top + (size_t)r;
		bool sel = i == t->sel;
		strbuf_reset(&st);
		attr_t sa = state_text(t, i, &st);
		int sw = (int)st.len < w - 8 ? (int)st.len : w - 8;
		attr_t row = sel && !t->show_all ? A_REVERSE : A_NORMAL;
		if (row) {
			attrset(row);
			mvhline(y0 + r, 0, ' ', w);
		}
		put_str(t, y0 + r, 0, 2, sel ? ">" : " ", row | A_BOLD);
		put_str(t, y0 + r, 2, w - sw - 4, t->jobs[i].id, row);
		put_text(t, y0 + r, w - sw - 1, sw, st.buf, st.len, row | sa);
	}
	strbuf_release(&st);
}

static void draw_pane(struct tui *t, int y0, int x0, int h, int w)
{
	struct strbuf title = STRBUF_INIT;
	bool input = !t->show_all && t->tj[t->sel].in_fd >= 0;
	if (t->show_all) {
		strbuf_addstr(&title, "all tasks");
	} else {
		const struct job *job = &t->jobs[t->sel];
		strbuf_addf(&title, "%s  ", job->id);
		if (job->state == JOB_FAILED || job->state == JOB_SUCCEEDED)
			output_add_outcome(&title, job, false, false, true);
		else
			state_text(t, t->sel, &title);
		if (input && !t->interacting)
			strbuf_addstr(&title, "  (i: type to it)");
	}
	put_str(t, y0, x0, w, title.buf, A_BOLD | A_UNDERLINE);
	strbuf_release(&title);

	int body = h - 1 - (t->interacting ? 1 : 0);
	if (body < 1)
		return;
	t->body_h = body;
	struct pane p = tui_pane(t);
	size_t top = tui_pane_top(&p, (size_t)body);
	for (int r = 0; r < body && top + (size_t)r < p.total; r++) {
		size_t k = top + (size_t)r;
		int y = y0 + 1 + r, x = x0, left = w;
		const struct all_line *al = t->show_all ? ring_at(&t->all, k) : NULL;
		if (t->show_all ? !al : !tui_job_line(t, t->sel, k, &t->raw)) {
			/* k is the line before the first kept: k + 1 went */
			strbuf_reset(&t->text);
			strbuf_addf(&t->text,
				    "[%zu earlier lines not kept: %s keeps the last %d%s]", k + 1,
				    t->show_all ? "the all view" : "the TUI", TUI_LINES_KEPT,
				    t->show_all ? "" : " a task");
			put_str(t, y, x, left, t->text.buf, A_DIM);
			continue;
		}
		if (al) {
			char prefix[512];
			snprintf(prefix, sizeof prefix, "%s: ", t->jobs[al->job].id);
			int used = put_str(t, y, x, left, prefix, A_BOLD);
			x += used;
			left -= used;
			tui_job_line(t, al->job, al->line, &t->raw);
		}
		strbuf_reset(&t->text);
		output_add_task_text(&t->text, t->raw.buf, t->raw.len);
		put_text(t, y, x, left, t->text.buf, t->text.len, A_NORMAL);
	}
	if (!t->show_all && !p.view->follow && p.total - p.lo > (size_t)body)
		put_str(t, y0, x0 + w - 12 > x0 ? x0 + w - 12 : x0, 12, "[scrolled]", A_REVERSE);
	if (t->interacting) {
		int used = put_str(t, y0 + h - 1, x0, w, "> ", A_BOLD);
		put_str(t, y0 + h - 1, x0 + used, w - used - 1, t->typed.buf, A_NORMAL);
	}
}

static const char *const help_rows[] = {
    "up/k, down/j  select the previous, the next task",
    "i or enter    type to the task (a persistent one reads it)",
    "ctrl-z        stop typing to it (ctrl-d: end its input)",
    "u, d          scroll its output up, down (pgup, pgdn, wheel)",
    "g, f          to its first line; follow its newest (end)",
    "a             all tasks' output, or the selected task's",
    "h             hide or show the task list",
    "m             this help",
    "q, ctrl-c     stop the tasks (again: kill them)",
};

static void draw_help(struct tui *t, int H, int W)
{
	int n = (int)(sizeof help_rows / sizeof *help_rows);
	int w = 66 < W - 2 ? 66 : W - 2, h = n + 2 < H - 2 ? n + 2 : H - 2;
	int y = (H - h) / 2, x = (W - w) / 2;
	if (w < 10 || h < 3)
		return;
	attrset(A_NORMAL);
	for (int r = 0; r < h; r++)
		mvhline(y + r, x, ' ', w);
	attrset(A_BOLD);
	mvhline(y, x, ACS_HLINE, w);
	mvhline(y + h - 1, x, ACS_HLINE, w);
	mvvline(y, x, ACS_VLINE, h);
	mvvline(y, x + w - 1, ACS_VLINE, h);
	mvaddch(y, x, ACS_ULCORNER);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	put_str(t, y, x + 2, w - 4, " keys ", A_BOLD);
	for (int r = 0; r < h - 2; r++)
		put_str(t, y + 1 + r, x + 2, w - 4, help_rows[r], A_NORMAL);
}

void tui_draw_now(struct tui *t)
{
	int H = LINES, W = COLS;
	erase();
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, " vx run  [done/running/queued] %zu/%zu/%zu  %lld.%llds", t->done,
		    t->running, t->queued, t->elapsed_ms / 1000, t->elapsed_ms % 1000 / 100);
	if (t->quits)
		strbuf_addstr(&sb,
			      t->quits > 1 ? "  killing the tasks" : "  stopping: q again kills");
	attrset(A_REVERSE);
	mvhline(0, 0, ' ', W);
	put_str(t, 0, 0, W, sb.buf, A_REVERSE);

	strbuf_reset(&sb);
	if (t->message.len)
		strbuf_add(&sb, t->message.buf, t->message.len);
	else if (t->interacting)
		strbuf_addf(&sb,
			    " typing to %s: enter sends the line, ctrl-d ends its input, "
			    "ctrl-z stops typing",
			    t->jobs[t->sel].id);
	else
		strbuf_addstr(&sb, " q quit  m keys  up/down j/k select  i type to it  u/d scroll  "
				   "f follow  a all  h list");
	put_str(t, H - 1, 0, W, sb.buf, t->message.len ? A_BOLD : A_DIM);
	strbuf_release(&sb);

	int body_h = H - 2;
	if (body_h >= 2) {
		int lw = 0;
		if (!t->hide_list) {
			size_t idw = 0;
			for (size_t i = 0; i < t->njobs; i++)
				if (strlen(t->jobs[i].id) > idw)
					idw = strlen(t->jobs[i].id);
			lw = (int)idw + 18;
			if (lw > W / 3)
				lw = W / 3;
			if (lw < 12)
				lw = W < 24 ? 0 : 12;
		}
		if (lw) {
			draw_list(t, 1, body_h, lw);
			attrset(A_DIM);
			mvvline(1, lw, ACS_VLINE, body_h);
			attrset(A_NORMAL);
		}
		int px = lw ? lw + 2 : 0;
		if (W - px > 0 && t->njobs)
			draw_pane(t, 1, px, body_h, W - px);
	}
	if (t->help)
		draw_help(t, H, W);
	refresh();
	t->dirty = false;
	t->drawn_ms = loop_now();
}

static void on_frame(struct loop *l, void *data)
{
	(void)l;
	struct tui *t = data;
	t->frame_timer = 0;
	if (t->dirty)
		tui_draw_now(t);
}

void tui_draw(struct tui *t)
{
	if (!t->dirty)
		return;
	long long now = loop_now();
	if (now - t->drawn_ms >= TUI_FRAME_MS)
		tui_draw_now(t);
	else if (!t->frame_timer)
		t->frame_timer = loop_timer(t->loop, t->drawn_ms + TUI_FRAME_MS, on_frame, t);
}

/* Draws the whole frame anew: after a resize the terminal may have
 * scrolled or cleared what curses thinks it shows. */
void tui_redraw(struct tui *t)
{
	clearok(curscr, TRUE);
	tui_draw_now(t);
}
