/* tui.c - the terminal UI of `vx run` (tui.h) on ncurses: curses keeps a
 * copy of the screen and sends only what changed, knows every terminal
 * through terminfo, and decodes its keys and mouse, which hand-written
 * escape codes would each get wrong somewhere. This room takes the
 * terminal and gives it back, and hears the run's events; tui_lines.c
 * keeps each task's lines, tui_draw.c draws the frame, tui_keys.c reads
 * the keys. */
#include "orchestrator/run/tui.h"

#include <curses.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "orchestrator/run/tui_state.h"
#include "util/compat.h"
#include "util/loop.h"

/* ncurses waits this long after ESC for the rest of a key's sequence. */
#define ESC_DELAY_MS 25

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
	ring_init(&t->all, sizeof(struct all_line), TUI_LINES_KEPT);
	t->all_view.follow = true;
	strbuf_init(&t->typed);
	strbuf_init(&t->message);
	strbuf_init(&t->raw);
	strbuf_init(&t->text);
	t->tj = xcalloc(njobs ? njobs : 1, sizeof *t->tj);
	for (size_t i = 0; i < njobs; i++) {
		tui_index_init(&t->tj[i].starts, TUI_LINES_KEPT);
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
			tui_index_free(&t->tj[i].starts);
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
	tui_colors_init(t);
	stderr_hold(t);
	loop_watch(l, STDIN_FILENO, LOOP_READ, tui_on_key, t);
	t->stdin_watched = true;
	loop_signal(l, SIGWINCH, tui_on_winch, t);
	t->dirty = true;
	tui_draw_now(t);
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
		tui_index_free(&t->tj[i].starts);
		strbuf_release(&t->tj[i].notes);
	}
	free(t->tj);
	ring_free(&t->all);
	strbuf_release(&t->typed);
	strbuf_release(&t->message);
	strbuf_release(&t->raw);
	strbuf_release(&t->text);
	free(t);
}

void tui_job_input(struct tui *t, size_t i, int fd)
{
	if (t->tj[i].in_fd >= 0)
		close(t->tj[i].in_fd);
	t->tj[i].in_fd = fd;
}

void tui_job_ended(struct tui *t, size_t i)
{
	tui_lines_end(t, i);
	tui_input_close(t, i);
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
