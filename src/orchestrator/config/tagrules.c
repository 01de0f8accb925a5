/* tagrules.c - turbo.json's "boundaries" and "tags" (tagrules.h).
 *
 * The shape is turbo 2.11's (its crates/turborepo-boundaries config.rs):
 * boundaries holds tags (tag -> {dependencies, dependents}),
 * implicitDependencies, and a package's own dependencies and dependents;
 * each of those four-way objects holds allow and deny, lists of strings.
 * turbo refuses any other key and any other type ("Found an unknown key
 * `alow`"), so vx does too, at its place, with the closest known key. */
#include "orchestrator/config/tagrules.h"

#include <stdlib.h>
#include <string.h>

#include "util/closest.h"
#include "util/die.h"
#include "util/jsonc.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/yamlload.h"
#include "util/yamlnode.h"

/* One read: the file and document the places come from. */
struct reader {
	const char *path;
	yaml_document_t *doc;
};

static struct loc at(const struct reader *r, const yaml_node_t *n)
{
	return (struct loc){r->path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
}

static yaml_node_t *node(const struct reader *r, int id)
{
	return yaml_document_get_node(r->doc, id);
}

static bool is_null(const yaml_node_t *n)
{
	const char *s = yamlnode_scalar(n);
	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(s, "null");
}

/* A JSON string: a quoted scalar (true, 1 and null are none). */
static const char *string(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE
		   ? (const char *)n->data.scalar.value
		   : NULL;
}

static int unknown(const struct reader *r, const yaml_node_t *k, const char *where,
		   const char *const *known)
{
	size_t n = 0;
	while (known[n])
		n++;
	const char *key = yamlnode_scalar(k);
	const char *near = key ? closest_name(key, known, n) : NULL;
	struct loc l = at(r, k);
	if (near)
		return config_error(&l, "unknown key \"%s\" in %s (did you mean \"%s\"?)", key,
				    where, near);
	return config_error(&l, "unknown key \"%s\" in %s (turbo refuses it too)", key ? key : "?",
			    where);
}

static int need_object(const struct reader *r, const yaml_node_t *v, const char *what)
{
	if (v->type == YAML_MAPPING_NODE)
		return 0;
	struct loc l = at(r, v);
	return config_error(&l, "%s must be an object", what);
}

/* A list of strings into out (NULL: checked only). */
static int read_strings(const struct reader *r, const yaml_node_t *v, const char *what,
			lstr_vec *out)
{
	if (v->type != YAML_SEQUENCE_NODE) {
		struct loc l = at(r, v);
		return config_error(&l, "%s must be a list of strings", what);
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = node(r, *it);
		const char *s = string(e);
		if (!s) {
			struct loc l = at(r, e);
			return config_error(&l, "%s must be a list of strings", what);
		}
		if (out)
			vec_push(out, ((struct lstr){xstrdup(s), at(r, e)}));
	}
	return 0;
}

/* {"allow": [...], "deny": [...]} */
static int read_perms(const struct reader *r, const yaml_node_t *v, struct tagrules_perms *out)
{
	static const char *const keys[] = {"allow", "deny", NULL};
	if (need_object(r, v, "a boundaries \"dependencies\" or \"dependents\""))
		return -1;
	if (out)
		out->set = true;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node(r, p->key), *val = node(r, p->value);
		const char *name = yamlnode_scalar(k);
		struct tagrules_list *l = NULL;
		if (name && !strcmp(name, "allow"))
			l = out ? &out->allow : NULL;
		else if (name && !strcmp(name, "deny"))
			l = out ? &out->deny : NULL;
		else
			return unknown(r, k, "boundaries", keys);
		char *what = xasprintf("boundaries \"%s\"", name);
		int rc = read_strings(r, val, what, l ? &l->names : NULL);
		free(what);
		if (rc)
			return -1;
		if (l) {
			l->set = true;
			l->loc = at(r, val);
		}
	}
	return 0;
}

/* {"dependencies": {...}, "dependents": {...}} and, at the top of
 * boundaries, tags and implicitDependencies too. */
static int read_rule_keys(const struct reader *r, const yaml_node_pair_t *p,
			  struct tagrules_perms *deps, struct tagrules_perms *dependents,
			  const char *const *keys)
{
	yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
	const char *name = yamlnode_scalar(k);
	if (name && !strcmp(name, "dependencies"))
		return read_perms(r, v, deps);
	if (name && !strcmp(name, "dependents"))
		return read_perms(r, v, dependents);
	return unknown(r, k, "boundaries", keys);
}

static int read_boundaries(const struct reader *r, const yaml_node_t *v, struct tagrules *out)
{
	static const char *const top[] = {"tags", "implicitDependencies", "dependencies",
					  "dependents", NULL};
	static const char *const rule_keys[] = {"dependencies", "dependents", NULL};
	if (need_object(r, v, "turbo.json \"boundaries\""))
		return -1;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node(r, p->key), *val = node(r, p->value);
		const char *name = yamlnode_scalar(k);
		if (name && !strcmp(name, "implicitDependencies")) {
			if (read_strings(r, val, "boundaries \"implicitDependencies\"",
					 out ? &out->implicit : NULL))
				return -1;
			continue;
		}
		if (!name || strcmp(name, "tags")) {
			if (read_rule_keys(r, p, out ? &out->dependencies : NULL,
					   out ? &out->dependents : NULL, top))
				return -1;
			continue;
		}
		if (need_object(r, val, "boundaries \"tags\""))
			return -1;
		if (out) {
			out->has_rules = true;
			out->rules_loc = at(r, k);
		}
		for (yaml_node_pair_t *q = val->data.mapping.pairs.start;
		     q < val->data.mapping.pairs.top; q++) {
			yaml_node_t *tk = node(r, q->key), *tv = node(r, q->value);
			if (need_object(r, tv, "a boundaries tag's rule"))
				return -1;
			struct tagrules_rule rule = {
			    .tag = {xstrdup(yamlnode_scalar(tk) ? yamlnode_scalar(tk) : ""),
				    at(r, tk)}};
			int rc = 0;
			for (yaml_node_pair_t *e = tv->data.mapping.pairs.start;
			     !rc && e < tv->data.mapping.pairs.top; e++)
				rc = read_rule_keys(r, e, out ? &rule.dependencies : NULL,
						    out ? &rule.dependents : NULL, rule_keys);
			if (out && !rc) {
				vec_push(&out->rules, rule);
				continue;
			}
			free(rule.tag.s);
			lstr_vec_free(&rule.dependencies.allow.names);
			lstr_vec_free(&rule.dependencies.deny.names);
			lstr_vec_free(&rule.dependents.allow.names);
			lstr_vec_free(&rule.dependents.deny.names);
			if (rc)
				return -1;
		}
	}
	return 0;
}

int tagrules_read_key(const char *path, yaml_document_t *doc, const yaml_node_t *k,
		      const yaml_node_t *v, struct tagrules *out)
{
	struct reader r = {path, doc};
	const char *name = yamlnode_scalar(k);
	bool tags = name && !strcmp(name, "tags");
	if (!tags && (!name || strcmp(name, "boundaries")))
		return 0;
	if (is_null(v))
		return 1;
	if (tags) {
		if (read_strings(&r, v, "\"tags\"", out ? &out->tags : NULL))
			return -1;
		if (out) {
			out->has_tags = true;
			out->tags_loc = at(&r, v);
		}
		return 1;
	}
	return read_boundaries(&r, v, out) ? -1 : 1;
}

int tagrules_load(const char *dir, struct tagrules *out)
{
	static const char *const names[] = {"turbo.json", "turbo.jsonc"};
	memset(out, 0, sizeof *out);
	struct strbuf sb = STRBUF_INIT;
	char *path = NULL;
	for (size_t i = 0; i < 2 && !path; i++) {
		char *p = path_join(dir, names[i]);
		if (strbuf_read_file(&sb, p) == 0)
			path = p;
		else
			free(p);
	}
	if (!path) {
		strbuf_release(&sb);
		return 0;
	}
	out->path = path;
	jsonc_blank(sb.buf, sb.len);
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)sb.buf, sb.len);
	struct yamlload_error err;
	int rc = 1;
	if (!yamlload_json(&parser, &doc, &err)) {
		struct loc l = {path, err.line, err.col};
		rc = config_error(&l, "turbo.json is not JSON: %s", err.message);
	} else {
		struct reader r = {path, &doc};
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		for (yaml_node_pair_t *p = root && root->type == YAML_MAPPING_NODE
					       ? root->data.mapping.pairs.start
					       : NULL;
		     p && rc > 0 && p < root->data.mapping.pairs.top; p++)
			if (tagrules_read_key(path, &doc, node(&r, p->key), node(&r, p->value),
					      out) < 0)
				rc = -1;
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	strbuf_release(&sb);
	return rc;
}

static void perms_release(struct tagrules_perms *p)
{
	lstr_vec_free(&p->allow.names);
	lstr_vec_free(&p->deny.names);
}

void tagrules_release(struct tagrules *r)
{
	for (size_t i = 0; i < r->rules.n; i++) {
		free(r->rules.v[i].tag.s);
		perms_release(&r->rules.v[i].dependencies);
		perms_release(&r->rules.v[i].dependents);
	}
	vec_free(&r->rules);
	lstr_vec_free(&r->tags);
	lstr_vec_free(&r->implicit);
	perms_release(&r->dependencies);
	perms_release(&r->dependents);
	free(r->path);
	memset(r, 0, sizeof *r);
}

const struct tagrules_rule *tagrules_find(const struct tagrules *r, const char *tag)
{
	for (size_t i = 0; i < r->rules.n; i++)
		if (!strcmp(r->rules.v[i].tag.s, tag))
			return &r->rules.v[i];
	return NULL;
}
