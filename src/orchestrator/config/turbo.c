/* turbo.c - turbo.json read into a vx configuration (turbo.h).
 *
 * turbo.json is JSON with comments and trailing commas. Those are blanked
 * to spaces in place (every other byte keeps its line and column), and the
 * rest is read by libyaml, of which JSON is a subset: every node keeps its
 * place, so each warning and error points at FILE:LINE:COL. */
#include "orchestrator/config/turbo.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "orchestrator/config/schema.h"
#include "orchestrator/config/tagrules.h"
#include "util/die.h"
#include "util/jsonc.h"
#include "util/yamlload.h"
#include "util/yamlnode.h"
#include "util/path.h"
#include "util/readcache.h"
#include "util/closest.h"
#include "util/strbuf.h"

extern char **environ;

struct turbo {
	const char *path;
	yaml_document_t doc;
	struct config *cfg;
	/* a package's turbo.json ("extends": ["//"]): the root's config, whose
	 * tasks its own extend, and the package's name */
	const struct config *root;
	const char *package;
	bool extends, env_mode; /* "extends", "envMode" read */
};

static struct loc at(const struct turbo *t, const yaml_node_t *n)
{
	return (struct loc){t->path, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
}

static void warn_at(const struct turbo *t, const yaml_node_t *n, const char *fmt, const char *a)
{
	struct loc l = at(t, n);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, fmt, a);
	warning("%s:%d:%d: %s", l.file, l.line, l.col, sb.buf);
	strbuf_release(&sb);
}

/* A key given twice in one object is an error at the second: which one a
 * JSON reader keeps differs from reader to reader, and a task's config must
 * not depend on it. */
static int dup_key(const struct turbo *t, const yaml_node_t *map, const yaml_node_pair_t *pr)
{
	const char *name =
	    yamlnode_scalar(yaml_document_get_node((yaml_document_t *)&t->doc, pr->key));
	for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; name && q < pr; q++) {
		yaml_node_t *prev = yaml_document_get_node((yaml_document_t *)&t->doc, q->key);
		const char *pn = yamlnode_scalar(prev);
		if (pn && !strcmp(pn, name)) {
			yaml_node_t *k =
			    yaml_document_get_node((yaml_document_t *)&t->doc, pr->key);
			struct loc l = at(t, k);
			return config_error(&l, "duplicate key \"%s\" (first at line %d)", name,
					    (int)prev->start_mark.line + 1);
		}
	}
	return 0;
}

/* A JSON string: a quoted scalar (true, 1 and null are not strings). */
static const char *string(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE
		   ? (const char *)n->data.scalar.value
		   : NULL;
}

static int get_bool(const struct turbo *t, const yaml_node_t *n, const char *key, bool *out)
{
	const char *s = yamlnode_scalar(n);
	if (s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!strcmp(s, "true") || !strcmp(s, "false"))) {
		*out = !strcmp(s, "true");
		return 0;
	}
	struct loc l = at(t, n);
	return config_error(&l, "turbo.json \"%s\" must be true or false", key);
}

/* A list of strings, each with its place. */
static int get_list(struct turbo *t, const yaml_node_t *n, const char *key, lstr_vec *out)
{
	struct loc l = at(t, n);
	if (n->type != YAML_SEQUENCE_NODE)
		return config_error(&l, "turbo.json \"%s\" must be a list of strings", key);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(&t->doc, *it);
		const char *s = string(e);
		if (!s) {
			struct loc el = at(t, e);
			return config_error(&el, "turbo.json \"%s\" entries must be strings", key);
		}
		vec_push(out, ((struct lstr){xstrdup(s), at(t, e)}));
	}
	return 0;
}

/* Environment names as Turborepo matches them: NAME, a NAME_* wildcard
 * (every variable of vx's environment it matches, now: the key holds the
 * values Turborepo's would), and !NAME taking away, kept after the names
 * (a framework's variables it matches are not keyed either). */
static void env_names(const lstr_vec *pats, lstr_vec *out)
{
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < pats->n; i++) {
		const char *p = pats->v[i].s;
		if (p[0] == '!')
			continue;
		if (!strpbrk(p, "*?[")) {
			strvec_push(&names, p);
			continue;
		}
		for (char **e = environ; *e; e++) {
			char *name = xstrndup(*e, strcspn(*e, "="));
			if (!fnmatch(p, name, 0))
				strvec_push(&names, name);
			free(name);
		}
	}
	strvec_sort_unique(&names);
	for (size_t k = 0; k < names.n; k++) {
		bool drop = false;
		for (size_t i = 0; i < pats->n && !drop; i++)
			drop = pats->v[i].s[0] == '!' && !fnmatch(pats->v[i].s + 1, names.v[k], 0);
		if (!drop)
			vec_push(out, ((struct lstr){xstrdup(names.v[k]),
						     pats->n ? pats->v[0].loc : (struct loc){0}}));
	}
	strvec_clear(&names);
	/* kept: they take away from what a framework adds (framework.h) */
	for (size_t i = 0; i < pats->n; i++)
		if (pats->v[i].s[0] == '!')
			vec_push(out, ((struct lstr){xstrdup(pats->v[i].s), pats->v[i].loc}));
}

/* An unknown key is an error at its place, with the closest known one. */
static void unknown_key(const struct turbo *t, const yaml_node_t *k, const char *what,
			const char *const *known)
{
	size_t n = 0;
	while (known[n])
		n++;
	const char *key = yamlnode_scalar(k);
	const char *near = closest_name(key, known, n);
	struct loc l = at(t, k);
	if (near)
		config_error(&l, "unknown %s \"%s\" (did you mean \"%s\"?)", what, key, near);
	else
		config_error(&l, "unknown %s \"%s\" (Turborepo refuses it too)", what, key);
}

/* A warning for a key of file path said once per process (a task key
 * repeated in ten tasks, a config vx watch reads again): 1 when it is
 * new. */
static bool first_time(const char *path, const char *key)
{
	static struct strvec said = STRVEC_INIT;
	char *k = xasprintf("%s\n%s", path, key);
	bool first = strvec_find(&said, k) < 0;
	if (first)
		strvec_push_nodup(&said, k);
	else
		free(k);
	return first;
}

/* A task key read into tc from its value v (k: the key), a Turborepo
 * meaning vx.yaml has no row for. Returns 0, or -1 after an error line. */
typedef int turbo_task_read(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
			    struct task_cfg *tc);

static int task_output_logs(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
			    struct task_cfg *tc)
{
	(void)k;
	const char *m = string(v);
	if (!m || output_logs_parse(m) < 0) {
		struct loc vl = at(t, v);
		return config_error(&vl, "turbo.json \"outputLogs\" is \"full\", \"new-only\", "
					 "\"errors-only\", \"hash-only\" or \"none\"");
	}
	free(tc->output_logs.s);
	tc->output_logs = (struct lstr){xstrdup(m), at(t, v)};
	tc->set |= TF_OUTPUT_LOGS;
	return 0;
}

/* inputs: globs of the package, $TURBO_ROOT$/ ones of the workspace, and
 * $TURBO_DEFAULT$ for every file of the package. */
static int task_inputs(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
		       struct task_cfg *tc)
{
	lstr_vec in = {0};
	int rc = get_list(t, v, yamlnode_scalar(k), &in);
	bool dflt = false, negated = false;
	for (size_t i = 0; !rc && i < in.n; i++) {
		const char *s = in.v[i].s;
		negated |= s[0] == '!';
		if (!strcmp(s, "$TURBO_DEFAULT$"))
			dflt = true;
		else if (!strncmp(s, "$TURBO_ROOT$/", 13))
			vec_push(&tc->input_ws_files,
				 ((struct lstr){xstrdup(s + 13), in.v[i].loc}));
	}
	if (!rc && dflt) {
		/* the default inputs (every file of the package) already hold
		 * what is added beside them; a "!" taken from them is keyed
		 * anyway: more in a key is never a stale hit. Said only when
		 * there is a "!" (issue 56 item 3: the create-turbo starter,
		 * with none, heard it every run) */
		if (negated)
			warn_at(t, v,
				"%s: $TURBO_DEFAULT$ keys every file of the package "
				"(beside it, \"!\" entries are not taken away)",
				"inputs");
	} else if (!rc) {
		for (size_t i = 0; i < in.n; i++)
			if (strncmp(in.v[i].s, "$TURBO_ROOT$/", 13))
				vec_push(&tc->input_files,
					 ((struct lstr){xstrdup(in.v[i].s), in.v[i].loc}));
		/* Turborepo always keys the package's package.json and
		 * turbo.json, whatever inputs says (the oracle, t0181) */
		static const char *const always[] = {"package.json", "turbo.json"};
		for (size_t i = 0; i < 2; i++)
			vec_push(&tc->input_files, ((struct lstr){xstrdup(always[i]), at(t, v)}));
		tc->set |= TF_INPUT_FILES;
	}
	if (tc->input_ws_files.n)
		tc->set |= TF_INPUT_WS_FILES;
	lstr_vec_free(&in);
	return rc;
}

/* env: names and NAME_* wildcards keyed, as Turborepo's (env_names). */
static int task_env(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
		    struct task_cfg *tc)
{
	lstr_vec pats = {0};
	int rc = get_list(t, v, yamlnode_scalar(k), &pats);
	if (!rc)
		env_names(&pats, &tc->input_env);
	lstr_vec_free(&pats);
	tc->set |= TF_INPUT_ENV;
	return rc;
}

/* interruptible: vx watch's restart, on-input-change or never. */
static int task_interruptible(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
			      struct task_cfg *tc)
{
	bool b = false;
	int rc = get_bool(t, v, yamlnode_scalar(k), &b);
	tc->restart = (struct lstr){xstrdup(b ? "on-input-change" : "never"), at(t, v)};
	tc->set |= TF_RESTART;
	return rc;
}

static int task_interactive(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
			    struct task_cfg *tc)
{
	(void)tc;
	const char *name = yamlnode_scalar(k);
	bool b = false;
	int rc = get_bool(t, v, name, &b);
	if (b && first_time(t->path, name))
		warn_at(t, k,
			"\"%s\": true is not read by vx: a task gets no terminal input "
			"(ignored)",
			name);
	return rc;
}

/* A key nothing vx does depends on: read, and not a word about it. */
static int task_silent(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
		       struct task_cfg *tc)
{
	(void)t, (void)k, (void)v, (void)tc;
	return 0;
}

/* Schema 1's own keys are warned about, as "pipeline" is. */
static int task_schema1(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
			struct task_cfg *tc)
{
	(void)v, (void)tc;
	const char *name = yamlnode_scalar(k);
	if (first_time(t->path, name))
		warn_at(t, k, "\"%s\" is turbo.json's schema 1, which vx does not read (ignored)",
			name);
	return 0;
}

/* The keys of a turbo.json task, one row each: a key with vx.yaml's
 * meaning is read through vx.yaml's row (schema.h: the field, its kind,
 * the task_field bit); one of Turborepo's own meaning by its read. Every
 * row but schema 1's is a key of Turborepo 2's schema, listed in this
 * order to the refusal of a key that is none: Turborepo refuses it, and
 * a typo ("dependson") taken as a warning ran a graph nobody wrote
 * (issue 56 item 3). */
static const struct turbo_task_key {
	const char *name;
	const char *prefix, *key; /* the schema_task row (schema_find's) */
	turbo_task_read *read;	  /* NULL: read by the row */
} TASK_KEYS[] = {
    {"dependsOn", "", "dependsOn", NULL},
    {"outputs", "", "outputs", NULL},
    {"inputs", NULL, NULL, task_inputs},
    {"env", NULL, NULL, task_env},
    {"passThroughEnv", "env", "passThrough", NULL},
    {"cache", "", "cache", NULL},
    {"persistent", "", "persistent", NULL},
    {"interruptible", NULL, NULL, task_interruptible},
    {"interactive", NULL, NULL, task_interactive},
    {"outputLogs", NULL, NULL, task_output_logs},
    {"with", "", "with", NULL},
    {"description", NULL, NULL, task_silent},
    {"outputMode", NULL, NULL, task_schema1},
    {"dotEnv", NULL, NULL, task_schema1},
};
#define TASK_KEYS_N (sizeof TASK_KEYS / sizeof *TASK_KEYS)

/* Reads key k's value v into tc through the schema_task row of key:
 * a list of strings or a bool (the kinds turbo.json's rows name). */
static int task_by_row(struct turbo *t, const struct turbo_task_key *key, const yaml_node_t *k,
		       const yaml_node_t *v, struct task_cfg *tc)
{
	const struct schema_row *r = schema_find(schema_task, key->prefix, key->key);
	if (!r || (r->kind != SCHEMA_LIST && r->kind != SCHEMA_BOOL))
		die("BUG: turbo.json's \"%s\" names no list or bool row of a task", key->name);
	void *field = (char *)tc + r->off;
	const char *name = yamlnode_scalar(k);
	int rc = r->kind == SCHEMA_LIST ? get_list(t, v, name, field) : get_bool(t, v, name, field);
	tc->set |= r->field;
	return rc;
}

/* One key of a task. Returns 0, or -1 after an error line. */
static int task_key(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
		    struct task_cfg *tc)
{
	const char *name = yamlnode_scalar(k);
	for (size_t i = 0; i < TASK_KEYS_N; i++) {
		const struct turbo_task_key *key = &TASK_KEYS[i];
		if (strcmp(key->name, name))
			continue;
		return key->read ? key->read(t, k, v, tc) : task_by_row(t, key, k, v, tc);
	}
	const char *known[TASK_KEYS_N + 1];
	size_t n = 0;
	for (size_t i = 0; i < TASK_KEYS_N; i++)
		if (TASK_KEYS[i].read != task_schema1)
			known[n++] = TASK_KEYS[i].name;
	known[n] = NULL;
	unknown_key(t, k, "task key", known);
	return -1;
}

/* One task of "tasks". Returns it, or NULL after an error line. */
static struct task_cfg *read_task(struct turbo *t, const yaml_node_t *key, const yaml_node_t *v)
{
	if (!yamlnode_scalar(key)) {
		struct loc kl = at(t, key);
		config_error(&kl, "turbo.json keys must be strings");
		return NULL;
	}
	struct task_cfg *tc = xcalloc(1, sizeof *tc);
	tc->name = xstrdup(yamlnode_scalar(key));
	tc->loc = at(t, key);
	tc->cache = true;
	tc->replaces = strchr(tc->name, '#') && strncmp(tc->name, "//#", 3);
	struct loc l = at(t, v);
	if (v->type != YAML_MAPPING_NODE) {
		config_error(&l, "turbo.json task \"%s\" must be an object", tc->name);
		goto fail;
	}
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(&t->doc, pr->key);
		if (dup_key(t, v, pr))
			goto fail;
		if (!yamlnode_scalar(k)) {
			struct loc kl = at(t, k);
			config_error(&kl, "turbo.json keys must be strings");
			goto fail;
		}
		if (task_key(t, k, yaml_document_get_node(&t->doc, pr->value), tc))
			goto fail;
	}
	if (!(tc->set & TF_CACHE))
		tc->cache = !tc->persistent;
	/* A cached task whose outputs nobody named keeps its log alone, as in
	 * Turborepo: a hit then restores no files. */
	return tc;
fail:
	task_cfg_free(tc);
	return NULL;
}

/* Puts a turbo.json task under cfg's own task of the same name. */
static void add_task(struct config *cfg, struct task_cfg *tc)
{
	for (size_t i = 0; i < cfg->tasks.n; i++) {
		if (strcmp(cfg->tasks.v[i]->name, tc->name))
			continue;
		struct task_cfg *m = config_task_merge(cfg->tasks.v[i], tc);
		task_cfg_free(cfg->tasks.v[i]);
		task_cfg_free(tc);
		cfg->tasks.v[i] = m;
		return;
	}
	vec_push(&cfg->tasks, tc);
}

/* The keys of "remoteCache" vx reads, one row each: a bool or a string,
 * and its field of struct remote_cfg ("enabled" is read's; write follows
 * it). Any other is warned about and ignored. */
static const struct {
	const char *name;
	bool is_bool; /* else a string (char *) */
	size_t off;
} REMOTE_KEYS[] = {
    {"enabled", true, offsetof(struct remote_cfg, read)},
    {"signature", true, offsetof(struct remote_cfg, signature)},
    {"apiUrl", false, offsetof(struct remote_cfg, url)},
    {"teamId", false, offsetof(struct remote_cfg, team_id)},
};

/* One key of "remoteCache" into rc. Returns 0, or -1 after an error line. */
static int remote_key(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v,
		      struct remote_cfg *rc)
{
	const char *name = yamlnode_scalar(k);
	for (size_t i = 0; i < sizeof REMOTE_KEYS / sizeof *REMOTE_KEYS; i++) {
		if (strcmp(REMOTE_KEYS[i].name, name))
			continue;
		void *field = (char *)rc + REMOTE_KEYS[i].off;
		if (REMOTE_KEYS[i].is_bool)
			return get_bool(t, v, name, field);
		const char *s = string(v);
		if (!s) {
			struct loc vl = at(t, v);
			return config_error(&vl, "turbo.json \"%s\" must be a string", name);
		}
		free(*(char **)field);
		*(char **)field = xstrdup(s);
		return 0;
	}
	warn_at(t, k, "remoteCache \"%s\" is not read by vx (ignored)", name);
	return 0;
}

/* "remoteCache" as cache.remote, unless the root vx.yaml has one (it
 * overlays turbo.json): enabled, signature, apiUrl, teamId. The token and
 * the rest come from the environment, as for Turborepo. */
static int read_remote(struct turbo *t, const yaml_node_t *v)
{
	struct loc l = at(t, v);
	if (v->type != YAML_MAPPING_NODE)
		return config_error(&l, "turbo.json \"remoteCache\" must be an object");
	struct remote_cfg rc = {.read = true, .write = true, .loc = l};
	int err = 0;
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start;
	     !err && pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&t->doc, pr->key);
		if (!yamlnode_scalar(k)) {
			struct loc kl = at(t, k);
			err = config_error(&kl, "turbo.json keys must be strings");
		} else if (dup_key(t, v, pr)) {
			err = -1;
		} else {
			err = remote_key(t, k, yaml_document_get_node(&t->doc, pr->value), &rc);
		}
	}
	if (!err && !t->cfg->remote) {
		rc.write = rc.read; /* "enabled" */
		t->cfg->remote = xmalloc(sizeof rc);
		*t->cfg->remote = rc;
		return 0;
	}
	free(rc.url);
	free(rc.team_id);
	return err;
}

/* "$TURBO_EXTENDS$" in a package task's list: the root task's list first,
 * then the package's own. Returns true when it was there. */
static bool extend_list(lstr_vec *own, const lstr_vec *base)
{
	size_t at = own->n;
	for (size_t i = 0; i < own->n; i++)
		if (!strcmp(own->v[i].s, "$TURBO_EXTENDS$"))
			at = i;
	if (at == own->n)
		return false;
	free(own->v[at].s);
	memmove(own->v + at, own->v + at + 1, (own->n - at - 1) * sizeof *own->v);
	own->n--;
	lstr_vec all = {0};
	for (size_t i = 0; base && i < base->n; i++)
		vec_push(&all, ((struct lstr){xstrdup(base->v[i].s), base->v[i].loc}));
	for (size_t i = 0; i < own->n; i++)
		vec_push(&all, own->v[i]);
	vec_free(own);
	*own = all;
	return true;
}

/* A package's task: "$TURBO_EXTENDS$" resolved against the root's task it
 * extends ("pkg#task", else "task"). */
static void extend_task(const struct turbo *t, struct task_cfg *tc)
{
	char *key = xasprintf("%s#%s", t->package, tc->name);
	const struct task_cfg *b = config_find_task(t->root, key);
	free(key);
	if (!b)
		b = config_find_task(t->root, tc->name);
	extend_list(&tc->depends_on, b ? &b->depends_on : NULL);
	extend_list(&tc->with, b ? &b->with : NULL);
	extend_list(&tc->outputs, b ? &b->outputs : NULL);
	extend_list(&tc->input_files, b ? &b->input_files : NULL);
	extend_list(&tc->input_env, b ? &b->input_env : NULL);
	extend_list(&tc->env_pass, b ? &b->env_pass : NULL);
}

/* A package turbo.json's "extends": exactly ["//"] (Turborepo's one form). */
static int read_extends(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v)
{
	lstr_vec l = {0};
	int rc = get_list(t, v, "extends", &l);
	if (!rc && (l.n != 1 || strcmp(l.v[0].s, "//"))) {
		struct loc vl = at(t, v);
		rc = config_error(&vl, "a package's turbo.json extends the root's alone: "
				       "\"extends\": [\"//\"]");
	}
	if (!rc && !t->package) {
		struct loc kl = at(t, k);
		rc = config_error(&kl, "the root turbo.json cannot extend another");
	}
	lstr_vec_free(&l);
	return rc;
}

struct turbo_top_key;
/* A top-level key read from its value v (k: the key) into t->cfg.
 * Returns 0, or -1 after an error line. */
typedef int turbo_top_read(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
			   const yaml_node_t *v);

enum {
	TOP_PACKAGE = 1, /* read in a package's turbo.json too; any other key belongs in the
			  * root's */
	TOP_SCHEMA1 = 2, /* schema 1's: offered to no typo */
};

/* A top-level key: what reads its value, and for a list the field it goes to. */
struct turbo_top_key {
	const char *name;
	turbo_top_read *read;
	size_t off; /* top_list's, top_env's: offsetof the lstr_vec in struct config */
	unsigned flags;
};

/* "tasks": each task read, and put under the config's own. */
static int top_tasks(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		     const yaml_node_t *v)
{
	const char *name = yamlnode_scalar(k);
	(void)key;
	if (v->type != YAML_MAPPING_NODE) {
		struct loc l = at(t, v);
		return config_error(&l, "turbo.json \"%s\" must be an object", name);
	}
	for (yaml_node_pair_t *tp = v->data.mapping.pairs.start; tp < v->data.mapping.pairs.top;
	     tp++) {
		yaml_node_t *tk = yaml_document_get_node(&t->doc, tp->key);
		if (dup_key(t, v, tp))
			return -1;
		const char *tn = yamlnode_scalar(tk);
		if (t->package && tn && strchr(tn, '#')) {
			struct loc l = at(t, tk);
			return config_error(&l,
					    "a package's turbo.json names its own tasks: \"%s\", "
					    "not \"%s\"",
					    strchr(tn, '#') + 1, tn);
		}
		struct task_cfg *tc = read_task(t, tk, yaml_document_get_node(&t->doc, tp->value));
		if (!tc)
			return -1;
		if (t->package)
			extend_task(t, tc);
		add_task(t->cfg, tc);
	}
	return 0;
}

/* "pipeline", schema 1's "tasks": read as it. */
static int top_pipeline(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
			const yaml_node_t *v)
{
	warn_at(t, k, "\"%s\" is turbo.json's schema 1: read as \"tasks\"", yamlnode_scalar(k));
	return top_tasks(t, key, k, v);
}

static int top_extends(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		       const yaml_node_t *v)
{
	(void)key;
	int rc = read_extends(t, k, v);
	t->extends = !rc;
	return rc;
}

/* "boundaries", "tags": vx boundaries' rules (tagrules.h), checked at
 * every load. */
static int top_boundaries(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
			  const yaml_node_t *v)
{
	(void)key;
	return tagrules_read_key(t->path, &t->doc, k, v, NULL) < 0 ? -1 : 0;
}

/* A list of strings into the config's lstr_vec at key->off. */
static int top_list(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		    const yaml_node_t *v)
{
	return get_list(t, v, yamlnode_scalar(k), (lstr_vec *)((char *)t->cfg + key->off));
}

/* Environment names (env_names) into the config's lstr_vec at key->off. */
static int top_env(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		   const yaml_node_t *v)
{
	lstr_vec pats = {0};
	int rc = get_list(t, v, yamlnode_scalar(k), &pats);
	if (!rc)
		env_names(&pats, (lstr_vec *)((char *)t->cfg + key->off));
	lstr_vec_free(&pats);
	return rc;
}

static int top_env_mode(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
			const yaml_node_t *v)
{
	(void)key, (void)k;
	const char *m = string(v);
	if (!m || (strcmp(m, "strict") && strcmp(m, "loose"))) {
		struct loc l = at(t, v);
		return config_error(&l, "turbo.json \"envMode\" is \"strict\" or \"loose\"");
	}
	t->cfg->env_strict = !strcmp(m, "strict");
	t->env_mode = true;
	return 0;
}

static int top_remote(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		      const yaml_node_t *v)
{
	(void)key, (void)k;
	return read_remote(t, v);
}

/* A key nothing vx does depends on: read, and not a word about it (issue
 * 42: a warning per run for "ui"). */
static int top_silent(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		      const yaml_node_t *v)
{
	(void)t, (void)key, (void)k, (void)v;
	return 0;
}

/* A key whose effect vx does not give: said at each load. */
static int top_ignored(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		       const yaml_node_t *v)
{
	(void)key, (void)v;
	warn_at(t, k, "\"%s\" is not read by vx (ignored)", yamlnode_scalar(k));
	return 0;
}

static int top_schema1(struct turbo *t, const struct turbo_top_key *key, const yaml_node_t *k,
		       const yaml_node_t *v)
{
	(void)key, (void)v;
	warn_at(t, k, "\"%s\" is turbo.json's schema 1, which vx does not read (ignored)",
		yamlnode_scalar(k));
	return 0;
}

/* The top-level keys of turbo.json, one row each: what reads the value
 * and, for a list, the field of struct config it goes to. Listed in the
 * order an unknown key's refusal offers them (Turborepo 2's schema,
 * schema 1's last). */
static const struct turbo_top_key TOP_KEYS[] = {
    {"$schema", top_silent, 0, TOP_PACKAGE},
    {"tasks", top_tasks, 0, TOP_PACKAGE},
    {"extends", top_extends, 0, TOP_PACKAGE},
    {"globalDependencies", top_list, offsetof(struct config, ws_input_files), 0},
    {"globalEnv", top_env, offsetof(struct config, ws_input_env), 0},
    {"globalPassThroughEnv", top_list, offsetof(struct config, ws_env_pass), 0},
    {"envMode", top_env_mode, 0, 0},
    {"remoteCache", top_remote, 0, 0},
    {"ui", top_silent, 0, 0},
    {"daemon", top_silent, 0, 0},
    {"noUpdateNotifier", top_silent, 0, 0},
    {"dangerouslyDisablePackageManagerCheck", top_silent, 0, 0},
    {"cacheDir", top_ignored, 0, 0},
    {"concurrency", top_ignored, 0, 0},
    {"boundaries", top_boundaries, 0, TOP_PACKAGE},
    {"futureFlags", top_ignored, 0, 0},
    {"tags", top_boundaries, 0, TOP_PACKAGE},
    {"pipeline", top_pipeline, 0, TOP_PACKAGE | TOP_SCHEMA1},
    {"globalDotEnv", top_schema1, 0, TOP_SCHEMA1},
    {"experimentalSpaces", top_schema1, 0, TOP_SCHEMA1},
};
#define TOP_KEYS_N (sizeof TOP_KEYS / sizeof *TOP_KEYS)

/* One top-level key. Returns 0, or -1 after an error line. */
static int top_key(struct turbo *t, const yaml_node_t *k, const yaml_node_t *v)
{
	const char *name = yamlnode_scalar(k);
	const struct turbo_top_key *key = NULL;
	for (size_t i = 0; i < TOP_KEYS_N && !key; i++)
		if (!strcmp(TOP_KEYS[i].name, name))
			key = &TOP_KEYS[i];
	if (t->package && !(key && key->flags & TOP_PACKAGE)) {
		struct loc l = at(t, k);
		return config_error(&l, "\"%s\" belongs in the root turbo.json, not a package's",
				    name);
	}
	if (key)
		return key->read(t, key, k, v);
	const char *known[TOP_KEYS_N + 1];
	size_t n = 0;
	for (size_t i = 0; i < TOP_KEYS_N; i++)
		if (!(TOP_KEYS[i].flags & TOP_SCHEMA1))
			known[n++] = TOP_KEYS[i].name;
	known[n] = NULL;
	unknown_key(t, k, "key", known);
	return -1;
}

static int parse(struct turbo *t, char *text, size_t len);
static int parse_doc(struct turbo *tp);

int turbo_parse(const char *path, char *text, size_t len, struct config *cfg)
{
	struct turbo t = {.path = path, .cfg = cfg};
	return parse(&t, text, len);
}

/* Reads text (comments blanked) into *doc. False with *err set when it is
 * not JSON. */
static bool read_doc(char *text, size_t len, yaml_document_t *doc, struct yamlload_error *err)
{
	jsonc_blank(text, len);
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		die("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	bool ok = yamlload_json(&parser, doc, err);
	yaml_parser_delete(&parser);
	return ok;
}

static int parse(struct turbo *tp, char *text, size_t len)
{
	struct yamlload_error err;
	if (!read_doc(text, len, &tp->doc, &err)) {
		struct loc l = {tp->path, err.line, err.col};
		return config_error(&l, "turbo.json is not JSON: %s", err.message);
	}
	return parse_doc(tp);
}

/* Reads tp->doc into tp->cfg, and deletes it. */
static int parse_doc(struct turbo *tp)
{
	struct turbo t = *tp;
	const char *path = t.path;
	struct config *cfg = t.cfg;
	int rc = 1;
	yaml_node_t *root = yaml_document_get_root_node(&t.doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		struct loc l = {path, 1, 1};
		rc = config_error(&l, "turbo.json must hold one object");
		goto out;
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     rc > 0 && pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&t.doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&t.doc, pr->value);
		const char *name = yamlnode_scalar(k);
		if (!name) {
			struct loc l = at(&t, k);
			rc = config_error(&l, "turbo.json keys must be strings");
			break;
		}
		if (dup_key(&t, root, pr)) {
			rc = -1;
			break;
		}
		if (top_key(&t, k, v))
			rc = -1;
	}
	if (rc > 0 && !t.package && !t.env_mode)
		cfg->env_strict = true; /* Turborepo 2's default */
	if (rc > 0 && t.package && !t.extends) {
		struct loc l = {path, 1, 1};
		rc = config_error(&l, "a package's turbo.json must extend the root's: "
				      "\"extends\": [\"//\"]");
	}
out:
	yaml_document_delete(&t.doc);
	return rc;
}

static char *turbo_file(struct readcache *rc, const char *dir)
{
	static const char *const names[] = {"turbo.json", "turbo.jsonc"};
	for (size_t k = 0; k < 2; k++) {
		char *p = path_join(dir, names[k]);
		if (readcache_exists(rc, p))
			return p;
		free(p);
	}
	return NULL;
}

/* The root turbo.json turbo_is_root parsed, kept for the turbo_load that
 * follows it: one parse of it a run, not two (issue 57 item 4: the second
 * was 17% of a load). turbo_load takes it once; the next turbo_is_root of
 * a root replaces it. */
static struct {
	char *path; /* NULL: none kept */
	yaml_document_t doc;
} kept_root;

static void kept_root_drop(void)
{
	if (kept_root.path)
		yaml_document_delete(&kept_root.doc);
	free(kept_root.path);
	kept_root.path = NULL;
}

/* Whether doc has "key" at its top level. */
static bool top_level_key(yaml_document_t *doc, const char *key)
{
	bool found = false;
	yaml_node_t *root = yaml_document_get_root_node(doc);
	for (yaml_node_pair_t *pr =
		 root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
	     pr && pr < root->data.mapping.pairs.top && !found; pr++) {
		const char *k = yamlnode_scalar(yaml_document_get_node(doc, pr->key));
		found = k && !strcmp(k, key);
	}
	return found;
}

int turbo_is_root(const char *dir)
{
	char *p = turbo_file(NULL, dir);
	if (!p)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	int root;
	if (strbuf_read_file(&sb, p) < 0)
		/* a FIFO turbo.json was skipped, and the workspace found
		 * above it (issue 57 item 3): there and unreadable is said */
		root = error("cannot read %s: %s", p, strbuf_read_strerror(errno));
	else if (config_check_size(p, sb.len))
		root = -1;
	else {
		/* A file that does not parse says nothing here: turbo_load
		 * reports it. */
		yaml_document_t doc;
		struct yamlload_error err;
		root = 1;
		if (read_doc(sb.buf, sb.len, &doc, &err)) {
			root = !top_level_key(&doc, "extends");
			if (root) {
				kept_root_drop();
				kept_root.path = p;
				kept_root.doc = doc;
				p = NULL;
			} else {
				yaml_document_delete(&doc);
			}
		}
	}
	strbuf_release(&sb);
	free(p);
	return root;
}

int turbo_load_package(struct readcache *reads, const char *dir, const char *package,
		       const struct config *root, struct config *cfg)
{
	char *p = turbo_file(reads, dir);
	if (!p)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	int rc;
	if (readcache_read(reads, p, &sb)) {
		rc = error("cannot read %s: %s", p, strbuf_read_strerror(errno));
		free(p);
	} else if (config_check_size(p, sb.len)) {
		rc = -1;
		free(p);
	} else {
		cfg->turbo_path = p;
		struct turbo t = {.path = p, .cfg = cfg, .root = root, .package = package};
		rc = parse(&t, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	return rc;
}

int turbo_load(const char *root, struct config *cfg)
{
	char *p = turbo_file(NULL, root);
	if (!p)
		return 0;
	if (kept_root.path && !strcmp(kept_root.path, p)) {
		/* read and parsed when the root was found */
		free(p);
		struct turbo t = {.path = kept_root.path, .cfg = cfg, .doc = kept_root.doc};
		cfg->turbo_path = kept_root.path;
		kept_root.path = NULL;
		return parse_doc(&t);
	}
	struct strbuf sb = STRBUF_INIT;
	int rc;
	if (strbuf_read_file(&sb, p)) {
		rc = error("cannot read %s: %s", p, strbuf_read_strerror(errno));
		free(p);
	} else if (config_check_size(p, sb.len)) {
		rc = -1;
		free(p);
	} else {
		/* the locs of what it read point here: the config keeps it */
		cfg->turbo_path = p;
		rc = turbo_parse(p, sb.buf, sb.len, cfg);
	}
	strbuf_release(&sb);
	return rc;
}
