/* strace.h - a streaming parser of `strace -f` logs into file access events.
 *
 * Knows nothing of the sandbox: it turns the lines of
 *   strace -f -q -I3 --seccomp-bpf --decode-pids=pidns -e signal=none
 *          -e trace=... -o LOG CMD
 * (sandbox_trace_flags() in bwrap.c holds the exact list; strace runs
 * inside the sandbox, around vx-sandbox-init --traced) into plain (op,
 * absolute path, errno) records, following each process's working
 * directory and descriptor table so relative paths come out absolute.
 * docs/violations.md ("The trace parser") says what it follows and what
 * it cannot see. */
#ifndef VX_VIOLATIONS_STRACE_H
#define VX_VIOLATIONS_STRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum access_op {
	ACCESS_READ,	    /* open/openat without write intent */
	ACCESS_WRITE,	    /* open with O_WRONLY/O_RDWR/O_CREAT/O_TRUNC/O_APPEND/O_TMPFILE, creat,
			     * mknod, mknodat */
	ACCESS_EXEC,	    /* execve, execveat */
	ACCESS_PROBE,	    /* access, faccessat, faccessat2 */
	ACCESS_READLINK,    /* readlink, readlinkat: a read of the link itself */
	ACCESS_CHDIR,	    /* chdir, fchdir */
	ACCESS_MKDIR,	    /* mkdir, mkdirat */
	ACCESS_RENAME_FROM, /* rename* old name */
	ACCESS_RENAME_TO,   /* rename* new name */
	ACCESS_LINK_FROM,   /* link* existing name */
	ACCESS_LINK_TO,	    /* link* new name */
	ACCESS_SYMLINK,	    /* symlink* link path (the target is only a string) */
	ACCESS_UNLINK,	    /* unlink, unlinkat without AT_REMOVEDIR */
	ACCESS_RMDIR,	    /* rmdir, unlinkat with AT_REMOVEDIR */
	ACCESS_TRUNCATE,    /* truncate */
	ACCESS_UTIME,	    /* utimensat, utime, utimes */
	ACCESS_CONNECT,	    /* connect: a UNIX socket's path (maybe unresolved, like any
			     * path), or "ADDR:PORT" / "[ADDR6]:PORT": resolved, and not
			     * starting with '/' */
	ACCESS_ATTR,	    /* chmod, fchmodat, chown, lchown, fchownat, setxattr,
			     * lsetxattr, removexattr, lremovexattr: metadata written */
	ACCESS_PROBE_WRITE, /* access, faccessat, faccessat2 asking W_OK: whether it may
			     * write (write intent; it changes nothing) */
	ACCESS_LOOKUP,	    /* sendto, sendmsg, sendmmsg of a DNS query: path is the name
			     * asked for, lower case, without the root's dot (the sandbox
			     * has no DNS: the query names the host a client wanted) */
	ACCESS_OP_COUNT
};

/* One distinct (op, path, err) seen in the trace; the first occurrence's
 * syscall and pid are kept. All fields are owned by the parser. */
struct access_event {
	enum access_op op;
	char *path;	     /* absolute, lexically normalized (no link resolution);
			      * as written in the trace when unresolved */
	const char *syscall; /* static string: "openat", "renameat2", ... */
	int err;	     /* 0 on success, else the errno named in the trace */
	pid_t pid;
	bool write_intent; /* the op changes the file system (WRITE, MKDIR, RENAME_TO,
			    * LINK_TO, SYMLINK, UNLINK, RMDIR, TRUNCATE, UTIME, ATTR) */
	bool truncated;	   /* strace cut the string ("..."): path is only a prefix */
	bool unresolved;   /* relative to a descriptor the trace never showed
			    * being opened: path is the relative string as written */
	char *real;	   /* where the kernel opened it: strace -y's path of the
			    * descriptor an open returned, at the moment of the call
			    * (links followed, absolute). NULL: no open, it failed,
			    * or the trace has no -y (the first occurrence's) */
	bool opened_dir;   /* an open that succeeded and demanded a directory
			    * (O_DIRECTORY): what it read was one, then */
};

/* What the trace says about itself, filled in as lines arrive. */
struct strace_summary {
	size_t lines;	  /* complete lines seen */
	size_t skipped;	  /* lines (or unfinished calls) that could not be parsed */
	size_t events;	  /* access records before deduplication */
	pid_t root_pid;	  /* as given, or the first pid seen */
	bool root_exited; /* "+++ exited with N +++" or "+++ killed by SIG +++" for root_pid */
	int root_status;  /* the exit status when root_exited by exit */
	int root_signal;  /* the signal number when root_exited by a signal, else 0 */
};

struct strace_parser;

/* Returns a parser for a trace whose first process started in initial_cwd
 * (absolute). root_pid 0 means the first pid seen in the log. Never fails. */
struct strace_parser *strace_parser_new(const char *initial_cwd, pid_t root_pid);

/* The trace is of a wrapper around the task (vx-sandbox-init --traced;
 * bwrap, when strace ran outside it): the root process's first execve is
 * the wrapper's, and only a process that execs after it, and what it
 * forks, is the task; the wrapper's own calls (its unshare and clones;
 * bwrap's mounts and mkdirs) are followed for the cwd and descriptors but
 * are never events. Call before the first feed. */
void strace_parser_wrapped(struct strace_parser *p);
/* Consumes n bytes of log, cut anywhere: a partial last line is kept until
 * the rest arrives. Never fails; an unparsable line is counted and skipped. */
void strace_parser_feed(struct strace_parser *p, const char *buf, size_t n);
/* Ends the log: parses a last line without its newline, and resolves the
 * lines of processes whose parent's fork was never seen against initial_cwd. */
void strace_parser_finish(struct strace_parser *p);
/* Returns the distinct events in the order first seen; *n gets their count.
 * Valid until the next feed, finish or free. */
const struct access_event *strace_parser_events(const struct strace_parser *p, size_t *n);
/* A symbolic link the task made: every successful symlink(at) call, each
 * (path, target) once. A read through it reached the target, which the
 * trace names only as the link (issue 53 item 8: `/tmp/n -> notes.txt`
 * read as /tmp/n, the task's own place, was never judged). */
struct strace_link {
	char *path;   /* the link, absolute and lexically normalized */
	char *target; /* what it names, absolute (a relative one against the
		       * link's directory) and lexically normalized */
};

/* Returns the links the task made, in the order made; *n gets their count.
 * Valid until the next feed, finish or free. */
const struct strace_link *strace_parser_links(const struct strace_parser *p, size_t *n);

/* Returns the counters and the root process's fate so far. */
const struct strace_summary *strace_parser_summary(const struct strace_parser *p);
void strace_parser_free(struct strace_parser *p);

/* Returns "read", "write", "exec", "probe", "readlink", "chdir", "mkdir",
 * "rename-from", "rename-to", "link-from", "link-to", "symlink", "unlink",
 * "rmdir", "truncate", "utime". */
const char *access_op_name(enum access_op op);

#endif
