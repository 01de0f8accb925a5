/* judge.c - which refused accesses are violations.
 *
 * A refusal counts when the sandbox caused it and the task's project is
 * where it happened: EACCES, EPERM or EROFS always; ENOENT only when the
 * path exists on the host (the sandbox hid it — a missing file is the
 * task's own business). Refusals outside the project are the wall working:
 * notes, never violations. Every distinct (read or write, path) is judged
 * once. */
#include "violations/judge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/glob.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/strace.h"

static bool under(const char *dir, const char *path)
{
	return dir && *dir && path_is_within(dir, path);
}

/* An ignore glob: relative ones are anchored at the project, "~/" at home. */
static bool ignored(const struct judge_input *in, const char *const *globs, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		const char *g = globs[i];
		char *abs;
		if (g[0] == '~' && (g[1] == '/' || !g[1]))
			abs = in->home ? path_join(in->home, g[1] ? g + 2 : ".") : NULL;
		else
			abs = path_join(in->project_dir, g);
		if (!abs)
			continue;
		/* A trailing '/' names a directory and all below it. */
		size_t len = strlen(g);
		bool hit = glob_match(abs + 1, path + 1) ||
			   ((len && g[len - 1] == '/') && path_is_within(abs, path));
		if (!hit && !glob_has_magic(g))
			hit = path_is_within(abs, path);
		free(abs);
		if (hit)
			return true;
	}
	return false;
}

static bool exists_on_host(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The allow entry that grants path, spelled as a committed vx.yaml spells
 * it: relative to the project, a directory with a trailing '/'. A write
 * grants its directory (a file grant is widened to its directory anyway). */
static char *fix_entry(const struct judge_input *in, const char *path, bool write)
{
	char *target = write ? path_dirname(path) : xstrdup(path);
	char *rel = path_relative(in->project_dir, target);
	char *out;
	if (write || is_dir(target))
		out = strcmp(rel, ".") ? xasprintf("%s/", rel) : xstrdup("./");
	else
		out = xstrdup(rel);
	free(rel);
	free(target);
	return out;
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
	size_t nev;
	const struct access_event *ev = strace_parser_events(p, &nev);
	struct strvec seen = STRVEC_INIT;
	for (size_t i = 0; i < nev; i++) {
		const struct access_event *e = &ev[i];
		if (!e->err || e->unresolved || e->truncated || e->path[0] != '/')
			continue;
		/* The task's TMPDIR is a tmpfs of its own, but a workspace under
		 * /tmp is bound back into it at its host path: judged. */
		if (under("/dev", e->path) || under("/proc", e->path) || under("/sys", e->path) ||
		    (under(in->tmpdir ? in->tmpdir : "/tmp", e->path) && !under(in->workspace_root, e->path)))
			continue;
		/* A directory bwrap made for a bind already exists: no refusal. */
		if (e->op == ACCESS_MKDIR && e->err == EEXIST)
			continue;
		bool refused = e->err == EACCES || e->err == EPERM || e->err == EROFS ||
			       (e->err == ENOENT && exists_on_host(e->path));
		if (!refused)
			continue;
		/* A timestamp refused on a path the task could read (tsc touching
		 * a dependency's buildinfo) changes nothing the build depends on. */
		if (e->op == ACCESS_UTIME && e->err != ENOENT)
			continue;
		bool write = e->write_intent && e->op != ACCESS_UTIME;
		char *key = xasprintf("%c%s", write ? 'w' : 'r', e->path);
		bool dup = strvec_find(&seen, key) >= 0;
		if (dup) {
			free(key);
			continue;
		}
		strvec_push_nodup(&seen, key);
		/* A withheld package is reached through a link in node_modules:
		 * judged by where the link leads on the host. */
		char *real = realpath(e->path, NULL);
		bool withheld = false;
		for (size_t w = 0; w < in->n_withheld && !withheld; w++)
			withheld = under(in->withheld[w], e->path) || (real && under(in->withheld[w], real));
		free(real);
		bool inside = withheld || under(in->project_dir, e->path);
		if (!inside) {
			struct judge_note note = {write ? "refused-write-outside" : "hidden-read-outside",
						  xstrdup(e->path)};
			vec_push(&out->notes, note);
			continue;
		}
		if (write ? ignored(in, in->ignore_write, in->n_ignore_write, e->path)
			  : ignored(in, in->ignore_read, in->n_ignore_read, e->path))
			continue;
		struct violation v = {write, xstrdup(e->path), e->syscall, e->err};
		vec_push(&out->violations, v);
		if (withheld)
			continue; /* the fix is a dependsOn edge (the sandbox's note says so), not a grant */
		strvec_push_nodup(write ? &out->fix_write : &out->fix_read, fix_entry(in, e->path, write));
		if (!write && in->cached && in->inputs_explicit) {
			/* Granting a read the key does not fold would be a stale hit. */
			char *rel = path_relative(in->project_dir, e->path);
			if (!globlist_match((char *const *)in->input_files, in->n_input_files, rel))
				strvec_push_nodup(&out->fix_inputs,
						  is_dir(e->path) ? xasprintf("%s/**", rel) : xstrdup(rel));
			free(rel);
		}
	}
	strvec_clear(&seen);
	strvec_sort_unique(&out->fix_read);
	strvec_sort_unique(&out->fix_write);
	strvec_sort_unique(&out->fix_inputs);
	strace_parser_free(p);
	return 0;
}

void verdict_release(struct verdict *v)
{
	for (size_t i = 0; i < v->violations.n; i++)
		free(v->violations.v[i].path);
	vec_free(&v->violations);
	for (size_t i = 0; i < v->notes.n; i++)
		free(v->notes.v[i].path);
	vec_free(&v->notes);
	strvec_clear(&v->fix_read);
	strvec_clear(&v->fix_write);
	strvec_clear(&v->fix_inputs);
}
