/* tsconfig.c - compilerOptions.paths through "extends" (tsconfig.h).
 *
 * tsc's rules, as its "extends" documentation and its config parser
 * (getExtendsConfigPath, and the paths base kept per config) give them:
 * the config's own compilerOptions win over what it extends, key by key,
 * so "paths" is the nearest config's that sets it and resolves against
 * the nearest "baseUrl" (resolved against its own config's directory),
 * else against the directory of the config that set "paths". A list in
 * "extends" (TypeScript 5) applies in order, the last over the others.
 * turbo boundaries gets the same from oxc_resolver's tsconfig loader. */
#include "orchestrator/cli/tsconfig.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orchestrator/config/config.h"
#include "util/die.h"
#include "util/jsonc.h"
#include "util/jsonloc.h"
#include "util/path.h"
#include "util/strbuf.h"

/* No real chain of configs is a tenth as deep; a longer one is a loop
 * through files that differ by name only, or a mistake. */
#define TSCONFIG_MAX_DEPTH 32
/* Configs one resolution may read, counting each time one is extended: a
 * chain that extends the same parent twice at each level doubles at each
 * (a review: 18 levels took 7.5 s, 31 would be hours). A real project
 * reads a handful. */
#define TSCONFIG_MAX_READS 256

struct tsconfig {
	char *path;   /* absolute */
	char *base;   /* what the targets of paths resolve against */
	cJSON *paths; /* the effective compilerOptions.paths (owned), or NULL */
};

/* What a chain of configs has set so far. */
struct effective {
	cJSON *paths;	     /* owned */
	char *paths_dir;     /* the directory of the config that set paths */
	char *base_url;	     /* absolute, or NULL */
	struct strvec chain; /* the configs being read, outermost first */
	size_t reads;	     /* configs extended so far (TSCONFIG_MAX_READS) */
};

static bool is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* path, else path.json, when it is a file (realpath'd: tsc follows the
 * links a package manager makes), else NULL. */
static char *file_or_json(const char *path)
{
	char *p = NULL;
	if (is_file(path))
		p = xstrdup(path);
	else if (!ends_with(path, ".json")) {
		char *j = xasprintf("%s.json", path);
		if (is_file(j))
			p = j;
		else
			free(j);
	}
	if (!p)
		return NULL;
	char *real = realpath(p, NULL);
	if (real) {
		free(p);
		return real;
	}
	return p;
}

/* A package's config: "pkg/sub" as a file in the package, "pkg" as its
 * package.json "tsconfig" file, else its tsconfig.json. */
static char *package_config(const char *pkgdir, const char *sub)
{
	if (*sub) {
		char *p = path_join(pkgdir, sub);
		char *found = file_or_json(p);
		if (!found) {
			char *dir = path_join(p, "tsconfig.json");
			found = file_or_json(dir);
			free(dir);
		}
		free(p);
		return found;
	}
	char *pj = path_join(pkgdir, "package.json");
	struct strbuf sb = STRBUF_INIT;
	char *found = NULL;
	if (strbuf_read_file(&sb, pj) == 0) {
		cJSON *doc = cJSON_Parse(sb.buf);
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "tsconfig");
		if (cJSON_IsString(t)) {
			char *p = path_join(pkgdir, t->valuestring);
			found = file_or_json(p);
			free(p);
		}
		cJSON_Delete(doc);
	}
	strbuf_release(&sb);
	free(pj);
	if (!found) {
		char *p = path_join(pkgdir, "tsconfig.json");
		found = file_or_json(p);
		free(p);
	}
	return found;
}

/* The file an "extends" of the config in dir names, or NULL. */
static char *extends_resolve(const char *dir, const char *spec)
{
	if (spec[0] == '/' || spec[0] == '.') {
		char *joined = path_join(dir, spec);
		char *p = path_normalize(joined);
		char *found = file_or_json(p);
		free(p);
		free(joined);
		return found;
	}
	/* a package, looked for in each node_modules up from dir */
	const char *slash = strchr(spec, '/');
	if (spec[0] == '@' && slash)
		slash = strchr(slash + 1, '/');
	size_t len = slash ? (size_t)(slash - spec) : strlen(spec);
	char *name = xstrndup(spec, len);
	const char *sub = slash ? slash + 1 : "";
	char *d = xstrdup(dir), *found = NULL;
	for (;;) {
		char *nm = path_join(d, "node_modules");
		char *pkgdir = path_join(nm, name);
		found = package_config(pkgdir, sub);
		free(pkgdir);
		free(nm);
		char *up = path_dirname(d);
		bool top = !strcmp(up, d);
		free(d);
		d = up;
		if (found || top)
			break;
	}
	free(d);
	free(name);
	return found;
}

/* The place of item index of "extends" (index -1: the string itself). */
static struct loc extends_place(const char *path, const char *text, size_t len, int index)
{
	const char *key = "extends";
	size_t at = jsonloc_find(text, len, &key, 1);
	if (index >= 0)
		at = jsonloc_item(text, len, at, (size_t)index);
	int line, col;
	jsonloc_line_col(text, at, &line, &col);
	return (struct loc){path, line, col};
}

static char *chain_text(const struct tsconfigs *kept, const struct strvec *chain, const char *last)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i <= chain->n; i++) {
		const char *p = i < chain->n ? chain->v[i] : last;
		char *rel = path_is_within(kept->top, p) ? path_relative(kept->top, p) : xstrdup(p);
		strbuf_addf(&sb, "%s%s", i ? ", " : "", rel);
		free(rel);
	}
	return strbuf_detach(&sb, NULL);
}

static int apply(struct tsconfigs *kept, const char *path, struct effective *e);

/* One "extends" entry of the config at path (its text for places). */
static int apply_extends(struct tsconfigs *kept, const char *path, const char *text, size_t len,
			 const char *spec, int index, struct effective *e)
{
	char *dir = path_dirname(path);
	char *target = extends_resolve(dir, spec);
	free(dir);
	struct loc l = extends_place(path, text, len, index);
	if (!target) {
		warning("%s:%d:%d: tsconfig \"extends\" names \"%s\", which is not there: left "
			"out",
			l.file, l.line, l.col, spec);
		return 0;
	}
	int rc = 0;
	if (strvec_find(&e->chain, target) >= 0) {
		char *c = chain_text(kept, &e->chain, target);
		rc = config_error(&l, "tsconfig \"extends\" goes round: %s", c);
		free(c);
	} else if (e->chain.n >= TSCONFIG_MAX_DEPTH) {
		rc = config_error(&l, "tsconfig \"extends\" goes deeper than %d configs",
				  TSCONFIG_MAX_DEPTH);
	} else if (++e->reads > TSCONFIG_MAX_READS) {
		rc = config_error(&l, "tsconfig \"extends\" reads more than %d configs",
				  TSCONFIG_MAX_READS);
	} else {
		rc = apply(kept, target, e);
	}
	free(target);
	return rc;
}

/* What the config at path sets, over what it extends, into e. */
static int apply(struct tsconfigs *kept, const char *path, struct effective *e)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return 0;
	}
	char *text = xstrdup(sb.buf);
	size_t len = sb.len;
	jsonc_blank(sb.buf, sb.len);
	cJSON *doc = cJSON_Parse(sb.buf);
	strbuf_release(&sb);
	int rc = 0;
	strvec_push(&e->chain, path);
	const cJSON *ext = cJSON_GetObjectItemCaseSensitive(doc, "extends");
	if (cJSON_IsString(ext)) {
		rc = apply_extends(kept, path, text, len, ext->valuestring, -1, e);
	} else if (cJSON_IsArray(ext)) {
		int i = 0;
		const cJSON *x;
		cJSON_ArrayForEach(x, ext)
		{
			if (!rc && cJSON_IsString(x))
				rc = apply_extends(kept, path, text, len, x->valuestring, i, e);
			i++;
		}
	}
	free(e->chain.v[--e->chain.n]);
	e->chain.v[e->chain.n] = NULL;
	const cJSON *co = cJSON_GetObjectItemCaseSensitive(doc, "compilerOptions");
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(co, "baseUrl");
	const cJSON *paths = cJSON_GetObjectItemCaseSensitive(co, "paths");
	char *dir = path_dirname(path);
	if (!rc && cJSON_IsString(base)) {
		char *joined = path_join(dir, base->valuestring);
		free(e->base_url);
		e->base_url = path_normalize(joined);
		free(joined);
	}
	if (!rc && cJSON_IsObject(paths)) {
		cJSON_Delete(e->paths);
		e->paths = cJSON_Duplicate(paths, 1);
		free(e->paths_dir);
		e->paths_dir = xstrdup(dir);
	}
	free(dir);
	cJSON_Delete(doc);
	free(text);
	return rc;
}

int tsconfig_for(struct tsconfigs *kept, const char *dir, const struct tsconfig **out)
{
	*out = NULL;
	char *d = xstrdup(dir), *found = NULL;
	for (;;) {
		char *path = path_join(d, "tsconfig.json");
		if (is_file(path)) {
			found = path;
			break;
		}
		free(path);
		if (!strcmp(d, kept->top) || !path_is_within(kept->top, d))
			break;
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
	free(d);
	if (!found)
		return 0;
	char *real = realpath(found, NULL);
	if (real) {
		free(found);
		found = real;
	}
	for (size_t i = 0; i < kept->v.n; i++)
		if (!strcmp(kept->v.v[i]->path, found)) {
			free(found);
			*out = kept->v.v[i];
			return 0;
		}
	struct effective e = {0};
	int rc = apply(kept, found, &e);
	struct tsconfig *t = xcalloc(1, sizeof *t);
	t->path = found;
	t->paths = rc ? NULL : e.paths;
	if (rc)
		cJSON_Delete(e.paths);
	t->base = xstrdup(e.base_url ? e.base_url : e.paths_dir ? e.paths_dir : "/");
	free(e.base_url);
	free(e.paths_dir);
	strvec_clear(&e.chain);
	vec_push(&kept->v, t);
	*out = t;
	return rc;
}

void tsconfigs_free(struct tsconfigs *kept)
{
	for (size_t i = 0; i < kept->v.n; i++) {
		free(kept->v.v[i]->path);
		free(kept->v.v[i]->base);
		cJSON_Delete(kept->v.v[i]->paths);
		free(kept->v.v[i]);
	}
	vec_free(&kept->v);
}

/* Whether spec matches the paths pattern pat ("~lib", or "@/" and a
 * star): the text its '*' stands for into *star (from spec), its length
 * into *star_len, the length of its prefix into *prefix. */
static bool alias_match(const char *pat, const char *spec, size_t *prefix, const char **star,
			size_t *star_len)
{
	const char *st = strchr(pat, '*');
	if (!st) {
		*prefix = strlen(pat) + 1; /* an exact pattern beats every wildcard */
		*star = "";
		*star_len = 0;
		return !strcmp(pat, spec);
	}
	size_t pre = (size_t)(st - pat), suf = strlen(st + 1), n = strlen(spec);
	if (n < pre + suf || strncmp(spec, pat, pre) || strcmp(spec + n - suf, st + 1))
		return false;
	*prefix = pre;
	*star = spec + pre;
	*star_len = n - pre - suf;
	return true;
}

bool tsconfig_alias(const struct tsconfig *t, const char *spec, struct strvec *out)
{
	const cJSON *best = NULL, *e;
	size_t best_prefix = 0;
	const char *star = NULL;
	size_t star_len = 0;
	const cJSON *paths = t ? t->paths : NULL;
	cJSON_ArrayForEach(e, paths)
	{
		size_t prefix, len;
		const char *s;
		if (e->string && alias_match(e->string, spec, &prefix, &s, &len) &&
		    (!best || prefix > best_prefix)) {
			best = e;
			best_prefix = prefix;
			star = s;
			star_len = len;
		}
	}
	const cJSON *target;
	cJSON_ArrayForEach(target, best)
	{
		if (!cJSON_IsString(target))
			continue;
		struct strbuf sb = STRBUF_INIT;
		const char *ts = strchr(target->valuestring, '*');
		if (ts) {
			strbuf_add(&sb, target->valuestring, (size_t)(ts - target->valuestring));
			strbuf_add(&sb, star, star_len);
			strbuf_addstr(&sb, ts + 1);
		} else {
			strbuf_addstr(&sb, target->valuestring);
		}
		char *joined = path_join(t->base, sb.buf);
		strvec_push_nodup(out, path_normalize(joined));
		free(joined);
		strbuf_release(&sb);
	}
	return best != NULL;
}
