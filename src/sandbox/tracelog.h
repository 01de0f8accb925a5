/* tracelog.h - the host file one sandboxed task's trace is written to.
 *
 * strace runs inside the sandbox, and writes its log to a descriptor vx
 * passes it (bwrap.h SANDBOX_LOG_FD): the file lies in a private
 * directory (0700, made by mkdtemp) in the run's directory
 * (util/rundir.h), never bound inside, and vx-sandbox-init closes the
 * descriptor before the task runs, in a pid namespace from which the
 * tracer's /proc/PID/fd cannot be named: the task can neither read,
 * truncate nor forge its own report. The log is made empty (O_EXCL,
 * O_NOFOLLOW, 0600) before the task starts, so a task that cannot be
 * traced is refused before it runs; the judge reads it by its path after
 * the task ends, and trace_log_remove() closes and deletes it. */
#ifndef VX_SANDBOX_TRACELOG_H
#define VX_SANDBOX_TRACELOG_H

struct trace_log {
	char *dir;  /* RUN_DIR/trace-XXXXXX; NULL when not made */
	char *path; /* dir/log, the file strace writes */
	int fd;	    /* it, open for writing (O_CLOEXEC): what strace is given */
};

/* Makes tl's directory and empty log in run_dir (NULL: /tmp), and keeps
 * the log open. Returns 0,
 * or -1 with errno, with nothing left behind. */
int trace_log_make(struct trace_log *tl, const char *run_dir);

/* Closes and removes the log and its directory (warning if the directory holds
 * something else: only strace writes there). A no-op when not made. */
void trace_log_remove(struct trace_log *tl);

#endif
