/* learn_fix.c - one task's fix, from a round's report, taken into its
 * config by `vx sandbox learn`: each entry generalised, grouped by the
 * directory it shares, loaded back as the config will load it, and judged
 * against the line (learn_reach.h): what learn may write is added, the
 * rest is kept as a line for a person. */
#include "orchestrator/cli/learn.h"

#include <netdb.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orchestrator/cli/learn_reach.h"
#include "orchestrator/config/config.h"
#include "sandbox/denies.h"
#include "sandbox/grants.h"
#include "sandbox/netrule.h"
#include "util/die.h"
#include "util/glob.h"
#include "util/path.h"
#include "violations/fix.h"

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

/* Keeps a line for a person (once); offer false for what is named only,
 * never offered as a line to add. */
static void ask_or_name(struct learn *l, const char *id, const char *config, const char *field,
			const char *entry, const char *why, bool offer)
{
	for (size_t i = 0; i < l->asked.n; i++) {
		const struct asked *a = &l->asked.v[i];
		if (!strcmp(a->id, id) && !strcmp(a->field, field) && !strcmp(a->entry, entry))
			return;
	}
	struct asked a = {xstrdup(id),	  xstrdup(config), xstrdup(field),
			  xstrdup(entry), xstrdup(why),	   offer};
	vec_push(&l->asked, a);
}

static void ask(struct learn *l, const char *id, const char *config, const char *field,
		const char *entry, const char *why)
{
	ask_or_name(l, id, config, field, entry, why, true);
}

/* A network entry the proxy refused ("host", "host:port", "[v6]:port"):
 * NULL when it is a public name or address, else why no grant is offered
 * for it: an unspecified, loopback, private or link-local address, the
 * metadata service, or a name that resolves to one (issue 53 item 4). */
static const char *net_special(const char *entry)
{
	char host[300];
	const char *h = entry;
	size_t n = strlen(entry);
	if (entry[0] == '[') {
		const char *close = strchr(entry, ']');
		n = close ? (size_t)(close - entry - 1) : 0;
		h = entry + 1;
	} else if (strchr(entry, ':') == strrchr(entry, ':') && strchr(entry, ':')) {
		n = (size_t)(strchr(entry, ':') - entry);
	}
	if (!n || n >= sizeof host)
		return "not a host vx can judge";
	memcpy(host, h, n);
	host[n] = 0;
	if (!strcmp(host, "localhost") || glob_match("*.localhost", host))
		return "this machine: a loopback port is relayed by allow.network "
		       "localhost:PORT, a person's call";
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	if (getaddrinfo(host, NULL, &hints, &ai))
		return NULL; /* does not resolve here: the name is what is asked for */
	const char *why = NULL;
	for (struct addrinfo *a = ai; a && !why; a = a->ai_next) {
		enum net_class c = net_addr_class(a->ai_addr);
		if (c == NET_METADATA)
			why = "a cloud's metadata service (its credentials)";
		else if (c == NET_PRIVATE)
			why = "an unspecified, loopback, private or link-local address (or a "
			      "name that resolves to one)";
	}
	freeaddrinfo(ai);
	return why;
}

/* One task's round, as learn_reach and the load-back check need it. */
struct learn_job {
	const char *id, *config, *task;
	char *home; /* where its fix is written: fix_home */
	const struct task_node *t;
	const struct project *p;
	const cJSON *fix;
	struct strvec refused; /* the violations' paths, absolute */
	struct strvec nested, dep_outputs, keyed;
	struct learn_scope scope;
};

static void push_loaded(struct strvec *out, const char *dir, const lstr_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].s[0] != '!')
			strvec_push_nodup(out, path_join(dir, v->v[i].s));
}

static char *load_entry(const struct learn_job *j, const struct workspace *ws, enum learn_field f,
			const char *entry);

static void push_fix_loaded(struct strvec *out, const struct learn_job *j,
			    const struct workspace *ws, enum learn_field f, const char *name)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(
				  cJSON_GetObjectItemCaseSensitive(j->fix, "inputs"), name))
	{
		char *abs = cJSON_IsString(x) && x->valuestring[0] != '!'
				? load_entry(j, ws, f, x->valuestring)
				: NULL;
		if (abs)
			strvec_push_nodup(out, abs);
	}
}

/* The file a task's fix is written to: its project's own vx.yaml, the
 * layer that wins for it (root turbo.json < root vx.yaml < package
 * turbo.json < package vx.yaml), made when missing; the report names the
 * file its sandbox: block came from, which in a turbo.json repository is
 * the root's generic entry every package inherits (issue 54 item 1: each
 * app's key then held the other app's files, and a Vite temp-file glob
 * learned for one app refused every other package's build): the same
 * file the run's reports name (workspace_fix_yaml, the task-facts
 * record's yaml). The root project's tasks stay where they are. */
static char *fix_home(const struct learn *l, const struct learn_job *j)
{
	return j->p->is_root ? xstrdup(j->config) : workspace_fix_yaml(l->ws, j->p);
}

/* Fills job for report task o; false when the report names no task of the
 * graph or no fix. */
static bool job_begin(struct learn *l, const cJSON *o, struct learn_job *j)
{
	memset(j, 0, sizeof *j);
	j->id = learn_json_str(o, "id");
	j->task = learn_json_str(o, "task");
	j->config = learn_json_str(o, "config");
	j->fix = cJSON_GetObjectItemCaseSensitive(o, "fix");
	j->t = j->id ? learn_node_of(l, j->id) : NULL;
	if (!j->t || !j->task || !j->config || !cJSON_IsObject(j->fix))
		return false;
	const struct workspace *ws = l->ws;
	j->p = ws->projects.v[j->t->project];
	const cJSON *x;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "violations"))
	{
		const char *path = learn_json_str(x, "path");
		if (path)
			strvec_push_nodup(&j->refused, path[0] == '/' ? path_normalize(path)
								      : path_join(ws->root, path));
	}
	for (size_t k = 0; k < ws->projects.n; k++) {
		const char *d = ws->projects.v[k]->dir;
		if (strcmp(d, j->p->dir) && path_is_within(j->p->dir, d))
			strvec_push(&j->nested, d);
	}
	/* the outputs of every task it depends on, directly or not */
	bool *seen = xcalloc(l->g->nodes.n + 1, 1);
	VEC(size_t) todo = {0};
	vec_push(&todo, j->t->index);
	while (todo.n) {
		const struct task_node *n = l->g->nodes.v[todo.v[--todo.n]];
		for (size_t e = 0; e < n->deps.n; e++) {
			size_t to = n->deps.v[e].to;
			if (seen[to])
				continue;
			seen[to] = true;
			vec_push(&todo, to);
			const struct task_node *d = l->g->nodes.v[to];
			push_loaded(&j->dep_outputs, ws->projects.v[d->project]->dir,
				    &d->cfg->outputs);
		}
	}
	vec_free(&todo);
	free(seen);
	push_loaded(&j->keyed, j->p->dir, &j->t->cfg->input_files);
	push_loaded(&j->keyed, ws->root, &j->t->cfg->input_ws_files);
	push_loaded(&j->keyed, ws->root, &ws->cfg->ws_input_files);
	push_fix_loaded(&j->keyed, j, ws, LEARN_FILES, "files");
	push_fix_loaded(&j->keyed, j, ws, LEARN_WS_FILES, "workspaceFiles");
	const char *home = getenv("HOME");
	j->scope = (struct learn_scope){
	    .workspace_root = ws->root,
	    .project_dir = j->p->dir,
	    .home = home,
	    .nested = (const char *const *)j->nested.v,
	    .n_nested = j->nested.n,
	    .dep_outputs = (const char *const *)j->dep_outputs.v,
	    .n_dep_outputs = j->dep_outputs.n,
	    .keyed = (const char *const *)j->keyed.v,
	    .n_keyed = j->keyed.n,
	};
	j->home = fix_home(l, j);
	return true;
}

static void job_end(struct learn_job *j)
{
	free(j->home);
	strvec_clear(&j->refused);
	strvec_clear(&j->nested);
	strvec_clear(&j->dep_outputs);
	strvec_clear(&j->keyed);
}

/* Does abs (a loaded entry: a path or a pattern with its escapes) name a
 * path the task was refused: hold it, match it, or lie below it (a refused
 * mkdir of node_modules whose fix is the deeper node_modules/.vite/vitest/
 * the tool went on to make)? */
static bool names_refused(const struct learn_job *j, const char *abs)
{
	bool literal = !glob_has_magic(abs);
	char *plain = literal ? glob_unescape(abs, strlen(abs)) : NULL;
	bool hit = false;
	for (size_t i = 0; i < j->refused.n && !hit; i++)
		hit = literal ? path_is_within(plain, j->refused.v[i]) ||
				    path_is_within(j->refused.v[i], plain)
			      : glob_match(abs, j->refused.v[i]);
	free(plain);
	return hit;
}

/* entry of field f as the config will load it: absolute, escapes kept;
 * NULL when it does not load (an unset variable, "~user"). */
static char *load_entry(const struct learn_job *j, const struct workspace *ws, enum learn_field f,
			const char *entry)
{
	char *expanded;
	struct strbuf why = STRBUF_INIT;
	if (config_expand(entry, &expanded, &why)) {
		strbuf_release(&why);
		return NULL;
	}
	char *abs = NULL;
	if (f == LEARN_READ || f == LEARN_WRITE) {
		const char *home = getenv("HOME");
		abs = grants_absolute(expanded, entry, j->p->dir, home, &why);
	} else if (f == LEARN_TOOLCHAIN) {
		abs = expanded[0] == '/' ? xstrdup(expanded) : NULL;
	} else {
		abs = path_join(f == LEARN_FILES ? j->p->dir : ws->root, expanded);
	}
	strbuf_release(&why);
	free(expanded);
	char *norm = abs ? path_normalize(abs) : NULL;
	free(abs);
	return norm;
}

/* Is entry in the task's own list of field f already (inputs.files is
 * given whole: what every layer gave it, and the new)? */
static bool listed(const struct learn_job *j, enum learn_field f, const char *entry)
{
	const lstr_vec *v = f == LEARN_FILES	   ? &j->t->cfg->input_files
			    : f == LEARN_WS_FILES  ? &j->t->cfg->input_ws_files
			    : f == LEARN_TOOLCHAIN ? &j->t->cfg->toolchain
						   : NULL;
	for (size_t i = 0; v && i < v->n; i++)
		if (!strcmp(v->v[i].s, entry))
			return true;
	return false;
}

/* Is abs the workspace root or a project's own directory? */
static bool project_root(const struct workspace *ws, const char *abs)
{
	if (!strcmp(abs, ws->root))
		return true;
	for (size_t k = 0; k < ws->projects.n; k++)
		if (!strcmp(ws->projects.v[k]->dir, abs))
			return true;
	return false;
}

/* Calls visit on each entry below dir (a file, a directory before what
 * it holds, a link), depth levels down, past node_modules, .git, .vx and,
 * with ws, the projects nested there, until visit returns true; returns
 * whether one did. */
static bool walk_files(const struct workspace *ws, const char *dir, int depth,
		       bool (*visit)(const char *path, const char *name, void *ctx), void *ctx)
{
	DIR *d = depth >= 0 ? opendir(dir) : NULL;
	bool stop = false;
	for (struct dirent *e; d && !stop && (e = readdir(d));) {
		const char *n = e->d_name;
		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "node_modules") ||
		    !strcmp(n, ".git") || !strcmp(n, ".vx"))
			continue;
		char *p = path_join(dir, n);
		struct stat st;
		stop = visit(p, n, ctx);
		if (!stop && !lstat(p, &st) && S_ISDIR(st.st_mode) && (!ws || !project_root(ws, p)))
			stop = walk_files(ws, p, depth - 1, visit, ctx);
		free(p);
	}
	if (d)
		closedir(d);
	return stop;
}

static bool visit_secret(const char *path, const char *name, void *ctx)
{
	if (!learn_reach_secret_name(name))
		return false;
	strbuf_addstr(ctx, path);
	return true;
}

/* The first secret-class file (learn_reach_secret_name) below dir, four
 * levels down, into found; false when none. A read grant or a key of a
 * directory shows all of it (a key is a read grant too: issue 54 item 9),
 * so a directory that holds one is a person's call, however harmless the
 * file the task read there. Nested projects are looked in too: what a
 * grant shows is not the walls' to vouch for here. */
static bool dir_holds_secret(const char *dir, struct strbuf *found)
{
	return walk_files(NULL, dir, 4, visit_secret, found);
}

/* Is abs (absolute) where only learn's rounds wrote (a fresh directory)
 * or in a declared output's directory of task t? */
static bool learn_own_dir(const struct learn *l, const struct learn_job *j, const char *abs)
{
	if (learn_fresh_holding(l, abs))
		return true;
	for (size_t k = 0; k < j->t->cfg->outputs.n; k++) {
		const char *pat = j->t->cfg->outputs.v[k].s;
		size_t n = glob_literal_prefix(pat);
		if (pat[0] == '!' || !n || !glob_has_magic(pat))
			continue;
		char *head = glob_unescape(pat, n);
		char *dir = path_join(j->p->dir, head);
		bool in = path_is_within(dir, abs);
		free(dir);
		free(head);
		if (in)
			return true;
	}
	return false;
}

/* Entries learned as the directory they share, never file by file (issue
 * 54 items 4 and 6: 27 docs/public files keyed one by one, so a new file
 * there hit; cmake's build tree granted file by file). Two or more
 * entries of one directory become it: a key as "DIR/" + "**" (not the
 * workspace root, nor a project's own root: that is every file), a write
 * grant as "DIR/" only where learn's own rounds or the task's declared
 * outputs own the directory (a codegen's two files in src/ must not open
 * src/). Then no entry another covers is kept. Rewrites cands. */
static void group_by_dir(const struct learn *l, const struct learn_job *j, enum learn_field f,
			 struct strvec *cands)
{
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t a = 0; a < cands->n && !changed; a++) {
			const char *e = cands->v[a];
			size_t len = strlen(e);
			while (len && e[len - 1] == '/')
				len--;
			const char *slash = NULL;
			for (size_t k = 0; k < len; k++)
				slash = e[k] == '/' ? e + k : slash;
			if (!slash || glob_has_magic(e) || e[0] == '/' || e[0] == '~' ||
			    !strncmp(e, "../", 3) || e[0] == '!')
				continue;
			size_t plen = (size_t)(slash - e);
			size_t same = 0;
			for (size_t b = 0; b < cands->n; b++)
				same += !strncmp(cands->v[b], e, plen + 1) &&
					!glob_has_magic(cands->v[b]);
			if (same < 2)
				continue;
			char *parent = xstrndup(e, plen);
			char *abs =
			    path_join(f == LEARN_WS_FILES ? l->ws->root : j->p->dir, parent);
			struct strbuf secret = STRBUF_INIT;
			bool ok = f == LEARN_WRITE ? learn_own_dir(l, j, abs)
						   : !project_root(l->ws, abs) &&
							 !dir_holds_secret(abs, &secret);
			strbuf_release(&secret);
			free(abs);
			if (ok) {
				char *dir = xasprintf(f == LEARN_WRITE ? "%s/" : "%s/**", parent);
				struct strvec kept = STRVEC_INIT;
				for (size_t b = 0; b < cands->n; b++)
					if (strncmp(cands->v[b], parent, plen) ||
					    cands->v[b][plen] != '/')
						strvec_push(&kept, cands->v[b]);
				strvec_push_nodup(&kept, dir);
				strvec_clear(cands);
				*cands = kept;
				changed = true;
			}
			free(parent);
		}
	}
}

/* The list at fix.group.name, each entry generalised, loaded back and
 * judged against the line (learn_reach.h): what learn may write goes to
 * out, the rest to the person (l->asked). */
static void take_list(struct learn *l, struct learn_job *j, const char *group, const char *name,
		      enum learn_field f, const char *field, struct strvec *out)
{
	const cJSON *list =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j->fix, group), name);
	const cJSON *x;
	struct strvec cands = STRVEC_INIT;
	bool grant = f == LEARN_READ || f == LEARN_WRITE;
	cJSON_ArrayForEach(x, list)
	{
		if (!cJSON_IsString(x))
			continue;
		char *g = grant ? grants_generalised(x->valuestring) : xstrdup(x->valuestring);
		if (strvec_find(&cands, g) < 0)
			strvec_push(&cands, g);
		free(g);
	}
	if (f == LEARN_WRITE || f == LEARN_FILES || f == LEARN_WS_FILES)
		group_by_dir(l, j, f, &cands);
	for (size_t c = 0; c < cands.n; c++) {
		char *g = xstrdup(cands.v[c]);
		if (f == LEARN_NETWORK) {
			const char *special = net_special(g);
			ask_or_name(l, j->id, j->home, field, g,
				    special ? special : learn_reach_asks(&j->scope, f, g),
				    !special);
			free(g);
			continue;
		}
		if (listed(j, f, g)) { /* the whole list given again */
			if (strvec_find(out, g) < 0)
				strvec_push(out, g);
			free(g);
			continue;
		}
		char *abs = load_entry(j, l->ws, f, g);
		const char *why = NULL;
		const char *other = NULL;
		if (!abs || !names_refused(j, abs))
			why = "it does not load back as the path the task was refused";
		else if (f != LEARN_WRITE && f != LEARN_TOOLCHAIN &&
			 (other = foreign_project(l->ws, j->t->project, abs)))
			why = "";
		else
			why = learn_reach_asks(&j->scope, f, abs);
		/* a directory read or keyed outside its project, or a pattern's
		 * head there, is shown whole */
		struct strbuf secret = STRBUF_INIT;
		if (!why && !other && (f == LEARN_READ || f == LEARN_WS_FILES) &&
		    !path_is_within(j->p->dir, abs)) {
			char *dir = glob_unescape(
			    abs, glob_has_magic(abs) ? glob_literal_prefix(abs) : strlen(abs));
			struct stat st;
			if (!stat(dir, &st) && S_ISDIR(st.st_mode) &&
			    dir_holds_secret(dir, &secret))
				why = "it shows a directory that holds a secret-class file";
			free(dir);
		}
		if (secret.len) {
			char *rel = path_relative(l->ws->root, secret.buf);
			char *say = xasprintf("%s (%s)", why, rel);
			ask(l, j->id, j->home, field, g, say);
			free(say);
			free(rel);
			strbuf_release(&secret);
			free(abs);
			free(g);
			continue;
		}
		if (other) {
			char *say = xasprintf("it reaches into project %s, which it does not "
					      "depend on: add the dependency (dependsOn, or "
					      "package.json), not a grant",
					      other);
			ask(l, j->id, j->home, field, g, say);
			free(say);
		} else if (why) {
			ask(l, j->id, j->home, field, g, why);
		} else {
			if (f == LEARN_WRITE && !glob_has_magic(abs)) {
				struct stat st;
				if (lstat(abs, &st) && strvec_find(&l->fresh, abs) < 0)
					strvec_push(&l->fresh, abs);
			}
			if (strvec_find(out, g) < 0)
				strvec_push(out, g);
		}
		free(abs);
		free(g);
	}
	strvec_clear(&cands);
}

int learn_task(struct learn *l, const cJSON *t, bool *refused)
{
	struct learn_job j;
	if (!job_begin(l, t, &j)) {
		job_end(&j);
		return 0;
	}
	static const struct {
		const char *group, *name, *path[3];
		enum learn_field f;
	} fields[] = {
	    {"allow", "read", {"sandbox", "allow", "read"}, LEARN_READ},
	    {"allow", "write", {"sandbox", "allow", "write"}, LEARN_WRITE},
	    {"allow", "network", {"sandbox", "allow", "network"}, LEARN_NETWORK},
	    {"inputs", "files", {"inputs", "files", NULL}, LEARN_FILES},
	    {"inputs", "workspaceFiles", {"inputs", "workspaceFiles", NULL}, LEARN_WS_FILES},
	    {"inputs", "toolchain", {"inputs", "toolchain", NULL}, LEARN_TOOLCHAIN},
	};
	/* sandbox.ignore.read is a person vouching that a tool's cache never
	 * changes what the task makes (docs/violations.md): learn does not
	 * vouch. What an earlier round left in a write grant is removed
	 * instead, so the next round starts as a clean checkout would. */
	int rc = learn_remove_leftovers(l, j.id, learn_json_str(t, "project"), j.fix, refused);
	for (size_t i = 0; !rc && i < sizeof fields / sizeof *fields; i++) {
		struct strvec values = STRVEC_INIT;
		const char *path[5] = {"tasks", j.task};
		size_t np = 2;
		for (size_t k = 0; k < 3 && fields[i].path[k]; k++)
			path[np++] = fields[i].path[k];
		char *field = xasprintf("tasks.%s.%s.%s%s%s", j.task, fields[i].path[0],
					fields[i].path[1], fields[i].path[2] ? "." : "",
					fields[i].path[2] ? fields[i].path[2] : "");
		take_list(l, &j, fields[i].group, fields[i].name, fields[i].f, field, &values);
		free(field);
		rc = values.n
			 ? learn_add(l, j.home, path, np, (const char *const *)values.v, values.n)
			 : 0;
		strvec_clear(&values);
	}
	job_end(&j);
	return rc;
}

void learn_print_asked(const struct learn *l)
{
	if (!l->asked.n)
		return;
	fprintf(stderr, "vx: learn: not written, for a person to decide (each would widen "
			"what the task reaches, or did not load back as what it was refused):\n");
	for (size_t i = 0; i < l->asked.n; i++) {
		const struct asked *a = &l->asked.v[i];
		struct strbuf q = STRBUF_INIT;
		if (a->offer) {
			/* spelled as every report spells a fix (fix_text) */
			struct strvec entry = STRVEC_INIT;
			strvec_push(&entry, a->entry);
			fix_text_at(&q, a->config, a->field, &entry, false);
			strvec_clear(&entry);
			fprintf(stderr, "vx: %s: needs a person: %s (%s)\n", a->id, q.buf, a->why);
		} else {
			strbuf_add_json_string(&q, a->entry);
			fprintf(stderr, "vx: %s: not offered: %s %s: %s is %s\n", a->id, a->config,
				a->field, q.buf, a->why);
		}
		strbuf_release(&q);
	}
}

/* A task's own incremental state that its outputs do not hold: tsc's
 * build info, which a rebuild after an edit reads (issue 54 item 3), as the
 * judge saw the task write it (a "tool-state" note: only the task that
 * wrote one gets it; issue 54's repository gave a project's one file to
 * every task of it). Only where the outputs save, restore and clear it
 * with the dist/ it describes does it agree with them, so learn declares
 * it an output: the task's whole outputs list, in its own vx.yaml. Returns
 * how many tasks it declared any for, or -1. */
int learn_own_state(struct learn *l, const cJSON *tasks)
{
	int n = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks)
	{
		const char *id = learn_json_str(t, "id");
		const struct task_node *node = id ? learn_node_of(l, id) : NULL;
		if (!node || !node->requested || !node->command)
			continue;
		const struct project *p = l->ws->projects.v[node->project];
		if (p->is_root)
			continue;
		struct strvec outs = STRVEC_INIT;
		lstr_vec_strings(&node->cfg->outputs, &outs);
		size_t had = outs.n;
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, "notes"))
		{
			const char *kind = learn_json_str(x, "kind"),
				   *where = learn_json_str(x, "path");
			if (!kind || strcmp(kind, "tool-state") || !where)
				continue;
			char *abs = path_join(l->ws->root, where);
			const char *bases[] = {l->ws->root, NULL};
			size_t len;
			/* never one a restore would put in a mandatory deny */
			char *rel = path_is_within(p->dir, abs) && !denies_holding(abs, bases, &len)
					? path_relative(p->dir, abs)
					: NULL;
			if (rel && !glob_has_magic(rel) && !globlist_match(outs.v, had, rel) &&
			    strvec_find(&outs, rel) < 0)
				strvec_push(&outs, rel);
			free(rel);
			free(abs);
		}
		if (outs.n > had) {
			char *home = workspace_fix_yaml(l->ws, p);
			const char *path[] = {"tasks", node->task, "outputs"};
			size_t before = l->added;
			int rc = learn_add(l, home, path, 3, (const char *const *)outs.v, outs.n);
			if (!rc && l->added != before) {
				fprintf(stderr,
					"vx: %s: its outputs now hold %s, the build info tsc "
					"reads on the next build (saved, restored and cleared with "
					"what it describes)\n",
					node->id, outs.v[had]);
				n++;
			}
			free(home);
			if (rc) {
				strvec_clear(&outs);
				return -1;
			}
		}
		strvec_clear(&outs);
	}
	return n;
}

void learn_asked_release(struct learn *l)
{
	for (size_t i = 0; i < l->asked.n; i++) {
		struct asked *a = &l->asked.v[i];
		free(a->id);
		free(a->config);
		free(a->field);
		free(a->entry);
		free(a->why);
	}
	vec_free(&l->asked);
}
