/* pnpm.c - reads pnpm-workspace.yaml's packages: (pnpm.h). */
#include "orchestrator/config/pnpm.h"

#include <errno.h>
#include <string.h>
#include <yaml.h>

#include "util/die.h"
#include "util/strbuf.h"
#include "util/yamlload.h"
#include "util/yamlnode.h"

static struct loc mark(const char *path, yaml_mark_t m)
{
	return (struct loc){path, (int)m.line + 1, (int)m.column + 1};
}

int pnpm_workspace_packages(const char *path, lstr_vec *out)
{
	struct strbuf text = STRBUF_INIT;
	if (strbuf_read_file(&text, path)) {
		strbuf_release(&text);
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return error("cannot read %s: %s", path, strbuf_read_strerror(errno));
	}
	int rc = config_check_size(path, text.len)
		     ? -1
		     : pnpm_workspace_parse(path, text.buf, text.len, out);
	strbuf_release(&text);
	return rc;
}

int pnpm_workspace_parse(const char *path, const char *text, size_t len, lstr_vec *out)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int rc = 0;
	struct yamlload_error err;
	if (!yamlload_next(&parser, &doc, &err)) {
		struct loc l = {path, err.line, err.col};
		rc = config_error(&l, "%s", err.message);
		yaml_parser_delete(&parser);
		return rc;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	yaml_node_t *seq = NULL, *first = NULL;
	if (root && root->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
		     !rc && pr < root->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
			const char *name = yamlnode_scalar(k);
			if (!name || strcmp(name, "packages"))
				continue;
			if (first) {
				/* pnpm's YAML reader refuses the file; taking either
				 * list would build projects pnpm never installed */
				struct loc l = mark(path, k->start_mark);
				rc = config_error(&l,
						  "duplicate key \"packages\" (first at line %d)",
						  (int)first->start_mark.line + 1);
			}
			first = k;
			seq = yaml_document_get_node(&doc, pr->value);
		}
	} else if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
		struct loc l = mark(path, root->start_mark);
		rc = config_error(&l, "pnpm-workspace.yaml must be a mapping (packages: [...])");
	}
	if (!rc && seq) {
		if (seq->type != YAML_SEQUENCE_NODE) {
			struct loc l = mark(path, seq->start_mark);
			rc = config_error(&l,
					  "pnpm-workspace.yaml packages: must be a list of globs");
		}
		for (int pass = 0; !rc && pass < 2; pass++) {
			for (yaml_node_item_t *it = seq->data.sequence.items.start;
			     !rc && it < seq->data.sequence.items.top; it++) {
				yaml_node_t *e = yaml_document_get_node(&doc, *it);
				struct loc l = mark(path, e->start_mark);
				if (e->type != YAML_SCALAR_NODE || !e->data.scalar.length) {
					rc = config_error(
					    &l, "pnpm-workspace.yaml packages: entries must "
						"be globs (strings)");
					break;
				}
				const char *s = (const char *)e->data.scalar.value;
				if ((s[0] == '!') != (pass == 1))
					continue;
				/* a leading "./" is pnpm's spelling too */
				while (s[0] == '.' && s[1] == '/')
					s += 2;
				if (s[0] == '!' && s[1] == '.' && s[2] == '/') {
					char *t = xasprintf("!%s", s + 3);
					vec_push(out, ((struct lstr){t, l}));
					continue;
				}
				vec_push(out, ((struct lstr){xstrdup(s), l}));
			}
		}
		if (!rc)
			rc = 1;
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}
