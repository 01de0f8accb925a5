/* pnpm-lock.yaml, lockfileVersion 6.x to 9.x.
 *
 * v9: "importers" name each project's direct dependencies by a reference
 * ("18.2.0", "1.0.0(react@18.2.0)" with its peers, "link:../ui", an alias's
 * "string-width@4.2.3"); "snapshots" hold each resolved instance's own
 * dependencies under "NAME@REF"; "packages" hold the resolution (integrity,
 * tarball, commit) under "NAME@VERSION", peers dropped. v6: the same
 * importers, and "packages" holding both, under "/NAME@REF". A lockfile of
 * a single project (no "importers") lists the root's dependencies at the
 * top.
 *
 * Read as libyaml's events, not its document tree: a 5 MB lockfile is
 * 400,000 events, and the tree of them cost as much again as the parse
 * (docs/lockfiles.md has the figures). Each scalar is taken by the path of
 * mapping keys above it; nothing else is kept. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/path.h"
#include "util/strmap.h"
#include "util/thread.h"
#include "util/yamlload.h"

/* A dependency as written: from (an importer's rel, or a package's id) to
 * NAME by REF. */
struct ref {
	char *from, *name, *ref;
	bool importer;
};

/* A package's own fields (name and version for a git or tarball one). */
struct pkg {
	char *id, *name, *version, *ident;
	int ident_rank; /* which resolution field ident came from: lower wins */
};

/* Strings that live as long as their document: one allocation per 64 KiB,
 * not one per string (a large lockfile has 100,000 of them). */
struct arena {
	char **chunks;
	size_t n, used, cap;
};

static char *arena_dup(struct arena *a, const char *s)
{
	size_t len = strlen(s) + 1;
	if (!a->n || a->used + len > a->cap) {
		size_t cap = len > 65536 ? len : 65536;
		a->chunks = xrealloc(a->chunks, (a->n + 1) * sizeof *a->chunks);
		a->chunks[a->n++] = xmalloc(cap);
		a->used = 0;
		a->cap = cap;
	}
	char *p = a->chunks[a->n - 1] + a->used;
	memcpy(p, s, len);
	a->used += len;
	return p;
}

static void arena_release(struct arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->chunks[i]);
	free(a->chunks);
	memset(a, 0, sizeof *a);
}

/* What one document says. */
struct doc {
	struct arena strings; /* every string below */
	char *version;	      /* lockfileVersion, or NULL */
	bool snapshots;	      /* it has a snapshots mapping (v9) */
	VEC(struct pkg) pkgs; /* packages: */
	VEC(char *) snap_ids; /* snapshots: each key */
	VEC(struct ref) refs;
	VEC(struct arena) more; /* another document's strings its refs point into */
};

#define DEPTH_MAX 8

struct reader {
	struct doc d;
	char *keys[DEPTH_MAX];	  /* the mapping keys above the next event */
	bool want_key[DEPTH_MAX]; /* each level is a mapping waiting for its key */
	bool mapping[DEPTH_MAX];
	int depth;		 /* levels open; keys[0..depth-1] name where we are */
	struct strmap pkg_index; /* id -> index in d.pkgs */
};

static void doc_release(struct doc *d)
{
	free(d->version);
	vec_free(&d->pkgs);
	vec_free(&d->snap_ids);
	vec_free(&d->refs);
	for (size_t i = 0; i < d->more.n; i++)
		arena_release(&d->more.v[i]);
	vec_free(&d->more);
	arena_release(&d->strings);
	memset(d, 0, sizeof *d);
}

static bool is_dep_kind(const char *k)
{
	return !strcmp(k, "dependencies") || !strcmp(k, "devDependencies") ||
	       !strcmp(k, "optionalDependencies");
}

static struct pkg *pkg_of(struct reader *r, const char *id)
{
	size_t i;
	if (!strmap_get(&r->pkg_index, id, &i)) {
		struct pkg p = {.id = arena_dup(&r->d.strings, id), .ident_rank = 99};
		vec_push(&r->d.pkgs, p);
		i = r->d.pkgs.n - 1;
		strmap_put(&r->pkg_index, r->d.pkgs.v[i].id, i);
	}
	return &r->d.pkgs.v[i];
}

static void add_ref(struct reader *r, const char *from, const char *name, const char *ref,
		    bool importer)
{
	struct arena *a = &r->d.strings;
	struct ref x = {arena_dup(a, from), arena_dup(a, name), arena_dup(a, ref), importer};
	vec_push(&r->d.refs, x);
}

/* A mapping opens at the current depth (its key is keys[depth-1]). */
static void on_mapping(struct reader *r)
{
	char **k = r->keys;
	if (r->depth == 2 && !strcmp(k[0], "packages"))
		pkg_of(r, k[1]);
	else if (r->depth == 2 && !strcmp(k[0], "snapshots"))
		vec_push(&r->d.snap_ids, arena_dup(&r->d.strings, k[1]));
	if (r->depth == 1 && !strcmp(k[0], "snapshots"))
		r->d.snapshots = true;
}

/* A scalar value under keys[0..depth-1]. */
static void on_value(struct reader *r, const char *v)
{
	char **k = r->keys;
	int n = r->depth;
	static const char *const ranks[] = {"integrity", "tarball", "commit", "directory", "path"};
	if (n == 1 && !strcmp(k[0], "lockfileVersion")) {
		free(r->d.version);
		r->d.version = xstrdup(v);
	} else if (n == 5 && !strcmp(k[0], "importers") && is_dep_kind(k[2]) &&
		   !strcmp(k[4], "version")) {
		add_ref(r, k[1], k[3], v, true);
	} else if (n == 3 && is_dep_kind(k[0]) && !strcmp(k[2], "version")) {
		add_ref(r, ".", k[1], v, true); /* a single project's lockfile */
	} else if (!strcmp(k[0], "packages") && n == 3 &&
		   (!strcmp(k[2], "name") || !strcmp(k[2], "version"))) {
		struct pkg *p = pkg_of(r, k[1]);
		char **dst = !strcmp(k[2], "name") ? &p->name : &p->version;
		*dst = arena_dup(&r->d.strings, v);
	} else if (!strcmp(k[0], "packages") && n == 4 && !strcmp(k[2], "resolution")) {
		for (int i = 0; i < (int)(sizeof ranks / sizeof *ranks); i++) {
			struct pkg *p = pkg_of(r, k[1]);
			if (!strcmp(k[3], ranks[i]) && i < p->ident_rank) {
				p->ident = arena_dup(&r->d.strings, v);
				p->ident_rank = i;
			}
		}
	} else if (!strcmp(k[0], "packages") && n == 3 && !strcmp(k[2], "resolution")) {
		struct pkg *p = pkg_of(r, k[1]); /* resolution: a scalar */
		if (p->ident_rank > 0) {
			p->ident = arena_dup(&r->d.strings, v);
			p->ident_rank = 0;
		}
	} else if ((!strcmp(k[0], "packages") || !strcmp(k[0], "snapshots")) && n == 4 &&
		   is_dep_kind(k[2])) {
		add_ref(r, k[1], k[3], v, false);
	}
}

/* One event: keeps the key path, and hands mappings and values over. */
static void on_event(struct reader *r, const yaml_event_t *e)
{
	int d = r->depth;
	switch (e->type) {
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT: {
		bool map = e->type == YAML_MAPPING_START_EVENT;
		if (d > 0 && d <= DEPTH_MAX && r->mapping[d - 1])
			r->want_key[d - 1] = true; /* this node is the value: a key comes next */
		if (d < DEPTH_MAX) {
			r->mapping[d] = map;
			r->want_key[d] = map;
			free(r->keys[d]);
			r->keys[d] = NULL;
		}
		bool keyed = map && d > 0 && d <= DEPTH_MAX;
		for (int i = 0; keyed && i < d; i++)
			keyed = r->keys[i] != NULL; /* a path of keys, no sequence in it */
		if (keyed)
			on_mapping(r);
		r->depth++;
		break;
	}
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		if (d > 0)
			r->depth--;
		break;
	case YAML_SCALAR_EVENT: {
		const char *v = (const char *)e->data.scalar.value;
		if (d == 0 || d > DEPTH_MAX)
			break;
		if (r->mapping[d - 1] && r->want_key[d - 1]) {
			free(r->keys[d - 1]);
			r->keys[d - 1] = xstrdup(v);
			r->want_key[d - 1] = false;
			break;
		}
		if (r->mapping[d - 1]) {
			r->want_key[d - 1] = true;
			/* the value's path: the keys down to and with this level's */
			bool ok = true;
			for (int i = 0; i < d; i++)
				ok &= r->keys[i] != NULL;
			if (ok)
				on_value(r, v);
		}
		break;
	}
	default:
		break;
	}
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

/* The node a dependency reference names, from the importer at dir (for
 * "link:"), or -1 when the file defines none. */
static long ref_node(struct lockset *ls, const char *prefix, const char *dir, const char *name,
		     const char *ref, struct strbuf *id)
{
	if (!strncmp(ref, "link:", 5)) {
		if (!dir)
			return -1;
		char *joined = path_join(dir, ref + 5);
		long k = lg_importer_rel(ls, joined);
		free(joined);
		return k >= 0 && ls->imp_node[k] != SIZE_MAX ? (long)ls->imp_node[k] : -1;
	}
	strbuf_reset(id);
	strbuf_addstr(id, prefix);
	strbuf_addstr(id, name);
	strbuf_addch(id, '@');
	strbuf_addstr(id, ref);
	long i = lg_find(ls, id->buf);
	if (i < 0) { /* an alias ("string-width@4.2.3"), a tarball or a file: dependency */
		strbuf_reset(id);
		strbuf_addf(id, "%s%s", *ref == '/' ? "" : prefix, ref);
		i = lg_find(ls, id->buf);
		if (i < 0)
			i = lg_find(ls, ref);
	}
	return i;
}

/* The graph from the document's records. */
static int build(struct lockset *ls, struct reader *r, struct strbuf *err)
{
	struct doc *d = &r->d;
	int major = d->version ? atoi(d->version) : 0;
	if (!d->version) {
		strbuf_addstr(err, "no lockfileVersion");
		return -1;
	}
	if (major < 6 || major > 9) {
		strbuf_addf(err, "lockfileVersion %s is not read (6.0 to 9.0 are)", d->version);
		return -1;
	}
	const char *prefix = d->snapshots || major >= 9 ? "" : "/";
	struct strbuf name = STRBUF_INIT, version = STRBUF_INIT, id = STRBUF_INIT;
	/* first every node, so a reference finds its target whatever the order:
	 * v9's snapshots (resolved through packages, peers dropped), else v6's
	 * packages themselves */
	size_t n = d->snapshots ? d->snap_ids.n : d->pkgs.n;
	for (size_t i = 0; i < n; i++) {
		const char *sid = d->snapshots ? d->snap_ids.v[i] : d->pkgs.v[i].id;
		size_t node = lg_node(ls, sid);
		size_t plen = peerless(sid);
		const struct pkg *p = NULL;
		size_t at;
		if (!d->snapshots)
			p = &d->pkgs.v[i];
		else if (strmap_getn(&r->pkg_index, sid, plen, &at))
			p = &d->pkgs.v[at];
		const char *skip = sid[0] == '/' ? sid + 1 : sid;
		split_id(skip, plen - (size_t)(skip - sid), &name, &version);
		lg_resolve(ls, node, p && p->name ? p->name : name.buf,
			   p && p->version ? p->version : version.buf, p ? p->ident : NULL);
	}
	lg_importer_nodes(ls);
	for (size_t i = 0; i < d->refs.n; i++) {
		const struct ref *x = &d->refs.v[i];
		long from;
		const char *dir = NULL;
		if (x->importer) {
			long k = lg_importer_rel(ls, x->from);
			if (k < 0)
				continue; /* a project vx was not asked about */
			from = (long)ls->imp_node[k];
			dir = ls->imp[k].rel;
		} else {
			from = lg_find(ls, x->from);
			if (from < 0)
				continue;
		}
		long to = ref_node(ls, prefix, dir, x->name, x->ref, &id);
		if (to >= 0)
			lg_edge(ls, (size_t)from, (size_t)to);
	}
	strbuf_release(&name);
	strbuf_release(&version);
	strbuf_release(&id);
	return 0;
}

/* Parses text as a stream of documents into *kept: the last one with a
 * lockfileVersion (pnpm 10 may put an environment document first), or,
 * with !need_version, the last one. Returns 0 (have: a document was kept),
 * or -1 with the reason in err. */
static int parse_stream(const char *text, size_t len, bool need_version, struct reader *kept,
			bool *have, struct strbuf *err)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	struct reader r = {0};
	*have = false;
	int rc = 0;
	for (;;) {
		yaml_event_t e;
		if (!yaml_parser_parse(&parser, &e)) {
			strbuf_addf(err, "line %zu: %s", parser.problem_mark.line + 1,
				    parser.problem ? parser.problem : "not YAML");
			rc = -1;
			break;
		}
		yaml_event_type_t type = e.type;
		if (type == YAML_DOCUMENT_END_EVENT) {
			if (r.d.version || !need_version) {
				if (*have) {
					doc_release(&kept->d);
					strmap_clear(&kept->pkg_index);
				}
				kept->d = r.d;
				kept->pkg_index = r.pkg_index;
				memset(&r.d, 0, sizeof r.d);
				memset(&r.pkg_index, 0, sizeof r.pkg_index);
				*have = true;
			}
			doc_release(&r.d);
			strmap_clear(&r.pkg_index);
			r.depth = 0;
		} else if (r.depth >= YAMLLOAD_MAX_DEPTH && (type == YAML_MAPPING_START_EVENT ||
							     type == YAML_SEQUENCE_START_EVENT)) {
			/* libyaml's scanner is quadratic in the depth (yamlload.h) */
			strbuf_addf(err, "line %zu: nested deeper than %d levels",
				    e.start_mark.line + 1, YAMLLOAD_MAX_DEPTH);
			yaml_event_delete(&e);
			rc = -1;
			break;
		} else {
			on_event(&r, &e);
		}
		yaml_event_delete(&e);
		if (type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	for (int i = 0; i < DEPTH_MAX; i++)
		free(r.keys[i]);
	doc_release(&r.d);
	strmap_clear(&r.pkg_index);
	return rc;
}

struct half {
	const char *text;
	size_t len;
	struct reader r;
	bool have;
	int rc;
	struct strbuf err;
};

static void *parse_half(void *arg)
{
	struct half *h = arg;
	h->rc = parse_stream(h->text, h->len, false, &h->r, &h->have, &h->err);
	return NULL;
}

/* Where a lockfile of one document can be cut in two that parse alone:
 * the line "snapshots:" (v9's second half), or 0. A file with a document
 * marker, or that line twice, is not cut. */
size_t lock_pnpm_split_min = (size_t)1 << 20;

static size_t cut_point(const char *text, size_t len)
{
	if (len < lock_pnpm_split_min || memmem(text, len, "\n---", 4) ||
	    memmem(text, len, "\n...", 4))
		return 0; /* small: one thread is quicker than two */
	const char *s = memmem(text, len, "\nsnapshots:\n", 12);
	if (!s || memmem(s + 1, len - (size_t)(s + 1 - text), "\nsnapshots:\n", 12))
		return 0;
	return (size_t)(s + 1 - text);
}

int lock_parse_pnpm(struct lockset *ls, const char *text, size_t len, struct strbuf *err)
{
	struct reader kept = {0};
	bool have = false;
	int rc;
	size_t cut = cut_point(text, len);
	pthread_t th;
	struct half b = {.text = text + cut, .len = len - cut, .err = STRBUF_INIT};
	/* a large v9 file: its snapshots on a second thread (docs/lockfiles.md) */
	bool two = cut && thread_start(&th, NULL, parse_half, &b) == 0;
	rc = parse_stream(text, two ? cut : len, true, &kept, &have, err);
	if (two) {
		pthread_join(th, NULL);
		if (!rc && b.rc) {
			strbuf_add(err, b.err.buf, b.err.len);
			rc = -1;
		}
		if (!rc && have && b.have) {
			/* the second half's snapshots and their references join the first */
			kept.d.snapshots = b.r.d.snapshots;
			for (size_t i = 0; i < b.r.d.snap_ids.n; i++)
				vec_push(&kept.d.snap_ids, b.r.d.snap_ids.v[i]);
			for (size_t i = 0; i < b.r.d.refs.n; i++)
				vec_push(&kept.d.refs, b.r.d.refs.v[i]);
			b.r.d.refs.n = 0;
			/* their strings now belong to the first half's document */
			vec_push(&kept.d.more, b.r.d.strings);
			memset(&b.r.d.strings, 0, sizeof b.r.d.strings);
		}
		if (b.have) {
			doc_release(&b.r.d);
			strmap_clear(&b.r.pkg_index);
		}
		strbuf_release(&b.err);
	}
	if (!rc && !have) {
		strbuf_addstr(err, "no lockfileVersion");
		rc = -1;
	}
	if (!rc)
		rc = build(ls, &kept, err);
	if (have) {
		doc_release(&kept.d);
		strmap_clear(&kept.pkg_index);
	}
	return rc;
}
