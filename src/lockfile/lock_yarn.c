/* yarn.lock v1 (Yarn classic), its own line format:
 *
 *   "@babel/core@^7.0.0", "@babel/core@^7.1.0":
 *     version "7.1.2"
 *     resolved "https://registry.yarnpkg.com/@babel/core/-/core-7.1.2.tgz#…"
 *     integrity sha512-…
 *     dependencies:
 *       "@babel/code-frame" "^7.0.0"
 *
 * An entry answers every descriptor (NAME@RANGE) of its header; a
 * dependency is the descriptor NAME@RANGE. Workspace packages are not in the
 * file: a project's direct dependencies come from its package.json. */
#include <stdlib.h>
#include <string.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"

struct yarn {
	const char *s, *end;
	size_t line;
	struct strbuf *err;
};

int lg_yarn_token(const char **p, const char *end, struct strbuf *tok)
{
	const char *s = *p;
	strbuf_reset(tok);
	if (s < end && *s == '"') {
		for (s++; s < end && *s != '"' && *s != '\n'; s++) {
			if (*s == '\\' && s + 1 < end && s[1] != '\n')
				s++;
			strbuf_addch(tok, *s);
		}
		if (s >= end || *s != '"')
			return -1;
		*p = s + 1;
		return 0;
	}
	while (s < end && *s != ' ' && *s != '\n' && *s != ',' &&
	       !(*s == ':' && (s + 1 == end || s[1] == '\n' || s[1] == ' ')))
		strbuf_addch(tok, *s++);
	*p = s;
	return 0;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\r'))
		(*p)++;
}

struct entry {
	size_t node;
	struct strbuf version, ident;
	struct strvec deps; /* NAME@RANGE */
};

static int fail(struct yarn *y, const char *what)
{
	strbuf_addf(y->err, "line %zu: %s", y->line, what);
	return -1;
}

/* Ends the entry e: resolves its node. */
static void close_entry(struct lockset *ls, struct entry *e, struct strvec *all_deps,
			struct idxvec *from)
{
	const char *id = ls->nodes.v[e->node].id;
	struct strbuf name = STRBUF_INIT;
	strbuf_add(&name, id, lg_name_len(id));
	lg_resolve(ls, e->node, name.buf, e->version.buf, e->ident.buf);
	strbuf_release(&name);
	for (size_t d = 0; d < e->deps.n; d++) {
		strvec_push(all_deps, e->deps.v[d]);
		vec_push(from, e->node);
	}
	strvec_clear(&e->deps);
	strbuf_reset(&e->version);
	strbuf_reset(&e->ident);
}

int lock_parse_yarn(struct lockset *ls, const char *text, size_t len, struct strbuf *err)
{
	struct yarn y = {.s = text, .end = text + len, .err = err};
	struct entry e = {.version = STRBUF_INIT, .ident = STRBUF_INIT};
	struct strbuf tok = STRBUF_INIT, tok2 = STRBUF_INIT, integrity = STRBUF_INIT;
	struct strvec all_deps = STRVEC_INIT;
	struct idxvec from = {0};
	bool in_entry = false, in_deps = false, saw_v1 = false;
	int rc = 0;
	const char *p = text;
	while (p < y.end && !rc) {
		y.line++;
		const char *eol = memchr(p, '\n', (size_t)(y.end - p));
		if (!eol)
			eol = y.end;
		size_t indent = 0;
		while (p + indent < eol && p[indent] == ' ')
			indent++;
		const char *q = p + indent;
		if (q == eol || *q == '#' || (*q == '\r' && q + 1 == eol)) {
			if (*q == '#' && memmem(q, (size_t)(eol - q), "yarn lockfile v1", 16))
				saw_v1 = true;
			p = eol + (eol < y.end);
			continue;
		}
		if (indent == 0) { /* a header: descriptors, then ':' */
			if (in_entry) {
				close_entry(ls, &e, &all_deps, &from);
				strbuf_reset(&integrity);
			}
			in_entry = true;
			in_deps = false;
			bool first = true;
			while (q < eol && !rc) {
				if (lg_yarn_token(&q, eol, &tok) || !tok.len) {
					rc = fail(&y, "a header is not a list of descriptors");
					break;
				}
				size_t i = lg_node(ls, tok.buf);
				if (first)
					e.node = i;
				else
					lg_edge(ls, i, e.node); /* another name for the same */
				first = false;
				skip_spaces(&q, eol);
				if (q < eol && *q == ',') {
					q++;
					skip_spaces(&q, eol);
				} else if (q < eol && *q == ':') {
					q++;
					skip_spaces(&q, eol);
					if (q != eol)
						rc = fail(&y, "text after a header's ':'");
					break;
				} else {
					rc = fail(&y, "a header must end with ':'");
				}
			}
		} else if (!in_entry) {
			rc = fail(&y, "an indented line outside an entry");
		} else if (indent == 2) {
			if (lg_yarn_token(&q, eol, &tok) || !tok.len) {
				rc = fail(&y, "an unterminated string");
				break;
			}
			skip_spaces(&q, eol);
			if (q < eol && *q == ':') {
				in_deps = !strcmp(tok.buf, "dependencies") ||
					  !strcmp(tok.buf, "optionalDependencies");
				p = eol + (eol < y.end);
				continue;
			}
			in_deps = false;
			if (lg_yarn_token(&q, eol, &tok2)) {
				rc = fail(&y, "an unterminated string");
				break;
			}
			if (!strcmp(tok.buf, "version"))
				strbuf_addstr(&e.version, tok2.buf);
			else if (!strcmp(tok.buf, "integrity"))
				strbuf_addstr(&integrity, tok2.buf);
			else if (!strcmp(tok.buf, "resolved") && !e.ident.len)
				strbuf_addstr(&e.ident, tok2.buf);
			if (integrity.len) {
				strbuf_reset(&e.ident);
				strbuf_add(&e.ident, integrity.buf, integrity.len);
			}
		} else if (in_deps) {
			if (lg_yarn_token(&q, eol, &tok) || !tok.len) {
				rc = fail(&y, "an unterminated string");
				break;
			}
			skip_spaces(&q, eol);
			if (lg_yarn_token(&q, eol, &tok2)) {
				rc = fail(&y, "an unterminated string");
				break;
			}
			strvec_pushf(&e.deps, "%s@%s", tok.buf, tok2.buf);
		}
		p = eol + (eol < y.end);
	}
	if (!rc && in_entry)
		close_entry(ls, &e, &all_deps, &from);
	if (!rc && !saw_v1 && ls->nodes.n == 0 && len > 0)
		rc = fail(&y, "no \"# yarn lockfile v1\" line and no entry");
	/* dependencies by descriptor, once every entry is known */
	for (size_t d = 0; !rc && d < all_deps.n; d++) {
		long to = lg_find(ls, all_deps.v[d]);
		if (to >= 0)
			lg_edge(ls, from.v[d], (size_t)to);
	}
	/* the importers, from their package.json: a workspace's name links to
	 * its project; anything else is the descriptor NAME@SPEC */
	if (!rc)
		lg_importer_nodes(ls);
	for (size_t k = 0; !rc && k < ls->n_imp; k++) {
		const struct lock_importer *im = &ls->imp[k];
		for (size_t d = 0; d < im->n_deps; d++) {
			strbuf_reset(&tok);
			strbuf_addf(&tok, "%s@%s", im->dep_names[d], im->dep_specs[d]);
			long to = lg_find(ls, tok.buf);
			long w = lg_importer_name(ls, im->dep_names[d]);
			if (to < 0 && w >= 0)
				to = (long)ls->imp_node[w];
			if (to >= 0)
				lg_edge(ls, ls->imp_node[k], (size_t)to);
		}
	}
	strbuf_release(&tok);
	strbuf_release(&tok2);
	strbuf_release(&integrity);
	strbuf_release(&e.version);
	strbuf_release(&e.ident);
	strvec_clear(&e.deps);
	strvec_clear(&all_deps);
	vec_free(&from);
	return rc;
}
