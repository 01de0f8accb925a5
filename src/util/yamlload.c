/* yamlload.c - see yamlload.h. The composer follows libyaml's loader
 * (loader.c): a node is added when its event arrives, a collection's
 * children are appended as they close, an anchor names the node it marks
 * and an alias reuses that node. */
#include "util/yamlload.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/die.h"
#include "util/jsonloc.h"
#include "util/strmap.h"
#include "util/vec.h"

/* err at the parser's problem: its mark, or, for a reader error (which
 * has only a byte offset), the line and character that byte is at. */
static void parser_error(const yaml_parser_t *p, struct yamlload_error *err)
{
	if (p->error == YAML_MEMORY_ERROR)
		die("out of memory parsing YAML");
	err->line = (int)p->problem_mark.line + 1;
	err->col = (int)p->problem_mark.column + 1;
	if (p->error == YAML_READER_ERROR) {
		const char *s = (const char *)p->input.string.start;
		size_t n = (size_t)(p->input.string.end - p->input.string.start);
		jsonloc_line_col(s, p->problem_offset < n ? p->problem_offset : n, &err->line,
				 &err->col);
	}
	snprintf(err->message, sizeof err->message, "%s%s%s",
		 p->problem ? p->problem : "YAML syntax error", p->context ? " " : "",
		 p->context ? p->context : "");
}

static void mark_error(const yaml_mark_t *m, struct yamlload_error *err, const char *msg)
{
	err->line = (int)m->line + 1;
	err->col = (int)m->column + 1;
	snprintf(err->message, sizeof err->message, "%s", msg);
}

struct open {
	int id;
	size_t weight;		   /* its nodes so far, each alias counted as what it names */
	int key;		   /* a mapping's key awaiting its value, else 0 */
	const yaml_char_t *anchor; /* named when it closes: no alias inside it can
				    * reach it, so a document is never a cycle */
};

/* Appends node id to the collection open on top, or it is the root. */
static void attach(yaml_document_t *doc, struct open *top, int id)
{
	if (!top)
		return; /* the root: node 1, added first */
	yaml_node_t *n = yaml_document_get_node(doc, top->id);
	int ok = 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		ok = yaml_document_append_sequence_item(doc, top->id, id);
	} else if (!top->key) {
		top->key = id;
	} else {
		ok = yaml_document_append_mapping_pair(doc, top->id, top->key, id);
		top->key = 0;
	}
	if (!ok)
		die("out of memory parsing YAML");
}

struct anchors {
	struct strmap ids; /* name -> node id; the names kept in names */
	struct strvec names;
};

static void name_anchor(struct anchors *a, const yaml_char_t *name, int id)
{
	if (!name)
		return;
	size_t k = a->names.n;
	strvec_push(&a->names, (const char *)name);
	strmap_put(&a->ids, a->names.v[k], (size_t)id);
}

static void set_marks(yaml_document_t *doc, int id, const yaml_event_t *e)
{
	yaml_node_t *n = yaml_document_get_node(doc, id);
	n->start_mark = e->start_mark;
	n->end_mark = e->end_mark;
}

typedef VEC(size_t) weight_vec;

/* Node id's weight: the nodes it stands for, aliases expanded. */
static void set_weight(weight_vec *w, int id, size_t weight)
{
	while (w->n <= (size_t)id)
		vec_push(w, (size_t)0);
	w->v[id] = weight;
}

static int load(yaml_parser_t *parser, yaml_document_t *doc, struct yamlload_error *err, bool json)
{
	if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1))
		die("out of memory parsing YAML");
	yaml_event_t e;
	if (!parser->stream_start_produced) {
		if (!yaml_parser_parse(parser, &e))
			goto parse_error;
		yaml_event_delete(&e); /* STREAM-START */
	}
	if (parser->stream_end_produced)
		return 1;
	if (!yaml_parser_parse(parser, &e))
		goto parse_error;
	if (e.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&e);
		return 1;
	}
	yaml_event_delete(&e); /* DOCUMENT-START */

	VEC(struct open) stack = {0};
	struct anchors anchors = {STRMAP_INIT, STRVEC_INIT};
	/* What a reader that follows every alias walks: nested aliases
	 * double it a level ("billion laughs": 30 levels of two were a
	 * 600 KB turbo.json that took 13.8 s a run, and 2 GB) */
	weight_vec weights = {0};
	size_t aliased = 0; /* the nodes the aliases stand for, expanded */
	int rc = 1;
	while (rc) {
		if (!yaml_parser_parse(parser, &e)) {
			parser_error(parser, err);
			rc = 0;
			break;
		}
		if (e.type == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		struct open *top = stack.n ? &stack.v[stack.n - 1] : NULL;
		int id = 0;
		size_t at;
		const yaml_char_t *anchor_of =
		    e.type == YAML_SCALAR_EVENT		  ? e.data.scalar.anchor
		    : e.type == YAML_SEQUENCE_START_EVENT ? e.data.sequence_start.anchor
		    : e.type == YAML_MAPPING_START_EVENT  ? e.data.mapping_start.anchor
							  : NULL;
		if (json && (e.type == YAML_ALIAS_EVENT || anchor_of)) {
			mark_error(&e.start_mark, err,
				   e.type == YAML_ALIAS_EVENT
				       ? "an alias (*), which JSON has not"
				       : "an anchor (&), which JSON has not");
			rc = 0;
			yaml_event_delete(&e);
			break;
		}
		switch (e.type) {
		case YAML_ALIAS_EVENT:
			if (strmap_get(&anchors.ids, (const char *)e.data.alias.anchor, &at)) {
				attach(doc, top, (int)at);
				size_t w = at < weights.n ? weights.v[at] : 1;
				aliased += w;
				if (top)
					top->weight += w;
			} else {
				mark_error(&e.start_mark, err, "found undefined alias");
				rc = 0;
			}
			break;
		case YAML_SCALAR_EVENT:
			id = yaml_document_add_scalar(doc, NULL, e.data.scalar.value,
						      (int)e.data.scalar.length,
						      e.data.scalar.style);
			if (!id)
				die("out of memory parsing YAML");
			set_marks(doc, id, &e);
			attach(doc, top, id);
			name_anchor(&anchors, e.data.scalar.anchor, id);
			set_weight(&weights, id, 1);
			if (top)
				top->weight++;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (stack.n >= YAMLLOAD_MAX_DEPTH) {
				char msg[80];
				snprintf(msg, sizeof msg, "nested deeper than %d levels",
					 YAMLLOAD_MAX_DEPTH);
				mark_error(&e.start_mark, err, msg);
				rc = 0;
				break;
			}
			bool seq = e.type == YAML_SEQUENCE_START_EVENT;
			id =
			    seq ? yaml_document_add_sequence(doc, NULL, e.data.sequence_start.style)
				: yaml_document_add_mapping(doc, NULL, e.data.mapping_start.style);
			if (!id)
				die("out of memory parsing YAML");
			set_marks(doc, id, &e);
			attach(doc, top, id);
			/* the event keeps its anchor until it is deleted: copied,
			 * and named when the collection closes */
			yaml_char_t *anchor =
			    seq ? e.data.sequence_start.anchor : e.data.mapping_start.anchor;
			if (anchor) {
				strvec_push(&anchors.names, (const char *)anchor);
				anchor = (yaml_char_t *)anchors.names.v[anchors.names.n - 1];
			}
			vec_push(&stack, ((struct open){id, 1, 0, anchor}));
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (top) {
				yaml_document_get_node(doc, top->id)->end_mark = e.end_mark;
				if (top->anchor) /* its name is kept in names already */
					strmap_put(&anchors.ids, (const char *)top->anchor,
						   (size_t)top->id);
				set_weight(&weights, top->id, top->weight);
				size_t w = top->weight;
				stack.n--;
				if (stack.n)
					stack.v[stack.n - 1].weight += w;
			}
			break;
		default:
			break;
		}
		if (rc && aliased > YAMLLOAD_MAX_ALIASED) {
			char msg[96];
			snprintf(msg, sizeof msg, "its aliases stand for more than %d nodes",
				 YAMLLOAD_MAX_ALIASED);
			mark_error(&e.start_mark, err, msg);
			rc = 0;
		}
		yaml_event_delete(&e);
	}
	vec_free(&stack);
	vec_free(&weights);
	strmap_clear(&anchors.ids);
	strvec_clear(&anchors.names);
	if (!rc) {
		yaml_document_delete(doc);
		memset(doc, 0, sizeof *doc);
	}
	return rc;

parse_error:
	parser_error(parser, err);
	yaml_document_delete(doc);
	memset(doc, 0, sizeof *doc);
	return 0;
}

int yamlload_next(yaml_parser_t *parser, yaml_document_t *doc, struct yamlload_error *err)
{
	return load(parser, doc, err, false);
}

int yamlload_json(yaml_parser_t *parser, yaml_document_t *doc, struct yamlload_error *err)
{
	return load(parser, doc, err, true);
}
