/* tui.h - `vx run --ui=tui`: the run as a task list beside the selected
 * task's output, drawn with ncurses on the run's event loop (stdin's keys
 * and SIGWINCH are loop events, never a poll of its own). Task output is
 * read back from each job's log (scheduler.h), which the scheduler keeps
 * anyway; the TUI keeps only where each of the last lines starts
 * (tui_index.h). docs/output.md, "The terminal UI", has the screen, the
 * keys and the costs. */
#ifndef VX_RUN_TUI_H
#define VX_RUN_TUI_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/run/scheduler.h"

struct loop;
struct tui;

/* Whether this terminal can show the TUI: $TERM names a terminfo entry
 * ncurses finds. Returns true, or false with *why set to a sentence
 * saying what is missing (static storage). Changes nothing. */
bool tui_usable(const char **why);

/* Takes the terminal over (the alternate screen, keys read raw from stdin
 * on loop l, SIGWINCH on l) to show jobs[0..njobs). What vx writes to
 * stderr meanwhile is kept and written after the screen is given back.
 * q and Ctrl-C call quit(ctx): the run's interrupt, a second one its kill.
 * Returns NULL when ncurses cannot start (nothing was changed then). */
struct tui *tui_open(struct loop *l, struct job *jobs, size_t njobs, void (*quit)(void *ctx),
		     void *ctx);
/* Gives the terminal back as it was (the normal screen, its modes, the
 * signals ncurses took) and frees t. */
void tui_close(struct tui *t);

/* Job i was spawned: its log starts empty (a retry's too). */
void tui_job_started(struct tui *t, size_t i);
/* Job i printed buf[0..n), which its log now ends with. */
void tui_job_data(struct tui *t, size_t i, const char *buf, size_t n);
/* Job i's whole log is there at once (a cache hit's), or it ended: the
 * lines not seen yet are taken from its log. */
void tui_job_log(struct tui *t, size_t i);
/* A line of vx's own about job i (a spawn error, a retry). */
void tui_job_note(struct tui *t, size_t i, const char *line);
/* fd: the write end of job i's stdin, owned by t from now on (closed when
 * the job ends): `i` on the job sends what is typed there. */
void tui_job_input(struct tui *t, size_t i, int fd);
/* Job i ended (or was skipped or settled by its hook): its input closes. */
void tui_job_ended(struct tui *t, size_t i);
/* The counts and the run's clock, as the status line would show them. */
void tui_status(struct tui *t, size_t done, size_t running, size_t queued, long long elapsed_ms);
/* Draws what changed, at most once every TUI_FRAME_MS (a timer on the
 * loop draws what a burst left). */
void tui_draw(struct tui *t);

#define TUI_FRAME_MS 40

#endif
