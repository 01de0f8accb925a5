/* schema.c - the rows of a task and of its sandbox: block, and the walks
 * that free, copy and fold them. */
#include "orchestrator/config/schema.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/taskcfg.h"
#include "util/glob.h"

/* "^build", "build" and "proj#build" are dependencies; "^", "#x", "a#",
 * "a#b#c" and "^a#b" are not. */
static bool bad_dependency(const char *d)
{
	const char *hash = strchr(d, '#');
	return !*d || !strcmp(d, "^") ||
	       (hash && (hash == d || !hash[1] || strchr(hash + 1, '#'))) || (d[0] == '^' && hash);
}

/* with: as dependsOn, without "^" (a sibling is one task, not each
 * dependency's). */
static bool bad_sibling(const char *d)
{
	return d[0] == '^' || bad_dependency(d);
}

/* True when an output glob (any of its brace expansions) is absolute or
 * climbs with "..": a cache save refuses such a path, and a dependent's
 * sandbox would bind what it matched (a sibling's files: issue 12). */
static bool leaves_project(const char *pat)
{
	if (*pat == '!')
		pat++;
	struct strvec exp = STRVEC_INIT;
	if (glob_expand_braces(pat, &exp) < 0)
		strvec_push(&exp, pat);
	bool out = false;
	for (size_t i = 0; i < exp.n && !out; i++) {
		const char *e = exp.v[i];
		out = e[0] == '/';
		for (const char *c = e; !out && (c = strstr(c, "..")); c += 2)
			out = (c == e || c[-1] == '/') && (c[2] == '/' || !c[2]);
	}
	strvec_clear(&exp);
	return out;
}

static bool bad_output_logs(const char *m)
{
	return output_logs_parse(m) < 0;
}

static bool bad_restart(const char *r)
{
	return strcmp(r, "auto") && strcmp(r, "on-input-change") && strcmp(r, "never");
}

/* A Mach service or sysctl name as a Seatbelt profile names it (one
 * string, no quoting needed), a trailing `*` for a prefix. */
static bool bad_macos_name(const char *n)
{
	size_t len = strlen(n), stem = len && n[len - 1] == '*' ? len - 1 : len;
	if (!stem)
		return true;
	for (size_t i = 0; i < stem; i++)
		if (!isalnum((unsigned char)n[i]) && !strchr("._-", n[i]))
			return true;
	return false;
}

#define TASK(f) offsetof(struct task_cfg, f)
const struct schema_row schema_task[] = {
    /* Not expanded: the command is shell text, and /bin/sh expands its
     * own ${VAR} when the task runs. */
    {"command", SCHEMA_STR, TASK(command), 0, TF_COMMAND, NULL, NULL, NULL},
    {"dependsOn", SCHEMA_LIST, TASK(depends_on), 0, TF_DEPENDS_ON, NULL, bad_dependency,
     "\"%s\" is not a dependency: write \"^task\", \"task\" or \"project#task\""},
    {"with", SCHEMA_LIST, TASK(with), 0, TF_WITH, NULL, bad_sibling,
     "\"%s\" is not a task to run alongside: write \"task\" or \"project#task\""},
    {"inputs", SCHEMA_MAP, 0, 0, 0, NULL, NULL, NULL},
    {"inputs.files", SCHEMA_LIST, TASK(input_files), SCHEMA_EXPAND | SCHEMA_GLOBS, TF_INPUT_FILES,
     NULL, NULL, NULL},
    {"inputs.workspaceFiles", SCHEMA_LIST, TASK(input_ws_files), SCHEMA_EXPAND | SCHEMA_GLOBS,
     TF_INPUT_WS_FILES, NULL, NULL, NULL},
    {"inputs.env", SCHEMA_LIST, TASK(input_env), 0, TF_INPUT_ENV, NULL, NULL, NULL},
    {"inputs.toolchain", SCHEMA_LIST, TASK(toolchain), SCHEMA_EXPAND, TF_TOOLCHAIN, NULL, NULL,
     NULL},
    {"outputs", SCHEMA_LIST, TASK(outputs), SCHEMA_EXPAND | SCHEMA_GLOBS, TF_OUTPUTS, NULL,
     leaves_project, "output \"%s\" leaves the project; a task's outputs lie in its own directory"},
    {"cache", SCHEMA_BOOL, TASK(cache), 0, TF_CACHE, NULL, NULL, NULL},
    {"persistent", SCHEMA_BOOL, TASK(persistent), 0, TF_PERSISTENT, NULL, NULL, NULL},
    {"restart", SCHEMA_STR, TASK(restart), 0, TF_RESTART, NULL, bad_restart,
     "restart is \"%s\": write auto, on-input-change or never"},
    {"outputLogs", SCHEMA_STR, TASK(output_logs), 0, TF_OUTPUT_LOGS, NULL, bad_output_logs,
     "outputLogs is \"%s\": write full, new-only, errors-only, hash-only or none"},
    {"timeout", SCHEMA_DURATION, TASK(timeout_ms), SCHEMA_EXPAND, TF_TIMEOUT, NULL, NULL, NULL},
    {"env", SCHEMA_MAP, 0, 0, 0, NULL, NULL, NULL},
    {"env.define", SCHEMA_ENV, TASK(env_define), SCHEMA_EXPAND, TF_ENV_DEFINE, NULL, NULL, NULL},
    {"env.passThrough", SCHEMA_LIST, TASK(env_pass), 0, TF_ENV_PASS, NULL, NULL, NULL},
    {"env.passThroughSecrets", SCHEMA_LIST, TASK(env_pass_secrets), 0, TF_ENV_PASS_SECRETS, NULL,
     NULL, NULL},
    {"sandbox", SCHEMA_SANDBOX, TASK(sandbox), 0, TF_SANDBOX, NULL, NULL, NULL},
    {NULL, SCHEMA_MAP, 0, 0, 0, NULL, NULL, NULL},
};
#undef TASK

#define SB(f) offsetof(struct sandbox_cfg, f)
const struct schema_row schema_sandbox[] = {
    {"allow", SCHEMA_MAP, 0, 0, 0, NULL, NULL, NULL},
    {"allow.read", SCHEMA_LIST, SB(allow_read), SCHEMA_EXPAND | SCHEMA_GLOBS, 0, NULL, NULL, NULL},
    {"allow.write", SCHEMA_LIST, SB(allow_write), SCHEMA_EXPAND | SCHEMA_GLOBS, 0, NULL, NULL,
     NULL},
    {"allow.network", SCHEMA_GRANTS, SB(allow_network), SCHEMA_EXPAND, 0, "network.any", NULL,
     NULL},
    {"allow.localBinding", SCHEMA_PORTS, SB(local_binding), 0, 0, "localBinding.any", NULL, NULL},
    {"allow.unixSockets", SCHEMA_GRANTS, SB(unix_sockets), SCHEMA_EXPAND, 0, "unixSockets.any",
     NULL, NULL},
    {"allow.pty", SCHEMA_BOOL, SB(pty), 0, 0, "pty", NULL, NULL},
    {"allow.gitConfig", SCHEMA_BOOL, SB(git_config), 0, 0, "gitConfig", NULL, NULL},
    {"allow.machLookup", SCHEMA_LIST, SB(mach_lookup), 0, 0, NULL, bad_macos_name,
     "machLookup \"%s\" is no Mach service name: write e.g. com.apple.system.logger "
     "(letters, digits, '.', '_', '-'; a trailing * takes every name it begins)"},
    {"allow.systemInfo", SCHEMA_LIST, SB(system_info), 0, 0, NULL, bad_macos_name,
     "systemInfo \"%s\" is no sysctl name: write e.g. hw.memsize (letters, digits, '.', "
     "'_', '-'; a trailing * takes every name it begins)"},
    {"deny", SCHEMA_MAP, 0, 0, 0, NULL, NULL, NULL},
    {"deny.network", SCHEMA_LIST, SB(deny_network), SCHEMA_EXPAND, 0, NULL, NULL, NULL},
    {"ignore", SCHEMA_MAP, 0, 0, 0, NULL, NULL, NULL},
    {"ignore.read", SCHEMA_LIST, SB(ignore_read), SCHEMA_EXPAND | SCHEMA_GLOBS, 0, NULL, NULL,
     NULL},
    {"ignore.write", SCHEMA_LIST, SB(ignore_write), SCHEMA_EXPAND | SCHEMA_GLOBS, 0, NULL, NULL,
     NULL},
    {"ignore.network", SCHEMA_LIST, SB(ignore_network), SCHEMA_EXPAND, 0, NULL, NULL, NULL},
    {"hermetic", SCHEMA_BOOL, SB(hermetic), 0, 0, "hermetic", NULL, NULL},
    {"weakerWhenNested", SCHEMA_BOOL, SB(weaker_when_nested), 0, 0, "weaker", NULL, NULL},
    {"verifyKey", SCHEMA_BOOL_NOT, SB(no_verify_key), 0, 0, "verifyKey", NULL, NULL},
    {NULL, SCHEMA_MAP, 0, 0, 0, NULL, NULL, NULL},
};
#undef SB

/* Is name directly below prefix? Sets *key to its last component. */
static bool below(const char *name, const char *prefix, const char **key)
{
	size_t n = strlen(prefix);
	if (n && (strncmp(name, prefix, n) || name[n] != '.'))
		return false;
	*key = name + n + (n > 0);
	return !strchr(*key, '.');
}

const struct schema_row *schema_find(const struct schema_row *t, const char *prefix,
				     const char *key)
{
	for (; t->name; t++) {
		const char *k;
		if (below(t->name, prefix, &k) && !strcmp(k, key))
			return t;
	}
	return NULL;
}

size_t schema_keys(const struct schema_row *t, const char *prefix, const char **out, size_t max)
{
	size_t n = 0;
	for (; t->name; t++) {
		const char *k;
		if (!below(t->name, prefix, &k))
			continue;
		if (n + 1 >= max)
			die("BUG: schema_keys: more than %zu keys below \"%s\"", max - 1, prefix);
		out[n++] = k;
	}
	out[n] = NULL;
	return n;
}

#define AT(base, r, type) ((type *)((char *)(base) + (r)->off))
#define AT_CONST(base, r, type) ((const type *)((const char *)(base) + (r)->off))

static void lstrs_copy(lstr_vec *dst, const lstr_vec *src)
{
	for (size_t i = 0; i < src->n; i++) {
		struct lstr s = {xstrdup(src->v[i].s), src->v[i].loc};
		vec_push(dst, s);
	}
}

void schema_free(const struct schema_row *t, void *base)
{
	for (const struct schema_row *r = t; r->name; r++) {
		switch (r->kind) {
		case SCHEMA_STR:
			free(AT(base, r, struct lstr)->s);
			break;
		case SCHEMA_LIST:
			lstr_vec_free(AT(base, r, lstr_vec));
			break;
		case SCHEMA_GRANTS:
		case SCHEMA_PORTS:
			lstr_vec_free(&AT(base, r, struct grant_list)->list);
			break;
		case SCHEMA_ENV: {
			kv_vec *v = AT(base, r, kv_vec);
			for (size_t i = 0; i < v->n; i++) {
				free(v->v[i].key);
				free(v->v[i].value);
			}
			vec_free(v);
			break;
		}
		case SCHEMA_SANDBOX: {
			struct sandbox_cfg **sb = AT(base, r, struct sandbox_cfg *);
			if (*sb)
				schema_free(schema_sandbox, *sb);
			free(*sb);
			*sb = NULL;
			break;
		}
		case SCHEMA_MAP:
		case SCHEMA_BOOL:
		case SCHEMA_BOOL_NOT:
		case SCHEMA_DURATION:
			break;
		}
	}
}

void schema_copy_row(const struct schema_row *r, void *dst, const void *src)
{
	switch (r->kind) {
	case SCHEMA_STR: {
		const struct lstr *s = AT_CONST(src, r, struct lstr);
		struct lstr *d = AT(dst, r, struct lstr);
		if (s->s) {
			d->s = xstrdup(s->s);
			d->loc = s->loc;
		}
		break;
	}
	case SCHEMA_LIST:
		lstrs_copy(AT(dst, r, lstr_vec), AT_CONST(src, r, lstr_vec));
		break;
	case SCHEMA_GRANTS:
	case SCHEMA_PORTS: {
		const struct grant_list *s = AT_CONST(src, r, struct grant_list);
		struct grant_list *d = AT(dst, r, struct grant_list);
		d->any = s->any;
		d->loc = s->loc;
		lstrs_copy(&d->list, &s->list);
		break;
	}
	case SCHEMA_BOOL:
	case SCHEMA_BOOL_NOT:
		*AT(dst, r, bool) = *AT_CONST(src, r, bool);
		break;
	case SCHEMA_DURATION:
		*AT(dst, r, long long) = *AT_CONST(src, r, long long);
		break;
	case SCHEMA_ENV: {
		const kv_vec *s = AT_CONST(src, r, kv_vec);
		for (size_t i = 0; i < s->n; i++) {
			struct kv kv = {xstrdup(s->v[i].key), xstrdup(s->v[i].value), s->v[i].loc};
			vec_push(AT(dst, r, kv_vec), kv);
		}
		break;
	}
	case SCHEMA_SANDBOX: {
		const struct sandbox_cfg *s =
		    *(struct sandbox_cfg *const *)((const char *)src + r->off);
		if (s)
			*AT(dst, r, struct sandbox_cfg *) = schema_sandbox_copy(s);
		break;
	}
	case SCHEMA_MAP:
		break;
	}
}

struct sandbox_cfg *schema_sandbox_copy(const struct sandbox_cfg *s)
{
	struct sandbox_cfg *d = xcalloc(1, sizeof *d);
	d->loc = s->loc;
	for (const struct schema_row *r = schema_sandbox; r->name; r++)
		schema_copy_row(r, d, s);
	return d;
}

void schema_sandbox_fold(const struct sandbox_cfg *sb, struct strbuf *out)
{
	for (const struct schema_row *r = schema_sandbox; r->name; r++) {
		const lstr_vec *v = r->kind == SCHEMA_LIST ? AT_CONST(sb, r, lstr_vec)
				    : r->kind == SCHEMA_GRANTS || r->kind == SCHEMA_PORTS
					? &AT_CONST(sb, r, struct grant_list)->list
					: NULL;
		if (!v)
			continue;
		struct strvec sv = STRVEC_INIT;
		for (size_t k = 0; k < v->n; k++)
			strvec_push(&sv, v->v[k].s);
		strvec_sort_unique(&sv);
		strbuf_addf(out, "%s:", r->name);
		for (size_t k = 0; k < sv.n; k++)
			strbuf_addf(out, "%zu:%s", strlen(sv.v[k]), sv.v[k]);
		strbuf_addch(out, '\n');
		strvec_clear(&sv);
	}
	const char *sep = "";
	for (const struct schema_row *r = schema_sandbox; r->name; r++) {
		if (!r->fold)
			continue;
		bool on = r->kind == SCHEMA_BOOL       ? *AT_CONST(sb, r, bool)
			  : r->kind == SCHEMA_BOOL_NOT ? !*AT_CONST(sb, r, bool)
						       : AT_CONST(sb, r, struct grant_list)->any;
		strbuf_addf(out, "%s%s=%d", sep, r->fold, on);
		sep = " ";
	}
	strbuf_addch(out, '\n');
}
