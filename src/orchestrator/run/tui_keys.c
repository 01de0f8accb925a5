/* tui_keys.c - the terminal UI's keys (tui.h): moving, scrolling and
 * quitting, and the line typed to a persistent task's stdin. Keys arrive
 * as the run's loop finds stdin readable, never from a poll of its own. */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>
#if defined(__linux__) || defined(__APPLE__)
/* TIOCGWINSZ: POSIX has no way to ask a terminal's size before 2024's
 * tcgetwinsize, which no libc here has yet */
#include <sys/ioctl.h>
#endif

#include "orchestrator/run/tui_state.h"
#include "util/compat.h"
#include "util/loop.h"

/* Reads that found no key in a row before stdin is taken as gone (a
 * closed terminal stays readable forever, and the loop would spin). */
#define EMPTY_READS_MAX 64

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

void tui_input_close(struct tui *t, size_t i)
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
			tui_input_close(t, i);
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
			tui_input_close(t, t->sel);
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
	struct pane p = tui_pane(t);
	tui_pane_scroll(&p, (size_t)(t->body_h > 0 ? t->body_h : 1), delta);
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
		tui_pane(t).view->follow = true;
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

/* SIGWINCH, through the loop (its handler in curses never runs: the loop
 * blocks the signal). resizeterm queues a KEY_RESIZE, which getch hands
 * tui_on_key: that one only redraws, or each would queue the next. */
void tui_on_winch(struct loop *l, int signo, void *data)
{
	(void)l, (void)signo;
#ifdef TIOCGWINSZ
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
#endif
	tui_redraw(data);
}

void tui_on_key(struct loop *l, int fd, unsigned events, void *data)
{
	(void)fd, (void)events;
	struct tui *t = data;
	int ch, n = 0;
	while ((ch = getch()) != ERR) {
		n++;
		if (ch == KEY_RESIZE)
			tui_redraw(t);
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
	tui_draw_now(t);
}
