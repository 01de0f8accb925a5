/* tagcheck.c - turbo boundaries' tag rules (tagcheck.h).
 *
 * The semantics are turbo 2.11's (crates/turborepo-boundaries tags.rs and
 * its package graph, read, not copied), pinned beside turbo itself by
 * tests/integration/t0193-boundaries-tags.sh:
 * - A package is checked when it has a turbo.json: its own
 *   boundaries.dependencies/dependents, then the root's rule of each of
 *   its tags.
 * - "dependencies" are every package it reaches along package.json edges
 *   (dependencies, devDependencies, optionalDependencies; never
 *   peerDependencies), transitively, and every workspace package the root
 *   package.json declares (turbo makes those everyone's); "dependents" are
 *   every package that reaches it, and every package at all when the root
 *   declares it.
 * - For each related package: a deny list naming its name, then one naming
 *   one of its tags (in its order), is a denial; else an allow list that
 *   names neither its name nor one of its tags is a finding. An absent
 *   list says nothing; an empty allow list allows nothing.
 * vx reports each at the package.json entry that makes the first edge of
 * the path, with the path, the list's place and one edit. */
#include "orchestrator/cli/tagcheck.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "util/die.h"
#include "util/jsonloc.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The package graph as turbo's boundaries walk it. Nodes are the
 * projects, and the root at ws->projects.n when it is no project. */
struct graph {
	const struct tagcheck_input *in;
	size_t n, root;
	VEC(size_t) * out; /* package.json edges of each node (no peers) */
	VEC(size_t) * rev; /* the same, reversed */
	bool *root_dep;	   /* the root package.json declares it */
	long *parent;	   /* scratch of each walk */
	size_t *queue;
};

static const char *node_name(const struct graph *g, size_t i)
{
	return i == g->in->ws->projects.n ? "//" : g->in->ws->projects.v[i]->name;
}

static const struct tagrules *node_rules(const struct graph *g, size_t i)
{
	return i == g->root ? g->in->root : &g->in->rules[i];
}

static const char *node_pkg_json(const struct graph *g, size_t i)
{
	if (i == g->in->ws->projects.n)
		return g->in->ws->root_pkg_path;
	return g->in->ws->projects.v[i]->pkg_path;
}

static void add_edge(struct graph *g, size_t from, size_t to)
{
	for (size_t k = 0; k < g->out[from].n; k++)
		if (g->out[from].v[k] == to)
			return;
	vec_push(&g->out[from], to);
	vec_push(&g->rev[to], from);
}

/* The root package.json's workspace dependencies of the kinds turbo
 * draws edges for. */
static void root_edges(struct graph *g)
{
	static const char *const kinds[] = {"dependencies", "devDependencies",
					    "optionalDependencies"};
	const cJSON *pkg = g->in->ws->root_pkg;
	for (size_t k = 0; k < 3; k++) {
		const cJSON *d;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(pkg, kinds[k]))
		{
			long j = d->string ? workspace_find(g->in->ws, d->string) : -1;
			if (j >= 0 && (size_t)j != g->root) {
				add_edge(g, g->root, (size_t)j);
				g->root_dep[j] = true;
			}
		}
	}
}

static void graph_init(struct graph *g, const struct tagcheck_input *in)
{
	const struct workspace *ws = in->ws;
	g->in = in;
	g->root = ws->projects.n;
	for (size_t i = 0; i < ws->projects.n; i++)
		if (ws->projects.v[i]->is_root)
			g->root = i;
	g->n = ws->projects.n + 1;
	g->out = xcalloc(g->n, sizeof *g->out);
	g->rev = xcalloc(g->n, sizeof *g->rev);
	g->root_dep = xcalloc(g->n, sizeof *g->root_dep);
	g->parent = xcalloc(g->n, sizeof *g->parent);
	g->queue = xcalloc(g->n, sizeof *g->queue);
	for (size_t i = 0; i < ws->projects.n; i++) {
		const struct project *p = ws->projects.v[i];
		if (i == g->root)
			continue;
		for (size_t d = 0; d < p->pkg_peer_at && d < p->pkg_deps.n; d++) {
			long j = workspace_find(ws, p->pkg_deps.v[d]);
			if (j >= 0 && (size_t)j != i && (size_t)j != g->root)
				add_edge(g, i, (size_t)j);
		}
	}
	root_edges(g);
}

static void graph_free(struct graph *g)
{
	for (size_t i = 0; i < g->n; i++) {
		vec_free(&g->out[i]);
		vec_free(&g->rev[i]);
	}
	free(g->out);
	free(g->rev);
	free(g->root_dep);
	free(g->parent);
	free(g->queue);
}

/* Breadth first from s along the edges (rev: against them): parent[v] is
 * the node before v on the shortest path from s (rev: after v on the
 * shortest path from v to s), -1 where the walk does not reach. The
 * nodes reached, in the order reached, are queue[1..return). */
static size_t walk(struct graph *g, size_t s, bool rev)
{
	for (size_t i = 0; i < g->n; i++)
		g->parent[i] = -1;
	g->parent[s] = (long)s;
	size_t head = 0, tail = 0;
	g->queue[tail++] = s;
	while (head < tail) {
		size_t u = g->queue[head++];
		const VEC(size_t) *e = rev ? (const void *)&g->rev[u] : (const void *)&g->out[u];
		for (size_t k = 0; k < e->n; k++)
			if (g->parent[e->v[k]] < 0) {
				g->parent[e->v[k]] = (long)u;
				g->queue[tail++] = e->v[k];
			}
	}
	return tail;
}

static bool names(const struct tagrules_list *l, const char *s)
{
	for (size_t i = 0; i < l->names.n; i++)
		if (!strcmp(l->names.v[i].s, s))
			return true;
	return false;
}

/* One check of a source package against one rule. */
struct rule_at {
	size_t source;
	const char *what; /* `tag "app"'s`, or "its own" */
};

/* The place of the entry "name" in the dependencies the package.json at
 * path declares (1:1 when it is not there). */
static void dep_place(const char *path, const char *name, unsigned *line, unsigned *col)
{
	static const char *const kinds[] = {"dependencies", "devDependencies",
					    "optionalDependencies"};
	struct strbuf sb = STRBUF_INIT;
	*line = *col = 1;
	if (!path || strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return;
	}
	size_t top = jsonloc_skip_space(sb.buf, sb.len, 0), nl = strlen(name);
	for (size_t k = 0; k < 3; k++) {
		size_t obj = jsonloc_find(sb.buf, sb.len, &kinds[k], 1);
		if (obj == top || obj >= sb.len || sb.buf[obj] != '{')
			continue;
		size_t n = 0, max = 64;
		struct jsonloc_member *m = NULL;
		for (;;) {
			m = xrealloc(m, max * sizeof *m);
			jsonloc_members(sb.buf, sb.len, obj, m, max, &n);
			if (n < max)
				break;
			max *= 2;
		}
		for (size_t i = 0; i < n; i++)
			if (m[i].key_len == nl + 2 && !memcmp(sb.buf + m[i].key_at + 1, name, nl)) {
				int l, c;
				jsonloc_line_col(sb.buf, m[i].key_at, &l, &c);
				*line = (unsigned)l;
				*col = (unsigned)c;
				free(m);
				strbuf_release(&sb);
				return;
			}
		free(m);
	}
	strbuf_release(&sb);
}

static char *rel_to_ws(const struct graph *g, const char *abs)
{
	const char *root = g->in->ws->root;
	if (abs && path_is_within(root, abs))
		return path_relative(root, abs);
	return xstrdup(abs ? abs : "package.json");
}

static char *loc_text(const struct graph *g, const struct loc *l)
{
	char *file = rel_to_ws(g, l->file);
	char *s = xasprintf("%s:%d:%d", file, l->line, l->col);
	free(file);
	return s;
}

static struct tagcheck_finding *add(struct graph *g, struct tagcheck_findings *out,
				    enum tagcheck_rule rule, size_t source, size_t related)
{
	struct tagcheck_finding f = {.rule = rule,
				     .source = xstrdup(node_name(g, source)),
				     .package = xstrdup(node_name(g, related))};
	vec_push(&out->v, f);
	return &out->v.v[out->v.n - 1];
}

/* The first allow entry that is no package's name: a tag to add. */
static const char *tag_to_add(const struct graph *g, const struct tagrules_list *allow)
{
	for (size_t i = 0; i < allow->names.n; i++)
		if (workspace_find(g->in->ws, allow->names.v[i].s) < 0 &&
		    strcmp(allow->names.v[i].s, "//"))
			return allow->names.v[i].s;
	return NULL;
}

/* The edit that gives related the tag. */
static char *add_tag_fix(const struct graph *g, size_t related, const char *tag)
{
	const struct tagrules *r = node_rules(g, related);
	if (!r->path) {
		const struct project *p = g->in->ws->projects.v[related];
		char *file = path_join(p->rel, "turbo.json");
		char *fix = xasprintf("create %s as {\"extends\": [\"//\"], \"tags\": [\"%s\"]}",
				      file, tag);
		free(file);
		return fix;
	}
	char *file = rel_to_ws(g, r->path);
	char *fix = r->has_tags ? xasprintf("add \"%s\" to \"tags\" in %s", tag, file)
				: xasprintf("add \"tags\": [\"%s\"] to %s", tag, file);
	free(file);
	return fix;
}

/* "a, b" of a list's names, quoted. */
static char *quoted(const struct tagrules_list *l)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < l->names.n; i++)
		strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", l->names.v[i].s);
	if (!l->names.n)
		strbuf_addstr(&sb, "none");
	return strbuf_detach(&sb, NULL);
}

/* The path from the depending package to the depended one, into f->via,
 * and the place of its first edge. from is the walk's start; rev says
 * the walk went against the edges (dependents). */
static void place_path(struct graph *g, struct tagcheck_finding *f, size_t from, size_t related,
		       bool rev, bool implied)
{
	size_t depending, depended;
	VEC(size_t) nodes = {0};
	if (!rev) {
		depending = from;
		depended = related;
		for (size_t v = related; g->parent[v] >= 0 && v != from; v = (size_t)g->parent[v])
			vec_push(&nodes, v);
		vec_push(&nodes, from);
		for (size_t i = 0, j = nodes.n - 1; i < j; i++, j--) {
			size_t t = nodes.v[i];
			nodes.v[i] = nodes.v[j];
			nodes.v[j] = t;
		}
	} else {
		depending = related;
		depended = from;
		for (size_t v = related; g->parent[v] >= 0 && v != from; v = (size_t)g->parent[v])
			vec_push(&nodes, v);
		vec_push(&nodes, from);
	}
	if (implied) {
		/* reached only through the root's package.json: turbo makes a
		 * package the root declares everyone's dependency */
		nodes.n = 0;
		vec_push(&nodes, depending);
		vec_push(&nodes, depended);
	}
	for (size_t i = 0; i < nodes.n; i++)
		strvec_push(&f->via, node_name(g, nodes.v[i]));
	const char *json = implied || depending == g->root ? node_pkg_json(g, g->root)
							   : node_pkg_json(g, depending);
	dep_place(json, node_name(g, implied ? depended : nodes.v[1]), &f->line, &f->col);
	f->file = rel_to_ws(g, json);
	vec_free(&nodes);
}

static char *path_text(const struct tagcheck_finding *f)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < f->via.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " -> " : "", f->via.v[i]);
	return strbuf_detach(&sb, NULL);
}

/* One related package against one list pair: turbo's validate_relation. */
static void check_relation(struct graph *g, struct tagcheck_findings *out, const struct rule_at *r,
			   const struct tagrules_perms *perms, const char *direction,
			   size_t related, bool rev)
{
	const char *rname = node_name(g, related);
	const struct tagrules *rr = node_rules(g, related);
	const struct tagrules_list *allow = perms->allow.set ? &perms->allow : NULL;
	const struct tagrules_list *deny = perms->deny.set ? &perms->deny : NULL;
	bool allowed = !allow || names(allow, rname);
	const char *denied = deny && names(deny, rname) ? rname : NULL;
	for (size_t i = 0; !denied && i < rr->tags.n; i++) {
		if (allow && names(allow, rr->tags.v[i].s))
			allowed = true;
		if (deny && names(deny, rr->tags.v[i].s))
			denied = rr->tags.v[i].s;
	}
	if (!denied && allowed)
		return;
	struct tagcheck_finding *f =
	    add(g, out, denied ? TAGCHECK_DENIED : TAGCHECK_NOT_ALLOWED, r->source, related);
	f->direction = direction;
	/* reached only through the root's package.json */
	bool implied = g->parent[related] < 0;
	place_path(g, f, r->source, related, rev, implied);
	char *path = path_text(f);
	const char *src = node_name(g, r->source);
	char *subject = rev ? xasprintf("%s is depended on by %s (%s)", src, rname, path)
			    : xasprintf("%s depends on %s (%s)", src, rname, path);
	if (implied) {
		free(subject);
		subject = rev ? xasprintf("%s is depended on by %s (the root package.json declares "
					  "%s: every package depends on it)",
					  src, rname, src)
			      : xasprintf("%s depends on %s (the root package.json declares %s: "
					  "every package depends on it)",
					  src, rname, rname);
	}
	if (denied) {
		char *where = loc_text(g, &deny->loc);
		f->tag = xstrdup(denied);
		if (denied == rname) {
			f->message = xasprintf("%s, which the \"deny\" of %s \"%s\" names (%s)",
					       subject, r->what, direction, where);
			f->fix = xasprintf("remove \"%s\" from that \"deny\"", rname);
		} else {
			char *file = rel_to_ws(g, rr->path);
			f->message =
			    xasprintf("%s, whose tag \"%s\" is in the \"deny\" of %s \"%s\" (%s)",
				      subject, denied, r->what, direction, where);
			f->fix =
			    xasprintf("remove \"%s\" from \"tags\" in %s, or from that \"deny\"",
				      denied, file);
			free(file);
		}
		free(where);
	} else {
		char *where = loc_text(g, &allow->loc);
		char *list = quoted(allow);
		f->message =
		    xasprintf("%s, which has no tag in the \"allow\" of %s \"%s\" (%s; %s)",
			      subject, r->what, direction, list, where);
		const char *tag = tag_to_add(g, allow);
		f->fix = tag ? add_tag_fix(g, related, tag)
			     : xasprintf("add \"%s\" to that \"allow\"", rname);
		free(list);
		free(where);
	}
	free(subject);
	free(path);
}

/* A package's dependencies and dependents against one rule's lists. */
static void check_perms(struct graph *g, struct tagcheck_findings *out, const struct rule_at *r,
			const struct tagrules_perms *deps, const struct tagrules_perms *dependents)
{
	size_t s = r->source;
	if (deps->set) {
		size_t n = walk(g, s, false);
		/* the walk's order, then the root's packages it did not reach */
		size_t *order = xcalloc(g->n, sizeof *order), k = 0;
		for (size_t i = 1; i < n; i++)
			order[k++] = g->queue[i];
		for (size_t j = 0; j < g->n; j++)
			if (g->root_dep[j] && j != s && g->parent[j] < 0)
				order[k++] = j;
		for (size_t i = 0; i < k; i++)
			if (order[i] != g->root)
				check_relation(g, out, r, deps, "dependencies", order[i], false);
		free(order);
	}
	if (dependents->set) {
		size_t n = walk(g, s, true);
		size_t *order = xcalloc(g->n, sizeof *order), k = 0;
		for (size_t i = 1; i < n; i++)
			order[k++] = g->queue[i];
		/* every package depends on one the root declares (turbo also
		 * takes the package itself as its own dependent there; vx not) */
		for (size_t j = 0; g->root_dep[s] && j < g->n; j++)
			if (j != s && g->parent[j] < 0 &&
			    (j < g->in->ws->projects.n || g->root == g->in->ws->projects.n))
				order[k++] = j;
		for (size_t i = 0; i < k; i++)
			check_relation(g, out, r, dependents, "dependents", order[i], true);
		free(order);
	}
}

static void check_source(struct graph *g, struct tagcheck_findings *out, size_t s)
{
	const struct tagrules *own = &g->in->rules[s];
	const struct tagrules *root = g->in->root;
	const char *name = node_name(g, s);
	if (own->has_rules) {
		struct tagcheck_finding *f = add(g, out, TAGCHECK_PACKAGE_TAGS, s, s);
		f->file = rel_to_ws(g, own->path);
		f->line = (unsigned)own->rules_loc.line;
		f->col = (unsigned)own->rules_loc.col;
		f->message = xasprintf("a package's own \"boundaries\" cannot hold \"tags\": tag "
				       "rules are the root turbo.json's (turbo refuses them too)");
		char *rootfile = rel_to_ws(g, root->path);
		f->fix =
		    xasprintf("move \"tags\" from \"boundaries\" in %s to \"boundaries\" in %s",
			      f->file, root->path ? rootfile : "turbo.json");
		free(rootfile);
	}
	struct rule_at own_at = {s, "its own"};
	check_perms(g, out, &own_at, &own->dependencies, &own->dependents);
	if (!root->has_rules)
		return;
	const struct tagrules_rule *same = tagrules_find(root, name);
	if (same) {
		struct tagcheck_finding *f = add(g, out, TAGCHECK_TAG_IS_PACKAGE, s, s);
		f->tag = xstrdup(name);
		f->file = rel_to_ws(g, root->path);
		f->line = (unsigned)same->tag.loc.line;
		f->col = (unsigned)same->tag.loc.col;
		f->message = xasprintf("tag \"%s\" is also the name of package %s: a package's "
				       "name already stands for it in \"allow\" and \"deny\"",
				       name, name);
		f->fix = xasprintf("rename the tag \"%s\" in %s and in the \"tags\" that list it",
				   name, f->file);
	}
	for (size_t t = 0; t < own->tags.n; t++) {
		const struct tagrules_rule *rule = tagrules_find(root, own->tags.v[t].s);
		if (!rule)
			continue;
		char *what = xasprintf("tag \"%s\"'s", rule->tag.s);
		struct rule_at at = {s, what};
		check_perms(g, out, &at, &rule->dependencies, &rule->dependents);
		free(what);
	}
}

void tagcheck_run(const struct tagcheck_input *in, struct tagcheck_findings *out)
{
	struct graph g = {0};
	graph_init(&g, in);
	for (size_t i = 0; i < in->ws->projects.n; i++)
		if (in->selected[i] && i != g.root && in->rules[i].path)
			check_source(&g, out, i);
	graph_free(&g);
}

void tagcheck_findings_free(struct tagcheck_findings *f)
{
	for (size_t i = 0; i < f->v.n; i++) {
		struct tagcheck_finding *x = &f->v.v[i];
		free(x->file);
		free(x->source);
		free(x->package);
		free(x->tag);
		strvec_clear(&x->via);
		free(x->message);
		free(x->fix);
	}
	vec_free(&f->v);
}
