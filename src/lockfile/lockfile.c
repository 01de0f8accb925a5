#include "lockfile/lockfile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/json.h"
#include "util/jsonloc.h"
#include "util/strbuf.h"

size_t lg_noden(struct lockset *ls, const char *id, size_t len)
{
	size_t i;
	if (strmap_getn(&ls->by_id, id, len, &i))
		return i;
	struct lock_node n = {.id = xstrndup(id, len), .importer = -1};
	vec_push(&ls->nodes, n);
	i = ls->nodes.n - 1;
	strmap_put(&ls->by_id, ls->nodes.v[i].id, i);
	return i;
}

size_t lg_node(struct lockset *ls, const char *id)
{
	return lg_noden(ls, id, strlen(id));
}

long lg_findn(const struct lockset *ls, const char *id, size_t len)
{
	size_t i;
	return strmap_getn(&ls->by_id, id, len, &i) ? (long)i : -1;
}

long lg_find(const struct lockset *ls, const char *id)
{
	return lg_findn(ls, id, strlen(id));
}

void lg_resolve(struct lockset *ls, size_t i, const char *name, const char *version,
		const char *ident)
{
	struct lock_node *n = &ls->nodes.v[i];
	if (n->line)
		return; /* the first definition stands (a repeat adds nothing) */
	n->line = xasprintf("%s %s %s", name, version && *version ? version : "-",
			    ident && *ident ? ident : "-");
	ls->n_pkgs++;
}

void lg_edge(struct lockset *ls, size_t from, size_t to)
{
	if (from != to)
		vec_push(&ls->nodes.v[from].edges, to);
}

size_t lg_name_len(const char *desc)
{
	const char *at = desc[0] ? strchr(desc + 1, '@') : NULL;
	return at ? (size_t)(at - desc) : strlen(desc);
}

void lg_importer_nodes(struct lockset *ls)
{
	for (size_t k = 0; k < ls->n_imp; k++) {
		char *id = xasprintf("\x01importer %s", ls->imp[k].rel);
		lg_importer(ls, k, lg_node(ls, id));
		free(id);
	}
}

void lg_importer(struct lockset *ls, size_t k, size_t i)
{
	if (k < ls->n_imp && ls->imp_node[k] == SIZE_MAX) {
		ls->imp_node[k] = i;
		ls->nodes.v[i].importer = (long)k;
	}
}

/* "", ".", "./" are the root; "./a/b/" is "a/b". */
static const char *rel_trim(const char *s, size_t *len)
{
	while (s[0] == '.' && s[1] == '/')
		s += 2;
	size_t n = strlen(s);
	while (n && s[n - 1] == '/')
		n--;
	if (n == 1 && s[0] == '.')
		n = 0;
	*len = n;
	return s;
}

long lg_importer_rel(const struct lockset *ls, const char *rel)
{
	size_t n, k;
	const char *s = rel_trim(rel, &n);
	return strmap_getn(&ls->imp_by_rel, s, n, &k) ? (long)k : -1;
}

long lg_importer_name(const struct lockset *ls, const char *name)
{
	for (size_t k = 0; k < ls->n_imp; k++)
		if (ls->imp[k].name && !strcmp(ls->imp[k].name, name))
			return (long)k;
	return -1;
}

static void hex128(XXH128_hash_t h, char out[33])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++) {
		out[2 * i] = digits[c.digest[i] >> 4];
		out[2 * i + 1] = digits[c.digest[i] & 15];
	}
	out[32] = '\0';
}

/* Marks in seen (by stamp) every node reachable from start, and appends
 * each distinct line reached to lines (by line stamp). */
static void reach(const struct lockset *ls, size_t start, uint32_t stamp, uint32_t *seen,
		  uint32_t *line_seen, size_t **stack, size_t *cap, struct idxvec *lines)
{
	if (start == SIZE_MAX || seen[start] == stamp)
		return;
	size_t top = 0;
	(*stack)[top++] = start;
	seen[start] = stamp;
	while (top) {
		size_t i = (*stack)[--top];
		size_t l = ls->line_of[i];
		if (l != SIZE_MAX && line_seen[l] != stamp) {
			line_seen[l] = stamp;
			vec_push(lines, l);
		}
		const struct lock_node *n = &ls->nodes.v[i];
		for (size_t e = 0; e < n->edges.n; e++) {
			size_t j = n->edges.v[e];
			if (seen[j] == stamp)
				continue;
			seen[j] = stamp;
			if (top == *cap) {
				*cap *= 2;
				*stack = xrealloc(*stack, *cap * sizeof **stack);
			}
			(*stack)[top++] = j;
		}
	}
}

struct walk {
	uint32_t *seen, *line_seen;
	size_t *stack, cap;
	uint32_t stamp;
};

static void closure_of(const struct lockset *ls, struct walk *w, size_t k, struct idxvec *lines)
{
	w->stamp++;
	long root = lg_importer_rel(ls, ".");
	reach(ls, ls->imp_node[k], w->stamp, w->seen, w->line_seen, &w->stack, &w->cap, lines);
	if (root >= 0)
		reach(ls, ls->imp_node[root], w->stamp, w->seen, w->line_seen, &w->stack, &w->cap,
		      lines);
}

static void walk_init(const struct lockset *ls, struct walk *w)
{
	w->seen = xcalloc(ls->nodes.n + 1, sizeof *w->seen);
	w->line_seen = xcalloc(ls->n_lines + 1, sizeof *w->line_seen);
	w->cap = 64;
	w->stack = xmalloc(w->cap * sizeof *w->stack);
	w->stamp = 0;
}

static void walk_release(struct walk *w)
{
	free(w->seen);
	free(w->line_seen);
	free(w->stack);
}

void lg_reach(const struct lockset *ls, const bool *from, bool *out)
{
	struct walk w;
	struct idxvec lines = {0};
	walk_init(ls, &w);
	w.stamp = 1; /* one walk from every importer in from */
	for (size_t k = 0; k < ls->n_imp; k++)
		if (from[k])
			reach(ls, ls->imp_node[k], w.stamp, w.seen, w.line_seen, &w.stack, &w.cap,
			      &lines);
	for (size_t i = 0; i < ls->nodes.n; i++)
		out[i] = w.seen[i] == w.stamp;
	vec_free(&lines);
	walk_release(&w);
}

/* Gives each distinct line an index, then hashes every importer's closure:
 * the sum of its lines' 128-bit hashes (an order-free fold of a set), and
 * their count, hashed again. */
static void finish(struct lockset *ls)
{
	struct strmap lines = STRMAP_INIT;
	ls->line_of = xmalloc((ls->nodes.n + 1) * sizeof *ls->line_of);
	VEC(XXH128_hash_t) lh = {0};
	for (size_t i = 0; i < ls->nodes.n; i++) {
		const char *line = ls->nodes.v[i].line;
		size_t l = SIZE_MAX;
		if (line && !strmap_get(&lines, line, &l)) {
			l = lh.n;
			strmap_put(&lines, line, l);
			vec_push(&lh, XXH3_128bits(line, strlen(line)));
		}
		ls->line_of[i] = l;
	}
	ls->n_lines = lh.n;
	strmap_clear(&lines);
	struct walk w;
	walk_init(ls, &w);
	struct idxvec set = {0};
	ls->hash = xcalloc(ls->n_imp + 1, sizeof *ls->hash);
	for (size_t k = 0; k < ls->n_imp; k++) {
		set.n = 0;
		closure_of(ls, &w, k, &set);
		uint64_t lo = 0, hi = 0;
		for (size_t s = 0; s < set.n; s++) {
			XXH128_hash_t h = lh.v[set.v[s]];
			lo += h.low64;
			hi += h.high64 + (lo < h.low64);
		}
		uint64_t fold[4] = {0x766c6f636b763100ull /* "vx lock v1" */, lo, hi, set.n};
		hex128(XXH3_128bits(fold, sizeof fold), ls->hash[k]);
	}
	vec_free(&set);
	vec_free(&lh);
	walk_release(&w);
}

struct lockset *lockset_read(enum lock_format fmt, const char *path, const char *text, size_t len,
			     const struct lock_importer *importers, size_t n, struct strbuf *err)
{
	struct lockset *ls = xcalloc(1, sizeof *ls);
	ls->imp = importers;
	ls->n_imp = n;
	ls->imp_node = xmalloc((n + 1) * sizeof *ls->imp_node);
	ls->imp_rel = xcalloc(n + 1, sizeof *ls->imp_rel);
	for (size_t k = 0; k < n; k++) {
		ls->imp_node[k] = SIZE_MAX;
		size_t len;
		const char *r = rel_trim(importers[k].rel, &len);
		ls->imp_rel[k] = xstrndup(r, len);
		size_t seen;
		if (!strmap_get(&ls->imp_by_rel, ls->imp_rel[k], &seen))
			strmap_put(&ls->imp_by_rel, ls->imp_rel[k], k);
	}
	int rc;
	switch (fmt) {
	case LOCK_NPM:
		rc = lock_parse_npm(ls, text, len, err);
		break;
	case LOCK_PNPM:
		rc = lock_parse_pnpm(ls, text, len, err);
		break;
	case LOCK_YARN:
		/* berry's file is YAML and opens with __metadata (after comments) */
		rc = memmem(text, len, "\n__metadata:", 12) ||
			     (len >= 11 && !memcmp(text, "__metadata:", 11))
			 ? lock_parse_berry(ls, text, len, err)
			 : lock_parse_yarn(ls, text, len, err);
		break;
	case LOCK_BUN:
		rc = lock_parse_bun(ls, text, len, err);
		break;
	default:
		rc = -1;
		strbuf_addstr(err, "unknown lockfile format");
	}
	(void)path;
	if (rc) {
		lockset_free(ls);
		return NULL;
	}
	finish(ls);
	return ls;
}

void lockset_free(struct lockset *ls)
{
	if (!ls)
		return;
	for (size_t i = 0; i < ls->nodes.n; i++) {
		free(ls->nodes.v[i].id);
		free(ls->nodes.v[i].line);
		vec_free(&ls->nodes.v[i].edges);
	}
	vec_free(&ls->nodes);
	strmap_clear(&ls->by_id);
	free(ls->imp_node);
	for (size_t k = 0; ls->imp_rel && k < ls->n_imp; k++)
		free(ls->imp_rel[k]);
	free(ls->imp_rel);
	strmap_clear(&ls->imp_by_rel);
	free(ls->hash);
	free(ls->line_of);
	free(ls);
}

const char *lockset_hash(const struct lockset *ls, size_t i)
{
	return ls->hash[i];
}

size_t lockset_packages(const struct lockset *ls)
{
	return ls->n_pkgs;
}

void lockset_lines(const struct lockset *ls, size_t i, struct strvec *out)
{
	struct walk w;
	walk_init(ls, &w);
	struct idxvec set = {0};
	closure_of(ls, &w, i, &set);
	/* a line's first node: the lines are interned in node order */
	const char **first = xcalloc(ls->n_lines + 1, sizeof *first);
	for (size_t n = 0; n < ls->nodes.n; n++)
		if (ls->line_of[n] != SIZE_MAX && !first[ls->line_of[n]])
			first[ls->line_of[n]] = ls->nodes.v[n].line;
	struct strvec mine = STRVEC_INIT;
	for (size_t s = 0; s < set.n; s++)
		strvec_push(&mine, first[set.v[s]]);
	strvec_sort(&mine);
	strvec_extend(out, &mine);
	strvec_clear(&mine);
	free(first);
	vec_free(&set);
	walk_release(&w);
}

/* The NAME of a "NAME VERSION IDENTITY" line: its length. */
static size_t name_len(const char *line)
{
	const char *sp = strchr(line, ' ');
	return sp ? (size_t)(sp - line) : strlen(line);
}

static int name_cmp(const char *a, const char *b)
{
	size_t la = name_len(a), lb = name_len(b);
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* The VERSION of a line, into buf. */
static const char *version_of(const char *line, char *buf, size_t size)
{
	const char *v = line + name_len(line);
	v += *v == ' ';
	size_t n = strcspn(v, " ");
	if (n >= size)
		n = size - 1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return buf;
}

static void diff_item(struct strbuf *out, size_t *items, size_t max, const char *fmt,
		      const char *name, size_t nlen, const char *a, const char *b)
{
	if ((*items)++ >= max)
		return;
	if (out->len)
		strbuf_addstr(out, ", ");
	strbuf_addf(out, "%.*s ", (int)nlen, name);
	strbuf_addf(out, fmt, a, b);
}

void lock_lines_diff(const struct strvec *old, const struct strvec *now, size_t max,
		     struct strbuf *out)
{
	size_t a = 0, b = 0, items = 0;
	char va[128], vb[128];
	struct strbuf mine = STRBUF_INIT;
	while (a < old->n || b < now->n) {
		/* the next name, and each side's run of lines with it */
		const char *name =
		    a < old->n && (b >= now->n || name_cmp(old->v[a], now->v[b]) <= 0) ? old->v[a]
										       : now->v[b];
		size_t nl = name_len(name);
		size_t a_end = a, b_end = b;
		while (a_end < old->n && !name_cmp(old->v[a_end], name))
			a_end++;
		while (b_end < now->n && !name_cmp(now->v[b_end], name))
			b_end++;
		/* the lines only one side holds (each run is sorted) */
		struct strvec gone = STRVEC_INIT, came = STRVEC_INIT;
		size_t i = a, j = b;
		while (i < a_end || j < b_end) {
			int c = i >= a_end ? 1 : j >= b_end ? -1 : strcmp(old->v[i], now->v[j]);
			if (c < 0)
				strvec_push(&gone, old->v[i++]);
			else if (c > 0)
				strvec_push(&came, now->v[j++]);
			else
				i++, j++;
		}
		size_t pairs = gone.n < came.n ? gone.n : came.n;
		for (size_t p = 0; p < pairs; p++) {
			version_of(gone.v[p], va, sizeof va);
			version_of(came.v[p], vb, sizeof vb);
			if (strcmp(va, vb))
				diff_item(&mine, &items, max, "%s \u2192 %s", name, nl, va, vb);
			else
				diff_item(&mine, &items, max, "%s%s (integrity changed)", name, nl,
					  va, "");
		}
		for (size_t p = pairs; p < gone.n; p++)
			diff_item(&mine, &items, max, "%s removed%s", name, nl,
				  version_of(gone.v[p], va, sizeof va), "");
		for (size_t p = pairs; p < came.n; p++)
			diff_item(&mine, &items, max, "%s added%s", name, nl,
				  version_of(came.v[p], vb, sizeof vb), "");
		strvec_clear(&gone);
		strvec_clear(&came);
		a = a_end;
		b = b_end;
	}
	if (items > max)
		strbuf_addf(&mine, ", and %zu more", items - max);
	strbuf_add(out, mine.buf, mine.len);
	strbuf_release(&mine);
}

void lock_json_error(struct strbuf *err, const char *text, const struct json_error *je)
{
	if (!je) {
		strbuf_addstr(err, "not a JSON object");
		return;
	}
	int line, col;
	jsonloc_line_col(text, je->at, &line, &col);
	strbuf_addf(err, "%d:%d: %s", line, col, je->message);
}
