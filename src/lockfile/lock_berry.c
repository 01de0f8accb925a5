/* yarn.lock of Yarn berry (2 and later): YAML, a __metadata mapping, then
 * one entry per resolution under the descriptors that chose it:
 *
 *   "react@npm:^18.0.0, react@npm:^18.2.0":
 *     version: 18.2.0
 *     resolution: "react@npm:18.2.0"
 *     dependencies:
 *       loose-envify: "npm:^1.1.0"
 *     checksum: 10c0/…
 *
 * A workspace is the entry resolved as "NAME@workspace:REL". */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/yamlload.h"
#include "util/yamlnode.h"

/* The node of an entry's header "D1, D2, …": its first descriptor's, the
 * others linked to it. */
static size_t header_node(struct lockset *ls, const char *key)
{
	size_t main = SIZE_MAX;
	const char *s = key;
	while (*s) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, ",");
		size_t t = n;
		while (t && s[t - 1] == ' ')
			t--;
		if (t) {
			size_t i = lg_noden(ls, s, t);
			if (main == SIZE_MAX)
				main = i;
			else
				lg_edge(ls, i, main);
		}
		s += n + (s[n] == ',');
	}
	return main;
}

int lock_parse_berry(struct lockset *ls, const char *text, size_t len, struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	struct yamlload_error yerr;
	if (!yamlload_next(&parser, &doc, &yerr)) {
		strbuf_addf(err, "line %d: %s", yerr.line, yerr.message);
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_parser_delete(&parser);
	int rc = -1;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	const char *ver =
	    yamlnode_scalar(yamlnode_get(&doc, yamlnode_get(&doc, root, "__metadata"), "version"));
	if (!root || root->type != YAML_MAPPING_NODE || !ver) {
		strbuf_addstr(err, "no __metadata version");
		goto out;
	}
	if (atoi(ver) < 4 || atoi(ver) > 8) {
		strbuf_addf(err, "__metadata version %s is not read (4 to 8 are)", ver);
		goto out;
	}
	lg_importer_nodes(ls);
	struct idxvec nodes = {0};
	yaml_node_pair_t *start = root->data.mapping.pairs.start;
	yaml_node_pair_t *top = root->data.mapping.pairs.top;
	for (yaml_node_pair_t *e = start; e < top; e++) {
		const char *key = yamlnode_scalar(yaml_document_get_node(&doc, e->key));
		yaml_node_t *body = yaml_document_get_node(&doc, e->value);
		size_t i = SIZE_MAX;
		if (key && strcmp(key, "__metadata") && body->type == YAML_MAPPING_NODE)
			i = header_node(ls, key);
		vec_push(&nodes, i);
		if (i == SIZE_MAX)
			continue;
		const char *res = yamlnode_scalar(yamlnode_get(&doc, body, "resolution"));
		const char *ws = res ? strstr(res, "@workspace:") : NULL;
		if (ws && (size_t)(ws - res) == lg_name_len(res)) {
			long k = lg_importer_rel(ls, ws + 11);
			if (k >= 0)
				lg_edge(ls, i, ls->imp_node[k]);
			continue;
		}
		const char *checksum = yamlnode_scalar(yamlnode_get(&doc, body, "checksum"));
		char *name =
		    res ? xstrndup(res, lg_name_len(res)) : xstrndup(key, lg_name_len(key));
		lg_resolve(ls, i, name, yamlnode_scalar(yamlnode_get(&doc, body, "version")),
			   checksum ? checksum : res);
		free(name);
	}
	struct strbuf desc = STRBUF_INIT;
	size_t at = 0;
	for (yaml_node_pair_t *e = start; e < top; e++, at++) {
		size_t i = nodes.v[at];
		if (i == SIZE_MAX)
			continue;
		yaml_node_t *body = yaml_document_get_node(&doc, e->value);
		const char *res = yamlnode_scalar(yamlnode_get(&doc, body, "resolution"));
		const char *ws = res ? strstr(res, "@workspace:") : NULL;
		long self = ws && (size_t)(ws - res) == lg_name_len(res)
				? lg_importer_rel(ls, ws + 11)
				: -1;
		size_t from = self >= 0 ? ls->imp_node[self] : i;
		yaml_node_t *deps = yamlnode_get(&doc, body, "dependencies");
		if (!deps || deps->type != YAML_MAPPING_NODE)
			continue;
		for (yaml_node_pair_t *d = deps->data.mapping.pairs.start;
		     d < deps->data.mapping.pairs.top; d++) {
			const char *name = yamlnode_scalar(yaml_document_get_node(&doc, d->key));
			const char *range = yamlnode_scalar(yaml_document_get_node(&doc, d->value));
			if (!name || !range)
				continue;
			strbuf_reset(&desc);
			strbuf_addf(&desc, "%s@%s", name, range);
			long to = lg_find(ls, desc.buf);
			if (to < 0 && !strchr(range, ':')) {
				strbuf_reset(&desc);
				strbuf_addf(&desc, "%s@npm:%s", name, range);
				to = lg_find(ls, desc.buf);
			}
			if (to < 0 && !strncmp(range, "workspace:", 10)) {
				long w = lg_importer_name(ls, name);
				to = w >= 0 ? (long)ls->imp_node[w] : -1;
			}
			if (to >= 0)
				lg_edge(ls, from, (size_t)to);
		}
	}
	strbuf_release(&desc);
	vec_free(&nodes);
	rc = 0;
out:
	yaml_document_delete(&doc);
	return rc;
}
