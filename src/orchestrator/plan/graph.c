/* graph.c - resolves requested tasks into the task graph, checks it for
 * cycles and orders it so every node follows its dependencies. */
#include "orchestrator/plan/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/closest.h"
#include "util/strbuf.h"

struct builder {
	struct graph *g;
	struct workspace *ws;
	VEC(size_t) * by_project; /* node indices of each project */
};

/* Finds the task config a project has for name: its own (for the root, its
 * "//#name"), merged over the workspace default, or a bare one when only
 * package.json has the script. Returns NULL when the project lacks the task. */
static struct task_cfg *project_task(const struct workspace *ws, const struct project *p,
				     const char *name)
{
	if (p->is_root) {
		char *key = xasprintf("//#%s", name);
		struct task_cfg *own = config_find_task(ws->cfg, key);
		free(key);
		if (own || !ws->single_package)
			return own ? config_task_merge(own, NULL) : NULL;
		/* single-package: the root is the package, the plain tasks its own */
	}
	struct task_cfg *own = p->cfg && p->cfg != ws->cfg ? config_find_task(p->cfg, name) : NULL;
	/* turbo.json's "pkg#task" replaces "task" for that package, as in
	 * Turborepo (it does not merge with it); the root vx.yaml's overlays
	 * it field by field, as every other vx.yaml layer does */
	char *pkg_key = xasprintf("%s#%s", p->name, name);
	struct task_cfg *def = config_find_task(ws->cfg, pkg_key);
	free(pkg_key);
	bool pkg = def != NULL;
	struct task_cfg *generic = config_find_task(ws->cfg, name);
	struct task_cfg *over =
	    def && !def->replaces && generic ? config_task_merge(def, generic) : NULL;
	if (over)
		def = over;
	else if (!def)
		def = generic;
	/* the package's own turbo.json extends the root's, its vx.yaml both */
	struct task_cfg *pt = p->turbo_cfg ? config_find_task(p->turbo_cfg, name) : NULL;
	struct task_cfg *mid = pt ? config_task_merge(pt, def) : NULL;
	if (mid)
		def = mid;
	if (own || def) {
		struct task_cfg *t = config_task_merge(own, def);
		if ((pkg || mid) && !own) { /* named for the task, not for "pkg#task" */
			free(t->name);
			t->name = xstrdup(name);
		}
		if (mid)
			task_cfg_free(mid);
		if (over)
			task_cfg_free(over);
		return t;
	}
	if (project_script(p, name)) {
		struct task_cfg *t = xcalloc(1, sizeof *t);
		t->name = xstrdup(name);
		t->loc = (struct loc){p->pkg_path, 1, 1};
		t->cache = true;
		return t;
	}
	return NULL;
}

struct task_cfg *graph_project_task(const struct workspace *ws, const struct project *p,
				    const char *name)
{
	return project_task(ws, p, name);
}

static void add_task_name(struct strvec *names, const char *name, const char *pkg)
{
	const char *hash = strchr(name, '#');
	size_t n = hash ? (size_t)(hash - name) : 0;
	if (hash && (strlen(pkg) != n || strncmp(name, pkg, n)))
		return; /* another package's, or the root's ("//#task") */
	if (hash)
		name = hash + 1;
	if (strvec_find(names, name) < 0)
		strvec_push(names, name);
}

void graph_project_task_names(const struct workspace *ws, const struct project *p, bool runs,
			      struct strvec *out)
{
	struct strvec names = STRVEC_INIT;
	const struct config *layers[] = {p->cfg != ws->cfg ? p->cfg : NULL, p->turbo_cfg, ws->cfg};
	for (size_t l = 0; l < 3; l++)
		for (size_t k = 0; layers[l] && k < layers[l]->tasks.n; k++)
			add_task_name(&names, layers[l]->tasks.v[k]->name,
				      p->is_root ? "//" : p->name);
	for (size_t k = 0; k < p->script_names.n; k++)
		add_task_name(&names, p->script_names.v[k], p->name);
	for (size_t k = 0; k < names.n; k++) {
		struct task_cfg *c = project_task(ws, p, names.v[k]);
		if (c && (!runs || c->command.s || project_script(p, names.v[k])))
			strvec_push(out, names.v[k]);
		if (c)
			task_cfg_free(c);
	}
	strvec_clear(&names);
	strvec_sort(out);
}

/* Returns " (did you mean \"TASK\"?)" for the task nearest to typed of
 * every task project pj has (pj < 0: any project), or "": malloc'd. The
 * typo's fix named, as config.c names a key's (issue 56 item 2). */
static char *near_task(const struct workspace *ws, long pj, const char *typed)
{
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < ws->projects.n; i++)
		if (pj < 0 || (size_t)pj == i)
			graph_project_task_names(ws, ws->projects.v[i], false, &names);
	const char *near = closest_name(typed, (const char *const *)names.v, names.n);
	char *s = near ? xasprintf(" (did you mean \"%s\"?)", near) : xstrdup("");
	strvec_clear(&names);
	return s;
}

/* The project name nearest to typed, or NULL: one whose name after its
 * scope is typed ("web" for "@acme/web", as people shorten it), else one a
 * typo away. */
static const char *near_project(const struct workspace *ws, const char *typed)
{
	const char *unscoped = NULL;
	size_t n = 0;
	const char **names = xcalloc(ws->projects.n + 1, sizeof *names);
	for (size_t i = 0; i < ws->projects.n; i++) {
		const char *name = ws->projects.v[i]->name, *slash = strchr(name, '/');
		names[i] = name;
		if (name[0] == '@' && slash && !strcmp(slash + 1, typed) && n++ == 0)
			unscoped = name;
	}
	const char *near = n == 1 ? unscoped : closest_name(typed, names, ws->projects.n);
	free(names);
	return near;
}

bool graph_workspace_has_task(const struct workspace *ws, const char *name)
{
	char *root_key = xasprintf("//#%s", name);
	bool has = config_find_task(ws->cfg, name) || config_find_task(ws->cfg, root_key);
	free(root_key);
	for (size_t i = 0; i < ws->projects.n && !has; i++) {
		const struct project *p = ws->projects.v[i];
		has = (p->cfg && p->cfg != ws->cfg && config_find_task(p->cfg, name)) ||
		      (p->turbo_cfg && config_find_task(p->turbo_cfg, name)) ||
		      project_script(p, name);
	}
	return has;
}

static long find_node(struct builder *b, size_t proj, const char *task)
{
	for (size_t i = 0; i < b->by_project[proj].n; i++) {
		size_t n = b->by_project[proj].v[i];
		if (!strcmp(b->g->nodes.v[n]->task, task))
			return (long)n;
	}
	return -1;
}

static int resolve(struct builder *b, size_t node);

/* Returns the node index for proj#task, creating and resolving it when new;
 * -2 when the project lacks the task; -1 on an error (printed). */
/* One "pre"/"post" script as its manager runs it: in a subshell of its
 * own, with its own npm_lifecycle_event and npm_lifecycle_script. */
static void lifecycle_part(struct strbuf *sb, const char *event, const char *script)
{
	strbuf_addstr(sb, "(export npm_lifecycle_event=");
	strbuf_add_shell_quoted(sb, event);
	strbuf_addstr(sb, " npm_lifecycle_script=");
	strbuf_add_shell_quoted(sb, script);
	strbuf_addf(sb, "; %s\n)", script);
}

/* A script's command. npm and Yarn classic run "preNAME" before and
 * "postNAME" after it, each only when the one before succeeded; pnpm,
 * Yarn berry and Bun do not (docs/config.md). Sets t->args_at. */
static char *lifecycle(const struct workspace *ws, const struct project *p, struct task_node *t,
		       const char *script)
{
	char *pre_name = xasprintf("pre%s", t->task), *post_name = xasprintf("post%s", t->task);
	const char *pre = ws->pm.pre_post ? project_script(p, pre_name) : NULL;
	const char *post = ws->pm.pre_post ? project_script(p, post_name) : NULL;
	char *cmd;
	if (!pre && !post) {
		cmd = xstrdup(script);
	} else {
		struct strbuf sb = STRBUF_INIT;
		if (pre) {
			lifecycle_part(&sb, pre_name, pre);
			strbuf_addstr(&sb, " && ");
		}
		strbuf_addf(&sb, "(%s", script);
		t->args_at = sb.len;
		strbuf_addstr(&sb, "\n)");
		if (post) {
			strbuf_addstr(&sb, " && ");
			lifecycle_part(&sb, post_name, post);
		}
		cmd = strbuf_detach(&sb, NULL);
	}
	free(pre_name);
	free(post_name);
	return cmd;
}

static long get_node(struct builder *b, size_t proj, const char *task)
{
	long n = find_node(b, proj, task);
	if (n >= 0)
		return n;
	struct project *p = b->ws->projects.v[proj];
	struct task_cfg *cfg = project_task(b->ws, p, task);
	if (!cfg)
		return -2;
	struct task_node *t = xcalloc(1, sizeof *t);
	t->project = proj;
	t->cfg = cfg;
	t->task = !strncmp(cfg->name, "//#", 3) ? cfg->name + 3 : cfg->name;
	t->id = xasprintf("%s#%s", p->name, t->task);
	if (cfg->command.s) {
		t->command = xstrdup(cfg->command.s);
	} else {
		const char *script = project_script(p, t->task);
		if (script) {
			t->command = lifecycle(b->ws, p, t, script);
			t->from_script = true;
		}
	}
	size_t idx = b->g->nodes.n;
	t->index = idx;
	vec_push(&b->g->nodes, t);
	vec_push(&b->by_project[proj], idx);
	if (resolve(b, idx))
		return -1;
	return (long)idx;
}

static void add_edge(struct task_node *t, size_t to, const struct loc *loc)
{
	for (size_t i = 0; i < t->deps.n; i++)
		if (t->deps.v[i].to == to)
			return;
	struct task_edge e = {to, *loc};
	vec_push(&t->deps, e);
}

/* Puts the tasks node idx runs alongside (its with:) in the graph, with no
 * edge: they start when they are ready, as independent tasks do. One
 * inherited from the workspace defaults that names a task the project
 * lacks is skipped, as for dependsOn. */
static int resolve_with(struct builder *b, size_t idx)
{
	struct task_node *t = b->g->nodes.v[idx];
	bool inherited = (t->cfg->inherited & TF_WITH) != 0;
	for (size_t i = 0; i < t->cfg->with.n; i++) {
		const struct lstr *w = &t->cfg->with.v[i];
		const char *hash = strchr(w->s, '#');
		long pj = (long)t->project;
		const char *task = w->s;
		if (w->s[0] == '^' || !*w->s || (hash && !hash[1]))
			return config_error(
			    &w->loc, "with \"%s\": write \"task\" or \"project#task\"", w->s);
		if (hash) {
			char *pname = xstrndup(w->s, (size_t)(hash - w->s));
			pj = workspace_find(b->ws, pname);
			free(pname);
			task = hash + 1;
			if (pj < 0)
				return config_error(&w->loc,
						    "with \"%s\": no project is named \"%.*s\"",
						    w->s, (int)(hash - w->s), w->s);
		}
		long n = get_node(b, (size_t)pj, task);
		if (n == -1)
			return -1;
		if (n == -2 && !(inherited && !hash))
			return config_error(&w->loc,
					    "with \"%s\": project \"%s\" has no task \"%s\"", w->s,
					    b->ws->projects.v[pj]->name, task);
	}
	return 0;
}

/* Resolves the dependsOn of node idx. An entry inherited from the workspace
 * defaults that names a task this project lacks is skipped, as Turborepo
 * does; the same entry written in the project's own vx.yaml is an error. */
static int resolve(struct builder *b, size_t idx)
{
	struct task_node *t = b->g->nodes.v[idx];
	struct project *p = b->ws->projects.v[t->project];
	bool inherited = (t->cfg->inherited & TF_DEPENDS_ON) != 0;
	for (size_t i = 0; i < t->cfg->depends_on.n; i++) {
		const struct lstr *d = &t->cfg->depends_on.v[i];
		const char *hash = strchr(d->s, '#');
		if (d->s[0] == '^') {
			for (size_t k = 0; k < p->deps.n; k++) {
				long n = get_node(b, p->deps.v[k], d->s + 1);
				if (n == -1)
					return -1;
				if (n >= 0)
					add_edge(b->g->nodes.v[idx], (size_t)n, &d->loc);
			}
		} else if (hash) {
			char *pname = xstrndup(d->s, (size_t)(hash - d->s));
			long pj = workspace_find(b->ws, pname);
			if (pj < 0) {
				int rc = config_error(
				    &d->loc, "dependsOn \"%s\": no project is named \"%s\"", d->s,
				    pname);
				free(pname);
				return rc;
			}
			free(pname);
			long n = get_node(b, (size_t)pj, hash + 1);
			if (n == -1)
				return -1;
			if (n == -2)
				return config_error(
				    &d->loc, "dependsOn \"%s\": project \"%s\" has no task \"%s\"",
				    d->s, b->ws->projects.v[pj]->name, hash + 1);
			add_edge(b->g->nodes.v[idx], (size_t)n, &d->loc);
		} else {
			long n = get_node(b, t->project, d->s);
			if (n == -1)
				return -1;
			if (n == -2) {
				if (inherited)
					continue;
				return config_error(
				    &d->loc, "dependsOn \"%s\": project \"%s\" has no task \"%s\"",
				    d->s, p->name, d->s);
			}
			if ((size_t)n == idx)
				return config_error(&d->loc, "task %s depends on itself",
						    b->g->nodes.v[idx]->id);
			add_edge(b->g->nodes.v[idx], (size_t)n, &d->loc);
		}
	}
	return resolve_with(b, idx);
}

enum { WHITE, GREY, BLACK };

/* Depth-first search from every node: reports a cycle through the stack,
 * and appends nodes to order in post-order (dependencies first). */
static int order_nodes(struct graph *g, size_t *order)
{
	size_t n = g->nodes.n, norder = 0;
	unsigned char *color = xcalloc(n ? n : 1, 1);
	size_t *stack = xmalloc((n + 1) * sizeof *stack), *next = xmalloc((n + 1) * sizeof *next);
	int rc = 0;
	for (size_t s = 0; s < n && !rc; s++) {
		if (color[s] != WHITE)
			continue;
		size_t sp = 0;
		stack[sp] = s;
		next[sp] = 0;
		color[s] = GREY;
		while (!rc) {
			size_t u = stack[sp];
			struct task_node *t = g->nodes.v[u];
			if (next[sp] < t->deps.n) {
				struct task_edge *e = &t->deps.v[next[sp]++];
				if (color[e->to] == GREY) {
					/* The cycle is the stack from e->to up to u, then back. */
					size_t from = 0;
					while (stack[from] != e->to)
						from++;
					struct strbuf sb = STRBUF_INIT;
					for (size_t i = from; i <= sp; i++)
						strbuf_addf(&sb, "%s -> ",
							    g->nodes.v[stack[i]]->id);
					strbuf_addstr(&sb, g->nodes.v[e->to]->id);
					rc = config_error(&e->loc, "dependency cycle: %s", sb.buf);
					strbuf_release(&sb);
				} else if (color[e->to] == WHITE) {
					color[e->to] = GREY;
					stack[++sp] = e->to;
					next[sp] = 0;
				}
			} else {
				color[u] = BLACK;
				order[norder++] = u;
				if (sp == 0)
					break;
				sp--;
			}
		}
	}
	free(color);
	free(stack);
	free(next);
	return rc;
}

static int check_persistent(const struct graph *g)
{
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		for (size_t k = 0; k < t->deps.n; k++) {
			const struct task_node *d = g->nodes.v[t->deps.v[k].to];
			if (d->cfg->persistent)
				return config_error(
				    &t->deps.v[k].loc,
				    "%s depends on %s, which is persistent (a server never "
				    "finishes, so %s would never start)",
				    t->id, d->id, t->id);
		}
	}
	return 0;
}

/* Puts the nodes in the order given, remapping every edge. */
static void permute(struct graph *g, const size_t *order)
{
	size_t n = g->nodes.n;
	size_t *where = xmalloc((n ? n : 1) * sizeof *where);
	struct task_node **nodes = xmalloc((n ? n : 1) * sizeof *nodes);
	for (size_t i = 0; i < n; i++) {
		where[order[i]] = i;
		nodes[i] = g->nodes.v[order[i]];
	}
	for (size_t i = 0; i < n; i++) {
		nodes[i]->index = i;
		for (size_t k = 0; k < nodes[i]->deps.n; k++)
			nodes[i]->deps.v[k].to = where[nodes[i]->deps.v[k].to];
	}
	if (n)
		memcpy(g->nodes.v, nodes, n * sizeof *nodes);
	free(nodes);
	free(where);
}

int graph_build(struct graph *g, struct workspace *ws, char *const *tasks, size_t ntasks,
		const bool *selected)
{
	memset(g, 0, sizeof *g);
	g->ws = ws;
	g->selected = xcalloc(ws->projects.n + 1, sizeof *g->selected);
	for (size_t i = 0; i < ws->projects.n; i++)
		g->selected[i] = !selected || selected[i];
	struct builder b = {g, ws,
			    xcalloc(ws->projects.n ? ws->projects.n : 1, sizeof *b.by_project)};
	int rc = 0;
	for (size_t i = 0; i < ntasks && !rc; i++) {
		const char *hash = strchr(tasks[i], '#');
		if (hash && hash != tasks[i]) {
			char *pname = xstrndup(tasks[i], (size_t)(hash - tasks[i]));
			long pj = workspace_find(ws, pname);
			const char *np = pj < 0 ? near_project(ws, pname) : NULL;
			if (pj < 0)
				rc = error("no project is named \"%s\" (in \"%s\"%s%s%s)", pname,
					   tasks[i], np ? "; did you mean \"" : "", np ? np : "",
					   np ? "\"?" : "");
			free(pname);
			if (rc)
				break;
			long n = get_node(&b, (size_t)pj, hash + 1);
			if (n == -2) {
				char *near = near_task(ws, pj, hash + 1);
				rc = error("project \"%s\" has no task \"%s\"%s",
					   ws->projects.v[pj]->name, hash + 1, near);
				free(near);
			} else if (n == -1)
				rc = -1;
			else
				g->nodes.v[n]->requested = true;
			continue;
		}
		if (!*tasks[i] || hash) {
			rc = error("\"%s\" is not a task name", tasks[i]);
			break;
		}
		if (!graph_workspace_has_task(ws, tasks[i])) {
			char *near = near_task(ws, -1, tasks[i]);
			rc = error("no project of the workspace has a task \"%s\"%s", tasks[i],
				   *near ? near
					 : " (in a vx.yaml, the workspace defaults, or a "
					   "package.json script)");
			free(near);
			break;
		}
		for (size_t pj = 0; pj < ws->projects.n && !rc; pj++) {
			if (selected && !selected[pj])
				continue;
			long n = get_node(&b, pj, tasks[i]);
			if (n == -1)
				rc = -1;
			else if (n >= 0)
				g->nodes.v[n]->requested = true;
		}
	}
	for (size_t i = 0; i < ws->projects.n; i++)
		vec_free(&b.by_project[i]);
	free(b.by_project);
	if (!rc) {
		size_t *order = xmalloc((g->nodes.n + 1) * sizeof *order);
		rc = order_nodes(g, order);
		if (!rc)
			permute(g, order);
		free(order);
	}
	if (!rc)
		rc = check_persistent(g);
	return rc;
}

void graph_append_args(struct graph *g, char *const *args, size_t nargs)
{
	for (size_t i = 0; nargs && i < g->nodes.n; i++) {
		struct task_node *t = g->nodes.v[i];
		if (!t->requested || !t->command)
			continue;
		/* npm appends them to the script itself, not to its "post" */
		size_t at = t->args_at ? t->args_at : strlen(t->command);
		struct strbuf cmd = STRBUF_INIT;
		strbuf_add(&cmd, t->command, at);
		for (size_t k = 0; k < nargs; k++) {
			strbuf_addch(&cmd, ' ');
			strbuf_add_shell_quoted(&cmd, args[k]);
		}
		strbuf_addstr(&cmd, t->command + at);
		free(t->command);
		t->command = strbuf_detach(&cmd, NULL);
	}
}

static void node_free(struct task_node *t)
{
	task_cfg_free(t->cfg);
	free(t->id);
	free(t->command);
	vec_free(&t->deps);
	free(t);
}

void graph_keep(struct graph *g, const bool *keep)
{
	size_t n = g->nodes.n, kept = 0;
	size_t *to = xcalloc(n + 1, sizeof *to);
	for (size_t i = 0; i < n; i++) {
		struct task_node *t = g->nodes.v[i];
		if (!keep[i]) {
			node_free(t);
			continue;
		}
		for (size_t d = 0; d < t->deps.n; d++) {
			if (!keep[t->deps.v[d].to])
				die("graph_keep: %s keeps a node whose dependency goes", t->id);
			t->deps.v[d].to = to[t->deps.v[d].to];
		}
		to[i] = kept;
		t->index = kept;
		g->nodes.v[kept++] = t;
	}
	g->nodes.n = kept;
	free(to);
}

void graph_free(struct graph *g)
{
	for (size_t i = 0; i < g->nodes.n; i++) {
		node_free(g->nodes.v[i]);
	}
	vec_free(&g->nodes);
	free(g->selected);
	g->selected = NULL;
}

void graph_node_json(const struct graph *g, const struct task_node *t, const char *command,
		     struct strbuf *sb)
{
	const struct project *p = g->ws->projects.v[t->project];
	strbuf_addstr(sb, "\"id\":");
	strbuf_add_json_string(sb, t->id);
	strbuf_addstr(sb, ",\"project\":");
	strbuf_add_json_string(sb, p->rel);
	strbuf_addstr(sb, ",\"name\":");
	strbuf_add_json_string(sb, p->name);
	strbuf_addstr(sb, ",\"task\":");
	strbuf_add_json_string(sb, t->task);
	strbuf_addstr(sb, ",\"command\":");
	if (command)
		strbuf_add_json_string(sb, command);
	else
		strbuf_addstr(sb, "null");
}

void graph_print_json(const struct graph *g, FILE *out)
{
	/* Written directly rather than through a cJSON tree: for 1000 projects
	 * building and freeing the tree cost a third of `vx graph`. */
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "{\"nodes\":[");
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		strbuf_addstr(&sb, i ? ",{" : "{");
		graph_node_json(g, t, t->command, &sb);
		strbuf_addch(&sb, '}');
	}
	strbuf_addstr(&sb, "],\"edges\":[");
	bool first = true;
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		for (size_t k = 0; k < t->deps.n; k++) {
			strbuf_addstr(&sb, first ? "{\"from\":" : ",{\"from\":");
			first = false;
			strbuf_add_json_string(&sb, t->id);
			strbuf_addstr(&sb, ",\"to\":");
			strbuf_add_json_string(&sb, g->nodes.v[t->deps.v[k].to]->id);
			strbuf_addch(&sb, '}');
		}
	}
	strbuf_addstr(&sb, "]}\n");
	fwrite(sb.buf, 1, sb.len, out);
	strbuf_release(&sb);
}

void graph_print_dot(const struct graph *g, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	fputs("digraph vx {\n\trankdir=LR;\n", out);
	bool dashed = false;
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		dashed = dashed || !t->command;
		strbuf_reset(&sb);
		strbuf_add_json_string(&sb, t->id); /* a JSON string is a valid dot ID */
		fprintf(out, "\t%s%s;\n", sb.buf, t->command ? "" : " [style=dashed]");
		for (size_t k = 0; k < t->deps.n; k++) {
			struct strbuf to = STRBUF_INIT;
			strbuf_add_json_string(&to, g->nodes.v[t->deps.v[k].to]->id);
			fprintf(out, "\t%s -> %s;\n", sb.buf, to.buf);
			strbuf_release(&to);
		}
	}
	/* the graph's own label, not a node: a reader of the picture learns
	 * what the dashes mean, a reader of the DOT finds no extra node */
	if (dashed)
		fputs("\tlabel=\"dashed: a task with no command (it runs nothing; what it "
		      "depends on runs first all the same)\";\n\tlabelloc=b;\n",
		      out);
	fputs("}\n", out);
	strbuf_release(&sb);
}

static void add_text_line(const struct task_node *t, bool starred, struct strbuf *sb)
{
	strbuf_addf(sb, "%s%s%s\n", t->id, t->command ? "" : " (no command)",
		    starred ? " (*)" : "");
}

void graph_print_text(const struct graph *g, FILE *out)
{
	size_t n = g->nodes.n;
	bool *needed = xcalloc(n + 1, sizeof *needed), *shown = xcalloc(n + 1, sizeof *shown);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < g->nodes.v[i]->deps.n; k++)
			needed[g->nodes.v[i]->deps.v[k].to] = true;
	/* a stack, not recursion: a chain of 100k tasks is a graph too; each
	 * frame is a node, its next dependency and the prefix's length */
	struct frame {
		size_t node, next, prefix;
	} *stack = xmalloc((n + 1) * sizeof *stack);
	struct strbuf sb = STRBUF_INIT, prefix = STRBUF_INIT;
	bool starred = false;
	for (size_t r = 0; r < n; r++) {
		if (needed[r])
			continue;
		add_text_line(g->nodes.v[r], false, &sb);
		shown[r] = true;
		size_t sp = 0;
		stack[sp++] = (struct frame){r, 0, 0};
		while (sp) {
			struct frame *f = &stack[sp - 1];
			const struct task_node *t = g->nodes.v[f->node];
			if (f->next == t->deps.n) {
				strbuf_setlen(&prefix, f->prefix);
				sp--;
				continue;
			}
			size_t c = t->deps.v[f->next++].to;
			bool last = f->next == t->deps.n;
			const struct task_node *ct = g->nodes.v[c];
			bool again = shown[c] && ct->deps.n;
			starred = starred || again;
			strbuf_add(&sb, prefix.buf, prefix.len);
			strbuf_addstr(&sb, last ? "└── " : "├── ");
			add_text_line(ct, again, &sb);
			if (shown[c])
				continue;
			shown[c] = true;
			if (ct->deps.n) {
				size_t at = prefix.len;
				strbuf_addstr(&prefix, last ? "    " : "│   ");
				stack[sp++] = (struct frame){c, 0, at};
			}
		}
	}
	if (starred)
		strbuf_addstr(&sb, "(*) its dependencies are shown above\n");
	fwrite(sb.buf, 1, sb.len, out);
	strbuf_release(&sb);
	strbuf_release(&prefix);
	free(stack);
	free(shown);
	free(needed);
}

/* A Mermaid label: in double quotes, where a quote is #quot; */
static void add_mermaid_label(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addstr(sb, "#quot;");
		else if ((unsigned char)*s >= 0x20)
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

void graph_print_mermaid(const struct graph *g, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "graph LR\n");
	for (size_t i = 0; i < g->nodes.n; i++) {
		strbuf_addf(&sb, "\tn%zu[", i);
		add_mermaid_label(&sb, g->nodes.v[i]->id);
		strbuf_addstr(&sb, "]\n");
	}
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		for (size_t k = 0; k < t->deps.n; k++)
			strbuf_addf(&sb, "\tn%zu --> n%zu\n", i, t->deps.v[k].to);
	}
	fwrite(sb.buf, 1, sb.len, out);
	strbuf_release(&sb);
}
