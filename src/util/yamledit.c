/* yamledit.c - one insertion into a YAML text, placed by libyaml's marks. */
#include "util/yamledit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/die.h"
#include "util/yamlnode.h"

struct edit {
	const char *text;
	size_t len;
	yaml_document_t doc;
	struct yamlload_error *err;
};

static int fail_at(struct edit *e, const yaml_node_t *n, const char *fmt, const char *what)
{
	e->err->line = n ? (int)n->start_mark.line + 1 : 1;
	e->err->col = n ? (int)n->start_mark.column + 1 : 1;
	snprintf(e->err->message, sizeof e->err->message, fmt, what);
	return -1;
}

static bool is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = (const char *)n->data.scalar.value;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static bool is_flow(const yaml_node_t *n)
{
	return (n->type == YAML_SEQUENCE_NODE &&
		n->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE) ||
	       (n->type == YAML_MAPPING_NODE && n->data.mapping.style == YAML_FLOW_MAPPING_STYLE);
}

/* The byte after the last character of node n's own text (key: the key it
 * is the value of, which places an empty value). A block collection's end
 * mark lies at the next token, past any comments that follow: its text ends
 * where its last item's does. */
static size_t node_end(struct edit *e, const yaml_node_t *n, const yaml_node_t *key)
{
	if (n->type == YAML_SCALAR_NODE) {
		if (n->data.scalar.length || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			return n->end_mark.index;
		return key ? key->end_mark.index : n->start_mark.index;
	}
	if (is_flow(n))
		return n->end_mark.index;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.top == n->data.sequence.items.start)
			return n->start_mark.index;
		return node_end(e, yaml_document_get_node(&e->doc, n->data.sequence.items.top[-1]),
				NULL);
	}
	if (n->data.mapping.pairs.top == n->data.mapping.pairs.start)
		return n->start_mark.index;
	const yaml_node_pair_t *last = n->data.mapping.pairs.top - 1;
	return node_end(e, yaml_document_get_node(&e->doc, last->value),
			yaml_document_get_node(&e->doc, last->key));
}

/* Where a line inserted after the one holding byte at begins. */
static size_t next_line(const struct edit *e, size_t at)
{
	if (at > 0 && e->text[at - 1] == '\n')
		return at;
	const char *nl = memchr(e->text + at, '\n', e->len - at);
	return nl ? (size_t)(nl - e->text) + 1 : e->len;
}

/* A key as YAML reads it back: plain when it is a plain word, else quoted. */
static void add_key(struct strbuf *sb, const char *key)
{
	bool plain = *key && strchr("-?:,[]{}#&*!|>'\"%@`~ ", *key) == NULL;
	for (const char *c = key; plain && *c; c++)
		plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			(*c >= '0' && *c <= '9') || strchr("_-./$", *c);
	if (plain && (!strcmp(key, "true") || !strcmp(key, "false") || !strcmp(key, "null") ||
		      !strcmp(key, "y") || !strcmp(key, "n") || !strcmp(key, "yes") ||
		      !strcmp(key, "no") || !strcmp(key, "on") || !strcmp(key, "off")))
		plain = false;
	if (plain)
		strbuf_addstr(sb, key);
	else
		strbuf_add_json_string(sb, key);
}

static void add_values(struct strbuf *sb, const char *const *v, size_t n, bool lead)
{
	for (size_t i = 0; i < n; i++) {
		if (lead || i)
			strbuf_addstr(sb, ", ");
		strbuf_add_json_string(sb, v[i]);
	}
}

/* The leaf: ["a", "b"], or {} when no values are asked for. */
static void add_leaf(struct strbuf *sb, const char *const *v, size_t n)
{
	if (!n) {
		strbuf_addstr(sb, "{}");
		return;
	}
	strbuf_addch(sb, '[');
	add_values(sb, v, n, false);
	strbuf_addch(sb, ']');
}

/* "k1: {k2: [...]}" for path k1, k2. */
static void add_flow(struct strbuf *sb, const char *const *path, size_t n, const char *const *v,
		     size_t nv)
{
	for (size_t i = 0; i < n; i++) {
		add_key(sb, path[i]);
		strbuf_addstr(sb, i + 1 < n ? ": {" : ": ");
	}
	add_leaf(sb, v, nv);
	for (size_t i = 1; i < n; i++)
		strbuf_addch(sb, '}');
}

/* "k1:\n  k2: [...]\n" at column col. */
static void add_block(struct strbuf *sb, size_t col, const char *const *path, size_t n,
		      const char *const *v, size_t nv)
{
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(sb, "%*s", (int)(col + 2 * i), "");
		add_key(sb, path[i]);
		strbuf_addstr(sb, i + 1 < n ? ":\n" : ": ");
	}
	add_leaf(sb, v, nv);
	strbuf_addch(sb, '\n');
}

/* out = text with ins put at byte at (replacing the n bytes there). */
static void splice(const struct edit *e, size_t at, size_t n, const struct strbuf *ins,
		   struct strbuf *out)
{
	strbuf_add(out, e->text, at);
	strbuf_add(out, ins->buf, ins->len);
	strbuf_add(out, e->text + at + n, e->len - at - n);
}

/* A line that ends the text: a newline first when the text has none. */
static void block_at_end(const struct edit *e, size_t at, struct strbuf *ins)
{
	if (at == e->len && e->len && e->text[e->len - 1] != '\n') {
		struct strbuf nl = STRBUF_INIT;
		strbuf_addch(&nl, '\n');
		strbuf_add(&nl, ins->buf, ins->len);
		strbuf_release(ins);
		*ins = nl;
	}
}

/* Adds path's rest and the leaf into mapping m, which lacks path[0]. */
static void add_to_mapping(struct edit *e, const yaml_node_t *m, const char *const *path, size_t n,
			   const char *const *v, size_t nv, struct strbuf *out)
{
	struct strbuf ins = STRBUF_INIT;
	bool empty = m->data.mapping.pairs.top == m->data.mapping.pairs.start;
	size_t at;
	if (is_flow(m)) {
		at = m->start_mark.index + 1; /* after the "{" */
		if (!empty) {
			const yaml_node_pair_t *last = m->data.mapping.pairs.top - 1;
			at = node_end(e, yaml_document_get_node(&e->doc, last->value),
				      yaml_document_get_node(&e->doc, last->key));
			strbuf_addstr(&ins, ", ");
		}
		add_flow(&ins, path, n, v, nv);
	} else {
		const yaml_node_t *first =
		    yaml_document_get_node(&e->doc, m->data.mapping.pairs.start->key);
		at = next_line(e, node_end(e, m, NULL));
		add_block(&ins, first->start_mark.column, path, n, v, nv);
		block_at_end(e, at, &ins);
	}
	splice(e, at, 0, &ins, out);
	strbuf_release(&ins);
}

/* "sandbox: {}" under a block mapping, given its first key: "{}" goes, and
 * the rest is a block below "sandbox:", as a person writes it. */
static void unfold_empty(struct edit *e, const yaml_node_t *key, const yaml_node_t *m,
			 const char *const *path, size_t np, const char *const *v, size_t nv,
			 struct strbuf *out)
{
	size_t a = m->start_mark.index, b = m->end_mark.index, at = next_line(e, b);
	while (a > key->end_mark.index && (e->text[a - 1] == ' ' || e->text[a - 1] == '\t'))
		a--;
	strbuf_add(out, e->text, a);
	strbuf_add(out, e->text + b, at - b);
	if (at == e->len && e->len && e->text[e->len - 1] != '\n')
		strbuf_addch(out, '\n');
	add_block(out, key->start_mark.column + 2, path, np, v, nv);
	strbuf_add(out, e->text + at, e->len - at);
}

/* Puts path's rest and the leaf in place of the null value n of key. */
static void replace_null(struct edit *e, const yaml_node_t *key, const yaml_node_t *n,
			 const char *const *path, size_t np, const char *const *v, size_t nv,
			 struct strbuf *out)
{
	struct strbuf ins = STRBUF_INIT;
	size_t span = n->end_mark.index - n->start_mark.index;
	if (span && n->data.scalar.length) { /* "~", "null": the flow form in its place */
		if (np) {
			strbuf_addch(&ins, '{');
			add_flow(&ins, path, np, v, nv);
			strbuf_addch(&ins, '}');
		} else {
			add_leaf(&ins, v, nv);
		}
		splice(e, n->start_mark.index, span, &ins, out);
	} else if (!np) { /* "read:" → "read: [...]", after the colon */
		size_t at = key->end_mark.index;
		while (at < e->len && (e->text[at] == ' ' || e->text[at] == '\t'))
			at++;
		if (at < e->len && e->text[at] == ':')
			at++;
		strbuf_addch(&ins, ' ');
		add_leaf(&ins, v, nv);
		splice(e, at, 0, &ins, out);
	} else { /* "sandbox:" → the rest as a block below it */
		size_t at = next_line(e, key->end_mark.index);
		add_block(&ins, key->start_mark.column + 2, path, np, v, nv);
		block_at_end(e, at, &ins);
		splice(e, at, 0, &ins, out);
	}
	strbuf_release(&ins);
}

/* Adds the values missing from sequence s. Returns how many. */
static size_t add_to_sequence(struct edit *e, const yaml_node_t *s, const char *const *v, size_t nv,
			      struct strbuf *out)
{
	const char **missing = xcalloc(nv + 1, sizeof *missing);
	size_t nm = 0;
	for (size_t i = 0; i < nv; i++) {
		bool there = false;
		for (yaml_node_item_t *it = s->data.sequence.items.start;
		     !there && it < s->data.sequence.items.top; it++) {
			const char *x = yamlnode_scalar(yaml_document_get_node(&e->doc, *it));
			there = x && !strcmp(x, v[i]);
		}
		for (size_t k = 0; !there && k < nm; k++)
			there = !strcmp(missing[k], v[i]);
		if (!there)
			missing[nm++] = v[i];
	}
	if (nm) {
		struct strbuf ins = STRBUF_INIT;
		bool empty = s->data.sequence.items.top == s->data.sequence.items.start;
		size_t at;
		if (is_flow(s)) {
			at = empty ? s->start_mark.index + 1 /* after the "[" */
				   : node_end(e,
					      yaml_document_get_node(
						  &e->doc, s->data.sequence.items.top[-1]),
					      NULL);
			add_values(&ins, missing, nm, !empty);
		} else {
			at = next_line(e, node_end(e, s, NULL));
			for (size_t i = 0; i < nm; i++) {
				strbuf_addf(&ins, "%*s- ", (int)s->start_mark.column, "");
				strbuf_add_json_string(&ins, missing[i]);
				strbuf_addch(&ins, '\n');
			}
			block_at_end(e, at, &ins);
		}
		splice(e, at, 0, &ins, out);
		strbuf_release(&ins);
	}
	free(missing);
	return nm;
}

static int load(struct edit *e)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return fail_at(e, NULL, "%s", "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)e->text, e->len);
	int ok = yamlload_next(&p, &e->doc, e->err);
	yaml_parser_delete(&p);
	return ok ? 0 : -1;
}

/* The edit, on a loaded document: 0 with out filled (empty: no change). */
static int edit_doc(struct edit *e, const char *const *path, size_t np, const char *const *v,
		    size_t nv, struct strbuf *out)
{
	yaml_node_t *n = yaml_document_get_root_node(&e->doc), *key = NULL, *parent = NULL;
	if (!n || is_null(n)) { /* nothing but comments, or nothing */
		struct strbuf ins = STRBUF_INIT;
		add_block(&ins, 0, path, np, v, nv);
		block_at_end(e, e->len, &ins);
		splice(e, e->len, 0, &ins, out);
		strbuf_release(&ins);
		return 0;
	}
	for (size_t i = 0; i <= np; i++) {
		if (key && n->start_mark.index < key->end_mark.index)
			return fail_at(e, key,
				       "the value of \"%s\" is an alias: vx does not edit what "
				       "an anchor shares; write it by hand",
				       (const char *)key->data.scalar.value);
		if (key && is_null(n)) {
			replace_null(e, key, n, path + i, np - i, v, nv, out);
			return 0;
		}
		if (i == np)
			break;
		if (n->type != YAML_MAPPING_NODE)
			return i ? fail_at(e, n, "\"%s\" must be a mapping here", path[i - 1])
				 : fail_at(e, n, "%s", "the file must be a mapping");
		yaml_node_t *value = NULL;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     !value && p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&e->doc, p->key);
			const char *ks = yamlnode_scalar(k);
			if (ks && !strcmp(ks, path[i])) {
				value = yaml_document_get_node(&e->doc, p->value);
				key = k;
			}
		}
		if (!value) {
			if (key && parent && !is_flow(parent) && is_flow(n) &&
			    n->data.mapping.pairs.top == n->data.mapping.pairs.start)
				unfold_empty(e, key, n, path + i, np - i, v, nv, out);
			else
				add_to_mapping(e, n, path + i, np - i, v, nv, out);
			return 0;
		}
		parent = n;
		n = value;
	}
	if (!nv) {
		if (n->type != YAML_MAPPING_NODE)
			return fail_at(e, n, "\"%s\" must be a mapping", path[np - 1]);
		return 0;
	}
	if (n->type != YAML_SEQUENCE_NODE)
		return fail_at(e, n, "\"%s\" must be a list", path[np - 1]);
	add_to_sequence(e, n, v, nv, out);
	return 0;
}

/* Does the edited text hold each value at path? */
static bool holds(const struct strbuf *text, const char *const *path, size_t np,
		  const char *const *v, size_t nv)
{
	struct yamlload_error err;
	struct edit e = {.text = text->buf, .len = text->len, .err = &err};
	if (load(&e))
		return false;
	yaml_node_t *n = yaml_document_get_root_node(&e.doc);
	for (size_t i = 0; n && i < np; i++)
		n = yamlnode_get(&e.doc, n, path[i]);
	bool ok = n && (nv ? n->type == YAML_SEQUENCE_NODE : n->type == YAML_MAPPING_NODE);
	for (size_t i = 0; ok && i < nv; i++) {
		bool there = false;
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     !there && it < n->data.sequence.items.top; it++) {
			const char *x = yamlnode_scalar(yaml_document_get_node(&e.doc, *it));
			there = x && !strcmp(x, v[i]);
		}
		ok = there;
	}
	yaml_document_delete(&e.doc);
	return ok;
}

int yamledit_add(const char *text, size_t len, const char *const *path, size_t npath,
		 const char *const *values, size_t nvalues, struct strbuf *out, bool *changed,
		 struct yamlload_error *err)
{
	struct edit e = {.text = text ? text : "", .len = text ? len : 0, .err = err};
	*changed = false;
	if (!npath)
		return fail_at(&e, NULL, "%s", "an empty path");
	if (load(&e))
		return -1;
	struct strbuf edited = STRBUF_INIT;
	int rc = edit_doc(&e, path, npath, values, nvalues, &edited);
	yaml_node_t *root = yaml_document_get_root_node(&e.doc);
	yaml_node_t root_copy = root ? *root : (yaml_node_t){0};
	yaml_document_delete(&e.doc);
	if (!rc && edited.len && !holds(&edited, path, npath, values, nvalues)) {
		err->line = (int)root_copy.start_mark.line + 1;
		err->col = (int)root_copy.start_mark.column + 1;
		snprintf(err->message, sizeof err->message,
			 "vx could not add to this file without changing what it says (a "
			 "layout it does not edit); write it by hand");
		rc = -1;
	}
	if (!rc) {
		*changed = edited.len > 0;
		strbuf_reset(out);
		if (*changed)
			strbuf_add(out, edited.buf, edited.len);
		else
			strbuf_add(out, e.text, e.len);
	}
	strbuf_release(&edited);
	return rc;
}
