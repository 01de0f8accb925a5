/* config.c - vx.yaml through libyaml's document loader into struct config.
 *
 * The walk is driven by the schema: each mapping knows its keys, so an
 * unknown key is caught where it is written, with the nearest valid key
 * suggested. Because the walk descends only where the schema allows, a
 * document of aliases cannot make it do more work than the schema's depth
 * (no "billion laughs" through this walk). */
#include "orchestrator/config/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "orchestrator/config/schema.h"
#include "util/closest.h"
#include "util/glob.h"
#include "util/strbuf.h"
#include "util/yamlload.h"

struct parse {
	const char *path;
	yaml_document_t doc;
};

static struct loc node_loc(const struct parse *p, const yaml_node_t *n)
{
	struct loc l = {p->path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
	return l;
}

static int config_verror(const struct loc *l, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	fprintf(stderr, "vx: %s:%d:%d: %s\n", l->file, l->line, l->col, sb.buf);
	strbuf_release(&sb);
	return -1;
}

int config_error(const struct loc *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	config_verror(l, fmt, ap);
	va_end(ap);
	return -1;
}

VX_PRINTF(3, 4)
static int perr(const struct parse *p, const yaml_node_t *n, const char *fmt, ...)
{
	struct loc l = node_loc(p, n);
	va_list ap;
	va_start(ap, fmt);
	config_verror(&l, fmt, ap);
	va_end(ap);
	return -1;
}

static yaml_node_t *node(struct parse *p, int id)
{
	return yaml_document_get_node(&p->doc, id);
}

static bool is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

static const char *type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_SCALAR_NODE:
		return is_null(n) ? "nothing" : "a scalar";
	default:
		return "nothing";
	}
}

/* Checks key against the NULL-terminated list of valid keys of the mapping
 * named what. Returns 0 when known; otherwise prints the error, suggesting
 * the nearest key when it is close enough to be a typo, and returns -1. */
static int check_key(struct parse *p, yaml_node_t *kn, const char *key, const char *what,
		     const char *const *valid)
{
	size_t n = 0;
	for (; valid[n]; n++)
		if (!strcmp(key, valid[n]))
			return 0;
	const char *best = closest_name(key, valid, n);
	if (best)
		return perr(p, kn, "unknown key \"%s\" in %s (did you mean \"%s\"?)", key, what,
			    best);
	struct strbuf sb = STRBUF_INIT;
	for (const char *const *v = valid; *v; v++)
		strbuf_addf(&sb, "%s%s", v == valid ? "" : ", ", *v);
	int rc = perr(p, kn, "unknown key \"%s\" in %s (valid keys: %s)", key, what, sb.buf);
	strbuf_release(&sb);
	return rc;
}

/* Walks a mapping's pairs: for each, checks the key is a scalar, not a
 * repeat, and (when valid is non-NULL) one of valid. */
struct pair_iter {
	yaml_node_pair_t *cur, *start, *end;
};

static int mapping_begin(struct parse *p, yaml_node_t *n, const char *what, struct pair_iter *it)
{
	if (n->type != YAML_MAPPING_NODE) {
		if (is_null(n)) {
			it->cur = it->start = it->end = NULL;
			return 0;
		}
		return perr(p, n, "%s must be a mapping, not %s", what, type_name(n));
	}
	it->cur = it->start = n->data.mapping.pairs.start;
	it->end = n->data.mapping.pairs.top;
	return 0;
}

static int mapping_next(struct parse *p, struct pair_iter *it, const char *what,
			const char *const *valid, const char **key, yaml_node_t **value)
{
	/* set on every path: GCC 12 at -O2 cannot see the callers read them
	 * only after a 1 (-Werror=maybe-uninitialized in a Release build) */
	*key = NULL;
	*value = NULL;
	if (it->cur == it->end)
		return 0;
	yaml_node_pair_t *pair = it->cur++;
	yaml_node_t *kn = node(p, pair->key);
	if (kn->type != YAML_SCALAR_NODE)
		return perr(p, kn, "a key in %s must be a string, not %s", what, type_name(kn));
	*key = (const char *)kn->data.scalar.value;
	for (yaml_node_pair_t *q = it->start; q < pair; q++) {
		yaml_node_t *prev = node(p, q->key);
		if (prev->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)prev->data.scalar.value, *key))
			return perr(p, kn, "duplicate key \"%s\" in %s (first at line %d)", *key,
				    what, (int)prev->start_mark.line + 1);
	}
	if (valid && check_key(p, kn, *key, what, valid))
		return -1;
	*value = node(p, pair->value);
	return 1;
}

int config_expand(const char *in, char **out, struct strbuf *why)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *s = in; *s;) {
		if (s[0] == '$' && s[1] == '$' && s[2] == '{') {
			strbuf_addstr(&sb, "${");
			s += 3;
		} else if (s[0] == '$' && s[1] == '{') {
			const char *end = strchr(s + 2, '}');
			if (!end) {
				strbuf_addf(
				    why, "unclosed \"${\" in \"%s\" (write \"$${\" for a literal)",
				    in);
				strbuf_release(&sb);
				return -1;
			}
			char *name = xstrndup(s + 2, (size_t)(end - s - 2));
			bool ok = *name != '\0';
			for (char *c = name; *c; c++)
				if (!isalnum((unsigned char)*c) && *c != '_')
					ok = false;
			const char *v = ok ? getenv(name) : NULL;
			if (!ok)
				strbuf_addf(why, "\"${%s}\" is not a variable name", name);
			else if (!v)
				strbuf_addf(why,
					    "environment variable %s is not set (used as ${%s})",
					    name, name);
			else
				strbuf_addstr(&sb, v);
			free(name);
			if (!v) {
				strbuf_release(&sb);
				return -1;
			}
			s = end + 1;
		} else {
			strbuf_addch(&sb, *s++);
		}
	}
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

/* config_expand, its error at n. */
static int expand_env(struct parse *p, yaml_node_t *n, const char *in, char **out)
{
	if (!strchr(in, '$')) {
		*out = xstrdup(in);
		return 0;
	}
	struct strbuf why = STRBUF_INIT;
	int rc = config_expand(in, out, &why) ? perr(p, n, "%s", why.buf) : 0;
	strbuf_release(&why);
	return rc;
}

enum { RAW = 0, EXPAND = 1 };

static int get_str(struct parse *p, yaml_node_t *n, const char *what, int expand, char **out)
{
	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return perr(p, n, "%s must be a string, not %s", what, type_name(n));
	const char *v = (const char *)n->data.scalar.value;
	if (strlen(v) != n->data.scalar.length)
		return perr(p, n, "%s holds a NUL byte", what);
	if (expand)
		return expand_env(p, n, v, out);
	*out = xstrdup(v);
	return 0;
}

static int get_lstr(struct parse *p, yaml_node_t *n, const char *what, int expand, struct lstr *out)
{
	out->loc = node_loc(p, n);
	return get_str(p, n, what, expand, &out->s);
}

static int get_bool(struct parse *p, yaml_node_t *n, const char *what, bool *out)
{
	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		const char *v = (const char *)n->data.scalar.value;
		if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) {
			*out = true;
			return 0;
		}
		if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) {
			*out = false;
			return 0;
		}
	}
	if (n->type == YAML_SCALAR_NODE && !is_null(n))
		return perr(p, n, "%s must be true or false, not \"%s\"", what,
			    (const char *)n->data.scalar.value);
	return perr(p, n, "%s must be true or false, not %s", what, type_name(n));
}

static int get_list(struct parse *p, yaml_node_t *n, const char *what, int expand, lstr_vec *out)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return perr(p, n, "%s must be a list of strings, not %s", what, type_name(n));
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		struct lstr s;
		yaml_node_t *item = node(p, *i);
		if (item->type != YAML_SCALAR_NODE || is_null(item))
			return perr(p, item, "each entry of %s must be a string, not %s", what,
				    type_name(item));
		if (get_lstr(p, item, what, expand, &s))
			return -1;
		vec_push(out, s);
	}
	return 0;
}

/* `true`, `false` or a list. */
static int get_grant_list(struct parse *p, yaml_node_t *n, const char *what, struct grant_list *out)
{
	out->loc = node_loc(p, n);
	if (n->type == YAML_SCALAR_NODE && !is_null(n))
		return get_bool(p, n, what, &out->any);
	return get_list(p, n, what, EXPAND, &out->list);
}

int config_parse_duration(const char *s, long long *ms)
{
	long long total = 0;
	const char *c = s;
	if (!*c)
		return -1;
	while (*c) {
		if (!isdigit((unsigned char)*c))
			return -1;
		errno = 0;
		char *end;
		double v = strtod(c, &end);
		if (errno || end == c)
			return -1;
		c = end;
		long long unit;
		if (!strncmp(c, "ms", 2)) {
			unit = 1;
			c += 2;
		} else if (*c == 's') {
			unit = 1000;
			c++;
		} else if (*c == 'm') {
			unit = 60 * 1000;
			c++;
		} else if (*c == 'h') {
			unit = 3600 * 1000;
			c++;
		} else {
			return -1;
		}
		double add = v * (double)unit;
		if (add > 1e15)
			return -1;
		total += (long long)add;
	}
	*ms = total;
	return 0;
}

int config_parse_size(const char *s, long long *bytes)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s)
		return -1;
	while (*end == ' ')
		end++;
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
	    {"", 1},
	    {"B", 1},
	    {"KB", 1e3},
	    {"MB", 1e6},
	    {"GB", 1e9},
	    {"TB", 1e12},
	    {"KiB", 1024.0},
	    {"MiB", 1048576.0},
	    {"GiB", 1073741824.0},
	    {"TiB", 1099511627776.0},
	    {"K", 1024.0},
	    {"M", 1048576.0},
	    {"G", 1073741824.0},
	};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (!strcmp(end, units[i].suffix)) {
			double b = v * units[i].mult;
			/* 0 bytes bounds nothing a size bounds (the remote's body
			 * bound reads 0 as "any") */
			if (b > 9e18 || b < 1)
				return -1;
			*bytes = (long long)b;
			return 0;
		}
	}
	return -1;
}

static int parse_ports(struct parse *p, yaml_node_t *n, const char *what, struct grant_list *out)
{
	out->loc = node_loc(p, n);
	if (n->type == YAML_SCALAR_NODE && !is_null(n))
		return get_bool(p, n, what, &out->any);
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return perr(p, n, "%s must be true, false or a list of ports, not %s", what,
			    type_name(n));
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		yaml_node_t *item = node(p, *i);
		const char *v =
		    item->type == YAML_SCALAR_NODE ? (const char *)item->data.scalar.value : "";
		char *end;
		errno = 0;
		long port = strtol(v, &end, 10);
		if (item->type != YAML_SCALAR_NODE || !*v || *end || errno || port < 1 ||
		    port > 65535)
			return perr(p, item,
				    "a localBinding port must be a number from 1 to 65535");
		struct lstr s = {xstrdup(v), node_loc(p, item)};
		vec_push(&out->list, s);
	}
	return 0;
}

static int parse_env_define(struct parse *p, yaml_node_t *n, const char *what, int expand,
			    kv_vec *out)
{
	struct pair_iter it;
	const char *k;
	yaml_node_t *v;
	int r;
	if (mapping_begin(p, n, what, &it))
		return -1;
	while ((r = mapping_next(p, &it, what, NULL, &k, &v)) > 0) {
		if (!*k || strchr(k, '='))
			return perr(p, v, "\"%s\" is not an environment variable name", k);
		struct kv kv = {xstrdup(k), NULL, node_loc(p, v)};
		/* A number or a boolean is fine as a value: it is text to the task. */
		if (get_str(p, v, "an env.define value", expand, &kv.value)) {
			free(kv.key);
			return -1;
		}
		vec_push(out, kv);
	}
	return r;
}

static int parse_rows(struct parse *p, yaml_node_t *n, const struct schema_row *t,
		      const char *prefix, const char *what, const char *label, void *base,
		      unsigned *set);

/* Reads the value v of row r (its key kn) into base. label: what the
 * user's file calls the table's root ("" for a task, "sandbox."). */
static int parse_row(struct parse *p, const struct schema_row *r, yaml_node_t *kn, yaml_node_t *v,
		     const struct schema_row *t, const char *label, void *base, unsigned *set)
{
	char *what = xasprintf("%s%s", label, r->name);
	int expand = r->flags & SCHEMA_EXPAND ? EXPAND : RAW;
	void *at = (char *)base + r->off;
	int rc = 0;
	switch (r->kind) {
	case SCHEMA_MAP:
		rc = parse_rows(p, v, t, r->name, what, label, base, set);
		break;
	case SCHEMA_STR: {
		struct lstr *l = at;
		rc = get_lstr(p, v, what, expand, l);
		if (!rc && r->refuses && r->refuses(l->s))
			rc = config_error(&l->loc, r->refusal, l->s);
		break;
	}
	case SCHEMA_LIST: {
		lstr_vec *l = at;
		rc = get_list(p, v, what, expand, l);
		for (size_t i = 0; !rc && r->refuses && i < l->n; i++)
			if (r->refuses(l->v[i].s))
				rc = config_error(&l->v[i].loc, r->refusal, l->v[i].s);
		/* a glob that can never match keys nothing, silently (issue 37) */
		for (size_t i = 0; !rc && (r->flags & SCHEMA_GLOBS) && i < l->n; i++) {
			const char *g = l->v[i].s + (l->v[i].s[0] == '!'), *why;
			size_t off;
			/* "." and "./" name the project itself (write: ["./"]) */
			if (g[0] == '.' && strspn(g, "./") == strlen(g) && !strstr(g, ".."))
				continue;
			if (glob_check(g, &why, &off))
				rc = config_error(&l->v[i].loc, "%s \"%s\": %s (docs/glob.md)",
						  what, l->v[i].s, why);
		}
		break;
	}
	case SCHEMA_GRANTS:
		rc = get_grant_list(p, v, what, at);
		break;
	case SCHEMA_PORTS:
		rc = parse_ports(p, v, what, at);
		break;
	case SCHEMA_BOOL:
		rc = get_bool(p, v, what, at);
		break;
	case SCHEMA_BOOL_NOT: {
		bool b = true;
		rc = get_bool(p, v, what, &b);
		*(bool *)at = !b;
		break;
	}
	case SCHEMA_DURATION: {
		char *text = NULL;
		long long *ms = at;
		rc = get_str(p, v, what, expand, &text);
		if (!rc && (config_parse_duration(text, ms) || *ms <= 0))
			rc =
			    perr(p, v,
				 "\"%s\" is not a duration: write e.g. \"90s\", \"10m\", \"1h30m\"",
				 text);
		free(text);
		break;
	}
	case SCHEMA_ENV:
		rc = parse_env_define(p, v, what, expand, at);
		break;
	case SCHEMA_SANDBOX: {
		struct sandbox_cfg *sb = xcalloc(1, sizeof *sb);
		*(struct sandbox_cfg **)at = sb;
		sb->loc = node_loc(p, kn);
		rc = parse_rows(p, v, schema_sandbox, "", what, "sandbox.", sb, NULL);
		break;
	}
	}
	if (set)
		*set |= r->field;
	free(what);
	return rc;
}

/* Reads the mapping n, whose keys are the rows of t directly below prefix,
 * into base; what names the mapping in errors. */
static int parse_rows(struct parse *p, yaml_node_t *n, const struct schema_row *t,
		      const char *prefix, const char *what, const char *label, void *base,
		      unsigned *set)
{
	struct pair_iter it;
	const char *k;
	yaml_node_t *v;
	const char *keys[64]; /* every table has fewer rows than this */
	schema_keys(t, prefix, keys, sizeof keys / sizeof *keys);
	int r = mapping_begin(p, n, what, &it);
	while (!r && (r = mapping_next(p, &it, what, keys, &k, &v)) > 0) {
		const struct schema_row *row = schema_find(t, prefix, k);
		r = parse_row(p, row, node(p, (it.cur - 1)->key), v, t, label, base, set);
	}
	return r;
}

static int parse_task(struct parse *p, yaml_node_t *n, struct task_cfg *t)
{
	char *what = xasprintf("task \"%s\"", t->name);
	int rc = parse_rows(p, n, schema_task, "", what, "", t, &t->set);
	free(what);
	return rc;
}

static int parse_tasks(struct parse *p, yaml_node_t *n, bool root_only, task_vec *out)
{
	struct pair_iter it;
	const char *k;
	yaml_node_t *v;
	int r;
	if (mapping_begin(p, n, "tasks", &it))
		return -1;
	while ((r = mapping_next(p, &it, "tasks", NULL, &k, &v)) > 0) {
		yaml_node_t *kn = node(p, (it.cur - 1)->key);
		/* "//#name" is a task of the root project alone, "pkg#name" one
		 * package's (Turborepo's spellings; workspace.c checks that only
		 * the root's vx.yaml names them and that pkg is a project). */
		const char *hash = strchr(k, '#');
		const char *bare = root_only && hash && hash > k ? hash + 1 : k;
		if (!*bare || strchr(bare, '#') || bare[0] == '^' || strpbrk(bare, " \t\n/") ||
		    (bare != k && strpbrk(k, " \t\n^")))
			return perr(p, kn,
				    "\"%s\" is not a task name (no '#', '/' or spaces, no "
				    "leading '^'; PROJECT#TASK for one project's)",
				    k);
		struct task_cfg *t = xcalloc(1, sizeof *t);
		t->name = xstrdup(k);
		t->loc = node_loc(p, kn);
		vec_push(out, t);
		if (parse_task(p, v, t))
			return -1;
	}
	return r;
}

static const char *const WORKSPACE_KEYS[] = {"projects", "cache", "inputs", NULL};
static const char *const CACHE_KEYS[] = {"dir", "maxSize", "compression", "remote", NULL};
static const char *const REMOTE_KEYS[] = {"url",   "token",	"team",	   "teamId", "read",
					  "write", "signature", "timeout", NULL};
static const char *const WS_INPUT_KEYS[] = {"workspaceFiles", "env", NULL};

static int parse_cache(struct parse *p, yaml_node_t *n, struct config *cfg)
{
	struct pair_iter it, it2;
	const char *k, *k2;
	yaml_node_t *v, *v2;
	int r;
	if (mapping_begin(p, n, "workspace.cache", &it))
		return -1;
	while ((r = mapping_next(p, &it, "workspace.cache", CACHE_KEYS, &k, &v)) > 0) {
		if (!strcmp(k, "dir")) {
			free(cfg->cache_dir);
			cfg->cache_dir = NULL;
			if (get_str(p, v, "cache.dir", EXPAND, &cfg->cache_dir))
				return -1;
			cfg->cache_dir_loc = node_loc(p, v);
		} else if (!strcmp(k, "maxSize")) {
			char *s = NULL;
			int rc = get_str(p, v, "cache.maxSize", EXPAND, &s);
			if (!rc && config_parse_size(s, &cfg->cache_max_size))
				rc = perr(p, v,
					  "\"%s\" is not a size of a byte or more: write e.g. "
					  "\"5GiB\", \"500MB\"",
					  s);
			free(s);
			if (rc)
				return -1;
		} else if (!strcmp(k, "compression")) {
			char *s = NULL, *end;
			if (get_str(p, v, "cache.compression", EXPAND, &s))
				return -1;
			long lvl = strtol(s, &end, 10);
			bool bad = !*s || *end || lvl < 1 || lvl > 19;
			free(s);
			if (bad)
				return perr(p, v,
					    "cache.compression must be a zstd level from 1 to 19");
			cfg->cache_compression = (int)lvl;
		} else {
			if (cfg->remote)
				return perr(p, v, "duplicate cache.remote");
			cfg->remote = xcalloc(1, sizeof *cfg->remote);
			cfg->remote->loc = node_loc(p, v);
			cfg->remote->read = cfg->remote->write = true;
			if (mapping_begin(p, v, "cache.remote", &it2))
				return -1;
			while ((r = mapping_next(p, &it2, "cache.remote", REMOTE_KEYS, &k2, &v2)) >
			       0) {
				if (!strcmp(k2, "read") || !strcmp(k2, "write") ||
				    !strcmp(k2, "signature")) {
					if (get_bool(p, v2, k2,
						     !strcmp(k2, "read") ? &cfg->remote->read
						     : !strcmp(k2, "write")
							 ? &cfg->remote->write
							 : &cfg->remote->signature))
						return -1;
					continue;
				}
				if (!strcmp(k2, "timeout")) {
					char *text = NULL;
					int rc =
					    get_str(p, v2, "cache.remote.timeout", EXPAND, &text);
					if (!rc && (config_parse_duration(
							text, &cfg->remote->timeout_ms) ||
						    cfg->remote->timeout_ms <= 0))
						rc = perr(
						    p, v2,
						    "\"%s\" is not a duration: write e.g. \"30s\"",
						    text);
					free(text);
					if (rc)
						return -1;
					continue;
				}
				char **dst = !strcmp(k2, "url")	     ? &cfg->remote->url
					     : !strcmp(k2, "token")  ? &cfg->remote->token
					     : !strcmp(k2, "teamId") ? &cfg->remote->team_id
								     : &cfg->remote->team;
				if (get_str(p, v2, k2, EXPAND, dst))
					return -1;
			}
			if (r < 0)
				return -1;
			if (!cfg->remote->url)
				return perr(p, v, "cache.remote needs a url");
		}
	}
	return r;
}

static int parse_workspace(struct parse *p, yaml_node_t *n, struct config *cfg)
{
	struct pair_iter it, it2;
	const char *k, *k2;
	yaml_node_t *v, *v2;
	int r;
	if (mapping_begin(p, n, "workspace", &it))
		return -1;
	while ((r = mapping_next(p, &it, "workspace", WORKSPACE_KEYS, &k, &v)) > 0) {
		if (!strcmp(k, "projects")) {
			cfg->projects_set = true;
			if (get_list(p, v, "workspace.projects", EXPAND, &cfg->projects))
				return -1;
		} else if (!strcmp(k, "cache")) {
			if (parse_cache(p, v, cfg))
				return -1;
		} else {
			if (mapping_begin(p, v, "workspace.inputs", &it2))
				return -1;
			while ((r = mapping_next(p, &it2, "workspace.inputs", WS_INPUT_KEYS, &k2,
						 &v2)) > 0) {
				lstr_vec *dst =
				    !strcmp(k2, "env") ? &cfg->ws_input_env : &cfg->ws_input_files;
				if (get_list(p, v2,
					     !strcmp(k2, "env") ? "inputs.env"
								: "inputs.workspaceFiles",
					     EXPAND, dst))
					return -1;
			}
			if (r < 0)
				return -1;
		}
	}
	return r;
}

static const char *const ROOT_KEYS[] = {"workspace", "name", "dependsOn", "tasks", NULL};

static int parse_root(struct parse *p, struct config *cfg)
{
	yaml_node_t *root = yaml_document_get_root_node(&p->doc);
	if (!root)
		return 0; /* an empty file is an empty mapping */
	struct pair_iter it;
	const char *k;
	yaml_node_t *v;
	int r;
	if (mapping_begin(p, root, "vx.yaml", &it))
		return -1;
	while ((r = mapping_next(p, &it, "vx.yaml", ROOT_KEYS, &k, &v)) > 0) {
		if (!strcmp(k, "workspace")) {
			cfg->is_workspace = true;
			if (parse_workspace(p, v, cfg))
				return -1;
		} else if (!strcmp(k, "name")) {
			if (get_lstr(p, v, "name", EXPAND, &cfg->name))
				return -1;
			if (!*cfg->name.s || strchr(cfg->name.s, '#'))
				return perr(p, v,
					    "\"%s\" is not a project name (empty, or holds '#')",
					    cfg->name.s);
		} else if (!strcmp(k, "dependsOn")) {
			if (get_list(p, v, "dependsOn", EXPAND, &cfg->depends_on))
				return -1;
		} else if (!strcmp(k, "tasks")) {
			if (parse_tasks(p, v, true, &cfg->tasks))
				return -1;
		}
	}
	return r;
}

struct config *config_new(const char *path)
{
	struct config *cfg = xcalloc(1, sizeof *cfg);
	cfg->path = xstrdup(path);
	cfg->cache_dir = xstrdup(".vx/cache");
	cfg->cache_max_size = 5LL << 30;
	cfg->cache_compression = 3;
	return cfg;
}

struct config *config_parse(const char *path, const char *text, size_t len)
{
	struct config *cfg = config_new(path);

	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	struct parse p = {.path = cfg->path};
	struct yamlload_error err;
	if (!yamlload_next(&parser, &p.doc, &err)) {
		struct loc l = {path, err.line, err.col};
		config_error(&l, "%s", err.message);
		yaml_parser_delete(&parser);
		config_free(cfg);
		return NULL;
	}
	/* A second document in the same file is almost always a mistake. */
	yaml_document_t extra;
	if (yamlload_next(&parser, &extra, &err)) {
		yaml_node_t *r = yaml_document_get_root_node(&extra);
		if (r) {
			struct loc l = {path, (int)r->start_mark.line + 1,
					(int)r->start_mark.column + 1};
			config_error(&l, "a vx.yaml holds one YAML document; this is a second");
			yaml_document_delete(&extra);
			yaml_document_delete(&p.doc);
			yaml_parser_delete(&parser);
			config_free(cfg);
			return NULL;
		}
		yaml_document_delete(&extra);
	}
	int rc = parse_root(&p, cfg);
	yaml_document_delete(&p.doc);
	yaml_parser_delete(&parser);
	if (rc) {
		config_free(cfg);
		return NULL;
	}
	return cfg;
}

int config_check_size(const char *path, size_t len)
{
	if (len <= (size_t)CONFIG_MAX_MIB << 20)
		return 0;
	return error("%s: %zu bytes, more than %d MiB, the most a configuration file may hold",
		     path, len, CONFIG_MAX_MIB);
}

struct config *config_load(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path)) {
		error("cannot read %s: %s", path, strbuf_read_strerror(errno));
		strbuf_release(&sb);
		return NULL;
	}
	if (config_check_size(path, sb.len)) {
		strbuf_release(&sb);
		return NULL;
	}
	struct config *cfg = config_parse(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return cfg;
}

void task_cfg_free(struct task_cfg *t)
{
	if (!t)
		return;
	free(t->name);
	schema_free(schema_task, t);
	free(t);
}

void config_free(struct config *cfg)
{
	if (!cfg)
		return;
	free(cfg->turbo_path);
	free(cfg->path);
	lstr_vec_free(&cfg->projects);
	free(cfg->cache_dir);
	if (cfg->remote) {
		free(cfg->remote->url);
		free(cfg->remote->token);
		free(cfg->remote->team);
		free(cfg->remote->team_id);
		free(cfg->remote);
	}
	lstr_vec_free(&cfg->ws_input_files);
	lstr_vec_free(&cfg->ws_input_env);
	lstr_vec_free(&cfg->ws_env_pass);
	free(cfg->name.s);
	lstr_vec_free(&cfg->depends_on);
	for (size_t i = 0; i < cfg->tasks.n; i++)
		task_cfg_free(cfg->tasks.v[i]);
	vec_free(&cfg->tasks);
	free(cfg);
}

struct task_cfg *config_find_task(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->tasks.n; i++)
		if (!strcmp(cfg->tasks.v[i]->name, name))
			return cfg->tasks.v[i];
	return NULL;
}

struct task_cfg *config_task_merge(const struct task_cfg *own, const struct task_cfg *defaults)
{
	struct task_cfg *t = xcalloc(1, sizeof *t);
	const struct task_cfg *any = own ? own : defaults;
	t->name = xstrdup(any->name);
	t->loc = any->loc;
	unsigned own_set = own ? own->set : 0;
	unsigned def_set = defaults ? defaults->set : 0;
	t->set = own_set | def_set;
	t->inherited = def_set & ~own_set;
	/* Field by field: the project's own where it wrote one, else the default. */
	for (const struct schema_row *r = schema_task; r->name; r++) {
		if (!r->field)
			continue;
		const struct task_cfg *from = own_set & r->field ? own : defaults;
		if (from)
			schema_copy_row(r, t, from);
	}
	if (!(t->set & TF_CACHE))
		t->cache = !t->persistent; /* SPEC §2.2: persistent tasks are never cached */
	t->replaces = (own && own->replaces) || (defaults && defaults->replaces);
	return t;
}
