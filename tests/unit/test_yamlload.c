/* Unit tests for util/yamlload.c: the document it composes is the one
 * libyaml's loader makes (nodes, marks, styles, anchors), the depth is
 * bounded at its bracket, a reader error is placed at its byte, and an
 * alias cannot reach the collection it lies in (no cycle). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/yamlload.h"
#include "util/strbuf.h"
#include "util/yamlnode.h"

static int load(const char *text, size_t len, yaml_document_t *doc, struct yamlload_error *err)
{
	yaml_parser_t p;
	CHECK(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = yamlload_next(&p, doc, err);
	if (rc) {
		/* a second load sees the stream's end: no root */
		yaml_document_t end;
		CHECK(yamlload_next(&p, &end, err) == 1);
		CHECK(yaml_document_get_root_node(&end) == NULL);
		yaml_document_delete(&end);
	}
	yaml_parser_delete(&p);
	return rc;
}

static void test_same_document(void)
{
	const char *text = "a: 1\nb: [x, 'y', {c: d}]\ne: &k {f: g}\nh: *k\n";
	yaml_document_t doc;
	struct yamlload_error err;
	CHECK(load(text, strlen(text), &doc, &err) == 1);
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	CHECK(root && root->type == YAML_MAPPING_NODE);
	CHECK_STR(yamlnode_scalar(yamlnode_get(&doc, root, "a")), "1");
	yaml_node_t *b = yamlnode_get(&doc, root, "b");
	CHECK(b && b->type == YAML_SEQUENCE_NODE && b->start_mark.line == 1 &&
	      b->start_mark.column == 3);
	CHECK(b && b->data.sequence.items.top - b->data.sequence.items.start == 3);
	yaml_node_t *y = b ? yaml_document_get_node(&doc, b->data.sequence.items.start[1]) : NULL;
	CHECK(y && y->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE);
	yaml_node_t *map = b ? yaml_document_get_node(&doc, b->data.sequence.items.start[2]) : NULL;
	CHECK_STR(yamlnode_scalar(yamlnode_get(&doc, map, "c")), "d");
	CHECK(yamlnode_get(&doc, root, "h") == yamlnode_get(&doc, root, "e")); /* the alias */
	CHECK_STR(yamlnode_scalar(yamlnode_get(&doc, yamlnode_get(&doc, root, "h"), "f")), "g");
	yaml_document_delete(&doc);
}

static void test_errors(void)
{
	yaml_document_t doc;
	struct yamlload_error err;
	/* 256 levels load; the 257th bracket is the error */
	char deep[600];
	memset(deep, '[', 257);
	memset(deep + 257, ']', 257);
	CHECK(load(deep + 1, 512, &doc, &err) == 1);
	yaml_document_delete(&doc);
	CHECK(load(deep, 514, &doc, &err) == 0);
	CHECK_INT(err.line, 1);
	CHECK_INT(err.col, 257);
	CHECK_STR(err.message, "nested deeper than 256 levels");
	/* a reader error: at its line and character (é is one) */
	const char *bad = "a: 1\nb: \"é\xff\"\n";
	CHECK(load(bad, strlen(bad), &doc, &err) == 0);
	CHECK_INT(err.line, 2);
	CHECK_INT(err.col, 6);
	CHECK_STR(err.message, "invalid leading UTF-8 octet");
	const char nul[] = "a: 1\n\nb: x\0y\n";
	CHECK(load(nul, sizeof nul - 1, &doc, &err) == 0);
	CHECK_INT(err.line, 3);
	CHECK_INT(err.col, 5);
	/* a syntax error at its mark, with libyaml's words */
	CHECK(load("a: [1, 2\n", 9, &doc, &err) == 0);
	CHECK(strstr(err.message, "flow sequence") != NULL);
	/* an alias inside the collection it names: undefined, so no cycle */
	CHECK(load("a: &x [1, *x]\n", 14, &doc, &err) == 0);
	CHECK_INT(err.line, 1);
	CHECK_INT(err.col, 11);
	CHECK_STR(err.message, "found undefined alias");
}

/* Aliases that stand for more than YAMLLOAD_MAX_ALIASED nodes are refused ("billion
 * laughs": a review's 600 KB turbo.json of nested aliases took 13.8 s a
 * run and 2 GB), a few anchors are fine, and JSON (turbo.json) has none. */
static void test_aliases(void)
{
	yaml_document_t doc;
	struct yamlload_error err;
	struct strbuf sb = STRBUF_INIT;
	/* 30 levels, each a list of two aliases of the level below: 2^30 */
	strbuf_addstr(&sb, "l0: &l0 [x, y]\n");
	for (int i = 1; i < 30; i++)
		strbuf_addf(&sb, "l%d: &l%d [*l%d, *l%d]\n", i, i, i - 1, i - 1);
	CHECK(load(sb.buf, sb.len, &doc, &err) == 0);
	CHECK(strstr(err.message, "aliases stand for more than 1000000 nodes") != NULL);
	CHECK(err.line > 15); /* where the count passed the bound */
	/* the same at 10 levels (about 3000 nodes): loads */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "l0: &l0 [x, y]\n");
	for (int i = 1; i < 10; i++)
		strbuf_addf(&sb, "l%d: &l%d [*l%d, *l%d]\n", i, i, i - 1, i - 1);
	CHECK(load(sb.buf, sb.len, &doc, &err) == 1);
	yaml_document_delete(&doc);
	strbuf_release(&sb);

	yaml_parser_t p;
	const char *json = "{\"a\": &x [1], \"b\": *x}";
	CHECK(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)json, strlen(json));
	CHECK(yamlload_json(&p, &doc, &err) == 0);
	CHECK_INT(err.col, 7);
	CHECK_STR(err.message, "an anchor (&), which JSON has not");
	yaml_parser_delete(&p);
	const char *plain = "{\"a\": [\"&x\", \"*y\"]}";
	CHECK(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)plain, strlen(plain));
	CHECK(yamlload_json(&p, &doc, &err) == 1); /* & and * in strings are text */
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
}

int main(void)
{
	test_same_document();
	test_errors();
	test_aliases();
	return check_finish("yamlload");
}
