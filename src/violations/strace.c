#include "violations/strace.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/hex.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/vec.h"

/* A line longer than this is garbage (a path is at most PATH_MAX, and vx's
 * -s keeps execve's argv short): dropped rather than buffered without end. */
#define LINE_MAX_BYTES (1u << 20)
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

#define PATH1(name, op, di, pi)                                                                    \
	{                                                                                          \
		name, SYS_PATHS, op, op, di, pi, -1, -1                                            \
	}
#define PATH2(name, op, di, pi, op2, di2, pi2)                                                     \
	{                                                                                          \
		name, SYS_PATHS, op, op2, di, pi, di2, pi2                                         \
	}
#define OTHER(name, kind)                                                                          \
	{                                                                                          \
		name, kind, ACCESS_READ, ACCESS_READ, -1, -1, -1, -1                               \
	}
static const struct sysdef sysdefs[] = {
    OTHER("open", SYS_OPEN),
    OTHER("openat", SYS_OPENAT),
    OTHER("openat2", SYS_OPENAT),
    OTHER("creat", SYS_CREAT),
    PATH1("execve", ACCESS_EXEC, -1, 0),
    PATH1("execveat", ACCESS_EXEC, 0, 1),
    PATH1("access", ACCESS_PROBE, -1, 0),
    PATH1("faccessat", ACCESS_PROBE, 0, 1),
    PATH1("faccessat2", ACCESS_PROBE, 0, 1),
    PATH1("readlink", ACCESS_READLINK, -1, 0),
    PATH1("readlinkat", ACCESS_READLINK, 0, 1),
    OTHER("chdir", SYS_CHDIR),
    OTHER("fchdir", SYS_FCHDIR),
    PATH1("mkdir", ACCESS_MKDIR, -1, 0),
    PATH1("mkdirat", ACCESS_MKDIR, 0, 1),
    PATH2("rename", ACCESS_RENAME_FROM, -1, 0, ACCESS_RENAME_TO, -1, 1),
    PATH2("renameat", ACCESS_RENAME_FROM, 0, 1, ACCESS_RENAME_TO, 2, 3),
    PATH2("renameat2", ACCESS_RENAME_FROM, 0, 1, ACCESS_RENAME_TO, 2, 3),
    PATH2("link", ACCESS_LINK_FROM, -1, 0, ACCESS_LINK_TO, -1, 1),
    PATH2("linkat", ACCESS_LINK_FROM, 0, 1, ACCESS_LINK_TO, 2, 3),
    PATH1("symlink", ACCESS_SYMLINK, -1, 1), /* the target is only a string */
    PATH1("symlinkat", ACCESS_SYMLINK, 1, 2),
    PATH1("unlink", ACCESS_UNLINK, -1, 0),
    OTHER("unlinkat", SYS_UNLINKAT),
    PATH1("rmdir", ACCESS_RMDIR, -1, 0),
    PATH1("truncate", ACCESS_TRUNCATE, -1, 0),
    PATH1("utimensat", ACCESS_UTIME, 0, 1),
    PATH1("utime", ACCESS_UTIME, -1, 0),
    PATH1("utimes", ACCESS_UTIME, -1, 0),
    PATH1("futimesat", ACCESS_UTIME, 0, 1),
    PATH1("mknod", ACCESS_WRITE, -1, 0),
    PATH1("mknodat", ACCESS_WRITE, 0, 1),
    PATH1("chmod", ACCESS_ATTR, -1, 0),
    PATH1("fchmodat", ACCESS_ATTR, 0, 1),
    PATH1("chown", ACCESS_ATTR, -1, 0),
    PATH1("lchown", ACCESS_ATTR, -1, 0),
    PATH1("fchownat", ACCESS_ATTR, 0, 1),
    PATH1("setxattr", ACCESS_ATTR, -1, 0),
    PATH1("lsetxattr", ACCESS_ATTR, -1, 0),
    PATH1("removexattr", ACCESS_ATTR, -1, 0),
    PATH1("lremovexattr", ACCESS_ATTR, -1, 0),
    OTHER("clone", SYS_CLONE),
    OTHER("clone3", SYS_CLONE),
    OTHER("fork", SYS_FORK),
    OTHER("vfork", SYS_FORK),
    OTHER("dup", SYS_DUP),
    OTHER("dup2", SYS_DUP),
    OTHER("dup3", SYS_DUP),
    OTHER("fcntl", SYS_FCNTL),
    OTHER("connect", SYS_CONNECT),
    OTHER("sendto", SYS_SEND),
    OTHER("sendmsg", SYS_SEND),
    OTHER("sendmmsg", SYS_SEND),
    OTHER("unshare", SYS_UNSHARE),
};
#undef PATH1
#undef PATH2
#undef OTHER

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
	struct strbuf proc_path;      /* a /proc/self/cwd/... path rewritten (proc_path_rewrite) */
	bool wrapped;		      /* strace_parser_wrapped: the root execs a wrapper first */
	VEC(struct pid_pair) ns_pids; /* a clone's pid in the task's namespace and strace's */
	bool wrapper_execd;	      /* the root's first execve (the wrapper's own) was seen */
	struct strvec setup_paths;    /* paths of the wrapper's own calls: kept for the cwd and
				       * descriptor tables, never events */
};

void strace_parser_wrapped(struct strace_parser *p)
{
	p->wrapped = true;
}

const char *access_op_name(enum access_op op)
{
	static const char *const names[] = {
	    "read",	   "write",	"exec",	     "probe",	"readlink",    "chdir",	 "mkdir",
	    "rename-from", "rename-to", "link-from", "link-to", "symlink",     "unlink", "rmdir",
	    "truncate",	   "utime",	"connect",   "attr",	"probe-write", "lookup",
	};
	return (unsigned)op < ACCESS_OP_COUNT ? names[op] : "?";
}

int strace_errno_value(const char *name, size_t len)
{
#define E(x)                                                                                       \
	{                                                                                          \
#x, x                                                                              \
	}
	static const struct {
		const char *name;
		int value;
	} table[] = {
	    E(EPERM),	     E(ENOENT),	      E(ESRCH),		E(EINTR),	 E(EIO),
	    E(ENXIO),	     E(E2BIG),	      E(ENOEXEC),	E(EBADF),	 E(ECHILD),
	    E(EAGAIN),	     E(ENOMEM),	      E(EACCES),	E(EFAULT),	 E(EBUSY),
	    E(EEXIST),	     E(EXDEV),	      E(ENODEV),	E(ENOTDIR),	 E(EISDIR),
	    E(EINVAL),	     E(ENFILE),	      E(EMFILE),	E(ENOTTY),	 E(ETXTBSY),
	    E(EFBIG),	     E(ENOSPC),	      E(ESPIPE),	E(EROFS),	 E(EMLINK),
	    E(EPIPE),	     E(ENAMETOOLONG), E(ENOSYS),	E(ENOTEMPTY),	 E(ELOOP),
	    E(ENODATA),	     E(EOVERFLOW),    E(EOPNOTSUPP),	E(ENOTSUP),	 E(EDQUOT),
	    E(ESTALE),	     E(ENOMEDIUM),    E(ECANCELED),	E(EWOULDBLOCK),	 E(ENOLCK),
	    E(ENOTSOCK),     E(ECONNREFUSED), E(ENOTCONN),	E(ETIMEDOUT),	 E(EILSEQ),
	    E(ENOKEY),	     E(EKEYREJECTED), E(ERANGE),	E(EDOM),	 E(ENOTBLK),
	    E(ELIBBAD),	     E(EBADFD),	      E(EREMOTEIO),	E(EMEDIUMTYPE),	 E(ENETUNREACH),
	    E(EHOSTUNREACH), E(EINPROGRESS),  E(EADDRNOTAVAIL), E(EAFNOSUPPORT), E(ENETDOWN),
	};
#undef E
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (strlen(table[i].name) == len && !memcmp(table[i].name, name, len))
			return table[i].value;
	return 0;
}

static int signal_value(const char *name, size_t len)
{
	for (int sig = 1; sig < COMPAT_NSIG; sig++) {
		const char *abbrev = compat_signame(sig);
		if (abbrev && len == strlen(abbrev) + 3 && !memcmp(name, "SIG", 3) &&
		    !memcmp(name + 3, abbrev, len - 3))
			return sig;
	}
	return -1;
}

/* --- processes --- */

static struct fsinfo *fs_new(const char *cwd, bool unknown)
{
	struct fsinfo *fs = xcalloc(1, sizeof *fs);
	fs->refs = 1;
	fs->unknown = unknown;
	strbuf_init(&fs->cwd);
	strbuf_addstr(&fs->cwd, cwd);
	return fs;
}

static void fs_unref(struct fsinfo *fs)
{
	if (fs && --fs->refs == 0) {
		strbuf_release(&fs->cwd);
		free(fs);
	}
}

static struct fdtab *fdtab_copy(const struct fdtab *from)
{
	struct fdtab *t = xcalloc(1, sizeof *t);
	t->refs = 1;
	if (from && from->n) {
		t->path = xmalloc(from->n * sizeof *t->path);
		memcpy(t->path, from->path, from->n * sizeof *t->path);
		t->n = from->n;
	}
	return t;
}

static void fdtab_unref(struct fdtab *t)
{
	if (t && --t->refs == 0) {
		free(t->path);
		free(t);
	}
}

static const char *fdtab_get(const struct fdtab *t, long fd)
{
	return fd >= 0 && (size_t)fd < t->n ? t->path[fd] : NULL;
}

static void fdtab_set(struct fdtab *t, long fd, const char *path)
{
	if (fd < 0 || fd >= FD_MAX)
		return;
	if ((size_t)fd >= t->n) {
		size_t n = t->n ? t->n : 16;
		while (n <= (size_t)fd)
			n *= 2;
		t->path = xrealloc(t->path, n * sizeof *t->path);
		memset(t->path + t->n, 0, (n - t->n) * sizeof *t->path);
		t->n = n;
	}
	t->path[fd] = path;
}

static size_t pid_slot(const struct strace_parser *p, pid_t pid)
{
	size_t mask = p->procs_cap - 1;
	size_t i = ((size_t)(uint32_t)pid * 2654435761u) & mask;
	while (p->procs[i] && p->procs[i]->pid != pid)
		i = (i + 1) & mask;
	return i;
}

static struct tracee *proc_find(const struct strace_parser *p, pid_t pid)
{
	return p->procs_cap ? p->procs[pid_slot(p, pid)] : NULL;
}

static struct tracee *proc_add(struct strace_parser *p, pid_t pid)
{
	if ((p->nprocs + 1) * 2 > p->procs_cap) {
		struct tracee **old = p->procs;
		size_t oldcap = p->procs_cap;
		p->procs_cap = oldcap ? oldcap * 2 : 64;
		p->procs = xcalloc(p->procs_cap, sizeof *p->procs);
		for (size_t i = 0; i < oldcap; i++)
			if (old[i])
				p->procs[pid_slot(p, old[i]->pid)] = old[i];
		free(old);
	}
	struct tracee *pr = xcalloc(1, sizeof *pr);
	pr->pid = pid;
	strbuf_init(&pr->pending);
	p->procs[pid_slot(p, pid)] = pr;
	p->nprocs++;
	return pr;
}

static void forking_remove(struct strace_parser *p, struct tracee *pr)
{
	for (size_t i = 0; i < p->forking.n; i++)
		if (p->forking.v[i] == pr) {
			p->forking.v[i] = p->forking.v[--p->forking.n];
			return;
		}
}

static void proc_clear_pending(struct strace_parser *p, struct tracee *pr)
{
	if (pr->pending.len)
		forking_remove(p, pr);
	strbuf_reset(&pr->pending);
}

/* Makes pr a live process again with the given state, dropping the old. */
static void proc_reset(struct strace_parser *p, struct tracee *pr, struct fsinfo *fs,
		       struct fdtab *fds)
{
	proc_clear_pending(p, pr);
	fs_unref(pr->fs);
	fdtab_unref(pr->fds);
	pr->fs = fs;
	pr->fds = fds;
	pr->dead = false;
	pr->orphan = false;
}

static bool is_ident(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* True when the symbol word appears whole in sp ("O_CREAT" in
 * "O_WRONLY|O_CREAT|O_TRUNC", not in "O_CREATX"). Token by token: a memcmp
 * at every offset was a tenth of the parse. */
static bool span_has(struct span sp, const char *word)
{
	size_t wn = strlen(word);
	const char *s = sp.s, *e = sp.s + sp.n;
	while (s < e) {
		while (s < e && !is_ident(*s))
			s++;
		const char *t = s;
		while (s < e && is_ident(*s))
			s++;
		if ((size_t)(s - t) == wn && !memcmp(t, word, wn))
			return true;
	}
	return false;
}

/* The child of a clone/fork whose text (arguments) is call: with CLONE_FS it
 * shares the parent's working directory, with CLONE_FILES its descriptors;
 * otherwise it starts with copies. */
static void proc_inherit(struct strace_parser *p, struct tracee *child, const struct tracee *parent,
			 struct span call)
{
	struct fsinfo *fs;
	struct fdtab *fds;
	if (span_has(call, "CLONE_FS")) {
		fs = parent->fs;
		fs->refs++;
	} else {
		fs = fs_new(parent->fs->cwd.buf, parent->fs->unknown);
	}
	if (span_has(call, "CLONE_FILES")) {
		fds = parent->fds;
		fds->refs++;
	} else {
		fds = fdtab_copy(parent->fds);
	}
	proc_reset(p, child, fs, fds);
	child->in_task = parent->in_task;
}

static void proc_handle(struct strace_parser *p, struct tracee *pr, const char *s, const char *e);
static struct tracee *proc_appear(struct strace_parser *p, struct tracee *pr, pid_t pid);

static void proc_replay(struct strace_parser *p, struct tracee *pr)
{
	struct strvec held = pr->held;
	memset(&pr->held, 0, sizeof pr->held);
	for (size_t i = 0; i < held.n; i++) {
		if (pr->dead) /* its exit was held too, and the pid came back */
			proc_appear(p, pr, pr->pid);
		proc_handle(p, pr, held.v[i], held.v[i] + strlen(held.v[i]));
	}
	strvec_clear(&held);
}

/* The process of a pid seen for the first time (or again after its exit).
 * Its parent's clone has not returned yet in the log, so the parent is inside
 * an unfinished clone: when only one process is, that is the parent (the
 * usual vfork order: the child runs while the parent waits). With several,
 * the child's lines are held until a clone returns its pid. */
static struct tracee *proc_appear(struct strace_parser *p, struct tracee *pr, pid_t pid)
{
	if (!pr)
		pr = proc_add(p, pid);
	if (p->forking.n == 1 && pid != p->sum.root_pid) {
		const struct tracee *parent = p->forking.v[0];
		proc_inherit(p, pr, parent,
			     (struct span){parent->pending.buf, parent->pending.len});
	} else if (p->forking.n > 1 && pid != p->sum.root_pid) {
		proc_reset(p, pr, NULL, NULL);
		pr->orphan = true;
	} else {
		/* The root, or a process whose origin the log does not show
		 * (a thread whose clone3 the log never printed: eslint's unlink
		 * of .eslintcache went unjudged). In a wrapped trace such a
		 * process is judged as the task's: fail toward the report. */
		bool stray = p->wrapped && pid != p->sum.root_pid;
		/* its cwd is not the project's for all the log says: a relative
		 * path of it stays unresolved rather than be judged where it is
		 * not (cmake's processes wrote build/ files "into the project") */
		proc_reset(p, pr, fs_new(stray ? "/" : p->initial_cwd, stray), fdtab_copy(NULL));
		pr->in_task = stray;
	}
	return pr;
}

/* A clone/fork in parent returned child_pid. */
static void proc_forked(struct strace_parser *p, const struct tracee *parent, long child_pid,
			struct span call)
{
	if (child_pid <= 0 || child_pid > INT32_MAX)
		return;
	struct tracee *child = proc_find(p, (pid_t)child_pid);
	if (child && !child->dead && !child->orphan)
		return; /* already adopted as the one pending clone's child */
	if (!child)
		child = proc_add(p, (pid_t)child_pid);
	proc_inherit(p, child, parent, call);
	proc_replay(p, child);
}

/* --- events --- */

static uint64_t event_hash(enum access_op op, int err, const char *path, size_t len)
{
	return XXH3_64bits_withSeed(path, len, ((uint64_t)op << 32) | (uint32_t)err);
}

static void set_grow(struct strace_parser *p)
{
	free(p->set);
	p->set_cap = p->set_cap ? p->set_cap * 2 : 256;
	p->set = xcalloc(p->set_cap, sizeof *p->set);
	size_t mask = p->set_cap - 1;
	for (size_t k = 0; k < p->events.n; k++) {
		const struct access_event *ev = &p->events.v[k];
		uint64_t h = event_hash(ev->op, ev->err, ev->path, strlen(ev->path));
		size_t i = h & mask;
		while (p->set[i].path)
			i = (i + 1) & mask;
		p->set[i] = (struct set_slot){h, ev->path, ev->err, (int32_t)ev->op};
	}
}

/* Records (op, path, err) unless seen; returns the stored path (which lives
 * as long as the parser). */
static const char *event_add(struct strace_parser *p, const struct tracee *pr, enum access_op op,
			     const struct strbuf *path, const char *sys, int err, bool truncated,
			     bool unresolved)
{
	if (p->wrapped && !pr->in_task) {
		strvec_push(&p->setup_paths, path->buf);
		return p->setup_paths.v[p->setup_paths.n - 1];
	}
	p->sum.events++;
	if ((p->events.n + 1) * 4 > p->set_cap * 3)
		set_grow(p);
	size_t mask = p->set_cap - 1;
	uint64_t h = event_hash(op, err, path->buf, path->len);
	size_t i = h & mask;
	for (; p->set[i].path; i = (i + 1) & mask) {
		const struct set_slot *sl = &p->set[i];
		if (sl->hash == h && sl->op == (int32_t)op && sl->err == err &&
		    !strcmp(sl->path, path->buf))
			return sl->path;
	}
	struct access_event ev = {
	    .op = op,
	    .path = xstrndup(path->buf, path->len),
	    .syscall = sys,
	    .err = err,
	    .pid = pr->pid,
	    .write_intent = op != ACCESS_READ && op != ACCESS_EXEC && op != ACCESS_PROBE &&
			    op != ACCESS_READLINK && op != ACCESS_CHDIR && op != ACCESS_CONNECT &&
			    op != ACCESS_LOOKUP && op != ACCESS_RENAME_FROM &&
			    op != ACCESS_LINK_FROM,
	    .truncated = truncated,
	    .unresolved = unresolved,
	};
	vec_push(&p->events, ev);
	p->set[i] = (struct set_slot){h, ev.path, err, (int32_t)op};
	return ev.path;
}

/* --- the text of a call --- */

struct call;
static void link_add(struct strace_parser *p, const struct tracee *pr, const struct call *c);

static const char *skip_quoted(const char *s, const char *e)
{
	for (s++; s < e; s++) {
		if (*s == '\\' && s + 1 < e)
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

/* Splits "name(a, b, {c, d}, "e,f") = ..." after its '(' into top-level
 * arguments; returns the position after the closing ')', or NULL when the
 * text is not one well-formed call. */
static const char *args_split(const char *s, const char *e, struct span *args, size_t *nargs)
{
	int depth = 0;
	const char *start = s;
	*nargs = 0;
	while (s < e) {
		char c = *s;
		if (c == '"') {
			s = skip_quoted(s, e);
			if (!s)
				return NULL;
			continue;
		}
		if (c == '/' && s + 1 < e && s[1] == '*') {
			const char *end = memmem(s + 2, (size_t)(e - s - 2), "*/", 2);
			if (!end)
				return NULL;
			s = end + 2;
			continue;
		}
		if (c == '<' && s > start && s[-1] >= '0' && s[-1] <= '9') {
			/* -y: "3</path>", the path escaped as a string is */
			for (s++; s < e && *s != '>'; s++)
				if (*s == '\\' && s + 1 < e)
					s++;
			if (s >= e)
				return NULL;
			s++;
			continue;
		}
		if (c == '{' || c == '[' || c == '(')
			depth++;
		else if (c == '}' || c == ']' || (c == ')' && depth > 0))
			depth--;
		if (depth == 0 && (c == ',' || c == ')')) {
			const char *a = start, *b = s;
			while (a < b && *a == ' ')
				a++;
			while (b > a && b[-1] == ' ')
				b--;
			if (*nargs < ARGS_MAX && (b > a || c == ',' || *nargs))
				args[(*nargs)++] = (struct span){a, (size_t)(b - a)};
			start = s + 1;
			if (c == ')')
				return s + 1;
		}
		if (depth < 0)
			return NULL;
		s++;
	}
	return NULL;
}

enum str_result { STR_OK, STR_NULL, STR_BAD };

/* Decodes a string argument as strace prints it ("a\"b\303\251", maybe
 * followed by "..." when cut) into out; a NUL only when binary (a buffer,
 * not a path). */
static enum str_result str_decode_as(struct span a, struct strbuf *out, bool *truncated,
				     bool binary)
{
	strbuf_reset(out);
	*truncated = false;
	if (a.n == 4 && !memcmp(a.s, "NULL", 4))
		return STR_NULL;
	if (!a.n || a.s[0] != '"')
		return STR_BAD;
	const char *s = a.s + 1, *e = a.s + a.n;
	for (;;) {
		const char *run = s;
		while (s < e && *s != '"' && *s != '\\' && *s)
			s++;
		strbuf_add(out, run, (size_t)(s - run));
		if (s >= e || !*s)
			return STR_BAD; /* strace escapes every NUL: a raw one is not its line */
		if (*s == '"')
			break;
		if (++s >= e)
			return STR_BAD;
		int c = (unsigned char)*s++;
		switch (c) {
		case 'n':
			c = '\n';
			break;
		case 't':
			c = '\t';
			break;
		case 'r':
			c = '\r';
			break;
		case 'v':
			c = '\v';
			break;
		case 'f':
			c = '\f';
			break;
		case 'a':
			c = '\a';
			break;
		case 'b':
			c = '\b';
			break;
		case 'x': {
			int v = 0, k = 0;
			for (; k < 2 && s < e && hex_value(*s) >= 0; k++)
				v = v * 16 + hex_value(*s++);
			if (!k)
				return STR_BAD;
			c = v;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				int v = c - '0';
				for (int k = 1; k < 3 && s < e && *s >= '0' && *s <= '7'; k++)
					v = v * 8 + (*s++ - '0');
				c = v;
			}
			/* \" \\ and anything else stand for themselves */
		}
		if ((c == 0 && !binary) || c > 255)
			return STR_BAD; /* no path holds a NUL */
		strbuf_addch(out, (char)c);
	}
	s++;
	if (s == e)
		return STR_OK;
	if (e - s == 3 && !memcmp(s, "...", 3)) {
		*truncated = true;
		return STR_OK;
	}
	return STR_BAD;
}

static enum str_result str_decode(struct span a, struct strbuf *out, bool *truncated)
{
	return str_decode_as(a, out, truncated, false);
}

static bool num_parse(struct span a, long *out)
{
	const char *s = a.s, *e = a.s + a.n;
	bool neg = false;
	if (s < e && *s == '-') {
		neg = true;
		s++;
	}
	if (s >= e || *s < '0' || *s > '9')
		return false;
	long v = 0;
	if (e - s > 2 && s[0] == '0' && s[1] == 'x') {
		for (s += 2; s < e && hex_value(*s) >= 0; s++)
			if (v < INT32_MAX) /* as below: a long string must not overflow */
				v = v * 16 + hex_value(*s);
	} else {
		for (; s < e && *s >= '0' && *s <= '9'; s++)
			if (v < INT32_MAX)
				v = v * 10 + (*s - '0');
	}
	*out = neg ? -v : v;
	return true;
}

/* Appends rel's segments to out, an absolute normalized path, lexically. */
static void path_append(struct strbuf *out, const char *rel, size_t n)
{
	const char *s = rel, *e = rel + n;
	while (s < e) {
		while (s < e && *s == '/')
			s++;
		const char *seg = s;
		while (s < e && *s != '/')
			s++;
		size_t len = (size_t)(s - seg);
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			char *slash = strrchr(out->buf, '/');
			strbuf_setlen(out,
				      slash && slash != out->buf ? (size_t)(slash - out->buf) : 1);
			continue;
		}
		if (out->len > 1)
			strbuf_addch(out, '/');
		strbuf_add(out, seg, len);
	}
}

/* Resolves the decoded path rel against dirfd (a span: "AT_FDCWD", "3",
 * "3</p>"; NULL for the working directory) into out. Sets *unresolved and
 * copies rel as is when the base is unknown. */
static void path_resolve(const struct tracee *pr, const struct span *dirfd,
			 const struct strbuf *rel, struct strbuf *out, bool *unresolved)
{
	*unresolved = false;
	strbuf_reset(out);
	if (rel->len && rel->buf[0] == '/') {
		strbuf_addch(out, '/');
		path_append(out, rel->buf, rel->len);
		return;
	}
	const char *base = NULL;
	size_t baselen = 0;
	bool normalized = true; /* the cwd and the descriptors' paths are kept so */
	long fd;
	if (!dirfd || (dirfd->n == 8 && !memcmp(dirfd->s, "AT_FDCWD", 8))) {
		if (!pr->fs->unknown) {
			base = pr->fs->cwd.buf;
			baselen = pr->fs->cwd.len;
		}
	} else if (dirfd->n > 2 && dirfd->s[dirfd->n - 1] == '>' &&
		   memchr(dirfd->s, '<', dirfd->n)) {
		const char *lt = memchr(dirfd->s, '<', dirfd->n);
		base = lt + 1;
		baselen = (size_t)(dirfd->s + dirfd->n - 1 - base);
		/* an escaped or NUL-bearing annotation is not decoded: unresolved */
		if (!baselen || base[0] != '/' || memchr(base, '\\', baselen) ||
		    memchr(base, '\0', baselen))
			base = NULL;
		normalized = false;
	} else if (num_parse(*dirfd, &fd)) {
		base = fdtab_get(pr->fds, fd);
		baselen = base ? strlen(base) : 0;
	}
	if (!base) {
		*unresolved = true;
		strbuf_add(out, rel->buf, rel->len);
		return;
	}
	if (normalized) {
		strbuf_add(out, base, baselen);
	} else {
		strbuf_addch(out, '/');
		path_append(out, base, baselen);
	}
	path_append(out, rel->buf, rel->len);
}

/* The descriptor's own path as an absolute path in out (for utimensat(fd,
 * NULL), fchdir, "" with AT_EMPTY_PATH). */
static void path_of_fd(const struct tracee *pr, struct span fdarg, struct strbuf *out,
		       bool *unresolved)
{
	struct strbuf empty = STRBUF_INIT;
	path_resolve(pr, &fdarg, &empty, out, unresolved);
	if (*unresolved) {
		strbuf_reset(out);
		strbuf_add(out, fdarg.s, fdarg.n);
	}
}

/* A process named in a /proc path ("self", "thread-self", a pid in the
 * task's namespace), or NULL. */
static const struct tracee *proc_named(const struct strace_parser *p, const struct tracee *pr,
				       const char *who, size_t wlen)
{
	if ((wlen == 4 && !memcmp(who, "self", 4)) ||
	    (wlen == 11 && !memcmp(who, "thread-self", 11)))
		return pr;
	long pid = 0;
	struct span sp = {who, wlen};
	if (!wlen || !num_parse(sp, &pid) || pid <= 0)
		return NULL;
	for (size_t i = p->ns_pids.n; i-- > 0;)
		if (p->ns_pids.v[i].ns == pid) { /* the latest one of that pid */
			pid = p->ns_pids.v[i].host;
			break;
		}
	return proc_find(p, (pid_t)pid);
}

enum proc_rewrite {
	PROC_NOT,	  /* no /proc alias of a path: resolve as written */
	PROC_REWRITTEN,	  /* out holds the path it reaches */
	PROC_UNPLACEABLE, /* an alias of a process or descriptor the trace cannot place */
};

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
static enum proc_rewrite proc_path_rewrite(const struct strace_parser *p, const struct tracee *pr,
					   const struct strbuf *in, struct strbuf *out)
{
	const char *s = in->buf, *e = in->buf + in->len;
	if (in->len < 6 || memcmp(s, "/proc/", 6))
		return PROC_NOT;
	s += 6;
	const char *who = s;
	while (s < e && *s != '/')
		s++;
	const struct tracee *target = proc_named(p, pr, who, (size_t)(s - who));
	bool numeric = s > who && who[0] >= '0' && who[0] <= '9';
	bool named = target || numeric || (s - who == 4 && !memcmp(who, "self", 4)) ||
		     (s - who == 11 && !memcmp(who, "thread-self", 11));
	if (!named || s >= e)
		return PROC_NOT; /* /proc/cpuinfo, /proc/self */
	const char *what = ++s;
	while (s < e && *s != '/')
		s++;
	size_t n = (size_t)(s - what);
	if (n == 4 && !memcmp(what, "task", 4) && s < e) {
		const char *tid = ++s;
		while (s < e && *s != '/')
			s++;
		const struct tracee *t = proc_named(p, pr, tid, (size_t)(s - tid));
		target = t ? t : (s - tid > 0 ? NULL : target);
		if (s >= e)
			return PROC_NOT;
		what = ++s;
		while (s < e && *s != '/')
			s++;
		n = (size_t)(s - what);
	}
	const char *base = NULL;
	bool alias = true;
	if (n == 4 && !memcmp(what, "root", 4)) {
		base = "/";
	} else if (n == 3 && !memcmp(what, "cwd", 3)) {
		base = target && target->fs && !target->fs->unknown ? target->fs->cwd.buf : NULL;
	} else if (n == 2 && !memcmp(what, "fd", 2) && s < e) {
		const char *num = ++s;
		while (s < e && *s != '/')
			s++;
		long fd;
		struct span sp = {num, (size_t)(s - num)};
		if (target && num_parse(sp, &fd) && target->fds)
			base = fdtab_get(target->fds, fd);
		if (s >= e)
			alias = false; /* the descriptor itself: path_of_fd's business */
	} else {
		alias = false; /* /proc/PID/status and the like */
	}
	if (!alias)
		return PROC_NOT;
	if (!base)
		return PROC_UNPLACEABLE;
	strbuf_reset(out);
	strbuf_addstr(out, base);
	strbuf_addch(out, '/');
	strbuf_add(out, s, (size_t)(e - s));
	return PROC_REWRITTEN;
}

struct call {
	const struct sysdef *sys;
	struct span args[ARGS_MAX];
	size_t nargs;
	long ret;
	int err;
	bool bad; /* an argument could not be read: the line counts as skipped once */
};

/* Emits one access for path argument pi (dirfd argument di, -1: the working
 * directory) into path slot k; returns the stored path, or NULL when the
 * argument was not a readable string (c->bad is set). */
static const char *call_access(struct strace_parser *p, struct tracee *pr, struct call *c, int di,
			       int pi, int k, enum access_op op)
{
	if ((size_t)pi >= c->nargs || (di >= 0 && (size_t)di >= c->nargs)) {
		c->bad = true;
		return NULL;
	}
	bool truncated, unresolved;
	enum proc_rewrite rw;
	enum str_result r = str_decode(c->args[pi], &p->str[k], &truncated);
	if (r == STR_BAD) {
		c->bad = true;
		return NULL;
	}
	if (r == STR_NULL || p->str[k].len == 0) {
		/* utimensat(fd, NULL), or "" with AT_EMPTY_PATH: the descriptor itself */
		if (di < 0) {
			c->bad = true;
			return NULL;
		}
		path_of_fd(pr, c->args[di], &p->path[k], &unresolved);
	} else if ((rw = proc_path_rewrite(p, pr, &p->str[k], &p->proc_path)) == PROC_REWRITTEN) {
		path_resolve(pr, NULL, &p->proc_path, &p->path[k], &unresolved);
	} else if (rw == PROC_UNPLACEABLE) {
		strbuf_reset(&p->path[k]);
		strbuf_add(&p->path[k], p->str[k].buf, p->str[k].len);
		unresolved = true; /* judged as what it is: an access that cannot be placed */
	} else {
		path_resolve(pr, di >= 0 ? &c->args[di] : NULL, &p->str[k], &p->path[k],
			     &unresolved);
	}
	const char *stored =
	    event_add(p, pr, op, &p->path[k], c->sys->name, c->err, truncated, unresolved);
	return truncated || unresolved ? NULL : stored;
}

/* Records the link a successful symlink(at) made (its path is in
 * p->path[0], as call_access resolved it): argument 0 is the target. */
static void link_add(struct strace_parser *p, const struct tracee *pr, const struct call *c)
{
	(void)pr;
	bool truncated;
	struct strbuf target = STRBUF_INIT;
	if (!c->nargs || str_decode(c->args[0], &target, &truncated) != STR_OK || truncated ||
	    !target.len || p->path[0].buf[0] != '/') {
		strbuf_release(&target);
		return;
	}
	char *abs;
	if (target.buf[0] == '/') {
		abs = path_normalize(target.buf);
	} else {
		char *dir = path_dirname(p->path[0].buf);
		char *joined = path_join(dir, target.buf);
		abs = path_normalize(joined);
		free(joined);
		free(dir);
	}
	strbuf_release(&target);
	char *key = xasprintf("%zu:%s%s", p->path[0].len, p->path[0].buf, abs);
	size_t dummy;
	if (strmap_get(&p->links_seen, key, &dummy)) {
		free(key);
		free(abs);
		return;
	}
	strvec_push_nodup(&p->link_keys, key);
	strmap_put(&p->links_seen, key, p->links.n);
	struct strace_link l = {xstrndup(p->path[0].buf, p->path[0].len), abs};
	vec_push(&p->links, l);
}

const struct strace_link *strace_parser_links(const struct strace_parser *p, size_t *n)
{
	*n = p->links.n;
	return p->links.v;
}

static bool open_writes(struct span flags)
{
	static const char *const w[] = {"O_WRONLY", "O_RDWR",	"O_CREAT",
					"O_TRUNC",  "O_APPEND", "O_TMPFILE"};
	for (size_t i = 0; i < sizeof w / sizeof *w; i++)
		if (span_has(flags, w[i]))
			return true;
	return false;
}

static void chdir_to(struct tracee *pr, const char *path)
{
	pr->fs->unknown = !path;
	strbuf_reset(&pr->fs->cwd);
	if (path)
		strbuf_addstr(&pr->fs->cwd, path);
}

/* Finds key (e.g. "sin_port=htons(") in sp; returns the span from just
 * after it to the end of sp, or an empty span. */
static struct span span_after(struct span sp, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k <= sp.n; i++)
		if (!memcmp(sp.s + i, key, k))
			return (struct span){sp.s + i + k, sp.n - i - k};
	return (struct span){"", 0};
}

/* The quoted string at the start of sp, as a span of its own. */
static struct span span_quoted(struct span sp)
{
	if (!sp.n || sp.s[0] != '"')
		return (struct span){"", 0};
	const char *end = skip_quoted(sp.s, sp.s + sp.n);
	return end ? (struct span){sp.s, (size_t)(end - sp.s)} : (struct span){"", 0};
}

/* connect(fd, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("1.2.3.4")}, 16):
 * one ACCESS_CONNECT event, "1.2.3.4:443", "[::1]:80", or a UNIX socket's
 * path resolved like any other (an abstract socket, "@...", is no path). */
static void connect_access(struct strace_parser *p, struct tracee *pr, struct call *c)
{
	if (c->nargs < 2) {
		c->bad = true;
		return;
	}
	struct span sa = c->args[1];
	bool truncated, unresolved = false;
	if (span_has(sa, "AF_UNIX")) {
		struct span q = span_quoted(span_after(sa, "sun_path="));
		if (!q.n)
			return; /* abstract, or unnamed */
		if (str_decode(q, &p->str[0], &truncated) != STR_OK || !p->str[0].len)
			return;
		path_resolve(pr, NULL, &p->str[0], &p->path[0], &unresolved);
		event_add(p, pr, ACCESS_CONNECT, &p->path[0], c->sys->name, c->err, truncated,
			  unresolved);
		return;
	}
	bool v6 = span_has(sa, "AF_INET6");
	if (!v6 && !span_has(sa, "AF_INET"))
		return;
	struct span port = span_after(sa, v6 ? "sin6_port=htons(" : "sin_port=htons(");
	struct span addr = v6 ? span_quoted(span_after(sa, "inet_pton(AF_INET6, "))
			      : span_quoted(span_after(sa, "sin_addr=inet_addr("));
	size_t digits = 0;
	while (digits < port.n && port.s[digits] >= '0' && port.s[digits] <= '9')
		digits++;
	if (!digits || addr.n < 3 || str_decode(addr, &p->str[0], &truncated) != STR_OK ||
	    truncated || !p->str[0].len ||
	    strspn(p->str[0].buf, "0123456789abcdefABCDEF.:") != p->str[0].len) {
		c->bad = true; /* strace prints an address it decoded, never anything else */
		return;
	}
	strbuf_reset(&p->path[0]);
	strbuf_addf(&p->path[0], v6 ? "[%s]:%.*s" : "%s:%.*s", p->str[0].buf, (int)digits, port.s);
	event_add(p, pr, ACCESS_CONNECT, &p->path[0], c->sys->name, c->err, false, false);
}

/* The name a DNS query asks for (RFC 1035 §4.1: a header with QR 0,
 * opcode QUERY, one question and no answers, then the question's labels),
 * lower case and dotted, into out; false for anything else. A label is
 * letters, digits, '-' and '_' (a name that could be printed as anything
 * else is not taken: it is the task's word, shown to a person). The query
 * may be cut after its name (strace's -s). */
static bool dns_query_name(const unsigned char *q, size_t n, bool cut, struct strbuf *out)
{
	if (n < 13 || (q[2] & 0x80) || (q[2] & 0x78) || q[4] || q[5] != 1 || q[6] || q[7] || q[8] ||
	    q[9])
		return false;
	strbuf_reset(out);
	size_t i = 12;
	while (i < n && q[i]) {
		size_t len = q[i++];
		if (len > 63 || i + len > n || out->len + len + 1 > 253)
			return false;
		if (out->len)
			strbuf_addch(out, '.');
		for (size_t k = 0; k < len; k++) {
			unsigned char c = q[i + k];
			if (c >= 'A' && c <= 'Z')
				c = (unsigned char)(c - 'A' + 'a');
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			      c == '_'))
				return false;
			strbuf_addch(out, (char)c);
		}
		i += len;
	}
	/* the root label, then QTYPE and QCLASS, unless strace cut them */
	return i < n && out->len && (cut || i + 5 <= n);
}

/* sendto(fd, "BUF", ...), sendmsg(fd, {... iov_base="BUF" ...}), sendmmsg
 * (fd, [{msg_hdr={... iov_base="BUF" ...}}, ...]): an ACCESS_LOOKUP event
 * for each buffer that is a DNS query. */
static void send_access(struct strace_parser *p, struct tracee *pr, struct call *c)
{
	for (size_t a = 1; a < c->nargs && a < 2; a++) {
		const char *s = c->args[a].s, *e = s + c->args[a].n;
		while ((s = memchr(s, '"', (size_t)(e - s))) != NULL) {
			const char *end = skip_quoted(s, e);
			if (!end)
				return;
			struct span q = {s, (size_t)(end - s)};
			if (end + 3 <= e && !memcmp(end, "...", 3))
				q.n += 3;
			bool cut;
			if (str_decode_as(q, &p->str[0], &cut, true) == STR_OK &&
			    dns_query_name((const unsigned char *)p->str[0].buf, p->str[0].len, cut,
					   &p->path[0]))
				event_add(p, pr, ACCESS_LOOKUP, &p->path[0], c->sys->name, c->err,
					  false, false);
			s = end;
		}
	}
}

static void call_apply(struct strace_parser *p, struct tracee *pr, struct call *c)
{
	const char *path;
	long fd;
	struct span none = {"", 0};
#define ARG(i) ((size_t)(i) < c->nargs ? c->args[i] : none)
	switch (c->sys->kind) {
	case SYS_OPEN:
	case SYS_OPENAT: {
		int off = c->sys->kind == SYS_OPENAT;
		enum access_op op = open_writes(ARG(off + 1)) ? ACCESS_WRITE : ACCESS_READ;
		path = call_access(p, pr, c, off - 1, off, 0, op);
		if (!c->err)
			fdtab_set(pr->fds, c->ret, path);
		break;
	}
	case SYS_CREAT:
		path = call_access(p, pr, c, -1, 0, 0, ACCESS_WRITE);
		if (!c->err)
			fdtab_set(pr->fds, c->ret, path);
		break;
	case SYS_PATHS: {
		/* a W_OK probe asks whether it may write (jiti's cache dir):
		 * refused, its fix is a write grant, never a read one (issue 40:
		 * allow.read was printed, and printed again once applied) */
		enum access_op op = c->sys->op;
		if (op == ACCESS_PROBE && (size_t)c->sys->pi + 1 < c->nargs &&
		    span_has(c->args[c->sys->pi + 1], "W_OK"))
			op = ACCESS_PROBE_WRITE;
		call_access(p, pr, c, c->sys->di, c->sys->pi, 0, op);
		if (p->wrapped && !pr->in_task && c->sys->op == ACCESS_EXEC && !c->err) {
			/* The root's first program is the wrapper (bwrap), whose
			 * setup is not the task's; a process that execs after it
			 * is the task, and so is all it forks. */
			if (pr->pid == p->sum.root_pid && !p->wrapper_execd)
				p->wrapper_execd = true;
			else
				pr->in_task = true;
		}
		if (c->sys->pi2 >= 0)
			call_access(p, pr, c, c->sys->di2, c->sys->pi2, 1, c->sys->op2);
		if (c->sys->op == ACCESS_SYMLINK && !c->err && (!p->wrapped || pr->in_task))
			link_add(p, pr, c);
		break;
	}
	case SYS_CHDIR:
		path = call_access(p, pr, c, -1, 0, 0, ACCESS_CHDIR);
		if (!c->err)
			chdir_to(pr, path);
		break;
	case SYS_FCHDIR: {
		bool unresolved;
		if (!c->nargs) {
			c->bad = true;
			break;
		}
		path_of_fd(pr, c->args[0], &p->path[0], &unresolved);
		path = event_add(p, pr, ACCESS_CHDIR, &p->path[0], c->sys->name, c->err, false,
				 unresolved);
		if (!c->err)
			chdir_to(pr, unresolved ? NULL : path);
		break;
	}
	case SYS_CONNECT:
		connect_access(p, pr, c);
		break;
	case SYS_SEND:
		send_access(p, pr, c);
		break;
	case SYS_UNSHARE:
		/* issue 37: a thread that unshares its cwd or descriptor table
		 * gets a copy of its own; a chdir or an fd number there is no
		 * longer its siblings' */
		if (!c->err && c->nargs && span_has(c->args[0], "CLONE_FS") && pr->fs->refs > 1) {
			struct fsinfo *own = fs_new(pr->fs->cwd.buf, pr->fs->unknown);
			fs_unref(pr->fs);
			pr->fs = own;
		}
		if (!c->err && c->nargs && span_has(c->args[0], "CLONE_FILES") &&
		    pr->fds->refs > 1) {
			struct fdtab *own = fdtab_copy(pr->fds);
			fdtab_unref(pr->fds);
			pr->fds = own;
		}
		break;
	case SYS_UNLINKAT:
		call_access(p, pr, c, 0, 1, 0,
			    span_has(ARG(2), "AT_REMOVEDIR") ? ACCESS_RMDIR : ACCESS_UNLINK);
		break;
	case SYS_CLONE:
	case SYS_FORK:
		if (!c->err) {
			struct span all = {c->nargs ? c->args[0].s : "", 0};
			if (c->nargs)
				all.n = (size_t)(c->args[c->nargs - 1].s + c->args[c->nargs - 1].n -
						 all.s);
			proc_forked(p, pr, c->ret, all);
		}
		break;
	case SYS_DUP:
		if (!c->err && c->nargs && num_parse(c->args[0], &fd))
			fdtab_set(pr->fds, c->ret, fdtab_get(pr->fds, fd));
		break;
	case SYS_FCNTL:
		/* fts (rm -r, find) walks with fcntl(F_DUPFD_CLOEXEC) copies of
		 * the descriptors it opened: without this, its unlinkat(4, ...)
		 * would be unresolved. */
		if (!c->err && c->nargs >= 2 &&
		    (span_has(c->args[1], "F_DUPFD") || span_has(c->args[1], "F_DUPFD_CLOEXEC")) &&
		    num_parse(c->args[0], &fd))
			fdtab_set(pr->fds, c->ret, fdtab_get(pr->fds, fd));
		break;
	}
#undef ARG
}

/* A whole call: "name(args) = ret [ERRNO (text)]". */
static void call_handle(struct strace_parser *p, struct tracee *pr, const char *s, const char *e)
{
	const char *paren = memchr(s, '(', (size_t)(e - s));
	if (!paren || paren == s) {
		p->sum.skipped++;
		return;
	}
	for (const char *c = s; c < paren; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) {
			p->sum.skipped++;
			return;
		}
	size_t v;
	if (!strmap_getn(&p->sysmap, s, (size_t)(paren - s), &v))
		return; /* a call vx does not follow: valid, not counted */
	struct call c = {.sys = &sysdefs[v]};
	const char *after = args_split(paren + 1, e, c.args, &c.nargs);
	if (!after) {
		p->sum.skipped++;
		return;
	}
	while (after < e && *after == ' ')
		after++;
	if (after >= e || *after != '=') {
		p->sum.skipped++;
		return;
	}
	after++;
	while (after < e && *after == ' ')
		after++;
	if (after < e && *after == '?')
		return; /* no result: the process died inside the call */
	const char *num = after;
	while (after < e && *after != ' ' && *after != '<')
		after++;
	if (!num_parse((struct span){num, (size_t)(after - num)}, &c.ret)) {
		p->sum.skipped++;
		return;
	}
	/* --decode-pids=pidns (a tracer outside the task's pid namespace)
	 * follows a clone's "= 2" with the pid in strace's namespace, in a
	 * comment ("32287 in strace's PID NS"): the pids the log's lines carry
	 * are strace's, so the child is the translated one. */
	static const char ns_tail[] = " in strace's PID NS */";
	if (c.ret > 0 && e - after > 4 && !memcmp(after, " /* ", 4)) {
		const char *d = after + 4, *de = d;
		while (de < e && *de >= '0' && *de <= '9')
			de++;
		long host;
		if ((size_t)(e - de) >= sizeof ns_tail - 1 &&
		    !memcmp(de, ns_tail, sizeof ns_tail - 1) &&
		    num_parse((struct span){d, (size_t)(de - d)}, &host)) {
			/* kept: the task names processes by its own pids
			 * (/proc/$$/root) */
			struct pid_pair pp = {c.ret, host};
			vec_push(&p->ns_pids, pp);
			c.ret = host;
		}
	}
	if (c.ret < 0) {
		while (after < e && *after == ' ')
			after++;
		const char *name = after;
		while (after < e && *after != ' ')
			after++;
		c.err = strace_errno_value(name, (size_t)(after - name));
		if (!c.err) {
			if (after - name >= 8 && !memcmp(name, "ERESTART", 8))
				return; /* interrupted, to be restarted: the retry shows */
			p->sum.skipped++;
			return;
		}
	}
	call_apply(p, pr, &c);
	if (c.bad)
		p->sum.skipped++;
}

static const char unfinished[] = " <unfinished ...>";

/* The body of a line (after the pid) of a known, live process. */
static void proc_handle(struct strace_parser *p, struct tracee *pr, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	if (pr->orphan) {
		strvec_push_nodup(&pr->held, xstrndup(s, n));
		return;
	}
	if (n >= 4 && !memcmp(s, "+++ ", 4)) {
		long status = 0;
		int sig = 0;
		bool exited = false;
		if (n > 15 && !memcmp(s, "+++ exited with ", 16)) {
			const char *d = s + 16, *de = d;
			while (de < e && *de >= '0' && *de <= '9')
				de++;
			exited = num_parse((struct span){d, (size_t)(de - d)}, &status);
		} else if (n > 14 && !memcmp(s, "+++ killed by ", 14)) {
			const char *d = s + 14, *de = d;
			while (de < e && *de != ' ')
				de++;
			sig = signal_value(d, (size_t)(de - d));
			exited = sig > 0;
		} else {
			return; /* "superseded by execve": the thread became the leader */
		}
		if (!exited) {
			p->sum.skipped++;
			return;
		}
		if (pr->pending.len)
			p->sum.skipped++; /* a call that never returned */
		proc_reset(p, pr, NULL, NULL);
		pr->dead = true;
		if (pr->pid == p->sum.root_pid) {
			p->sum.root_exited = true;
			p->sum.root_status = (int)status;
			p->sum.root_signal = sig;
		}
		return;
	}
	if (n >= 4 && !memcmp(s, "--- ", 4))
		return; /* a signal's delivery: no file access */
	if (n > 5 && !memcmp(s, "<... ", 5)) {
		const char *name = s + 5, *ne = name;
		while (ne < e && *ne != ' ')
			ne++;
		size_t nl = (size_t)(ne - name);
		if (e - ne < 9 || memcmp(ne, " resumed>", 9) || !pr->pending.len ||
		    pr->pending.len <= nl || memcmp(pr->pending.buf, name, nl) ||
		    pr->pending.buf[nl] != '(') {
			p->sum.skipped++;
			proc_clear_pending(p, pr);
			return;
		}
		strbuf_reset(&p->call);
		strbuf_add(&p->call, pr->pending.buf, pr->pending.len);
		strbuf_add(&p->call, ne + 9, (size_t)(e - ne - 9));
		proc_clear_pending(p, pr);
		if (memmem(p->call.buf, p->call.len, unfinished, sizeof unfinished - 1)) {
			p->sum.skipped++; /* resumed only to be cut again by the process's death */
			return;
		}
		call_handle(p, pr, p->call.buf, p->call.buf + p->call.len);
		return;
	}
	size_t un = sizeof unfinished - 1;
	if (n > un && !memcmp(e - un, unfinished, un)) {
		if (pr->pending.len) {
			p->sum.skipped++;
			proc_clear_pending(p, pr);
		}
		strbuf_add(&pr->pending, s, n - un);
		const char *paren = memchr(s, '(', n - un);
		size_t v;
		if (paren && strmap_getn(&p->sysmap, s, (size_t)(paren - s), &v) &&
		    (sysdefs[v].kind == SYS_CLONE || sysdefs[v].kind == SYS_FORK))
			vec_push(&p->forking, pr);
		return;
	}
	call_handle(p, pr, s, e);
}

static void line_parse(struct strace_parser *p, const char *s, const char *e)
{
	p->sum.lines++;
	if (e > s && e[-1] == '\r')
		e--;
	/* "PID body", or "[pid PID] body" when strace writes to a terminal */
	if (e - s > 5 && !memcmp(s, "[pid ", 5))
		s += 5;
	const char *d = s;
	long pid = 0;
	while (d < e && *d >= '0' && *d <= '9' && pid < INT32_MAX)
		pid = pid * 10 + (*d++ - '0');
	if (d == s || d >= e || pid <= 0 || pid >= INT32_MAX || (*d != ' ' && *d != ']')) {
		p->sum.skipped++;
		return;
	}
	while (d < e && (*d == ' ' || *d == ']'))
		d++;
	if (!p->seen_pid) {
		p->seen_pid = true;
		if (!p->sum.root_pid)
			p->sum.root_pid = (pid_t)pid;
	}
	struct tracee *pr = proc_find(p, (pid_t)pid);
	if (!pr || pr->dead)
		pr = proc_appear(p, pr, (pid_t)pid);
	proc_handle(p, pr, d, e);
}

struct strace_parser *strace_parser_new(const char *initial_cwd, pid_t root_pid)
{
	struct strace_parser *p = xcalloc(1, sizeof *p);
	struct strbuf cwd = STRBUF_INIT;
	strbuf_addch(&cwd, '/');
	path_append(&cwd, initial_cwd, strlen(initial_cwd));
	p->initial_cwd = strbuf_detach(&cwd, NULL);
	p->sum.root_pid = root_pid;
	for (size_t i = 0; i < sizeof sysdefs / sizeof *sysdefs; i++)
		strmap_put(&p->sysmap, sysdefs[i].name, i);
	strbuf_init(&p->line);
	strbuf_init(&p->call);
	strbuf_init(&p->proc_path);
	for (int k = 0; k < 2; k++) {
		strbuf_init(&p->str[k]);
		strbuf_init(&p->path[k]);
	}
	return p;
}

void strace_parser_feed(struct strace_parser *p, const char *buf, size_t n)
{
	const char *s = buf, *e = buf + n;
	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		if (!nl) {
			if (!p->discarding && p->line.len + (size_t)(e - s) > LINE_MAX_BYTES) {
				p->discarding = true;
				strbuf_reset(&p->line);
			}
			if (!p->discarding)
				strbuf_add(&p->line, s, (size_t)(e - s));
			return;
		}
		if (p->discarding) {
			p->discarding = false;
			p->sum.lines++;
			p->sum.skipped++;
		} else if (p->line.len) {
			strbuf_add(&p->line, s, (size_t)(nl - s));
			if (p->line.len > LINE_MAX_BYTES) {
				p->sum.lines++;
				p->sum.skipped++;
			} else {
				line_parse(p, p->line.buf, p->line.buf + p->line.len);
			}
			strbuf_reset(&p->line);
		} else if (nl > s) {
			line_parse(p, s, nl);
		}
		s = nl + 1;
	}
}

void strace_parser_finish(struct strace_parser *p)
{
	if (p->discarding) {
		p->discarding = false;
		p->sum.lines++;
		p->sum.skipped++;
	} else if (p->line.len) {
		/* A log cut mid-line (the tracer was killed): the tail is not a
		 * whole call even when it looks like one, so it is not trusted. */
		p->sum.lines++;
		p->sum.skipped++;
	}
	strbuf_reset(&p->line);
	/* The log is over: a clone still pending never returns, so no process
	 * is held any more; the held ones start from the first cwd. */
	p->forking.n = 0;
	for (size_t i = 0; i < p->procs_cap; i++) {
		struct tracee *pr = p->procs[i];
		if (pr && pr->orphan) {
			proc_reset(p, pr, fs_new(p->initial_cwd, false), fdtab_copy(NULL));
			proc_replay(p, pr);
		}
	}
}

const struct access_event *strace_parser_events(const struct strace_parser *p, size_t *n)
{
	*n = p->events.n;
	return p->events.v;
}

const struct strace_summary *strace_parser_summary(const struct strace_parser *p)
{
	return &p->sum;
}

void strace_parser_free(struct strace_parser *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->procs_cap; i++) {
		struct tracee *pr = p->procs[i];
		if (!pr)
			continue;
		fs_unref(pr->fs);
		fdtab_unref(pr->fds);
		strbuf_release(&pr->pending);
		strvec_clear(&pr->held);
		free(pr);
	}
	free(p->procs);
	vec_free(&p->forking);
	for (size_t i = 0; i < p->events.n; i++)
		free(p->events.v[i].path);
	vec_free(&p->events);
	for (size_t i = 0; i < p->links.n; i++) {
		free(p->links.v[i].path);
		free(p->links.v[i].target);
	}
	vec_free(&p->links);
	strmap_clear(&p->links_seen);
	strvec_clear(&p->link_keys);
	free(p->set);
	strmap_clear(&p->sysmap);
	strbuf_release(&p->line);
	strbuf_release(&p->call);
	strbuf_release(&p->proc_path);
	strvec_clear(&p->setup_paths);
	vec_free(&p->ns_pids);
	for (int k = 0; k < 2; k++) {
		strbuf_release(&p->str[k]);
		strbuf_release(&p->path[k]);
	}
	free(p->initial_cwd);
	free(p);
}
