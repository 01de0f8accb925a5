/* yamlnode.h - reading a libyaml document's nodes: a scalar's text, a
 * mapping's value by key. The config, turbo.json, pnpm-workspace.yaml and
 * Yarn Berry lockfile readers share them. */
#ifndef VX_UTIL_YAMLNODE_H
#define VX_UTIL_YAMLNODE_H

#include <string.h>
#include <yaml.h>

/* n's text when it is a scalar, else NULL (n may be NULL). */
static inline const char *yamlnode_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in mapping map (the first, when it is given twice), or
 * NULL: no such key, or map NULL or no mapping. */
static inline yaml_node_t *yamlnode_get(yaml_document_t *doc, const yaml_node_t *map,
					const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = yamlnode_scalar(yaml_document_get_node(doc, p->key));
		if (k && !strcmp(k, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

#endif
