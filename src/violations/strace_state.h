/* strace_state.h - the strace parser's state, shared by its files:
 * strace.c (the lines, the calls, the events), strace_procs.c (the
 * traced processes: working directories, descriptor tables, /proc
 * aliases), strace_text.c (the text of a call: arguments, strings,
 * numbers, paths) and strace_net.c (connects and DNS queries). Not for
 * anything outside the parser: strace.h is its interface. */
#ifndef VX_VIOLATIONS_STRACE_STATE_H
#define VX_VIOLATIONS_STRACE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "violations/strace.h"

/* Descriptors above this are not tracked: a table indexed by fd must stay small. */
#define FD_MAX (1 << 20)
#define ARGS_MAX 8

enum sys_kind {
	SYS_PATHS, /* one or two path arguments, each one event: the table says where */
	SYS_OPEN,
	SYS_OPENAT,
	SYS_CREAT,
	SYS_CHDIR,
	SYS_FCHDIR,
	SYS_UNLINKAT,
	SYS_CLONE,
	SYS_FORK,
	SYS_DUP,
	SYS_FCNTL,
	SYS_CONNECT,
	SYS_SEND,
	SYS_UNSHARE,
};

/* A followed call. For SYS_PATHS, argument pi (resolved against the dirfd
 * in argument di, -1: the cwd) is an op access, and pi2 (against di2) an
 * op2 one when pi2 >= 0. */
struct sysdef {
	const char *name;
	enum sys_kind kind;
	enum access_op op, op2;
	signed char di, pi, di2, pi2;
};

/* A working directory, shared by the threads of a CLONE_FS clone. */
struct fsinfo {
	int refs;
	bool unknown; /* set by an fchdir to a descriptor the trace never opened */
	struct strbuf cwd;
};

/* A descriptor table, shared by the threads of a CLONE_FILES clone. The
 * paths are borrowed from the parser's events, which live until the end, so
 * a fork copies pointers, not strings. */
struct fdtab {
	int refs;
	const char **path; /* indexed by fd; NULL: not opened by a traced call */
	size_t n;
};

struct tracee {
	pid_t pid;
	bool dead;	       /* its "+++ exited" was seen; the pid may come back */
	bool orphan;	       /* first seen while several forks were pending: held */
	bool in_task;	       /* wrapped traces: it or an ancestor exec'd after the wrapper */
	struct fsinfo *fs;     /* NULL while orphan */
	struct fdtab *fds;     /* NULL while orphan */
	struct strbuf pending; /* an unfinished call's text, without " <unfinished ...>" */
	struct strvec held;    /* an orphan's lines, replayed when its parent is known */
};

struct span {
	const char *s;
	size_t n;
};

/* The slot holds all but the path's bytes, so a probe costs one cache miss
 * for the slot and one for the path on a likely match: with 200k distinct
 * events the set outgrows the caches, and a third miss (the event) was a
 * tenth of the parse. */
struct set_slot {
	uint64_t hash;
	const char *path; /* the event's: NULL for an empty slot */
	int32_t err;
	int32_t op;
};

struct pid_pair {
	long ns, host;
};

struct strace_parser {
	struct strace_summary sum;
	char *initial_cwd;
	bool seen_pid; /* a first pid was seen (and root_pid set when it was 0) */
	struct strmap sysmap;

	struct tracee **procs; /* open addressing by pid; entries never removed */
	size_t nprocs, procs_cap;
	VEC(struct tracee *) forking; /* processes inside an unfinished clone/fork */

	VEC(struct access_event) events;
	struct set_slot *set; /* open addressing over events */
	size_t set_cap;
	VEC(struct strace_link) links; /* each (path, target) once: links_seen */
	struct strmap links_seen;      /* over link_keys */
	struct strvec link_keys;       /* "LEN:PATH" + target, length-prefixed: no two
					* pairs share a key */

	struct strbuf line;	      /* a partial line waiting for its newline */
	bool discarding;	      /* the current line outgrew LINE_MAX_BYTES */
	struct strbuf str[2];	      /* decoded string arguments */
	struct strbuf path[2];	      /* resolved paths */
	struct strbuf call;	      /* an unfinished call joined with its resumption */
	struct strbuf opened;	      /* -y: the path of the descriptor the current open returned */
	struct strbuf proc_path;      /* a /proc/self/cwd/... path rewritten (proc_path_rewrite) */
	bool wrapped;		      /* strace_parser_wrapped: the root execs a wrapper first */
	VEC(struct pid_pair) ns_pids; /* a clone's pid in the task's namespace and strace's */
	bool wrapper_execd;	      /* the root's first execve (the wrapper's own) was seen */
	struct strvec setup_paths;    /* paths of the wrapper's own calls: kept for the cwd and
				       * descriptor tables, never events */
};

struct call {
	const struct sysdef *sys;
	struct span args[ARGS_MAX];
	size_t nargs;
	long ret;
	int err;
	bool bad;	    /* an argument could not be read: the line counts as skipped once */
	struct span ret_fd; /* -y: the returned descriptor with its path, "3</p>"; else empty */
};

enum str_result { STR_OK, STR_NULL, STR_BAD };

enum proc_rewrite {
	PROC_NOT,	  /* no /proc alias of a path: resolve as written */
	PROC_REWRITTEN,	  /* out holds the path it reaches */
	PROC_UNPLACEABLE, /* an alias of a process or descriptor the trace cannot place */
};

/* --- strace.c --- */

/* Records (op, path, err) unless seen; returns the stored path (which lives
 * as long as the parser). */
const char *event_add(struct strace_parser *p, const struct tracee *pr, enum access_op op,
		      const struct strbuf *path, const char *sys, int err, bool truncated,
		      bool unresolved, const struct strbuf *real, bool opened_dir);
/* The body of a line (after the pid) of a known, live process. */
void proc_handle(struct strace_parser *p, struct tracee *pr, const char *s, const char *e);

/* --- strace_procs.c --- */

struct fsinfo *fs_new(const char *cwd, bool unknown);
void fs_unref(struct fsinfo *fs);
struct fdtab *fdtab_copy(const struct fdtab *from);
void fdtab_unref(struct fdtab *t);
const char *fdtab_get(const struct fdtab *t, long fd);
void fdtab_set(struct fdtab *t, long fd, const char *path);
struct tracee *proc_find(const struct strace_parser *p, pid_t pid);
void proc_clear_pending(struct strace_parser *p, struct tracee *pr);
/* Makes pr a live process again with the given state, dropping the old. */
void proc_reset(struct strace_parser *p, struct tracee *pr, struct fsinfo *fs, struct fdtab *fds);
void proc_replay(struct strace_parser *p, struct tracee *pr);
/* The process of a pid seen for the first time (or again after its exit).
 * Its parent's clone has not returned yet in the log, so the parent is inside
 * an unfinished clone: when only one process is, that is the parent (the
 * usual vfork order: the child runs while the parent waits). With several,
 * the child's lines are held until a clone returns its pid. */
struct tracee *proc_appear(struct strace_parser *p, struct tracee *pr, pid_t pid);
/* A clone/fork in parent returned child_pid. */
void proc_forked(struct strace_parser *p, const struct tracee *parent, long child_pid,
		 struct span call);
/* A path through procfs that names a process's cwd, root or descriptor is
 * a path of the file system, not of procfs (issue 12: a hidden read
 * through /proc/self/cwd failed unreported): /proc/PID/cwd/X,
 * /proc/PID/root/X, /proc/PID/fd/N/X, and the same under
 * /proc/PID/task/TID/ (issue 37: those reached workspace files
 * unreported), with PID self, thread-self or a number in the task's
 * namespace, rewritten into out as base + "/" + the rest as written (so a
 * ".." after "cwd" climbs from the cwd, as the kernel's walk does). root is "/" for every process
 * of the task (none can chroot: no capability). One that names a process
 * or descriptor the trace does not know cannot be placed. */
enum proc_rewrite proc_path_rewrite(const struct strace_parser *p, const struct tracee *pr,
				    const struct strbuf *in, struct strbuf *out);
void chdir_to(struct tracee *pr, const char *path);

/* --- strace_text.c --- */

/* True when the symbol word appears whole in sp ("O_CREAT" in
 * "O_WRONLY|O_CREAT|O_TRUNC", not in "O_CREATX"). Token by token: a memcmp
 * at every offset was a tenth of the parse. */
bool span_has(struct span sp, const char *word);
const char *skip_quoted(const char *s, const char *e);
/* Splits "name(a, b, {c, d}, "e,f") = ..." after its '(' into top-level
 * arguments; returns the position after the closing ')', or NULL when the
 * text is not one well-formed call. */
const char *args_split(const char *s, const char *e, struct span *args, size_t *nargs);
/* Decodes a string argument as strace prints it ("a\"b\303\251", maybe
 * followed by "..." when cut) into out; a NUL only when binary (a buffer,
 * not a path). */
enum str_result str_decode_as(struct span a, struct strbuf *out, bool *truncated, bool binary);
enum str_result str_decode(struct span a, struct strbuf *out, bool *truncated);
bool num_parse(struct span a, long *out);
/* Appends rel's segments to out, an absolute normalized path, lexically. */
void trace_path_append(struct strbuf *out, const char *rel, size_t n);
/* Resolves the decoded path rel against dirfd (a span: "AT_FDCWD", "3",
 * "3</p>"; NULL for the working directory) into out. Sets *unresolved and
 * copies rel as is when the base is unknown. */
void trace_path_resolve(const struct tracee *pr, const struct span *dirfd, const struct strbuf *rel,
			struct strbuf *out, bool *unresolved);
/* The descriptor's own path as an absolute path in out (for utimensat(fd,
 * NULL), fchdir, "" with AT_EMPTY_PATH). */
void trace_path_of_fd(const struct tracee *pr, struct span fdarg, struct strbuf *out,
		      bool *unresolved);
/* Finds key (e.g. "sin_port=htons(") in sp; returns the span from just
 * after it to the end of sp, or an empty span. */
struct span span_after(struct span sp, const char *key);
/* The quoted string at the start of sp, as a span of its own. */
struct span span_quoted(struct span sp);
/* The end of a -y annotation that starts at s ('<'): the position after its
 * '>' (one escaped as \76 is the path's), or NULL. */
const char *fd_annotation_end(const char *s, const char *e);
/* The path a -y annotation names ("3</a/b>", "AT_FDCWD</cwd>") into out,
 * unescaped, absolute and lexically normalized; false for none, one that is no path (a socket's,
 * a pipe's), a bad escape, or a file deleted since (" (deleted)"). */
bool fd_annotation(struct span a, struct strbuf *out);

/* --- strace_net.c --- */

/* connect(fd, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("1.2.3.4")}, 16):
 * one ACCESS_CONNECT event, "1.2.3.4:443", "[::1]:80", or a UNIX socket's
 * path resolved like any other (an abstract socket, "@...", is no path). */
void connect_access(struct strace_parser *p, struct tracee *pr, struct call *c);
/* sendto(fd, "BUF", ...), sendmsg(fd, {... iov_base="BUF" ...}), sendmmsg
 * (fd, [{msg_hdr={... iov_base="BUF" ...}}, ...]): an ACCESS_LOOKUP event
 * for each buffer that is a DNS query. */
void send_access(struct strace_parser *p, struct tracee *pr, struct call *c);

#endif
