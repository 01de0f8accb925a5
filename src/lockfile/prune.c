/* prune.c - a lockfile cut down to a subset of its workspace (`vx prune`,
 * issue 42). The graph lockset_read built says what each kept importer
 * loads, directly or not; the text is then cut, never written again from a
 * tree: a dropped entry's bytes go, a kept one's stay as its manager wrote
 * them, so `npm ci`, `pnpm install --frozen-lockfile` and `yarn install
 * --immutable` take the result as their own (tests/integration/t0188-prune.sh
 * installs from it with each).
 *
 * What is kept: the kept importers' own entries (the root's always), every
 * node reached from them, and the links to kept workspaces (npm's
 * "node_modules/web" with "link": true, Bun's "web": ["web@workspace:…"],
 * Yarn berry's "web@workspace:apps/web"). A Yarn entry is named by a list
 * of descriptors; only those something kept asks for stay, and the
 * entries are put back in the order Yarn sorts them (berry compares the
 * file byte for byte). */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/jsonloc.h"
#include "util/strmap.h"
#include "util/yamlload.h"
#include "util/yamlnode.h"

/* Bytes [from, to) of the text replaced by with (NULL: cut). */
struct edit {
	size_t from, to;
	char *with;
};

struct prune {
	const struct lockset *ls;
	const char *text;
	size_t len;
	bool *imp;  /* per importer: kept */
	bool *node; /* per node: kept */
	VEC(struct edit) edits;
	struct strbuf *err;
};

static void add_edit(struct prune *p, size_t from, size_t to, char *with)
{
	struct edit e = {from, to, with};
	vec_push(&p->edits, e);
}

/* Marks the kept importers (the root too), every node reached from them,
 * and each link (no package of its own) to a kept importer. */
static void mark(struct prune *p, const bool *keep)
{
	const struct lockset *ls = p->ls;
	size_t n = ls->nodes.n;
	long root = lg_importer_rel(ls, ".");
	p->imp = xcalloc(ls->n_imp + 1, 1);
	p->node = xcalloc(n + 1, 1);
	for (size_t k = 0; k < ls->n_imp; k++)
		p->imp[k] = keep[k] || (long)k == root;
	lg_reach(ls, p->imp, p->node);
	for (size_t i = 0; i < n; i++) {
		const struct lock_node *nd = &ls->nodes.v[i];
		for (size_t e = 0; !nd->line && nd->importer < 0 && e < nd->edges.n; e++) {
			long k = ls->nodes.v[nd->edges.v[e]].importer;
			if (k >= 0 && p->imp[k])
				p->node[i] = true;
		}
	}
}

/* JSON (and Bun's JSONC) ------------------------------------------------ */

/* An object's members (util/jsonloc.h finds them). */
struct object {
	size_t open, close; /* its '{' and '}' */
	struct jsonloc_member *m;
	size_t n;
};

/* The object at at into o. Returns 0, or -1. */
static int object_at(const struct prune *p, size_t at, struct object *o)
{
	o->close = jsonloc_members(p->text, p->len, at, NULL, 0, &o->n);
	if (o->close >= p->len)
		return -1;
	o->m = xcalloc(o->n + 1, sizeof *o->m);
	jsonloc_members(p->text, p->len, at, o->m, o->n, &o->n);
	o->open = jsonloc_skip_space(p->text, p->len, at);
	return 0;
}

/* Member i's key, unquoted (as written: no escape undone). */
static char *key_of(const struct prune *p, const struct object *o, size_t i)
{
	return xstrndup(p->text + o->m[i].key_at + 1, o->m[i].key_len - 2);
}

/* Cuts o's members whose keep is false, each kept one with the separator
 * that stood before it. */
static void cut_members(struct prune *p, const struct object *o, const bool *keep)
{
	size_t kept = 0;
	for (size_t i = 0; i < o->n; i++)
		kept += keep[i];
	if (kept == o->n)
		return;
	if (!kept) {
		add_edit(p, o->open, o->close + 1, xstrdup("{}"));
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	bool first = true;
	for (size_t i = 0; i < o->n; i++) {
		const struct jsonloc_member *m = &o->m[i];
		if (!keep[i])
			continue;
		if (!first)
			strbuf_add(&sb, p->text + o->m[i - 1].end, m->key_at - o->m[i - 1].end);
		strbuf_add(&sb, p->text + m->key_at, m->end - m->key_at);
		first = false;
	}
	add_edit(p, o->m[0].key_at, o->m[o->n - 1].end, strbuf_detach(&sb, NULL));
}

/* The object that is the value of top's member named key, cut by rule;
 * absent is nothing to cut. Returns 0, or -1. */
static int cut_object(struct prune *p, const struct object *top, const char *key,
		      bool (*rule)(struct prune *, const char *))
{
	size_t i = 0, kl = strlen(key);
	while (i < top->n &&
	       (top->m[i].key_len != kl + 2 || memcmp(p->text + top->m[i].key_at + 1, key, kl)))
		i++;
	if (i == top->n)
		return 0;
	struct object o;
	if (object_at(p, top->m[i].value_at, &o)) {
		strbuf_addf(p->err, "\"%s\" is not an object", key);
		return -1;
	}
	bool *keep = xcalloc(o.n + 1, 1);
	for (size_t k = 0; k < o.n; k++) {
		char *name = key_of(p, &o, k);
		keep[k] = rule(p, name);
		free(name);
	}
	cut_members(p, &o, keep);
	free(keep);
	free(o.m);
	return 0;
}

/* A node's entry: kept when it is a node kept; an entry that is no node
 * (not a package: nothing the parser took) stays. */
static bool keep_node(struct prune *p, const char *id)
{
	long i = lg_find(p->ls, id);
	return i < 0 || p->node[i];
}

/* npm's v2 "dependencies" (its v1 tree, kept beside "packages"): NAME as
 * its top-level location is. */
static bool keep_npm_legacy(struct prune *p, const char *name)
{
	char *loc = xasprintf("node_modules/%s", name);
	bool k = keep_node(p, loc);
	free(loc);
	return k;
}

/* A workspace entry by its directory: a kept importer's. */
static bool keep_importer(struct prune *p, const char *rel)
{
	long k = lg_importer_rel(p->ls, rel);
	return k >= 0 && p->imp[k];
}

static int prune_json(struct prune *p, enum lock_format fmt)
{
	struct object top;
	if (object_at(p, 0, &top)) {
		strbuf_addstr(p->err, "not a JSON object");
		return -1;
	}
	int rc = cut_object(p, &top, "packages", keep_node);
	if (!rc && fmt == LOCK_NPM)
		rc = cut_object(p, &top, "dependencies", keep_npm_legacy);
	if (!rc && fmt == LOCK_BUN)
		rc = cut_object(p, &top, "workspaces", keep_importer);
	free(top.m);
	return rc;
}

/* pnpm-lock.yaml ---------------------------------------------------------- */

/* The offset of each line's start, and one past the last: the text's end. */
static void line_starts(const char *t, size_t len, struct idxvec *lines)
{
	vec_push(lines, (size_t)0);
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n')
			vec_push(lines, i + 1);
	if (lines->v[lines->n - 1] != len)
		vec_push(lines, len);
}

static size_t line_at(const struct idxvec *lines, size_t line)
{
	return lines->v[line < lines->n ? line : lines->n - 1];
}

/* Cuts the pairs of block mapping map whose keep is false: each from its
 * key's line to the next key's line (the last to past its value's line). */
static int cut_pairs(struct prune *p, yaml_document_t *doc, const yaml_node_t *map,
		     const bool *keep, const struct idxvec *lines, const char *name)
{
	yaml_node_pair_t *s = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
	size_t n = (size_t)(top - s);
	for (size_t i = 0; i < n; i++) {
		if (keep[i])
			continue;
		if (map->data.mapping.style == YAML_FLOW_MAPPING_STYLE) {
			strbuf_addf(p->err,
				    "%zu: %s: a flow mapping (vx prunes pnpm's own block style)",
				    map->start_mark.line + 1, name);
			return -1;
		}
		const yaml_node_t *key = yaml_document_get_node(doc, s[i].key);
		size_t from = line_at(lines, key->start_mark.line), to;
		if (i + 1 < n) {
			to = line_at(lines,
				     yaml_document_get_node(doc, s[i + 1].key)->start_mark.line);
		} else {
			const yaml_node_t *v = yaml_document_get_node(doc, s[i].value);
			to = line_at(lines, v->end_mark.line + (v->end_mark.column > 0));
		}
		add_edit(p, from, to, NULL);
	}
	return 0;
}

static int prune_pnpm(struct prune *p, struct strvec *extra)
{
	yaml_parser_t parser;
	yaml_document_t doc, kept;
	bool have = false;
	int rc = -1;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)p->text, p->len);
	for (;;) { /* the last document with a lockfileVersion (pnpm 10 may write two) */
		struct yamlload_error yerr;
		if (!yamlload_next(&parser, &doc, &yerr)) {
			strbuf_addf(p->err, "%d: %s", yerr.line, yerr.message);
			goto out;
		}
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		if (!root) {
			yaml_document_delete(&doc);
			break;
		}
		if (yamlnode_get(&doc, root, "lockfileVersion")) {
			if (have)
				yaml_document_delete(&kept);
			kept = doc;
			have = true;
		} else {
			yaml_document_delete(&doc);
		}
	}
	if (!have) {
		strbuf_addstr(p->err, "no lockfileVersion");
		goto out;
	}
	struct idxvec lines = {0};
	line_starts(p->text, p->len, &lines);
	yaml_node_t *root = yaml_document_get_root_node(&kept);
	bool v9 = yamlnode_get(&kept, root, "snapshots") != NULL;
	/* v9's packages are named as its snapshots are, less their peers */
	struct strmap peerless = STRMAP_INIT;
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; v9 && i < p->ls->nodes.n; i++)
		if (p->node[i])
			strvec_pushf(&names, "%.*s", (int)strcspn(p->ls->nodes.v[i].id, "("),
				     p->ls->nodes.v[i].id);
	for (size_t i = 0; i < names.n; i++)
		strmap_put(&peerless, names.v[i], i);
	static const char *const sections[] = {"importers", "packages", "snapshots", "time"};
	rc = 0;
	for (size_t s = 0; !rc && s < sizeof sections / sizeof *sections; s++) {
		const yaml_node_t *map = yamlnode_get(&kept, root, sections[s]);
		if (!map || map->type != YAML_MAPPING_NODE)
			continue;
		yaml_node_pair_t *a = map->data.mapping.pairs.start,
				 *b = map->data.mapping.pairs.top;
		bool *keep = xcalloc((size_t)(b - a) + 1, 1);
		for (yaml_node_pair_t *e = a; e < b; e++) {
			const char *key = yamlnode_scalar(yaml_document_get_node(&kept, e->key));
			size_t at;
			if (!key)
				keep[e - a] = true;
			else if (s == 0)
				keep[e - a] = keep_importer(p, key);
			else if (s == 2 || !v9)
				keep[e - a] = keep_node(p, key);
			else
				keep[e - a] = strmap_get(&peerless, key, &at);
		}
		rc = cut_pairs(p, &kept, map, keep, &lines, sections[s]);
		free(keep);
	}
	/* the patch files it names stay with it (pnpm checks them) */
	const yaml_node_t *patches = yamlnode_get(&kept, root, "patchedDependencies");
	if (patches && patches->type == YAML_MAPPING_NODE)
		for (yaml_node_pair_t *e = patches->data.mapping.pairs.start;
		     e < patches->data.mapping.pairs.top; e++) {
			const char *path = yamlnode_scalar(
			    yamlnode_get(&kept, yaml_document_get_node(&kept, e->value), "path"));
			if (path)
				strvec_push(extra, path);
		}
	strmap_clear(&peerless);
	strvec_clear(&names);
	vec_free(&lines);
	yaml_document_delete(&kept);
out:
	yaml_parser_delete(&parser);
	return rc;
}

/* yarn.lock, v1 and berry ------------------------------------------------ */

struct yentry {
	size_t start, body, end; /* its header line, the line after it, the next entry */
	size_t desc, n_desc;	 /* its descriptors: descs[desc..desc+n_desc] */
	bool quoted;		 /* berry: its header is one quoted string */
	bool fixed;		 /* berry's __metadata: always kept, first */
	char *key;		 /* the kept descriptors, joined: what Yarn sorts by */
};

/* One descriptor of a header: its text, and (v1) how it was written. */
struct ydesc {
	char *text;
	size_t from, to;
	bool kept;
};

struct ydescs {
	struct ydesc *v;
	size_t n, alloc;
};

/* Reads the header of line [s, eol) into descs. Returns 0, or -1. */
static int yarn_header(const char *s, const char *eol, bool berry, struct yentry *e,
		       struct ydescs *descs)
{
	struct strbuf tok = STRBUF_INIT;
	const char *q = s;
	int rc = -1;
	e->desc = descs->n;
	if (berry) {
		const char *a = s, *b;
		if (*q == '"') {
			a = ++q;
			b = memchr(q, '"', (size_t)(eol - q));
			if (!b || memchr(q, '\\', (size_t)(b - q)) || b + 1 >= eol || b[1] != ':')
				goto out;
			e->quoted = true;
		} else {
			b = eol;
			while (b > a && (b[-1] == ' ' || b[-1] == '\r'))
				b--;
			if (b == a || b[-1] != ':')
				goto out;
			b--;
		}
		e->fixed = b - a == 10 && !memcmp(a, "__metadata", 10);
		for (const char *c = a; c < b;) {
			while (c < b && *c == ' ')
				c++;
			const char *d = c;
			while (d < b && *d != ',')
				d++;
			d = d < b ? d : NULL;
			const char *t = d ? d : b;
			while (t > c && t[-1] == ' ')
				t--;
			if (t > c) {
				struct ydesc y = {xstrndup(c, (size_t)(t - c)), 0, 0, false};
				vec_push(descs, y);
			}
			c = d ? d + 1 : b;
		}
	} else {
		while (q < eol) {
			const char *from = q;
			if (lg_yarn_token(&q, eol, &tok) || !tok.len)
				goto out;
			struct ydesc y = {xstrdup(tok.buf), (size_t)(from - s), (size_t)(q - s),
					  false};
			vec_push(descs, y);
			while (q < eol && (*q == ' ' || *q == '\r'))
				q++;
			if (q < eol && *q == ',')
				for (q++; q < eol && *q == ' ';)
					q++;
			else if (q < eol && *q == ':')
				break;
			else
				goto out;
		}
	}
	e->n_desc = descs->n - e->desc;
	rc = 0;
out:
	strbuf_release(&tok);
	return rc;
}

static int by_key(const void *a, const void *b)
{
	const struct yentry *x = *(const struct yentry *const *)a,
			    *y = *(const struct yentry *const *)b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->start > y->start) - (x->start < y->start);
}

/* Writes the kept entries, sorted as Yarn sorts them, over the old ones. */
static int prune_yarn(struct prune *p)
{
	const char *t = p->text, *end = t + p->len;
	bool berry = memmem(t, p->len, "\n__metadata:", 12) ||
		     (p->len >= 11 && !memcmp(t, "__metadata:", 11));
	VEC(struct yentry) ents = {0};
	struct ydescs descs = {0};
	size_t line = 0;
	int rc = 0;
	for (const char *s = t; s < end && !rc; line++) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		eol = eol ? eol : end;
		if (s < eol && *s != ' ' && *s != '#' && *s != '\r') {
			struct yentry e = {.start = (size_t)(s - t), .body = (size_t)(eol - t)};
			e.body += eol < end;
			if (yarn_header(s, eol, berry, &e, &descs)) {
				strbuf_addf(p->err, "%zu: a header vx cannot read", line + 1);
				rc = -1;
			}
			if (ents.n)
				ents.v[ents.n - 1].end = e.start;
			vec_push(&ents, e);
		}
		s = eol + (eol < end);
	}
	if (ents.n)
		ents.v[ents.n - 1].end = p->len;
	/* which entry each descriptor's node heads, and which descriptors a kept
	 * node asks for (an entry's other names lead to its first: not asking) */
	const struct lockset *ls = p->ls;
	size_t *entry_of = xmalloc((ls->nodes.n + 1) * sizeof *entry_of);
	bool *wanted = xcalloc(ls->nodes.n + 1, 1);
	for (size_t i = 0; i < ls->nodes.n; i++)
		entry_of[i] = SIZE_MAX;
	for (size_t k = 0; k < ents.n; k++)
		for (size_t d = 0; d < ents.v[k].n_desc; d++) {
			long i = lg_find(ls, descs.v[ents.v[k].desc + d].text);
			if (i >= 0)
				entry_of[i] = k;
		}
	for (size_t u = 0; u < ls->nodes.n; u++)
		for (size_t e = 0; p->node[u] && e < ls->nodes.v[u].edges.n; e++) {
			size_t v = ls->nodes.v[u].edges.v[e];
			if (entry_of[u] == SIZE_MAX || entry_of[u] != entry_of[v])
				wanted[v] = true;
		}
	VEC(struct yentry *) out = {0};
	struct strbuf sb = STRBUF_INIT;
	for (size_t k = 0; k < ents.n && !rc; k++) {
		struct yentry *e = &ents.v[k];
		strbuf_reset(&sb);
		for (size_t d = 0; d < e->n_desc; d++) {
			struct ydesc *y = &descs.v[e->desc + d];
			const char *s = y->text;
			long i = lg_find(ls, s);
			size_t nl = lg_name_len(s);
			bool keep = i < 0 ? false : wanted[i];
			if (!strncmp(s + nl, "@workspace:", 11)) /* a kept workspace's own name */
				keep |= keep_importer(p, s + nl + 11);
			if (!keep)
				continue;
			y->kept = true;
			if (sb.len)
				strbuf_addstr(&sb, ", ");
			strbuf_addstr(&sb, s);
		}
		if (!sb.len && !e->fixed)
			continue;
		e->key = strbuf_detach(&sb, NULL);
		vec_push(&out, e);
	}
	strbuf_release(&sb);
	if (!rc && ents.n) {
		/* __metadata first (Yarn's priority), the rest by key */
		size_t first = out.n && out.v[0]->fixed;
		if (out.n > first)
			qsort(out.v + first, out.n - first, sizeof *out.v, by_key);
		struct strbuf all = STRBUF_INIT;
		for (size_t k = 0; k < out.n; k++) {
			const struct yentry *e = out.v[k];
			if (e->fixed) {
				strbuf_add(&all, t + e->start, e->end - e->start);
				continue;
			}
			if (berry) {
				strbuf_addf(&all, e->quoted ? "\"%s\":\n" : "%s:\n", e->key);
			} else {
				bool w = false;
				for (size_t d = 0; d < e->n_desc; d++) {
					const struct ydesc *y = &descs.v[e->desc + d];
					if (!y->kept)
						continue;
					strbuf_addf(&all, "%s%.*s", w ? ", " : "",
						    (int)(y->to - y->from), t + e->start + y->from);
					w = true;
				}
				strbuf_addstr(&all, ":\n");
			}
			strbuf_add(&all, t + e->body, e->end - e->body);
		}
		add_edit(p, ents.v[0].start, p->len, strbuf_detach(&all, NULL));
	}
	for (size_t k = 0; k < ents.n; k++)
		free(ents.v[k].key);
	for (size_t d = 0; d < descs.n; d++)
		free(descs.v[d].text);
	vec_free(&ents);
	vec_free(&descs);
	vec_free(&out);
	free(entry_of);
	free(wanted);
	return rc;
}

/* ------------------------------------------------------------------------ */

static int by_from(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;
	return (x->from > y->from) - (x->from < y->from);
}

/* The text with the edits made, ending in as many newlines as it did (a
 * last entry cut leaves the blank line that stood before it). Returns 0,
 * or -1 when two cuts overlap (entries laid out as no manager writes
 * them: `? key` on one line, its value on another's). */
static int apply(struct prune *p, struct strbuf *out)
{
	if (p->edits.n)
		qsort(p->edits.v, p->edits.n, sizeof *p->edits.v, by_from);
	size_t at = 0;
	for (size_t i = 0; i < p->edits.n; i++) {
		const struct edit *e = &p->edits.v[i];
		if (e->from < at || e->to < e->from) {
			strbuf_addstr(p->err, "entries laid out as no package manager writes them");
			return -1;
		}
		strbuf_add(out, p->text + at, e->from - at);
		if (e->with)
			strbuf_addstr(out, e->with);
		at = e->to;
	}
	strbuf_add(out, p->text + at, p->len - at);
	size_t had = 0, has = 0;
	while (had < p->len && p->text[p->len - 1 - had] == '\n')
		had++;
	while (has < out->len && out->buf[out->len - 1 - has] == '\n')
		has++;
	for (; has > had; has--)
		out->buf[--out->len] = '\0';
	return 0;
}

int lockset_prune(const struct lockset *ls, enum lock_format fmt, const char *text, size_t len,
		  const bool *keep, struct strbuf *out, struct strvec *extra, struct strbuf *err)
{
	struct prune p = {.ls = ls, .text = text, .len = len, .err = err};
	mark(&p, keep);
	int rc;
	switch (fmt) {
	case LOCK_NPM:
	case LOCK_BUN:
		rc = prune_json(&p, fmt);
		break;
	case LOCK_PNPM:
		rc = prune_pnpm(&p, extra);
		break;
	case LOCK_YARN:
		rc = prune_yarn(&p);
		break;
	default:
		strbuf_addstr(err, "unknown lockfile format");
		rc = -1;
	}
	if (!rc)
		rc = apply(&p, out);
	for (size_t i = 0; i < p.edits.n; i++)
		free(p.edits.v[i].with);
	vec_free(&p.edits);
	free(p.imp);
	free(p.node);
	return rc;
}
