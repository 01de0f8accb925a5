/* judge.c - which refused accesses are violations.
 *
 * A refusal counts when the sandbox caused it and the task's project is
 * where it happened: EACCES, EPERM or EROFS always; ENOENT only when the
 * path exists on the host (the sandbox hid it — a missing file is the
 * task's own business). Refusals outside the project are the wall working:
 * notes, never violations. Every distinct (read or write, path) is judged
 * once.
 *
 * This file holds the rules, one row each, and the walk of a trace down
 * them; what they share is split by noun: the task's facts and the
 * questions asked of them (judge_input.c), read-unkeyed (unkeyed.c), the
 * notes (notes.c), and the fix's text (fix.c). */
#include "violations/judge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"
#include "violations/fix.h"
#include "violations/notes.h"
#include "violations/unkeyed.h"

/* Does the sandbox show path? Binds keep host paths, so a path through a
 * host link shows when the link's target does (a linked package in a
 * node_modules bound read-only is hidden when its target is). */
static bool shown_inside(const struct judge_input *in, const char *path)
{
	if (!in->sees)
		return false;
	char *real = judge_host_resolve(in, path);
	bool r = in->sees(path, in->sees_ctx) && (!real || in->sees(real, in->sees_ctx));
	free(real);
	return r;
}

/* A connection the sandbox refused: its network namespace has no route out
 * (ENETUNREACH, EHOSTUNREACH), or a filter said no. Loopback is the task's
 * own (a test server it started), and a refused loopback port is its own
 * business. ignore.network globs match "ADDR:PORT" or "ADDR". */
static bool network_refused(const struct judge_input *in, const struct access_event *e)
{
	if (e->err != ENETUNREACH && e->err != EHOSTUNREACH && e->err != EACCES &&
	    e->err != EPERM && e->err != ENETDOWN)
		return false;
	if (!strncmp(e->path, "127.", 4) || !strncmp(e->path, "[::1]:", 6) ||
	    !strncmp(e->path, "[::ffff:127.", 12))
		return false;
	return !judge_network_ignored(in, e->path);
}

/* A write that succeeded in a widened dir, on a path no allow.write entry
 * names, that left something behind: made and not removed again, or a file
 * that was there before removed. Each path once (seen). */
static bool widened_write(const struct judge_input *in, const struct access_event *e,
			  const char *path, const struct strmap *made, const struct strmap *gone,
			  struct strset *seen)
{
	if (!(e->write_intent || e->op == ACCESS_RENAME_FROM) || e->op == ACCESS_UTIME ||
	    e->op == ACCESS_PROBE_WRITE)
		return false;
	bool held = false;
	for (size_t i = 0; i < in->n_widened && !held; i++)
		held = path_is_within(in->widened[i], path) && strcmp(in->widened[i], path);
	size_t at;
	if (!held || (strmap_get(made, path, &at) && strmap_get(gone, path, &at)) ||
	    judge_ignored(in, in->allow_write, in->n_allow_write, path) ||
	    judge_ignored(in, in->ignore_write, in->n_ignore_write, path))
		return false;
	return strset_add(seen, xasprintf("w%s", path));
}

const char *violation_op_name(enum violation_op op)
{
	static const char *const names[VIOLATION_OPS] = {"read", "write", "exec", "network",
							 "read-unkeyed"};
	return op < VIOLATION_OPS ? names[op] : "?";
}

bool violation_unkeyed(const struct violation *v)
{
	return v->op == VIOLATION_READ_UNKEYED || (v->op == VIOLATION_EXEC && !v->err);
}

/* A write that made or changed a file that decides what vx runs, which no
 * grant names (issue 36: a config not there yet cannot be walled by a
 * mount, and `vx watch` would plan from what the task wrote): a violation
 * with a note, and no fix. Returns true when e was
 * one (reported once per path). */
static bool config_write(const struct judge_input *in, struct verdict *out,
			 const struct access_event *e, struct strset *seen)
{
	if (!e->write_intent || e->op == ACCESS_UTIME || e->op == ACCESS_PROBE_WRITE ||
	    e->op == ACCESS_RENAME_FROM || e->op == ACCESS_LINK_FROM)
		return false;
	if (!judge_is_config(in, e->path))
		return false;
	if (!strset_add(seen, xasprintf("w%s", e->path)))
		return true;
	struct violation v = {
	    .op = VIOLATION_WRITE, .path = xstrdup(e->path), .syscall = e->syscall};
	vec_push(&out->violations, v);
	note_config(in, out, e->path);
	/* no fix: a grant over what decides what vx runs is a person's call
	 * (SPEC §4, "a fix never names one"; issue 53 item 2: learn wrote
	 * `write: ["vx.yaml"]` for a task that appended to its own) */
	return true;
}

typedef VEC(struct access_event) access_event_vec;

#define LINK_HOPS 8   /* the kernel's own limit is 40; a chain the task made */
#define LINK_PATHS 16 /* what one read may reach through links, at most */

/* The link of links (each path's first) that path is, or lies below,
 * longest first; its length into *len. -1 when none. */
static long link_prefix(const struct strmap *by_path, const char *path, size_t *len)
{
	size_t n = strlen(path), at;
	for (size_t k = n; k > 1; k--)
		if ((k == n || path[k] == '/') && strmap_getn(by_path, path, k, &at)) {
			*len = k;
			return (long)at;
		}
	return -1;
}

/* Appends to out, for each read, exec, probe or readlink of ev that went
 * through a link the task made (issue 53 item 8: `/tmp/n -> notes.txt`,
 * read as /tmp/n, was settled as the task's own temp dir, and a changed
 * notes.txt replayed the old bytes), the same access at each path the
 * links reach: the rules then judge it where it landed. A link the task
 * made twice with two targets reaches both. */
static void through_links(const struct access_event *ev, size_t nev,
			  const struct strace_link *links, size_t nlinks, access_event_vec *out)
{
	struct strmap by_path = STRMAP_INIT;
	for (size_t k = 0; k < nlinks; k++) {
		size_t dummy;
		if (!strmap_get(&by_path, links[k].path, &dummy))
			strmap_put(&by_path, links[k].path, k);
	}
	for (size_t i = 0; i < nev; i++) {
		const struct access_event *e = &ev[i];
		if (e->write_intent || e->unresolved || e->truncated || e->path[0] != '/' ||
		    (e->op != ACCESS_READ && e->op != ACCESS_EXEC && e->op != ACCESS_PROBE &&
		     e->op != ACCESS_READLINK))
			continue;
		struct strvec todo = STRVEC_INIT, reached = STRVEC_INIT;
		strvec_push(&todo, e->path);
		for (int hop = 0; todo.n && hop <= LINK_HOPS; hop++) {
			struct strvec next = STRVEC_INIT;
			for (size_t t = 0; t < todo.n; t++) {
				size_t len;
				long at = link_prefix(&by_path, todo.v[t], &len);
				if (at < 0) {
					if (hop && reached.n < LINK_PATHS &&
					    strvec_find(&reached, todo.v[t]) < 0)
						strvec_push(&reached, todo.v[t]);
					continue;
				}
				for (size_t k = (size_t)at; k < nlinks; k++) {
					if (strlen(links[k].path) != len ||
					    strncmp(links[k].path, todo.v[t], len))
						continue;
					char *joined =
					    xasprintf("%s%s", links[k].target, todo.v[t] + len);
					char *norm = path_normalize(joined);
					free(joined);
					if (next.n < LINK_PATHS)
						strvec_push(&next, norm);
					free(norm);
				}
			}
			strvec_clear(&todo);
			todo = next;
		}
		strvec_clear(&todo);
		for (size_t r = 0; r < reached.n; r++) {
			struct access_event x = *e;
			x.path = xstrdup(reached.v[r]);
			vec_push(out, x);
		}
		strvec_clear(&reached);
	}
	strmap_clear(&by_path);
}

int judge_trace(const struct judge_input *in, const char *log_path, struct verdict *out)
{
	memset(out, 0, sizeof *out);
	/* The task can write the log's directory: never follow a link it
	 * planted there to a host file. */
	int fd = open(log_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		out->incomplete = true;
		return -1;
	}
	struct strace_parser *p = strace_parser_new(in->project_dir, 0);
	if (in->wrapped)
		strace_parser_wrapped(p);
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strace_parser_feed(p, buf, (size_t)n);
	}
	close(fd);
	strace_parser_finish(p);
	const struct strace_summary *sum = strace_parser_summary(p);
	out->lines = sum->lines;
	out->incomplete = !sum->root_exited;
	size_t nev, nlinks;
	const struct access_event *ev = strace_parser_events(p, &nev);
	const struct strace_link *links = strace_parser_links(p, &nlinks);
	if (!nlinks) {
		judge_events(in, ev, nev, out);
	} else {
		/* each read through a link the task made, judged at what the
		 * link reaches too */
		access_event_vec all = {0};
		for (size_t i = 0; i < nev; i++)
			vec_push(&all, ev[i]);
		size_t own = all.n;
		through_links(ev, nev, links, nlinks, &all);
		judge_events(in, all.v, all.n, out);
		for (size_t i = own; i < all.n; i++)
			free(all.v[i].path);
		vec_free(&all);
	}
	strace_parser_free(p);
	return 0;
}

/* What judge_events gathers before and while its rules run. */
struct judging {
	const struct judge_input *in;
	struct verdict *out;
	struct strmap touched;		     /* paths whose times the task set (touch) */
	struct strmap made, gone, made_dirs; /* in a widened dir: written, removed, mkdir'd */
	struct strmap written; /* what the task made in a write grant (note_written) */
	struct strvec written_keys;
	struct strset seen;			/* what was reported already */
	struct strmap read_seen;		/* what it read, once each, */
	VEC(const struct access_event *) reads; /* in order */
	const struct access_event *ev;		/* all of them, for a rule that looks back */
};

/* A rule's word on an event: go on to the next rule, or it is settled. */
enum rule_says { RULE_NEXT, RULE_SETTLED };

/* A name the task looked up itself (issue 54 item 7: the violation named
 * the resolver it could not reach, 10.255.255.53:53, and nobody could tell
 * what was asked). The sandbox has no DNS: its resolv.conf names its own
 * loopback, where nothing answers, so a client's query is sent, and the
 * trace holds the name. A network violation naming the host; what the
 * proxy would allow it is no grant of a lookup: the client must use the
 * proxy. "localhost" and its kind never leave /etc/hosts. */
static void lookup_violation(struct judging *j, const struct access_event *e)
{
	size_t n = strlen(e->path);
	if (!strcmp(e->path, "localhost") || (n > 10 && !strcmp(e->path + n - 10, ".localhost")) ||
	    judge_network_ignored(j->in, e->path))
		return;
	bool allowed = j->in->net_allowed && j->in->net_allowed(e->path, j->in->net_ctx);
	struct violation v = {
	    .op = VIOLATION_NETWORK,
	    .path = xstrdup(e->path),
	    .syscall = "lookup",
	    .reason = xstrdup(allowed ? "a DNS lookup of its own, which allow.network cannot "
					"grant: the proxy resolves the names it allows"
				      : "a DNS lookup of its own: a sandboxed task has no DNS")};
	vec_push(&j->out->violations, v);
	j->out->needs_network = true;
	note_name(j->in, j->out, e->path, true);
}

static enum rule_says rule_network(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	if (e->op == ACCESS_LOOKUP) {
		lookup_violation(j, e);
		return RULE_SETTLED;
	}
	if (e->op != ACCESS_CONNECT || e->unresolved || e->path[0] == '/')
		return RULE_NEXT;
	if (network_refused(j->in, e)) {
		struct violation v = {.op = VIOLATION_NETWORK,
				      .path = xstrdup(e->path),
				      .syscall = e->syscall,
				      .err = e->err};
		vec_push(&j->out->violations, v);
		j->out->needs_network = true;
	}
	return RULE_SETTLED;
}

static enum rule_says rule_unplaced(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	if (!e->unresolved || e->err || !j->in->keyed || e->op == ACCESS_CONNECT ||
	    e->op == ACCESS_CHDIR || e->op == ACCESS_PROBE || e->op == ACCESS_PROBE_WRITE)
		return RULE_NEXT;
	if (!strset_add(&j->seen, xasprintf("?%s", e->path)))
		return RULE_SETTLED;
	struct violation v = {.op = e->write_intent	   ? VIOLATION_WRITE
				    : e->op == ACCESS_EXEC ? VIOLATION_EXEC
							   : VIOLATION_READ,
			      .path = xstrdup(e->path),
			      .syscall = e->syscall};
	vec_push(&j->out->violations, v);
	if (!verdict_has_note(j->out, "unplaced", ""))
		verdict_add_note(
		    j->out, "unplaced", "",
		    xasprintf("%s %s a path relative to a descriptor the trace never saw opened "
			      "(one received over a socket, or made by a call vx does not "
			      "follow): it cannot be judged, so the task is not cached; open it "
			      "by its path",
			      e->syscall, e->write_intent ? "wrote" : "read"));
	return RULE_SETTLED;
}

static enum rule_says rule_unplaceable(struct judging *j, const struct access_event *e, size_t i)
{
	(void)j, (void)i;
	return e->unresolved || e->truncated || e->path[0] != '/' ? RULE_SETTLED : RULE_NEXT;
}

static enum rule_says rule_record(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	const struct judge_input *in = j->in;
	if (e->err)
		return RULE_NEXT;
	if (e->op == ACCESS_EXEC && !judge_under(in->workspace_root, e->path) &&
	    !judge_under("/proc", e->path) && !judge_under("/tmp", e->path)) {
		char *real = judge_host_resolve(in, e->path);
		if (real && strvec_find(&j->out->execs, real) < 0)
			strvec_push(&j->out->execs, real);
		free(real);
	}
	/* tsc's build info the task wrote where its outputs do not hold it:
	 * the next build reads it (learn declares it the task's output, so it
	 * is saved, restored and cleared with what it describes) */
	const char *base = strrchr(e->path, '/');
	if ((e->op == ACCESS_WRITE || e->op == ACCESS_RENAME_TO) && base &&
	    strstr(base, "tsbuildinfo") && in->cached && judge_under(in->project_dir, e->path) &&
	    !verdict_has_note(j->out, "tool-state", e->path)) {
		char *own = path_relative(in->project_dir, e->path);
		if (!globlist_match((char *const *)in->own_outputs, in->n_own_outputs, own))
			verdict_add_note(
			    j->out, "tool-state", e->path,
			    xasprintf("the task wrote %s, tsc's build info, which its outputs "
				      "do not hold: the next build reads it; declare it an "
				      "output, so it is saved, restored and cleared with what "
				      "it describes",
				      own));
		free(own);
	}
	size_t dummy;
	if (in->keyed && (e->op == ACCESS_READ || e->op == ACCESS_EXEC) &&
	    !strmap_get(&j->read_seen, e->path, &dummy)) {
		strmap_put(&j->read_seen, e->path, 0);
		vec_push(&j->reads, e);
	}
	return RULE_NEXT;
}

static enum rule_says rule_done(struct judging *j, const struct access_event *e, size_t i)
{
	const struct judge_input *in = j->in;
	if (e->err)
		return RULE_NEXT;
	char *real;
	enum unkeyed u = unkeyed_read(in, e, i, &j->written, &j->seen, &real);
	if (u) {
		unkeyed_verdict(in, j->out, e, real ? real : e->path, u);
		free(real);
		return RULE_SETTLED;
	}
	if (config_write(in, j->out, e, &j->seen))
		return RULE_SETTLED;
	/* judged by its name and, opened through a link, where the kernel
	 * opened it (-y): a link the task made in an allowed name that leads
	 * to a file no entry names wrote that file */
	const char *at[] = {e->path, e->real && strcmp(e->real, e->path) ? e->real : NULL};
	for (size_t k = 0; k < 2 && at[k]; k++) {
		if (!widened_write(in, e, at[k], &j->made, &j->gone, &j->seen))
			continue;
		struct violation v = {
		    .op = VIOLATION_WRITE, .path = xstrdup(at[k]), .syscall = e->syscall};
		vec_push(&j->out->violations, v);
		struct access_event there = *e;
		there.path = (char *)at[k];
		strvec_push_nodup(&j->out->fix_write, fix_widened(in, &there, &j->made_dirs));
	}
	return RULE_SETTLED;
}

static enum rule_says rule_own_places(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	const struct judge_input *in = j->in;
	return judge_under("/dev", e->path) || judge_under("/proc", e->path) ||
		       judge_under("/sys", e->path) ||
		       (judge_under(in->tmpdir ? in->tmpdir : "/tmp", e->path) &&
			!judge_under(in->workspace_root, e->path))
		   ? RULE_SETTLED
		   : RULE_NEXT;
}

static enum rule_says rule_mkdir_exists(struct judging *j, const struct access_event *e, size_t i)
{
	(void)j, (void)i;
	return e->op == ACCESS_MKDIR && e->err == EEXIST ? RULE_SETTLED : RULE_NEXT;
}

static enum rule_says rule_grant_root(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	const struct judge_input *in = j->in;
	if (!((e->err == EBUSY || e->err == EROFS) && judge_is_write_root(in, e->path) &&
	      (e->op == ACCESS_RMDIR || e->op == ACCESS_UNLINK || e->op == ACCESS_RENAME_FROM ||
	       e->op == ACCESS_RENAME_TO)))
		return RULE_NEXT;
	if (!verdict_has_note(j->out, "grant-root-busy", e->path)) {
		char *rel = path_relative(in->project_dir, e->path);
		const char *slash = strchr(rel, '/');
		verdict_add_note(
		    j->out, "grant-root-busy", e->path,
		    xasprintf("%s is a write grant's root, a mount point in the sandbox: it "
			      "cannot be removed or renamed (%s %s); empty it instead (rm -rf "
			      "%s/*, not rm -rf %s)%s",
			      rel, e->syscall, e->err == EBUSY ? "EBUSY" : "EROFS", rel, rel,
			      slash ? ", or grant the top-level directory that holds it, "
				      "which lives in the task's stage and can go"
				    : ""));
		/* A tool that deletes its own output root (Remix's build/,
		 * Nitro's .output/ under a deeper grant) failed with no
		 * violation and nothing to learn (issue 54 item 2): a refusal
		 * that fails a task is a violation with its fix, the
		 * top-level directory holding the root, which is staged. */
		if (slash && path_is_within(in->project_dir, e->path)) {
			struct violation v = {.op = VIOLATION_WRITE,
					      .path = xstrdup(e->path),
					      .syscall = e->syscall,
					      .err = e->err};
			vec_push(&j->out->violations, v);
			char *top = xstrndup(rel, (size_t)(slash - rel));
			char *abs = path_join(in->project_dir, top);
			strvec_push_nodup(&j->out->fix_write, fix_grant(in, abs, true));
			free(abs);
			free(top);
		}
		free(rel);
	}
	return RULE_SETTLED;
}

static enum rule_says rule_not_refused(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	bool refused =
	    e->err == EACCES || e->err == EPERM || e->err == EROFS ||
	    (e->err == ENOENT && judge_on_host(j->in, e->path) && !shown_inside(j->in, e->path));
	return refused ? RULE_NEXT : RULE_SETTLED;
}

static enum rule_says rule_times(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	size_t at;
	if (e->op == ACCESS_UTIME && e->err != ENOENT)
		return RULE_SETTLED;
	if (e->op == ACCESS_WRITE && e->err != ENOENT && strmap_get(&j->touched, e->path, &at))
		return RULE_SETTLED;
	return RULE_NEXT;
}

/* A refusal outside the project that made the task fail (issue 40: a
 * hidden root .gitignore broke ESLint, a hidden root .env broke dotenv, and
 * each was a note only): a violation with its fix — the grant, and for a
 * cached task the key entry — when one can be given: a read in the
 * workspace, or a write anywhere but a credential store, a wall, or a
 * dependency's file (whose fix is its outputs: a note says so). A task
 * that succeeded keeps such refusals as notes (a tool probing for an
 * optional file). Returns whether it made the violation. */
static bool outside_fix(const struct judge_input *in, struct verdict *out,
			const struct access_event *e, bool write)
{
	if (!in->failed || judge_credential_store(in, e->path) || judge_dep_written(in, e->path) ||
	    (!write && !judge_under(in->workspace_root, e->path)))
		return false;
	/* a temp file in the host's shared /tmp or /var/tmp: the note's
	 * advice (write under $TMPDIR) is the better fix than a grant */
	if (write &&
	    (path_is_within("/var/tmp", e->path) ||
	     (path_is_within("/tmp", e->path) && !judge_under(in->workspace_root, e->path))))
		return false;
	for (size_t w = 0; w < in->n_walls; w++)
		if (path_is_within(in->walls[w].path, e->path))
			return false;
	struct violation v = {.op = write ? VIOLATION_WRITE : VIOLATION_READ,
			      .path = xstrdup(e->path),
			      .syscall = e->syscall,
			      .err = e->err};
	vec_push(&out->violations, v);
	if (write) {
		char *dir = path_dirname(e->path);
		strvec_push_nodup(&out->fix_write, fix_grant(in, dir, true));
		free(dir);
		return true;
	}
	bool dir = judge_host_is_dir(in, e->path);
	strvec_push_nodup(&out->fix_read, fix_grant(in, e->path, dir));
	if (in->cached)
		strvec_push_nodup(&out->fix_workspace_inputs, fix_ws_key(in, e->path, dir));
	return true;
}

/* The directory a refused mkdir of node_modules was on the way to: a
 * recursive mkdir that works upwards (Node's fs.mkdir {recursive: true}:
 * vitest's node_modules/.vite/vitest/) first tried the deepest, which
 * failed with ENOENT. node_modules is the lockfile's (installed packages):
 * the grant is that deepest one, never all of node_modules (issue 40 item
 * 3: `write: ["node_modules/"]` for vitest). Any other refused mkdir asks
 * for itself: next's .next/cache/ first, then the rest of .next/, so the
 * deepest would cost a round. e's path when nothing deeper was tried just
 * before. */
static const char *mkdir_meant(const struct judging *j, const struct access_event *e, size_t i)
{
	const char *best = e->path;
	size_t n = strlen(e->path);
	if (strcmp(path_basename(e->path), "node_modules"))
		return best;
	/* libuv runs each step of an async recursive mkdir as its own request,
	 * on whichever pool thread takes it: the steps before it, by any
	 * thread, among the events just before */
	for (size_t k = i, seen = 0; k-- > 0 && seen < 64; seen++) {
		const struct access_event *x = &j->ev[k];
		if (x->op == ACCESS_MKDIR && x->err == ENOENT && !strncmp(x->path, e->path, n) &&
		    x->path[n] == '/' && strlen(x->path) > strlen(best))
			best = x->path;
	}
	return best;
}

/* A refusal the task met: a violation, with its note (outside the
 * project, a withheld package, a mandatory deny, a wall) or its fix. */
static enum rule_says rule_refused(struct judging *j, const struct access_event *e, size_t i)
{
	const struct judge_input *in = j->in;
	struct verdict *out = j->out;
	bool write = e->write_intent && e->op != ACCESS_UTIME;
	if (!strset_add(&j->seen, xasprintf("%c%s", write ? 'w' : 'r', e->path)))
		return RULE_SETTLED;
	/* A withheld package is reached through a link in node_modules:
	 * judged by where the link leads on the host. */
	char *real = judge_host_resolve(in, e->path);
	bool withheld = false;
	const char *real_path = NULL;
	for (size_t w = 0; w < in->n_withheld && !withheld; w++) {
		withheld = judge_under(in->withheld[w], e->path) ||
			   (real && judge_under(in->withheld[w], real));
		if (withheld)
			real_path = in->withheld[w];
	}
	free(real);
	bool inside = withheld || judge_under(in->project_dir, e->path);
	if (!inside && !outside_fix(in, out, e, write))
		note_outside(in, out, e->path, write);
	if (!inside)
		return RULE_SETTLED;
	if (write ? judge_ignored(in, in->ignore_write, in->n_ignore_write, e->path)
		  : judge_ignored(in, in->ignore_read, in->n_ignore_read, e->path))
		return RULE_SETTLED;
	struct violation v = {.op = write		   ? VIOLATION_WRITE
				    : e->op == ACCESS_EXEC ? VIOLATION_EXEC
							   : VIOLATION_READ,
			      .path = xstrdup(e->path),
			      .syscall = e->syscall,
			      .err = e->err};
	vec_push(&out->violations, v);
	if (withheld) {
		note_withheld(in, out, e->path, real_path);
		return RULE_SETTLED; /* the fix is a dependsOn edge (the note says so), not a grant
				      */
	}
	const struct wall *wall = NULL;
	for (size_t w = 0; w < in->n_walls && !wall; w++)
		if (path_is_within(in->walls[w].path, e->path))
			wall = &in->walls[w];
	size_t deny_len = 0;
	const struct deny_rule *deny = NULL;
	if (write && !wall) {
		const char *bases[] = {in->workspace_root, in->home ? in->home : in->workspace_root,
				       NULL};
		deny = denies_holding(e->path, bases, &deny_len);
	}
	if (deny) {
		/* issue 36: the fix named .vscode/, and merged as printed it
		 * opened .vscode/tasks.json to the next run */
		char *at = xstrndup(e->path, deny_len);
		if (!verdict_has_note(out, "walled", at)) {
			char *shown = judge_display_path(in, at);
			verdict_add_note(
			    out, "walled", at,
			    xasprintf("%s is a mandatory deny (%s), which no grant opens to a "
				      "sandboxed task; change the command so it does not write "
				      "there",
				      shown, deny->why));
			free(shown);
		}
		free(at);
		return RULE_SETTLED;
	}
	if (wall) {
		if (!verdict_has_note(out, "walled", wall->path)) {
			char *shown = judge_display_path(in, wall->path);
			verdict_add_note(
			    out, "walled", wall->path,
			    xasprintf("%s is %s, which no grant opens to a sandboxed task; change "
				      "the command so it does not %s there",
				      shown, walls_kind_name(wall->kind),
				      write ? "write" : "read"));
			free(shown);
		}
		return RULE_SETTLED;
	}
	if (write && path_is_within(in->workspace_root, e->path) &&
	    (judge_is_config(in, e->path) || config_name(path_basename(e->path)))) {
		note_config(in, out, e->path); /* and no fix: SPEC §4 */
		return RULE_SETTLED;
	}
	const char *meant = e->op == ACCESS_MKDIR && write ? mkdir_meant(j, e, i) : e->path;
	strvec_push_nodup(write ? &out->fix_write : &out->fix_read,
			  fix_entry(in, meant, write,
				    e->op == ACCESS_MKDIR || (e->op == ACCESS_PROBE_WRITE &&
							      judge_host_is_dir(in, e->path))));
	if (!write && in->cached)
		unkeyed_key_fix(in, out, e->path);
	return RULE_SETTLED;
}

/* Each event goes down the rows in order until one settles it: the
 * judge's rules, each with its why (the strace parser's sysdefs[] is the
 * model). */
static const struct rule {
	const char *name;
	enum rule_says (*judge)(struct judging *j, const struct access_event *e, size_t i);
	const char *why;
} rules[] = {
    {"network", rule_network,
     "a connect to a host by name or address: refused unless a network grant names it"},
    {"unplaced", rule_unplaced,
     "an access relative to a descriptor the trace never saw opened cannot be placed, so "
     "nothing can say the key holds it: fail closed (issue 37)"},
    {"unplaceable", rule_unplaceable,
     "what is left unresolved, cut off by strace, or not a path cannot be judged further"},
    {"record", rule_record,
     "every program run outside the workspace (the key's toolchain check) and every read "
     "(--explain-key) is recorded; never settles"},
    {"done", rule_done,
     "an access that succeeded: a read the key does not hold, a config file written, a "
     "write in a widened directory that left something behind"},
    {"own-places", rule_own_places,
     "/dev, /proc, /sys and the task's own TMPDIR are the task's (a workspace under /tmp "
     "is bound back in at its host path, and judged)"},
    {"mkdir-exists", rule_mkdir_exists, "a directory bwrap made for a bind already exists"},
    {"grant-root", rule_grant_root,
     "a write grant's root is a mount point: removing or renaming it fails, and the "
     "command is what needs the change"},
    {"not-refused", rule_not_refused,
     "ENOENT is a refusal only where the sandbox hid the path; where it shows the path, it "
     "is plain absence at that moment (issue 11)"},
    {"times", rule_times,
     "a timestamp refused on a path the task can read changes nothing the build depends "
     "on, nor does touch's open for writing before it sets the times"},
    {"refused", rule_refused, "every other refusal is a violation, with its note or fix"},
};

void judge_events(const struct judge_input *in, const struct access_event *ev, size_t nev,
		  struct verdict *out)
{
	struct judging j = {.in = in, .out = out, .ev = ev};
	/* touch opens the file for writing before it sets the times: the paths
	 * whose times the task tried to set (keys borrowed from the parser). */
	for (size_t i = 0; i < nev; i++)
		if (ev[i].op == ACCESS_UTIME && ev[i].path[0] == '/')
			strmap_put(&j.touched, ev[i].path, i);
	/* In a widened dir the wall lets every write through: the trace is
	 * the only judge. A file the task made and removed again (a temp file
	 * renamed over its output) changed nothing. */
	for (size_t i = 0; in->n_widened && i < nev; i++) {
		const struct access_event *e = &ev[i];
		if (e->err || e->op == ACCESS_PROBE_WRITE ||
		    !(e->write_intent || e->op == ACCESS_RENAME_FROM) || e->path[0] != '/')
			continue;
		bool removes =
		    e->op == ACCESS_UNLINK || e->op == ACCESS_RMDIR || e->op == ACCESS_RENAME_FROM;
		strmap_put(removes ? &j.gone : &j.made, e->path, i);
		if (e->op == ACCESS_MKDIR)
			strmap_put(&j.made_dirs, e->path, i);
	}
	if (in->keyed) /* what the task made: under a write root, or a file grant's */
		unkeyed_written(in, &j.written, &j.written_keys, ev, nev);
	for (size_t i = 0; i < nev; i++)
		for (size_t r = 0; r < sizeof rules / sizeof *rules; r++)
			if (rules[r].judge(&j, &ev[i], i) == RULE_SETTLED)
				break;
	/* what it read, for --explain-key: the unkeyed ones by their
	 * violations, the rest by where they lie (directories left out) */
	for (size_t r = 0; r < j.reads.n; r++) {
		const char *path = j.reads.v[r]->path;
		bool unkeyed = false;
		for (size_t k = 0; k < out->violations.n && !unkeyed; k++)
			unkeyed = violation_unkeyed(&out->violations.v[k]) &&
				  path_is_within(out->violations.v[k].path, path);
		bool inside = judge_under(in->workspace_root, path);
		/* a directory read is no file's; a file gone since is listed
		 * when it is a violation's (a temp file the task made and
		 * removed is no read of the key's) */
		enum judge_kind kind = !inside			  ? JUDGE_FILE
				       : j.reads.v[r]->opened_dir ? JUDGE_DIR
								  : judge_host_kind(in, path);
		if (kind == JUDGE_DIR || (kind == JUDGE_ABSENT && !unkeyed))
			continue;
		strvec_pushf(&out->reads, "%c %s", unkeyed ? 'U' : inside ? 'K' : 'O', path);
	}
	vec_free(&j.reads);
	strmap_clear(&j.read_seen);
	strset_clear(&j.seen);
	strmap_clear(&j.touched);
	strmap_clear(&j.made);
	strmap_clear(&j.gone);
	strmap_clear(&j.made_dirs);
	strmap_clear(&j.written);
	strvec_clear(&j.written_keys);
	note_unwritten(in, out);
	note_git(in, out);
	note_last_line(in, out);
	note_network(in, out);
	strvec_sort_unique(&out->fix_network);
	strvec_sort_unique(&out->fix_read);
	strvec_sort_unique(&out->fix_write);
	fix_whole_list(&out->fix_inputs, in->input_files, in->n_input_files);
	fix_whole_list(&out->fix_workspace_inputs, in->input_ws_files, in->n_input_ws_files);
}

void verdict_release(struct verdict *v)
{
	for (size_t i = 0; i < v->violations.n; i++) {
		free(v->violations.v[i].path);
		free(v->violations.v[i].reason);
	}
	vec_free(&v->violations);
	strvec_clear(&v->fix_network);
	for (size_t i = 0; i < v->notes.n; i++) {
		free(v->notes.v[i].path);
		free(v->notes.v[i].text);
	}
	vec_free(&v->notes);
	strvec_clear(&v->fix_read);
	strvec_clear(&v->fix_write);
	strvec_clear(&v->fix_inputs);
	strvec_clear(&v->fix_workspace_inputs);
	strvec_clear(&v->execs);
	strvec_clear(&v->reads);
	strvec_clear(&v->fix_toolchain);
	strvec_clear(&v->fix_ignore_read);
}
