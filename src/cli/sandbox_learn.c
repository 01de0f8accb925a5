/* sandbox_learn.c - `vx sandbox learn TASK...`: the sandbox turned on in one
 * step (issue 40). The selected tasks get `sandbox: {}` where they have none,
 * then run, traced, behind every wall vx keeps, round after round: each
 * round's fixes (the judge's, as `--report json` gives them) are written
 * into the config file each names, until every task passes with no
 * violation, or a round adds nothing (what is left needs a person: a
 * wall, a dependency, a connection past the proxy). What it wrote is
 * printed as a diff. */
#include "cli/sandbox_learn.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/workspace.h"
#include "plan/graph.h"
#include "run/runopts.h"
#include "run/runplan.h"
#include "sandbox/grants.h"
#include "util/die.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "util/yamledit.h"

/* Enough for the real tools of t0330 (two or three rounds); a task still
 * failing after this many is failing for something a grant cannot give. */
#define LEARN_ROUNDS 12

static const char LEARN_USAGE[] =
    "usage: vx sandbox learn TASK... [run options]\n"
    "\n"
    "Turns the sandbox on for the selected tasks and writes what each needs into\n"
    "its config: runs them (never from the cache), traced, behind the walls vx\n"
    "always keeps, writes the grants and inputs each round's fixes name into the\n"
    "vx.yaml each names (the root one in a turbo.json repository, else the\n"
    "project's; made when missing, comments and layout kept), and runs again,\n"
    "until every task passes with no violation. Prints a diff of what it wrote.\n"
    "What a grant cannot give (a wall, a dependency the task lacks, a connection\n"
    "past the proxy) stops it, with the run's report.\n"
    "\n"
    "Run options are vx run's (--filter, --affected, -j, --env-mode, ...).\n";

/* A config file learn edits: what it held before, what it holds now. */
struct learned_file {
	char *rel, *path; /* workspace-relative, absolute */
	bool existed;
	struct strbuf before, now;
};

struct learn {
	struct workspace *ws;
	const struct graph *g; /* the selected graph: each task's outputs */
	VEC(struct learned_file) files;
	struct strvec fresh; /* write grants learned here that were not there (absolute) */
	size_t added;	     /* entries added this round */
};

static struct learned_file *file_of(struct learn *l, const char *rel)
{
	for (size_t i = 0; i < l->files.n; i++)
		if (!strcmp(l->files.v[i].rel, rel))
			return &l->files.v[i];
	struct learned_file f = {.rel = xstrdup(rel), .path = path_join(l->ws->root, rel)};
	strbuf_init(&f.before);
	strbuf_init(&f.now);
	if (!strbuf_read_file(&f.before, f.path))
		f.existed = true;
	else if (errno != ENOENT)
		die("cannot read %s: %s", f.path, strbuf_read_strerror(errno));
	strbuf_add(&f.now, f.before.buf, f.before.len);
	vec_push(&l->files, f);
	return &l->files.v[l->files.n - 1];
}

/* Adds values at path of file rel (in memory). Returns 0, or -1 after an
 * error line at the place that is in the way. */
static int add(struct learn *l, const char *rel, const char *const *path, size_t np,
	       const char *const *values, size_t nv)
{
	struct learned_file *f = file_of(l, rel);
	struct strbuf out = STRBUF_INIT;
	struct yamlload_error err;
	bool changed;
	if (yamledit_add(f->now.buf, f->now.len, path, np, values, nv, &out, &changed, &err)) {
		error("%s:%d:%d: %s", f->rel, err.line, err.col, err.message);
		strbuf_release(&out);
		return -1;
	}
	if (changed) {
		strbuf_release(&f->now);
		f->now = out;
		l->added += nv ? nv : 1;
	} else {
		strbuf_release(&out);
	}
	return 0;
}

static int write_files(struct learn *l)
{
	for (size_t i = 0; i < l->files.n; i++) {
		struct learned_file *f = &l->files.v[i];
		struct strbuf disk = STRBUF_INIT;
		bool same = !strbuf_read_file(&disk, f->path) && disk.len == f->now.len &&
			    !memcmp(disk.buf, f->now.buf, disk.len);
		strbuf_release(&disk);
		if (same || (!f->existed && !f->now.len))
			continue;
		char *dir = path_dirname(f->path);
		int rc = fs_mkdirs(dir, 0755);
		free(dir);
		if (rc || write_file_atomic(f->path, f->now.buf, f->now.len))
			return error_errno("cannot write %s", f->path);
	}
	return 0;
}

/* Is abs inside a project other than p that p does not depend on
 * (directly or not)? Its name when so, else NULL. */
static const char *foreign_project(const struct workspace *ws, size_t p, const char *abs)
{
	long q = workspace_project_of(ws, abs);
	if (q < 0 || (size_t)q == p || ws->projects.v[q]->is_root)
		return NULL;
	size_t n = ws->projects.n;
	bool *seed = xcalloc(n + 1, 1), *mark = xcalloc(n + 1, 1);
	seed[p] = true;
	workspace_closure(ws, seed, false, mark);
	bool dep = mark[q];
	free(seed);
	free(mark);
	return dep ? NULL : ws->projects.v[q]->name;
}

static const char *json_str(const cJSON *o, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* json_str, or "?" where the report has no such string: for printing. */
static const char *json_say(const cJSON *o, const char *name)
{
	const char *s = json_str(o, name);
	return s ? s : "?";
}

/* The grant list at fix.group.name, generalised and without what reaches
 * into a project the task does not depend on (said, not learned). */
static void take_list(struct learn *l, const cJSON *fix, const char *group, const char *name,
		      const char *id, const char *project, struct strvec *out, bool *refused)
{
	const cJSON *list =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fix, group), name);
	const cJSON *x;
	long p = -1;
	if (project) {
		char *dir = path_join(l->ws->root, project);
		p = workspace_project_of(l->ws, dir);
		free(dir);
	}
	cJSON_ArrayForEach(x, list)
	{
		if (!cJSON_IsString(x))
			continue;
		bool grant = !strcmp(group, "allow") && strcmp(name, "network");
		bool ws_file = !strcmp(name, "workspaceFiles"); /* workspace-relative */
		const char *entry = x->valuestring;
		if ((grant || ws_file) && p >= 0 && entry[0] != '/' && entry[0] != '~') {
			char *joined = ws_file ? xasprintf("%s/%s", l->ws->root, entry)
					       : xasprintf("%s/%s/%s", l->ws->root, project, entry);
			char *abs = path_normalize(joined);
			const char *other = foreign_project(l->ws, (size_t)p, abs);
			free(joined);
			free(abs);
			if (other) {
				fprintf(
				    stderr,
				    "vx: %s: not learned: %s.%s \"%s\" reaches into project %s, "
				    "which it does not depend on: add the dependency (dependsOn, "
				    "or package.json), not a grant\n",
				    id, group, name, entry, other);
				*refused = true;
				continue;
			}
		}
		if (grant && !strcmp(name, "write") && p >= 0 && entry[0] != '/' &&
		    entry[0] != '~' && !strpbrk(entry, "*?[{")) {
			char *joined = xasprintf("%s/%s/%s", l->ws->root, project, entry);
			char *abs = path_normalize(joined);
			struct stat st;
			if (lstat(abs, &st) && strvec_find(&l->fresh, abs) < 0)
				strvec_push(&l->fresh, abs);
			free(joined);
			free(abs);
		}
		char *g = grant ? grants_generalised(entry) : xstrdup(entry);
		if (strvec_find(out, g) < 0)
			strvec_push(out, g);
		free(g);
	}
}

/* Removes entry (project-relative, no ".." and no link on the way: each
 * directory opened with O_NOFOLLOW) from project dir. Returns 0, or -1. */
static int remove_in(const char *dir, const char *entry)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *copy = xstrdup(entry), *save = NULL, *c = strtok_r(copy, "/", &save);
	int rc = fd < 0 ? -1 : 0;
	while (!rc && c) {
		char *next = strtok_r(NULL, "/", &save);
		if (!strcmp(c, "..") || !strcmp(c, ".")) {
			errno = EINVAL;
			rc = -1;
		} else if (!next) {
			rc = remove_tree_at(fd, c);
		} else {
			int sub = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(fd);
			fd = sub;
			rc = sub < 0 ? (errno == ENOENT ? 1 : -1) : 0;
		}
		c = next;
	}
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc < 0 ? -1 : 0;
}

/* The literal heads of a task's outputs ("dist/" for "dist/ and all below", a file as
 * itself; a pattern with no literal directory has none). */
static void output_heads(const struct task_node *t, struct strvec *out)
{
	for (size_t i = 0; i < t->cfg->outputs.n; i++) {
		const char *pat = t->cfg->outputs.v[i].s;
		if (pat[0] == '!' || pat[0] == '/' || strstr(pat, ".."))
			continue;
		size_t n = glob_literal_prefix(pat);
		if (pat[n]) /* magic after it: its directory, with the '/' */
			n = n && pat[n] == '/' ? n + 1 : 0;
		if (n)
			strvec_pushf(out, "%.*s", (int)n, pat);
	}
}

static bool under_heads(const struct strvec *heads, const char *entry)
{
	size_t n = strlen(entry);
	for (size_t i = 0; i < heads->n; i++) {
		const char *h = heads->v[i];
		size_t hn = strlen(h);
		if (!strcmp(h, entry) || (h[hn - 1] == '/' && !strncmp(entry, h, hn)) ||
		    (entry[n - 1] == '/' && !strncmp(h, entry, n)))
			return true;
	}
	return false;
}

/* The fresh write grant (learned in this session, not there when it was
 * learned: only learn's rounds wrote in it) holding abs, or NULL. */
static const char *fresh_holding(const struct learn *l, const char *abs)
{
	for (size_t i = 0; i < l->fresh.n; i++)
		if (path_is_within(l->fresh.v[i], abs))
			return l->fresh.v[i];
	return NULL;
}

/* A task's ignore.read fix names what an earlier run left in its write
 * grants and it read. sandbox.ignore.read is a person vouching that a
 * tool's cache never changes what the task makes (docs/violations.md):
 * learn does not vouch. What only learn's own rounds can have left is
 * removed instead, and the next round is a clean build, as CI's is: the
 * task's outputs (vx restores them from the cache; make linked the other
 * half of an earlier round's objects), and a write grant learned in this
 * session that was not there when it was learned (cmake's build/, whose
 * CMakeCache.txt no output names). Anything else is left to a person,
 * said. Returns 0, or -1. */
static int remove_leftovers(struct learn *l, const char *id, const char *project, const cJSON *fix,
			    bool *refused)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(fix, "ignore"), "read");
	if (!cJSON_GetArraySize(list) || !project)
		return 0;
	const struct task_node *t = NULL;
	for (size_t i = 0; !t && i < l->g->nodes.n; i++)
		if (!strcmp(l->g->nodes.v[i]->id, id))
			t = l->g->nodes.v[i];
	struct strvec heads = STRVEC_INIT, gone = STRVEC_INIT;
	if (t)
		output_heads(t, &heads);
	char *dir = path_join(l->ws->root, project);
	bool all = true;
	const cJSON *x;
	cJSON_ArrayForEach(x, list)
	{
		const char *entry = cJSON_IsString(x) ? x->valuestring : "?";
		char *abs = path_join(dir, entry);
		const char *fresh = fresh_holding(l, abs);
		free(abs);
		if (under_heads(&heads, entry)) {
			for (size_t i = 0; i < heads.n; i++)
				if (strvec_find(&gone, heads.v[i]) < 0)
					strvec_push(&gone, heads.v[i]);
		} else if (fresh && path_is_within(dir, fresh) && strcmp(dir, fresh)) {
			char *rel = path_relative(dir, fresh);
			if (strvec_find(&gone, rel) < 0)
				strvec_push(&gone, rel);
			free(rel);
		} else {
			all = false;
			fprintf(
			    stderr,
			    "vx: %s: not learned: it read %s/%s, which an earlier run left "
			    "where it writes and its outputs do not hold: remove it before the "
			    "task, or vouch for it with sandbox.ignore.read (docs/violations.md)\n",
			    id, project, entry);
			*refused = true;
		}
	}
	int rc = 0;
	for (size_t i = 0; all && !rc && i < gone.n; i++) {
		rc = remove_in(dir, gone.v[i]);
		if (rc)
			error_errno("%s: cannot remove %s/%s", id, project, gone.v[i]);
		else
			fprintf(stderr,
				"vx: %s: removed %s/%s: an earlier round left it, and the task "
				"read it (the next round builds clean)\n",
				id, project, gone.v[i]);
	}
	l->added += all && !rc;
	free(dir);
	strvec_clear(&heads);
	strvec_clear(&gone);
	return rc;
}

/* Writes one task's fix. Returns 0, or -1 after an error line. */
static int learn_task(struct learn *l, const cJSON *t, bool *refused)
{
	const char *id = json_str(t, "id"), *task = json_str(t, "task"),
		   *config = json_str(t, "config"), *project = json_str(t, "project");
	const cJSON *fix = cJSON_GetObjectItemCaseSensitive(t, "fix");
	if (!id || !task || !config || !cJSON_IsObject(fix))
		return 0;
	static const struct {
		const char *group, *name, *path[3];
	} fields[] = {
	    {"allow", "read", {"sandbox", "allow", "read"}},
	    {"allow", "write", {"sandbox", "allow", "write"}},
	    {"allow", "network", {"sandbox", "allow", "network"}},
	    {"inputs", "files", {"inputs", "files", NULL}},
	    {"inputs", "workspaceFiles", {"inputs", "workspaceFiles", NULL}},
	    {"inputs", "toolchain", {"inputs", "toolchain", NULL}},
	};
	/* sandbox.ignore.read is a person vouching that a tool's cache never
	 * changes what the task makes (docs/violations.md): learn does not
	 * vouch. What an earlier round left in a write grant is removed
	 * instead, so the next round starts as a clean checkout would. */
	if (remove_leftovers(l, id, project, fix, refused))
		return -1;
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		struct strvec values = STRVEC_INIT;
		take_list(l, fix, fields[i].group, fields[i].name, id, project, &values, refused);
		const char *path[5] = {"tasks", task};
		size_t np = 2;
		for (size_t k = 0; k < 3 && fields[i].path[k]; k++)
			path[np++] = fields[i].path[k];
		int rc = values.n
			     ? add(l, config, path, np, (const char *const *)values.v, values.n)
			     : 0;
		strvec_clear(&values);
		if (rc)
			return -1;
	}
	return 0;
}

/* Where a task with no sandbox: gets one: the file that defines it when
 * that is a vx.yaml, else the root's vx.yaml in a turbo.json repository
 * (the overlay every package's task inherits), else its project's. */
static char *sandbox_home(const struct workspace *ws, const struct task_node *t)
{
	const struct project *p = ws->projects.v[t->project];
	const char *file = t->cfg->loc.file;
	if (file && !strcmp(path_basename(file), "vx.yaml"))
		return path_relative(ws->root, file);
	if (ws->cfg->turbo_path)
		return xstrdup("vx.yaml");
	return p->is_root ? xstrdup("vx.yaml") : xasprintf("%s/vx.yaml", p->rel);
}

/* Turns the sandbox on for each requested task that runs a command and has
 * none. Returns 0, or -1 after an error line. */
static int turn_on(struct learn *l, const struct graph *g, size_t *turned)
{
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		if (!t->requested || !t->command)
			continue;
		if (t->cfg->persistent)
			return error("%s is persistent (a server): vx sandbox learn runs tasks to "
				     "their end; learn what it needs from the tasks it serves, or "
				     "add its grants by hand",
				     t->id);
		if (t->cfg->sandbox)
			continue;
		char *rel = sandbox_home(l->ws, t);
		const char *path[] = {"tasks", t->task, "sandbox"};
		size_t before = l->added;
		int rc = add(l, rel, path, 3, NULL, 0);
		free(rel);
		if (rc)
			return -1;
		*turned += l->added != before;
	}
	return 0;
}

/* Prints what learn changed in each file, as `diff -u` says it. */
static void print_diffs(struct learn *l)
{
	for (size_t i = 0; i < l->files.n; i++) {
		struct learned_file *f = &l->files.v[i];
		if (f->before.len == f->now.len && !memcmp(f->before.buf, f->now.buf, f->now.len))
			continue;
		const char *tmpdir = getenv("TMPDIR");
		char *old = xasprintf("%s/vx-learn-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
		int fd = mkstemp(old);
		bool ok = fd >= 0 && !write_all(fd, f->before.buf, f->before.len);
		if (fd >= 0)
			close(fd);
		char *la = xasprintf("a/%s", f->rel), *lb = xasprintf("b/%s", f->rel);
		char *argv[] = {
		    "diff",  "-u", "--label", la, "--label", lb, f->existed ? old : "/dev/null",
		    f->path, NULL};
		struct strbuf out = STRBUF_INIT;
		int rc = ok ? spawn_capture(argv, NULL, &out, NULL) : -1;
		if (rc == 1)
			fputs(out.buf, stdout);
		else /* no diff(1): the file as it is now */
			printf("--- %s\n%s", f->rel, f->now.buf);
		strbuf_release(&out);
		if (fd >= 0)
			unlink(old);
		free(old);
		free(la);
		free(lb);
	}
	fflush(stdout);
}

/* What stopped learning, from the run's report: each task that did not
 * pass, its violations and notes (the run's text report, which
 * --report json leaves out). */
static void print_left(const cJSON *tasks)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks)
	{
		const char *id = json_str(t, "id"), *st = json_str(t, "status"),
			   *why = json_str(t, "reason");
		const cJSON *viol = cJSON_GetObjectItemCaseSensitive(t, "violations"), *x;
		if (!id || !st ||
		    ((!strcmp(st, "succeeded") || !strcmp(st, "cached") || !strcmp(st, "noop")) &&
		     !cJSON_GetArraySize(viol)))
			continue;
		fprintf(stderr, "vx: %s: %s%s%s%s\n", id, st, why ? " (" : "", why ? why : "",
			why ? ")" : "");
		cJSON_ArrayForEach(x, viol)
		{
			const char *how = json_str(x, "reason")	 ? json_str(x, "reason")
					  : json_str(x, "errno") ? json_str(x, "errno")
								 : "not granted or not keyed";
			fprintf(stderr, "vx: %s: violation: %s %s (%s)\n", id, json_say(x, "op"),
				json_say(x, "path"), how);
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, "notes"))
		    fprintf(stderr, "vx: %s: note: %s\n", id, json_say(x, "text"));
	}
}

/* One round: the run, its report read, its fixes written. Returns 0 when
 * every task passed with no violation, 1 when fixes were written (run
 * again), 2 when nothing more can be learned or the run could not be read. */
static int round_once(struct learn *l, int round, char *const *run_argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int status = spawn_capture(run_argv, NULL, &out, &err);
	cJSON *doc = status >= 0 ? cJSON_Parse(out.buf) : NULL;
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(doc, "tasks");
	int rc = 2;
	if (!cJSON_IsArray(tasks)) {
		fputs(err.buf, stderr);
		error("sandbox learn: round %d: the run gave no report (exit %d)", round, status);
		goto out;
	}
	size_t ran = 0, failed = 0, violations = 0;
	bool refused = false, bad = false;
	l->added = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks)
	{
		const char *st = json_str(t, "status");
		ran += st && (!strcmp(st, "succeeded") || !strcmp(st, "failed"));
		failed +=
		    st && strcmp(st, "succeeded") && strcmp(st, "cached") && strcmp(st, "noop");
		violations +=
		    (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "violations"));
		if (learn_task(l, t, &refused))
			bad = true;
	}
	if (bad)
		goto out;
	if (!failed && !violations && !status) {
		fprintf(stderr, "vx: learn round %d: %zu tasks ran, all passed with no violation\n",
			round, ran);
		rc = 0;
		goto out;
	}
	fprintf(stderr,
		"vx: learn round %d: %zu tasks ran, %zu did not pass, %zu violations; %zu "
		"learned\n",
		round, ran, failed, violations, l->added);
	if (!l->added) {
		fputs(err.buf, stderr);
		print_left(tasks);
		error("sandbox learn: what is left needs a person (above: the run's "
		      "report%s); what was learned is kept",
		      refused ? ", and what was not learned" : "");
		goto out;
	}
	rc = write_files(l) ? 2 : 1;
out:
	cJSON_Delete(doc);
	strbuf_release(&out);
	strbuf_release(&err);
	return rc;
}

int sandbox_learn_main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(LEARN_USAGE, stdout);
		return 0;
	}
	/* the run's own options, checked by its parser (argv[0] is "learn") */
	struct run_opts o;
	memset(&o, 0, sizeof o);
	if (run_opts_parse(argc, argv, false, &o)) {
		fputs(LEARN_USAGE, stderr);
		run_opts_free(&o);
		return 2;
	}
	const char *taken = o.dry_run	    ? "--dry-run"
			    : o.report	    ? "--report"
			    : o.shard	    ? "--shard"
			    : o.only	    ? "--only"
			    : o.served_by   ? "--served-by"
			    : o.explain_key ? "--explain-key"
					    : NULL;
	if (taken) {
		error("sandbox learn: %s is not a learn option: learn runs every selected "
		      "task itself and reads its report",
		      taken);
		run_opts_free(&o);
		return 2;
	}
	struct learn l = {0};
	struct graph g;
	if (plan_graph(&o, &l.ws, &g, false)) {
		run_opts_free(&o);
		return 2;
	}
	size_t turned = 0;
	int rc = turn_on(&l, &g, &turned) || write_files(&l) ? 2 : 0;
	if (!rc && turned)
		fprintf(stderr, "vx: learn: the sandbox turned on for %zu task%s\n", turned,
			turned == 1 ? "" : "s");
	l.g = &g;
	struct strvec run = STRVEC_INIT;
	strvec_push(&run, "/proc/self/exe");
	strvec_push(&run, "run");
	for (int i = 1; i < argc; i++)
		strvec_push(&run, argv[i]);
	/* before any "--": options after it are the tasks' own arguments */
	size_t at = run.n;
	for (size_t i = 2; i < run.n; i++)
		if (!strcmp(run.v[i], "--")) {
			at = i;
			break;
		}
	const char *own[] = {"--force", "--continue", "--report=json"};
	for (size_t k = 0; k < 3; k++) {
		strvec_push(&run, own[k]);
		for (size_t i = run.n - 1; i > at + k; i--) {
			char *s = run.v[i];
			run.v[i] = run.v[i - 1];
			run.v[i - 1] = s;
		}
	}
	int round = 0;
	while (!rc) {
		if (++round > LEARN_ROUNDS) {
			error("sandbox learn: still failing after %d rounds; what was "
			      "learned is kept",
			      LEARN_ROUNDS);
			rc = 2;
			break;
		}
		int r = round_once(&l, round, run.v);
		if (r == 0)
			break;
		if (r == 2)
			rc = 2;
	}
	print_diffs(&l);
	strvec_clear(&run);
	for (size_t i = 0; i < l.files.n; i++) {
		free(l.files.v[i].rel);
		free(l.files.v[i].path);
		strbuf_release(&l.files.v[i].before);
		strbuf_release(&l.files.v[i].now);
	}
	vec_free(&l.files);
	strvec_clear(&l.fresh);
	graph_free(&g);
	workspace_free(l.ws);
	run_opts_free(&o);
	return rc ? 1 : 0;
}
