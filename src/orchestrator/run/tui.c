/* tui.c - the terminal UI of `vx run` (tui.h) on ncurses: curses keeps a
 * copy of the screen and sends only what changed, knows every terminal
 * through terminfo, and decodes its keys and mouse, which hand-written
 * escape codes would each get wrong somewhere. Each frame is drawn whole
 * from the jobs' state and logs; curses turns it into the difference. */
#include "orchestrator/run/tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>
#if defined(__linux__) || defined(__APPLE__)
/* TIOCGWINSZ: POSIX has no way to ask a terminal's size before 2024's
 * tcgetwinsize, which no libc here has yet */
#include <sys/ioctl.h>
#endif

#include "orchestrator/run/output.h"
#include "util/compat.h"
#include "util/loop.h"
#include "util/vec.h"

/* A line is read back at most this long: a row shows a few hundred
 * columns, and a 64 KiB minified bundle line must not cost a frame. */
#define LINE_SHOW_MAX 4096
/* A log not indexed yet (a cache hit's) is read this much at a time. */
#define INDEX_CHUNK ((size_t)64 << 10)
/* ncurses waits this long after ESC for the rest of a key's sequence. */
#define ESC_DELAY_MS 25
/* Reads that found no key in a row before stdin is taken as gone (a
 * closed terminal stays readable forever, and the loop would spin). */
#define EMPTY_READS_MAX 64

/* A pane's scroll: its first line, unless it follows the newest. */
struct view {
	size_t top;
	bool follow;
};

struct tui_job {
	VEC(size_t) starts;  /* where each line of its log starts; v[0] == 0 always */
	size_t seen;	     /* the bytes of its log indexed into starts */
	struct strbuf notes; /* vx's own lines about it, each ending in \n */
	size_t nnotes;
	int in_fd; /* its stdin's write end (tui_job_input), or -1 */
	struct view view;
};

/* A line of the "all" view: line `line` of job `job`, in the order the
 * lines ended. */
struct all_line {
	size_t job, line;
};

struct tui {
	struct loop *loop;
	struct job *jobs; /* the scheduler's, read only */
	size_t njobs;
	struct tui_job *tj;
	VEC(struct all_line) all;
	struct view all_view;
	void (*quit)(void *ctx);
	void *ctx;
	SCREEN *scr;
	char *old_locale;		/* LC_CTYPE before (ncursesw needs the user's) */
	struct sigaction old_sig[6];	/* the handlers newterm replaced */
	int saved_err;			/* stderr while fd 2 goes to err_fd, or -1 */
	int err_fd;			/* what vx wrote to stderr meanwhile, or -1 */
	size_t sel;			/* the selected job */
	size_t list_top;		/* the first job the list shows */
	bool show_all, hide_list, help; /* a, h, m */
	bool interacting;		/* keys go to sel's stdin */
	struct strbuf typed;		/* the line typed to it, sent at Enter */
	struct strbuf message;		/* said on the last line until the next key */
	int quits;
	size_t done, running, queued;
	long long elapsed_ms;
	bool color;
	bool dirty;
	long long drawn_ms;
	unsigned long frame_timer;
	int empty_reads;
	bool stdin_watched;
	int body_h; /* the pane's rows of output at the last frame */
	struct strbuf raw, text;
};

static const int saved_signals[] = {SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGWINCH, SIGHUP};

/* The TUI on screen, for the exit handler: a die() while it is up must
 * still give the user their terminal back. */
static struct tui *tui_live;

static void stderr_release(struct tui *t);

/* A die() while the TUI is up: the terminal back, then what was said
 * while the screen was curses' (the die's own line among it: a review
 * found the user got their terminal and no error). */
static void tui_atexit(void)
{
	if (!tui_live)
		return;
	if (!isendwin())
		endwin();
	stderr_release(tui_live);
}

bool tui_usable(const char **why)
{
	const char *term = getenv("TERM");
	int err = 0;
	if (!term || !*term) {
		*why = "TERM is not set";
		return false;
	}
	/* setupterm reads the entry without touching the terminal. */
	if (setupterm(term, STDOUT_FILENO, &err) != OK) {
		*why = err == 0 ? "no terminfo entry for TERM (install ncurses-term, or set TERM)"
				: "the terminfo database cannot be read";
		return false;
	}
	del_curterm(cur_term);
	return true;
}

/* Color pairs 1..8: the eight ANSI colours on the default background. */
static void colors_init(struct tui *t)
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

static size_t job_lines(const struct tui *t, size_t i)
{
	return log_lines(t, i) + t->tj[i].nnotes;
}

/* Line k of job i, raw (vx's notes follow its log). */
static void job_line(struct tui *t, size_t i, size_t k, struct strbuf *raw)
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

static size_t view_top(const struct view *v, size_t total, size_t h)
{
	size_t max = view_max(total, h);
	return v->follow || v->top > max ? max : v->top;
}

static void view_scroll(struct view *v, size_t total, size_t h, long delta)
{
	size_t top = view_top(v, total, h), max = view_max(total, h);
	if (delta < 0)
		top = (size_t)-delta > top ? 0 : top - (size_t)-delta;
	else
		top = top + (size_t)delta > max ? max : top + (size_t)delta;
	v->top = top;
	v->follow = top == max;
}

/* The selected pane's view and its line count. */
static struct view *pane_view(struct tui *t, size_t *total)
{
	if (t->show_all) {
		*total = t->all.n;
		return &t->all_view;
	}
	*total = job_lines(t, t->sel);
	return &t->tj[t->sel].view;
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
	size_t total;
	struct view *v = pane_view(t, &total);
	size_t top = view_top(v, total, (size_t)body);
	for (int r = 0; r < body && top + (size_t)r < total; r++) {
		size_t k = top + (size_t)r;
		int x = x0;
		int left = w;
		if (t->show_all) {
			const struct all_line *al = &t->all.v[k];
			char prefix[512];
			snprintf(prefix, sizeof prefix, "%s: ", t->jobs[al->job].id);
			int used = put_str(t, y0 + 1 + r, x, left, prefix, A_BOLD);
			x += used;
			left -= used;
			job_line(t, al->job, al->line, &t->raw);
		} else {
			job_line(t, t->sel, k, &t->raw);
		}
		strbuf_reset(&t->text);
		output_add_task_text(&t->text, t->raw.buf, t->raw.len);
		put_text(t, y0 + 1 + r, x, left, t->text.buf, t->text.len, A_NORMAL);
	}
	if (!t->show_all && v->follow == false && total > (size_t)body)
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

static void draw_now(struct tui *t)
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
		draw_now(t);
}

void tui_draw(struct tui *t)
{
	if (!t->dirty)
		return;
	long long now = loop_now();
	if (now - t->drawn_ms >= TUI_FRAME_MS)
		draw_now(t);
	else if (!t->frame_timer)
		t->frame_timer = loop_timer(t->loop, t->drawn_ms + TUI_FRAME_MS, on_frame, t);
}

static void say(struct tui *t, const char *fmt, ...) VX_PRINTF(2, 3);
static void say(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	strbuf_reset(&t->message);
	strbuf_addch(&t->message, ' ');
	va_start(ap, fmt);
	strbuf_vaddf(&t->message, fmt, ap);
	va_end(ap);
}

static void input_close(struct tui *t, size_t i)
{
	if (t->tj[i].in_fd >= 0)
		close(t->tj[i].in_fd);
	t->tj[i].in_fd = -1;
	if (t->interacting && t->sel == i) {
		t->interacting = false;
		strbuf_reset(&t->typed);
	}
}

/* Sends buf[0..n) to the selected job's stdin. A full pipe drops it (the
 * task is not reading); a closed one ends the input. */
static void input_send(struct tui *t, const char *buf, size_t n)
{
	size_t i = t->sel;
	while (n) {
		ssize_t w = write(t->tj[i].in_fd, buf, n);
		if (w > 0) {
			buf += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			say(t, "%s is not reading its input: %zu bytes not sent", t->jobs[i].id, n);
			return;
		} else {
			say(t, "%s closed its input", t->jobs[i].id);
			input_close(t, i);
			return;
		}
	}
}

/* A key while typing to a task: a line is edited here and sent whole at
 * enter, as a terminal in canonical mode would (the task reads a pipe). */
static void key_interactive(struct tui *t, int ch)
{
	switch (ch) {
	case 26: /* ctrl-z */
		t->interacting = false;
		strbuf_reset(&t->typed);
		return;
	case 4: /* ctrl-d: what is typed, or the end of its input */
		if (t->typed.len) {
			input_send(t, t->typed.buf, t->typed.len);
			strbuf_reset(&t->typed);
		} else {
			say(t, "%s's input ended", t->jobs[t->sel].id);
			input_close(t, t->sel);
		}
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
		strbuf_addch(&t->typed, '\n');
		input_send(t, t->typed.buf, t->typed.len);
		strbuf_reset(&t->typed);
		return;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		while (t->typed.len &&
		       ((unsigned char)t->typed.buf[t->typed.len - 1] & 0xC0) == 0x80)
			strbuf_setlen(&t->typed, t->typed.len - 1);
		if (t->typed.len)
			strbuf_setlen(&t->typed, t->typed.len - 1);
		return;
	case 21: /* ctrl-u */
		strbuf_reset(&t->typed);
		return;
	default:
		if ((ch >= 32 && ch < 127) || (ch >= 128 && ch < 256) || ch == '\t')
			strbuf_addch(&t->typed, (char)ch);
	}
}

static void scroll_pane(struct tui *t, long delta)
{
	size_t total;
	struct view *v = pane_view(t, &total);
	view_scroll(v, total, (size_t)(t->body_h > 0 ? t->body_h : 1), delta);
}

static void key(struct tui *t, int ch)
{
	strbuf_reset(&t->message);
	if (ch == 3 || (ch == 'q' && !t->interacting)) { /* ctrl-c, q */
		t->quits++;
		t->quit(t->ctx);
		return;
	}
	if (t->interacting) {
		key_interactive(t, ch);
		return;
	}
	long page = t->body_h > 1 ? t->body_h - 1 : 1;
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (t->sel)
			t->sel--;
		t->show_all = false;
		break;
	case KEY_DOWN:
	case 'j':
		if (t->sel + 1 < t->njobs)
			t->sel++;
		t->show_all = false;
		break;
	case 'i':
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (t->show_all)
			t->show_all = false;
		if (t->tj[t->sel].in_fd >= 0)
			t->interacting = true;
		else
			say(t, "%s takes no input: a running persistent task does",
			    t->jobs[t->sel].id);
		break;
	case 'u':
		scroll_pane(t, -(page + 1) / 2);
		break;
	case 'd':
		scroll_pane(t, (page + 1) / 2);
		break;
	case KEY_PPAGE:
		scroll_pane(t, -page);
		break;
	case KEY_NPAGE:
	case ' ':
		scroll_pane(t, page);
		break;
	case 'g':
	case KEY_HOME:
		scroll_pane(t, -(long)((size_t)-1 >> 2));
		break;
	case 'f':
	case 'G':
	case KEY_END: {
		size_t total;
		pane_view(t, &total)->follow = true;
		break;
	}
	case 'a':
		t->show_all = !t->show_all;
		break;
	case 'h':
		t->hide_list = !t->hide_list;
		break;
	case 'm':
	case '?':
		t->help = !t->help;
		break;
	case 27: /* esc */
		t->help = false;
		break;
	case KEY_MOUSE: {
		MEVENT me = {0}; /* getmouse fills it only when it says OK */
		if (getmouse(&me) == OK && (me.bstate & BUTTON4_PRESSED))
			scroll_pane(t, -3);
		else if (me.bstate & BUTTON5_PRESSED)
			scroll_pane(t, 3);
		break;
	}
	default:
		break;
	}
}

/* Draws the whole frame anew: after a resize the terminal may have
 * scrolled or cleared what curses thinks it shows. */
static void redraw(struct tui *t)
{
	clearok(curscr, TRUE);
	draw_now(t);
}

/* SIGWINCH, through the loop (its handler in curses never runs: the loop
 * blocks the signal). resizeterm queues a KEY_RESIZE, which getch hands
 * on_key: that one only redraws, or each would queue the next. */
static void on_winch(struct loop *l, int signo, void *data)
{
	(void)l, (void)signo;
#ifdef TIOCGWINSZ
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
#endif
	redraw(data);
}

static void on_key(struct loop *l, int fd, unsigned events, void *data)
{
	(void)fd, (void)events;
	struct tui *t = data;
	int ch, n = 0;
	while ((ch = getch()) != ERR) {
		n++;
		if (ch == KEY_RESIZE)
			redraw(t);
		else
			key(t, ch);
	}
	if (!n && ++t->empty_reads >= EMPTY_READS_MAX) {
		/* the terminal is gone: SIGHUP stops the run; stop listening */
		loop_unwatch(l, STDIN_FILENO);
		t->stdin_watched = false;
	} else if (n) {
		t->empty_reads = 0;
	}
	draw_now(t);
}

/* fd 2 into an unlinked file while the screen is curses': a warning
 * written over the frame would stay there until the next full redraw. */
static void stderr_hold(struct tui *t)
{
	const char *dir = getenv("TMPDIR");
	t->saved_err = t->err_fd = -1;
	fflush(stderr);
	int fd = compat_tmpfile(dir && *dir ? dir : "/tmp");
	if (fd < 0)
		return;
	int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved < 0 || dup2(fd, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		close(fd);
		return;
	}
	t->saved_err = saved;
	t->err_fd = fd;
}

static void stderr_release(struct tui *t)
{
	if (t->saved_err < 0)
		return;
	fflush(stderr);
	dup2(t->saved_err, STDERR_FILENO);
	close(t->saved_err);
	char buf[8192];
	off_t at = 0;
	ssize_t k;
	while ((k = pread(t->err_fd, buf, sizeof buf, at)) > 0) {
		if (write(STDERR_FILENO, buf, (size_t)k) != k)
			break;
		at += k;
	}
	close(t->err_fd);
	t->saved_err = t->err_fd = -1;
}

struct tui *tui_open(struct loop *l, struct job *jobs, size_t njobs, void (*quit)(void *ctx),
		     void *ctx)
{
	struct tui *t = xcalloc(1, sizeof *t);
	t->loop = l;
	t->jobs = jobs;
	t->njobs = njobs;
	t->quit = quit;
	t->ctx = ctx;
	t->all_view.follow = true;
	strbuf_init(&t->typed);
	strbuf_init(&t->message);
	strbuf_init(&t->raw);
	strbuf_init(&t->text);
	t->tj = xcalloc(njobs ? njobs : 1, sizeof *t->tj);
	for (size_t i = 0; i < njobs; i++) {
		vec_push(&t->tj[i].starts, 0);
		strbuf_init(&t->tj[i].notes);
		t->tj[i].in_fd = -1;
		t->tj[i].view.follow = true;
	}
	t->old_locale = xstrdup(setlocale(LC_CTYPE, NULL));
	setlocale(LC_CTYPE, "");
	for (size_t k = 0; k < sizeof saved_signals / sizeof *saved_signals; k++)
		sigaction(saved_signals[k], NULL, &t->old_sig[k]);
	fflush(stdout);
	t->scr = newterm(NULL, stdout, stdin);
	if (!t->scr) {
		setlocale(LC_CTYPE, t->old_locale);
		free(t->old_locale);
		for (size_t i = 0; i < njobs; i++) {
			vec_free(&t->tj[i].starts);
			strbuf_release(&t->tj[i].notes);
		}
		free(t->tj);
		free(t);
		return NULL;
	}
	static bool atexit_set;
	if (!atexit_set && !atexit(tui_atexit))
		atexit_set = true;
	tui_live = t;
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(ESC_DELAY_MS);
	curs_set(0);
	mousemask(BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	colors_init(t);
	stderr_hold(t);
	loop_watch(l, STDIN_FILENO, LOOP_READ, on_key, t);
	t->stdin_watched = true;
	loop_signal(l, SIGWINCH, on_winch, t);
	t->dirty = true;
	draw_now(t);
	return t;
}

void tui_close(struct tui *t)
{
	if (!t)
		return;
	if (t->stdin_watched)
		loop_unwatch(t->loop, STDIN_FILENO);
	loop_signal(t->loop, SIGWINCH, NULL, NULL);
	loop_timer_cancel(t->loop, t->frame_timer);
	mousemask(0, NULL);
	endwin();
	delscreen(t->scr);
	tui_live = NULL;
	/* newterm's handlers (its SIGINT one exits) must not outlive it */
	for (size_t k = 0; k < sizeof saved_signals / sizeof *saved_signals; k++)
		sigaction(saved_signals[k], &t->old_sig[k], NULL);
	setlocale(LC_CTYPE, t->old_locale);
	free(t->old_locale);
	stderr_release(t);
	for (size_t i = 0; i < t->njobs; i++) {
		if (t->tj[i].in_fd >= 0)
			close(t->tj[i].in_fd);
		vec_free(&t->tj[i].starts);
		strbuf_release(&t->tj[i].notes);
	}
	free(t->tj);
	vec_free(&t->all);
	strbuf_release(&t->typed);
	strbuf_release(&t->message);
	strbuf_release(&t->raw);
	strbuf_release(&t->text);
	free(t);
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

void tui_job_input(struct tui *t, size_t i, int fd)
{
	if (t->tj[i].in_fd >= 0)
		close(t->tj[i].in_fd);
	t->tj[i].in_fd = fd;
}

void tui_job_ended(struct tui *t, size_t i)
{
	tui_job_log(t, i);
	struct tui_job *tj = &t->tj[i];
	/* its unfinished last line joins the "all" view now */
	if (tj->starts.v[tj->starts.n - 1] < tj->seen)
		vec_push(&t->all, ((struct all_line){i, tj->starts.n - 1}));
	input_close(t, i);
	t->dirty = true;
}

void tui_status(struct tui *t, size_t done, size_t running, size_t queued, long long elapsed_ms)
{
	if (done != t->done || running != t->running || queued != t->queued ||
	    elapsed_ms / 100 != t->elapsed_ms / 100)
		t->dirty = true;
	t->done = done;
	t->running = running;
	t->queued = queued;
	t->elapsed_ms = elapsed_ms;
}
