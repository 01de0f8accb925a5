/* pnpm-lock.yaml, lockfileVersion 6.x to 9.x.
 *
 * v9: "importers" name each project's direct dependencies by a reference
 * ("18.2.0", "1.0.0(react@18.2.0)" with its peers, "link:../ui", an alias's
 * "string-width@4.2.3"); "snapshots" hold each resolved instance's own
 * dependencies under "NAME@REF"; "packages" hold the resolution (integrity,
 * tarball, commit) under "NAME@VERSION", peers dropped. v6: the same
 * importers, and "packages" holding both, under "/NAME@REF". A lockfile of
 * a single project (no "importers") lists the root's dependencies at the
 * top. */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/path.h"

struct pnpm {
	struct lockset *ls;
	yaml_document_t *doc;
	int major;
	const char *prefix; /* "/" (v6) or "" (v9) */
};

static const char *yscalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *yget(yaml_document_t *doc, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = yscalar(yaml_document_get_node(doc, p->key));
		if (k && !strcmp(k, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* The end of an id's "NAME@VERSION": where its peers "(…)" start. */
static size_t peerless(const char *id)
{
	return strcspn(id, "(");
}

/* Splits "NAME@VERSION…" (NAME may be "@scope/name") at its '@'. */
static void split_id(const char *id, size_t len, struct strbuf *name, struct strbuf *version)
{
	const char *at = NULL;
	for (size_t i = 1; i < len; i++)
		if (id[i] == '@') {
			at = id + i;
			break;
		}
	strbuf_reset(name);
	strbuf_reset(version);
	if (!at) {
		strbuf_add(name, id, len);
		return;
	}
	strbuf_add(name, id, (size_t)(at - id));
	strbuf_add(version, at + 1, len - (size_t)(at - id) - 1);
}

/* What a resolution mapping identifies its package by. */
static const char *ident_of(struct pnpm *p, const yaml_node_t *res)
{
	static const char *const keys[] = {"integrity", "tarball", "commit", "directory", "path"};
	if (yscalar(res))
		return yscalar(res);
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		const char *s = yscalar(yget(p->doc, res, keys[k]));
		if (s)
			return s;
	}
	return NULL;
}

/* The node a dependency reference names, from the importer or package at
 * dir (for "link:"), or -1 when the file defines none. */
static long ref_node(struct pnpm *p, const char *dir, const char *name, const char *ref)
{
	struct lockset *ls = p->ls;
	if (!strncmp(ref, "link:", 5)) {
		if (!dir)
			return -1;
		char *joined = path_join(dir, ref + 5);
		char *norm = path_normalize(joined);
		long k = lg_importer_rel(ls, norm);
		free(joined);
		free(norm);
		return k >= 0 && ls->imp_node[k] != SIZE_MAX ? (long)ls->imp_node[k] : -1;
	}
	struct strbuf id = STRBUF_INIT;
	strbuf_addf(&id, "%s%s@%s", p->prefix, name, ref);
	long i = lg_find(ls, id.buf);
	if (i < 0) { /* an alias ("string-width@4.2.3"), a tarball or a file: dependency */
		strbuf_reset(&id);
		strbuf_addf(&id, "%s%s", *ref == '/' ? "" : p->prefix, ref);
		i = lg_find(ls, id.buf);
		if (i < 0)
			i = lg_find(ls, ref);
	}
	strbuf_release(&id);
	return i;
}

static const char *const dep_kinds[] = {"dependencies", "devDependencies", "optionalDependencies"};

/* Adds node from's edges for the dependency mappings of m: in importers,
 * NAME: {specifier, version}; in packages and snapshots, NAME: REF. */
static void add_edges(struct pnpm *p, size_t from, const yaml_node_t *m, const char *dir)
{
	for (size_t k = 0; k < sizeof dep_kinds / sizeof *dep_kinds; k++) {
		yaml_node_t *deps = yget(p->doc, m, dep_kinds[k]);
		if (!deps || deps->type != YAML_MAPPING_NODE)
			continue;
		for (yaml_node_pair_t *d = deps->data.mapping.pairs.start;
		     d < deps->data.mapping.pairs.top; d++) {
			const char *name = yscalar(yaml_document_get_node(p->doc, d->key));
			yaml_node_t *v = yaml_document_get_node(p->doc, d->value);
			const char *ref = yscalar(v) ? yscalar(v) : yscalar(yget(p->doc, v, "version"));
			if (!name || !ref)
				continue;
			long to = ref_node(p, dir, name, ref);
			if (to >= 0)
				lg_edge(p->ls, from, (size_t)to);
		}
	}
}

/* Creates a node per key of a packages or snapshots mapping, resolved
 * from the package's resolution (looked up in pkgs, peers dropped, for a
 * snapshot). */
static void define(struct pnpm *p, const yaml_node_t *map, const yaml_node_t *pkgs)
{
	struct strbuf name = STRBUF_INIT, version = STRBUF_INIT, pid = STRBUF_INIT;
	/* the packages by key: a lookup per snapshot must not scan them all */
	struct strmap by_key = STRMAP_INIT;
	for (yaml_node_pair_t *e = pkgs ? pkgs->data.mapping.pairs.start : NULL;
	     e && e < pkgs->data.mapping.pairs.top; e++) {
		const char *k = yscalar(yaml_document_get_node(p->doc, e->key));
		if (k)
			strmap_put(&by_key, k, (size_t)e->value);
	}
	for (yaml_node_pair_t *e = map->data.mapping.pairs.start; e < map->data.mapping.pairs.top;
	     e++) {
		const char *id = yscalar(yaml_document_get_node(p->doc, e->key));
		if (!id)
			continue;
		yaml_node_t *body = yaml_document_get_node(p->doc, e->value);
		size_t i = lg_node(p->ls, id);
		size_t plen = peerless(id);
		yaml_node_t *pkg = body;
		if (pkgs) {
			strbuf_reset(&pid);
			strbuf_add(&pid, id, plen);
			size_t v;
			pkg = strmap_get(&by_key, pid.buf, &v)
				  ? yaml_document_get_node(p->doc, (int)v)
				  : NULL;
		}
		const char *skip = id[0] == '/' ? id + 1 : id;
		split_id(skip, plen - (size_t)(skip - id), &name, &version);
		/* a git or tarball package carries its own name and version */
		const char *n = yscalar(yget(p->doc, pkg, "name"));
		const char *v = yscalar(yget(p->doc, pkg, "version"));
		lg_resolve(p->ls, i, n ? n : name.buf, v ? v : version.buf,
			   ident_of(p, yget(p->doc, pkg, "resolution")));
	}
	strmap_clear(&by_key);
	strbuf_release(&name);
	strbuf_release(&version);
	strbuf_release(&pid);
}

static void link_all(struct pnpm *p, const yaml_node_t *map)
{
	for (yaml_node_pair_t *e = map->data.mapping.pairs.start; e < map->data.mapping.pairs.top;
	     e++) {
		const char *id = yscalar(yaml_document_get_node(p->doc, e->key));
		if (id)
			add_edges(p, lg_node(p->ls, id), yaml_document_get_node(p->doc, e->value),
				  NULL);
	}
}

static int parse_doc(struct pnpm *p, yaml_node_t *root, struct strbuf *err)
{
	struct lockset *ls = p->ls;
	const char *ver = yscalar(yget(p->doc, root, "lockfileVersion"));
	if (!ver) {
		strbuf_addstr(err, "no lockfileVersion");
		return -1;
	}
	p->major = atoi(ver);
	if (p->major < 6 || p->major > 9) {
		strbuf_addf(err, "lockfileVersion %s is not read (6.0 to 9.0 are)", ver);
		return -1;
	}
	yaml_node_t *pkgs = yget(p->doc, root, "packages");
	yaml_node_t *snaps = yget(p->doc, root, "snapshots");
	if ((pkgs && pkgs->type != YAML_MAPPING_NODE) || (snaps && snaps->type != YAML_MAPPING_NODE)) {
		strbuf_addstr(err, "\"packages\" and \"snapshots\" must be mappings");
		return -1;
	}
	p->prefix = snaps || p->major >= 9 ? "" : "/";
	/* first every node, so a reference finds its target whatever the order */
	if (snaps)
		define(p, snaps, pkgs);
	else if (pkgs)
		define(p, pkgs, NULL);
	/* each importer a node of its own (an id no package can have) */
	for (size_t k = 0; k < ls->n_imp; k++) {
		char *id = xasprintf("\x01importer %s", ls->imp[k].rel);
		lg_importer(ls, k, lg_node(ls, id));
		free(id);
	}
	yaml_node_t *importers = yget(p->doc, root, "importers");
	if (importers && importers->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *e = importers->data.mapping.pairs.start;
		     e < importers->data.mapping.pairs.top; e++) {
			const char *rel = yscalar(yaml_document_get_node(p->doc, e->key));
			long k = rel ? lg_importer_rel(ls, rel) : -1;
			if (k >= 0)
				add_edges(p, ls->imp_node[k], yaml_document_get_node(p->doc, e->value),
					  ls->imp[k].rel);
		}
	} else {
		long k = lg_importer_rel(ls, ".");
		if (k >= 0)
			add_edges(p, ls->imp_node[k], root, ".");
	}
	if (snaps)
		link_all(p, snaps);
	else if (pkgs)
		link_all(p, pkgs);
	return 0;
}

int lock_parse_pnpm(struct lockset *ls, const char *text, size_t len, struct strbuf *err)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	struct pnpm p = {.ls = ls};
	int rc = -1;
	/* pnpm 10 may put an environment document first: the lockfile proper
	 * is the last document with a lockfileVersion */
	VEC(yaml_document_t) docs = {0};
	for (;;) {
		yaml_document_t doc;
		if (!yaml_parser_load(&parser, &doc)) {
			strbuf_addf(err, "line %zu: %s", parser.problem_mark.line + 1,
				    parser.problem ? parser.problem : "not YAML");
			break;
		}
		if (!yaml_document_get_root_node(&doc)) {
			yaml_document_delete(&doc);
			rc = 0;
			break;
		}
		vec_push(&docs, doc);
	}
	yaml_node_t *root = NULL;
	for (size_t d = docs.n; !rc && d-- > 0 && !root;) {
		root = yaml_document_get_root_node(&docs.v[d]);
		p.doc = &docs.v[d];
		if (!yget(p.doc, root, "lockfileVersion"))
			root = NULL;
	}
	if (!rc && !root) {
		strbuf_addstr(err, "no lockfileVersion");
		rc = -1;
	} else if (!rc) {
		rc = parse_doc(&p, root, err);
	}
	for (size_t d = 0; d < docs.n; d++)
		yaml_document_delete(&docs.v[d]);
	vec_free(&docs);
	yaml_parser_delete(&parser);
	return rc;
}
