/* strace_procs.c - the traced processes: each one's working directory and
 * descriptor table, shared or copied as its clone says, the lines of a
 * process held until its parent is known, and the /proc paths that name
 * a process's cwd, root or descriptor. */
#include <stdlib.h>
#include <string.h>

#include "util/die.h"
#include "violations/strace_state.h"

/* --- processes --- */

struct fsinfo *fs_new(const char *cwd, bool unknown)
{
	struct fsinfo *fs = xcalloc(1, sizeof *fs);
	fs->refs = 1;
	fs->unknown = unknown;
	strbuf_init(&fs->cwd);
	strbuf_addstr(&fs->cwd, cwd);
	return fs;
}

void fs_unref(struct fsinfo *fs)
{
	if (fs && --fs->refs == 0) {
		strbuf_release(&fs->cwd);
		free(fs);
	}
}

struct fdtab *fdtab_copy(const struct fdtab *from)
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

void fdtab_unref(struct fdtab *t)
{
	if (t && --t->refs == 0) {
		free(t->path);
		free(t);
	}
}

const char *fdtab_get(const struct fdtab *t, long fd)
{
	return fd >= 0 && (size_t)fd < t->n ? t->path[fd] : NULL;
}

void fdtab_set(struct fdtab *t, long fd, const char *path)
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

struct tracee *proc_find(const struct strace_parser *p, pid_t pid)
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

void proc_clear_pending(struct strace_parser *p, struct tracee *pr)
{
	if (pr->pending.len)
		forking_remove(p, pr);
	strbuf_reset(&pr->pending);
}

/* Makes pr a live process again with the given state, dropping the old. */
void proc_reset(struct strace_parser *p, struct tracee *pr, struct fsinfo *fs, struct fdtab *fds)
{
	proc_clear_pending(p, pr);
	fs_unref(pr->fs);
	fdtab_unref(pr->fds);
	pr->fs = fs;
	pr->fds = fds;
	pr->dead = false;
	pr->orphan = false;
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

void proc_replay(struct strace_parser *p, struct tracee *pr)
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
struct tracee *proc_appear(struct strace_parser *p, struct tracee *pr, pid_t pid)
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
void proc_forked(struct strace_parser *p, const struct tracee *parent, long child_pid,
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
			alias = false; /* the descriptor itself: trace_path_of_fd's business */
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

void chdir_to(struct tracee *pr, const char *path)
{
	pr->fs->unknown = !path;
	strbuf_reset(&pr->fs->cwd);
	if (path)
		strbuf_addstr(&pr->fs->cwd, path);
}
