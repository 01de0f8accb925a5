/* output.h - what a run shows on the terminal or in a log: each task's lines
 * under its prefix, one line as a task starts and ends, blocks per task when
 * grouped, and the live status line. docs/output.md has the formats. */
#ifndef VX_RUN_OUTPUT_H
#define VX_RUN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/run/scheduler.h"
#include "util/strbuf.h"

struct output_job;
struct tui;

/* One per run; the scheduler owns it. Fields are set by output_init(). */
#define OUTPUT_FLUSH_MS 50

struct output {
	int fd;		       /* where everything goes (stdout) */
	enum output_logs logs; /* what of a task's own output is shown */
	bool group;	       /* hold a task's lines until it ends */
	bool status_line;      /* keep a redrawn line at the bottom */
	bool color;	       /* ANSI colours on prefixes and failures */
	bool served;	       /* a server of vx watch's: a stop is not a failure */
	struct job *jobs;      /* the run's jobs, indexed like per_job */
	struct output_job *per_job;
	size_t njobs;
	struct strbuf batch;   /* lines of the current event */
	struct strbuf pending; /* the events since the scheduler last waited, written
				* by output_flush: one write for 1000 cache hits */
	long long flushed_ms;  /* loop_now() at the last flush: a burst is written
				* every OUTPUT_FLUSH_MS even if the scheduler never waits */
	struct strbuf status;  /* the status line as last drawn */
	bool status_drawn;     /* the cursor sits at the end of the status line */
	bool broken;	       /* fd refused a write: stop writing */
	struct tui *tui;       /* set by the scheduler when the run is drawn as a
				* terminal UI (tui.h): the events go there, not to fd,
				* until output_finish closes it */
};

/* Prepares out for jobs[0..njobs) writing to fd with opts' logs, grouping,
 * status line and colour. Never fails. */
void output_init(struct output *out, int fd, const struct scheduler_opts *opts, struct job *jobs,
		 size_t njobs);
/* Clears the status line, writes what is pending and frees what out holds. */
void output_finish(struct output *out);
/* Writes what the events since the last flush said. The scheduler calls it
 * before it waits, so no line waits on a task. */
void output_flush(struct output *out);

/* "ID: running: COMMAND", as job i is spawned. */
void output_job_start(struct output *out, size_t i);
/* Takes n bytes job i printed: complete lines are shown (or held for the
 * job's block) under its prefix; a partial last line waits for the rest. */
void output_job_data(struct output *out, size_t i, const char *buf, size_t n);
/* A line of vx's own about job i (a spawn error), shown at once. */
void output_job_note(struct output *out, size_t i, const char *fmt, ...) VX_PRINTF(3, 4);
/* Job i ended (state, exit_code, timed_out, reason, duration_ms set): flushes
 * its partial line and held block, then prints the end line. */
void output_job_end(struct output *out, size_t i);
/* "ID: cache hit, replaying output" and job i's log, per the logs mode. */
void output_job_cached(struct output *out, size_t i);
/* "ID: skipped (REASON)". */
void output_job_skipped(struct output *out, size_t i);
/* Redraws "[done/running/queued] D/R/Q  12.3s" when the status line is on
 * and the text changed. */
void output_status(struct output *out, size_t done, size_t running, size_t queued,
		   long long elapsed_ms);

/* Prints "Tasks: N succeeded, N cached, N failed, N skipped (of N) in 1.23s"
 * to stdout; tasks with no command are counted apart ("(of N; M with no
 * command)"), never as succeeded. For the caller, after the run. */
void output_summary(const struct job *jobs, size_t n, long long total_ms);

/* Appends how job ended: "done in 1.20s", "failed (exit 1) in 0.12s",
 * "timed out after 10s", a served run's stop reason; failure words in red
 * with color; the failure's time only when it started. */
void output_add_outcome(struct strbuf *sb, const struct job *job, bool color, bool served,
			bool started);
/* Appends line (n bytes, no newline) as a terminal shows it behind vx's
 * prefix: SGR colour kept (and reset at its end), a carriage return keeps
 * what follows it, every other escape and control byte but a tab dropped. */
void output_add_task_text(struct strbuf *dst, const char *line, size_t n);

/* Appends ms as "0.42s", "12.30s" or "2m03s". */
void output_add_duration(struct strbuf *sb, long long ms);

/* Whether vx colours its lines, given whether stdout is a terminal and the
 * values of NO_COLOR and FORCE_COLOR (NULL: unset). NO_COLOR set and not
 * empty: no, whatever else is set (no-color.org); else FORCE_COLOR set:
 * yes unless "0" or "false", even on a pipe (force-color.org; empty is yes,
 * as in Node and supports-color); else tty. */
bool output_wants_color(bool tty, const char *no_color, const char *force_color);

#endif
