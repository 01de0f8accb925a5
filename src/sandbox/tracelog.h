/* tracelog.h - the host file one sandboxed task's trace is written to.
 *
 * strace runs outside the sandbox, around bwrap, and writes its log into
 * a private directory (0700, made by mkdtemp) in the run's directory
 * (util/rundir.h); the directory is never bound inside, so the task can
 * neither read, truncate nor forge its own report. The log is made empty
 * (O_EXCL, O_NOFOLLOW, 0600) before the task starts, so a task that
 * cannot be traced is refused before it runs; the judge reads it after
 * the task ends, and trace_log_remove() deletes both. */
#ifndef VX_SANDBOX_TRACELOG_H
#define VX_SANDBOX_TRACELOG_H

struct trace_log {
	char *dir;  /* RUN_DIR/trace-XXXXXX; NULL when not made */
	char *path; /* dir/log, the file strace -o writes */
};

/* Makes tl's directory and empty log in run_dir (NULL: /tmp). Returns 0,
 * or -1 with errno, with nothing left behind. */
int trace_log_make(struct trace_log *tl, const char *run_dir);

/* Removes the log and its directory (warning if the directory holds
 * something else: only strace writes there). A no-op when not made. */
void trace_log_remove(struct trace_log *tl);

#endif
