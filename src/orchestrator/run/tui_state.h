/* tui_state.h - the terminal UI's state (tui.h), shared by its rooms:
 * tui.c (the terminal taken and given back, the run's events), tui_lines.c
 * (each task's lines, read back from its log), tui_draw.c (the frame) and
 * tui_keys.c (the keys, and what is typed to a task). Private to them. */
#ifndef VX_RUN_TUI_STATE_H
#define VX_RUN_TUI_STATE_H

#include <curses.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/run/tui.h"
#include "orchestrator/run/tui_index.h"
#include "util/ring.h"
#include "util/strbuf.h"

/* A pane's scroll: its first line, unless it follows the newest. */
struct view {
	size_t top;
	bool follow;
};

struct tui_job {
	struct tui_index starts; /* where its log's last lines start */
	struct strbuf notes;	 /* vx's own lines about it, each ending in \n */
	size_t nnotes;
	int in_fd; /* its stdin's write end (tui_job_input), or -1 */
	struct view view;
};

/* A line of the "all" view: line `line` of job `job`, in the order the
 * lines ended. The view keeps as many as a job's index: the line one
 * names is among its job's last that many, so still indexed. */
struct all_line {
	size_t job, line;
};

struct tui {
	struct loop *loop;
	struct job *jobs; /* the scheduler's, read only */
	size_t njobs;
	struct tui_job *tj;
	struct ring all; /* struct all_line: the last TUI_LINES_KEPT */
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

/* tui_lines.c */

/* Job i ended: the lines of its log not seen yet, its unfinished last
 * one too, join its pane and the "all" view. */
void tui_lines_end(struct tui *t, size_t i);
/* Lines of job i: its log's, the unfinished last one counted, then
 * vx's notes. */
size_t tui_job_lines(const struct tui *t, size_t i);
/* Line k of job i into raw, as the task wrote it (its first few KiB).
 * Returns false (raw empty) when k is a line no longer kept. */
bool tui_job_line(struct tui *t, size_t i, size_t k, struct strbuf *raw);

/* The shown pane, the selected job's or the "all" view: its lines lo ..
 * total - 1 can be shown; when the oldest went, line lo is the one before
 * the first kept, shown as a note saying how many went. */
struct pane {
	struct view *view;
	size_t lo, total;
};
struct pane tui_pane(struct tui *t);
/* The first line the pane shows in h rows. */
size_t tui_pane_top(const struct pane *p, size_t h);
/* Scrolls it by delta lines (up when negative) in h rows. */
void tui_pane_scroll(const struct pane *p, size_t h, long delta);

/* tui_draw.c */

/* Colour pairs for the eight ANSI colours, when the terminal has them and
 * NO_COLOR is unset. */
void tui_colors_init(struct tui *t);
/* Draws the frame now. */
void tui_draw_now(struct tui *t);
/* Draws the whole frame anew, curses' idea of the screen thrown away. */
void tui_redraw(struct tui *t);

/* tui_keys.c */

/* The loop's callbacks for stdin readable and SIGWINCH. */
void tui_on_key(struct loop *l, int fd, unsigned events, void *data);
void tui_on_winch(struct loop *l, int signo, void *data);
/* Closes job i's input (its stdin's write end), stopping any typing to it. */
void tui_input_close(struct tui *t, size_t i);

#endif
