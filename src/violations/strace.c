#include "violations/strace.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/errnames.h"
#include "util/path.h"
#include "violations/strace_state.h"

/* A line longer than this is garbage (a path is at most PATH_MAX, and vx's
 * -s keeps execve's argv short): dropped rather than buffered without end. */
#define LINE_MAX_BYTES (1u << 20)
/* Descriptors above this are not tracked: a table indexed by fd must stay small. */

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
const char *event_add(struct strace_parser *p, const struct tracee *pr, enum access_op op,
		      const struct strbuf *path, const char *sys, int err, bool truncated,
		      bool unresolved, const struct strbuf *real, bool opened_dir)
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
	    .real = real && real->len ? xstrndup(real->buf, real->len) : NULL,
	    .opened_dir = opened_dir,
	};
	vec_push(&p->events, ev);
	p->set[i] = (struct set_slot){h, ev.path, err, (int32_t)op};
	return ev.path;
}

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
		trace_path_of_fd(pr, c->args[di], &p->path[k], &unresolved);
	} else if ((rw = proc_path_rewrite(p, pr, &p->str[k], &p->proc_path)) == PROC_REWRITTEN) {
		trace_path_resolve(pr, NULL, &p->proc_path, &p->path[k], &unresolved);
	} else if (rw == PROC_UNPLACEABLE) {
		strbuf_reset(&p->path[k]);
		strbuf_add(&p->path[k], p->str[k].buf, p->str[k].len);
		unresolved = true; /* judged as what it is: an access that cannot be placed */
	} else {
		trace_path_resolve(pr, di >= 0 ? &c->args[di] : NULL, &p->str[k], &p->path[k],
				   &unresolved);
	}
	/* -y: where the kernel opened it, as the descriptor the call returned
	 * names it (a link on the way, changed after the task exited, cannot
	 * move the read); only an open's, and only a path's (not a socket's) */
	bool opened =
	    !c->err && c->ret_fd.n && !k &&
	    (c->sys->kind == SYS_OPEN || c->sys->kind == SYS_OPENAT || c->sys->kind == SYS_CREAT) &&
	    fd_annotation(c->ret_fd, &p->opened);
	size_t flags = c->sys->kind == SYS_OPENAT ? 2 : 1; /* openat2's: in its struct */
	bool dir = !c->err && (c->sys->kind == SYS_OPEN || c->sys->kind == SYS_OPENAT) &&
		   flags < c->nargs && span_has(c->args[flags], "O_DIRECTORY");
	const char *stored = event_add(p, pr, op, &p->path[k], c->sys->name, c->err, truncated,
				       unresolved, opened ? &p->opened : NULL, dir);
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
		trace_path_of_fd(pr, c->args[0], &p->path[0], &unresolved);
		path = event_add(p, pr, ACCESS_CHDIR, &p->path[0], c->sys->name, c->err, false,
				 unresolved, NULL, false);
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
	if (after < e && *after == '<') {
		/* -y: "= 3</path>", the descriptor's path as the kernel has it */
		const char *end = fd_annotation_end(after, e);
		if (!end) {
			p->sum.skipped++;
			return;
		}
		c.ret_fd = (struct span){num, (size_t)(end - num)};
		after = end;
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
		c.err = errname_value(name, (size_t)(after - name));
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
void proc_handle(struct strace_parser *p, struct tracee *pr, const char *s, const char *e)
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
	trace_path_append(&cwd, initial_cwd, strlen(initial_cwd));
	p->initial_cwd = strbuf_detach(&cwd, NULL);
	p->sum.root_pid = root_pid;
	for (size_t i = 0; i < sizeof sysdefs / sizeof *sysdefs; i++)
		strmap_put(&p->sysmap, sysdefs[i].name, i);
	strbuf_init(&p->line);
	strbuf_init(&p->call);
	strbuf_init(&p->proc_path);
	strbuf_init(&p->opened);
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
	for (size_t i = 0; i < p->events.n; i++) {
		free(p->events.v[i].path);
		free(p->events.v[i].real);
	}
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
	strbuf_release(&p->opened);
	strvec_clear(&p->setup_paths);
	vec_free(&p->ns_pids);
	for (int k = 0; k < 2; k++) {
		strbuf_release(&p->str[k]);
		strbuf_release(&p->path[k]);
	}
	free(p->initial_cwd);
	free(p);
}
