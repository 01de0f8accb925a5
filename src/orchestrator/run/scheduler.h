/* scheduler.h - runs a dependency graph of commands, -j at a time, on one
 * poll loop; signals, timeouts and process groups live here. */
#ifndef VX_RUN_SCHEDULER_H
#define VX_RUN_SCHEDULER_H

#include <stdbool.h>
#include <spawn.h>
#include <stddef.h>

#include "orchestrator/config/config.h"
#include "util/strbuf.h"

struct loop;

enum job_state {
	JOB_PENDING,   /* waiting for dependencies or a slot */
	JOB_RUNNING,   /* its process group is alive */
	JOB_SUCCEEDED, /* exited 0 (and the after hook agreed) */
	JOB_CACHED,    /* the before hook satisfied it without running */
	JOB_FAILED,    /* non-zero exit, signal, timeout, spawn error or hook veto */
	JOB_SKIPPED,   /* never started: a dependency failed, or the run stopped */
	JOB_NOOP,      /* nothing to run (argv == NULL); counts as success */
};

struct job {
	/* Set by the caller before scheduler_run(). */
	const char *id;		/* "project#task": the prefix of every line */
	char **argv;		/* argv[0] an absolute path; NULL: a no-op job. Read after
				 * the before hook, so the hook may replace it (a wrapper) */
	char **envp;		/* the whole environment of the command; NULL: vx's own */
	const char *command;	/* the shell command it runs, as the user wrote it (the
				 * start line, the summary, a wrapper's payload); it
				 * stays when a wrapper replaces argv. NULL: argv joined */
	const char *cwd;	/* absolute */
	long long timeout_ms;	/* whole task; 0: none */
	bool persistent;	/* a server: never finishes on its own terms */
	const char *start_note; /* said in its "running" line, or NULL */
	bool logs_own;		/* logs below is the task's own (outputLogs), not the run's */
	enum output_logs logs;
	size_t *deps; /* indices into the jobs array this job waits for */
	/* A sandboxed job (set by the before hook, read at spawn): extra file
	 * actions (the descriptors bwrap must inherit) and a signal relay. With
	 * relay_signals, a signal for the job is written as its name ("TERM\n")
	 * to signal_fd, which the task's watcher inside the sandbox reads, and
	 * SIGKILL closes signal_fd (the watcher then kills what is left) and
	 * kills the group. The scheduler owns signal_fd from then on and closes
	 * it when the job ends. */
	int (*spawn_actions)(posix_spawn_file_actions_t *fa, void *spawn_data);
	void *spawn_data;
	bool relay_signals;
	int signal_fd;
	size_t ndeps;
	bool settled; /* it succeeded in an earlier run of these jobs and
		       * nothing it depends on changed (vx watch's cycles):
		       * not run, printed or counted; its dependents may start */
	void *data;   /* the caller's, for the hooks */

	/* Set by scheduler_run(). */
	enum job_state state;
	int exit_code;	 /* exit status, or 128+signal; -1 when never run */
	int term_signal; /* the signal that ended it, 0 when it exited */
	bool timed_out;
	bool stopped;	    /* set by scheduler_run: vx stopped it (an interrupt, a cancel,
			     * a persistent task's exit) */
	long long start_ms; /* monotonic, from the run's start */
	long long duration_ms;
	/* the same two in microseconds (--profile) */
	long long start_us, duration_us;
	struct strbuf log;	/* all it printed, stdout and stderr as interleaved;
				 * reset when the run starts (a zeroed strbuf is fine),
				 * then filled by the before hook or by the command;
				 * the caller releases it (joblog_release). Past
				 * JOBLOG_MEM bytes of a command's output, with a
				 * spill_dir: only the first JOBLOG_MEM bytes */
	int log_fd;		/* set when the log spilled: an unlinked file holding
				 * ALL of it (O_CLOEXEC), else -1 (set by scheduler_run) */
	size_t log_len;		/* the whole log's length, spilled or not */
	struct strbuf log_tail; /* after a spill: its last bytes (at least
				 * JOBLOG_TAIL), for who reads the end */
	bool log_lost;		/* its log could not be spilled (TMPDIR full): only its
				 * head (log) and tail (log_tail) are kept, and the
				 * task is not saved (its replay would be cut) */
	const char *reason;	/* static text: why it failed or was skipped, or NULL;
				 * a hook may set it before failing a job */
	const char *retry;	/* set by the after hook: run the job once more, for
				 * this reason (a sandbox's mount race, a broken
				 * trace), within what is left of its timeout; the
				 * scheduler does it at most once and never while
				 * stopping, and clears this before each after hook */
	bool handed_off;	/* the before hook handed it off (BEFORE_HANDED_OFF) */
	const char *hit_from;	/* set by a before hook answering BEFORE_DONE: where the
				 * hit came from, said in its line ("remote" cache hit);
				 * NULL: said plainly */
	bool pending;		/* set when its before hook returned BEFORE_PENDING:
				 * the hook's owner works on it off the loop (a
				 * restore) and owns job->log meanwhile; the hook is
				 * asked again once the owner clears this from a
				 * callback on the run's loop */
	bool held;		/* set by the after hook of a job that succeeded:
				 * it is done (printed, its slot free) but its
				 * dependents wait until the hook's owner clears
				 * this from a callback on the run's loop (a cache
				 * save still reading its outputs) */
};

/* What a before hook says of a ready job (issue 38: these were integers,
 * and the task cache's "wait" was 2 as "handed off" was). */
enum before_result {
	BEFORE_FAIL = -1,  /* fail it (job->reason says why) */
	BEFORE_RUN = 0,	   /* spawn it */
	BEFORE_DONE,	   /* the hook satisfied it: a cache hit (job->log holds
			    * what to show) */
	BEFORE_HANDED_OFF, /* someone else runs it (vx watch's servers): it counts
			    * as a no-op, and job->reason is printed as its line */
	BEFORE_PENDING,	   /* ask again when job->pending is cleared (a restore
			    * off the loop; --shard: another machine's upload
			    * waited for on the pool): the job holds no slot
			    * meanwhile, and a stop skips it. Never a timer of
			    * the loop's (issue 58 item 4) */
};

/* What an after hook says of a reaped job. */
enum after_result {
	AFTER_FAIL = -1, /* fail a job that exited 0 (a sandbox violation) */
	AFTER_KEEP = 0,	 /* keep its verdict */
};

struct scheduler_hooks {
	/* When a job is ready, before it is spawned. NULL: always run. */
	enum before_result (*before)(struct job *job, void *ctx);
	/* After a run job is reaped, before its dependents are released; it
	 * may set job->held. NULL: keep. */
	enum after_result (*after)(struct job *job, void *ctx);
	void *ctx;
	/* The run stops starting jobs (a failure, an interrupt): the hook's
	 * owner lets go of the jobs pending on it (clears job->pending), which
	 * then end skipped, rather than finishing work nobody will use. NULL:
	 * nothing to let go. */
	void (*stop)(void *ctx);
};

struct scheduler_opts {
	int concurrency;   /* >= 1 */
	bool keep_going;   /* --continue: independent jobs go on after a failure */
	bool past_failure; /* --continue=always: a failed job's dependents start too */
	enum output_logs logs;
	bool group_output; /* print each job's output as one block when it ends */
	bool bare_lines;   /* --log-prefix=none: a task's own lines without "ID: " */
	bool status_line;  /* redraw a done/running/queued line (stdout is a TTY) */
	bool color;
	long long grace_ms;    /* SIGTERM to SIGKILL, on timeout and interrupt; 0: 5000 */
	const char *spill_dir; /* where a log past JOBLOG_MEM goes (the run's
				* directory); NULL: logs stay in memory whole */
	const char *reaper;    /* vx-sandbox-init: run as `--reaper` for the run, told
				* each job's group, SIGKILLs those left when vx dies
				* (kill -9 too); NULL: none */
	bool served;	       /* the run is a server of vx watch's (--served-by): an
				* interrupt is the watch stopping or restarting it, said
				* "stopped by vx watch", not "failed (interrupted)" */
	const bool *cancel;    /* set true by a callback on the loop (vx watch --interrupt):
				* the running jobs are stopped as after a persistent
				* task's exit (SIGTERM, the grace, SIGKILL) and the
				* pending ones skipped. NULL: never */
	bool tui;	       /* draw the run as a terminal UI (tui.h) instead of lines;
				* a persistent job's stdin is then a pipe the UI writes
				* to (else /dev/null, as every job's) */
	struct loop *loop;     /* the event loop the jobs run on, shared with whoever
				* else serves the run (util/loop.h); NULL: a loop of
				* the run's own, freed when it ends */
};

/* Runs every job whose dependencies succeeded, in dependency order, at most
 * opts->concurrency at once. Returns 0 when every job succeeded, was cached
 * or was a no-op; 1 when any failed or was skipped; 130 when SIGINT or
 * SIGTERM stopped the run (every task group was signalled and reaped first).
 * When a persistent job exits, the other running jobs are stopped (SIGTERM,
 * then SIGKILL after the grace) and the run returns that job's exit status
 * when it failed (a sandbox violation: 1), else 1 if an earlier one
 * failed, else 0.
 * The dependency graph must be acyclic (graph.c checks it). Prints the
 * task lines (output.h) but no summary; leaves SIGPIPE ignored, so that a
 * closed stdout cannot kill vx. Dies only when vx itself cannot go on
 * (signalfd or poll failing). */
int scheduler_run(struct job *jobs, size_t njobs, const struct scheduler_opts *opts,
		  const struct scheduler_hooks *hooks);

/* "succeeded", "cached", "failed", "skipped", "noop", "running", "pending". */
const char *job_state_name(enum job_state s);

#endif
