/* bun.lock (Bun 1.2 and later; JSON with trailing commas):
 *
 *   "workspaces": { "": {"name": …, "dependencies": {…}}, "apps/web": {…} },
 *   "packages": {
 *     "react": ["react@18.2.0", "", {"dependencies": {…}}, "sha512-…"],
 *     "ui": ["ui@workspace:packages/ui"],
 *     "web/react": ["react@17.0.2", …]
 *   }
 *
 * A package's key is its install path by names ("a/b" is b under a); a
 * dependency is found as Node would: under the dependent's path, then
 * each shorter one, then at the top. A workspace's own copies are under
 * its name. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/json.h"
#include "util/jsonc.h"

static const char *const dep_kinds[] = {"dependencies", "devDependencies", "optionalDependencies",
					"peerDependencies"};

/* The length of path without its last package name ("a/@s/b" -> "a"),
 * or 0. */
static size_t parent_len(const char *path, size_t len)
{
	size_t starts[64], n = 0;
	for (size_t i = 0; i < len && n < 64;) {
		starts[n++] = i;
		size_t seg = strcspn(path + i, "/");
		if (path[i] == '@' && i + seg < len) /* a scope takes the next segment too */
			seg += 1 + strcspn(path + i + seg + 1, "/");
		i += seg + 1;
	}
	return n > 1 ? starts[n - 1] - 1 : 0;
}

/* The key NAME resolves to from the package at key base (len bytes), or -1. */
static long find_from(const struct lockset *ls, const char *base, size_t len, const char *name,
		      struct strbuf *tmp)
{
	for (;;) {
		strbuf_reset(tmp);
		if (len)
			strbuf_addf(tmp, "%.*s/", (int)len, base);
		strbuf_addstr(tmp, name);
		long i = lg_find(ls, tmp->buf);
		if (i >= 0 || !len)
			return i;
		len = parent_len(base, len);
	}
}

static void add_edges(struct lockset *ls, size_t from, const cJSON *meta, const char *base,
		      struct strbuf *tmp)
{
	for (size_t k = 0; k < sizeof dep_kinds / sizeof *dep_kinds; k++) {
		cJSON *deps = cJSON_GetObjectItemCaseSensitive(meta, dep_kinds[k]);
		cJSON *d;
		if (!cJSON_IsObject(deps))
			continue;
		cJSON_ArrayForEach(d, deps)
		{
			long to = find_from(ls, base, strlen(base), d->string, tmp);
			if (to >= 0)
				lg_edge(ls, from, (size_t)to);
		}
	}
}

int lock_parse_bun(struct lockset *ls, const char *text, size_t len, struct strbuf *err)
{
	char *copy = xstrndup(text, len);
	jsonc_blank(copy, len);
	struct json_error je;
	cJSON *doc = json_parse(copy, len, "a bun.lock", &je);
	int rc = -1;
	if (!cJSON_IsObject(doc)) {
		lock_json_error(err, copy, doc ? NULL : &je);
		free(copy);
		goto out;
	}
	free(copy);
	cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "lockfileVersion");
	if (!cJSON_IsNumber(ver) || ver->valueint < 0 || ver->valueint > 1) {
		if (cJSON_IsNumber(ver))
			strbuf_addf(err, "lockfileVersion %d is not read (0 and 1 are)",
				    ver->valueint);
		else
			strbuf_addstr(err, "no lockfileVersion");
		goto out;
	}
	cJSON *wss = cJSON_GetObjectItemCaseSensitive(doc, "workspaces");
	cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(doc, "packages");
	if (!cJSON_IsObject(wss) || !cJSON_IsObject(pkgs)) {
		strbuf_addstr(err, "no \"workspaces\" and \"packages\" objects");
		goto out;
	}
	lg_importer_nodes(ls);
	cJSON *e;
	cJSON_ArrayForEach(e, pkgs)
	{
		cJSON *desc = cJSON_GetArrayItem(e, 0);
		if (!cJSON_IsArray(e) || !cJSON_IsString(desc))
			continue;
		size_t i = lg_node(ls, e->string);
		const char *d = desc->valuestring;
		size_t nl = lg_name_len(d);
		if (!strncmp(d + nl, "@workspace:", 11)) {
			long k = lg_importer_rel(ls, d + nl + 11);
			if (k >= 0)
				lg_edge(ls, i, ls->imp_node[k]);
			continue;
		}
		cJSON *last = cJSON_GetArrayItem(e, cJSON_GetArraySize(e) - 1);
		const char *ident = cJSON_IsString(last) && !strncmp(last->valuestring, "sha", 3)
					? last->valuestring
					: d;
		char *name = xstrndup(d, nl);
		lg_resolve(ls, i, name, d[nl] ? d + nl + 1 : NULL, ident);
		free(name);
	}
	struct strbuf tmp = STRBUF_INIT;
	cJSON_ArrayForEach(e, pkgs)
	{
		long i = lg_find(ls, e->string);
		cJSON *m;
		if (i < 0)
			continue;
		cJSON_ArrayForEach(m, e) if (cJSON_IsObject(m))
		{
			add_edges(ls, (size_t)i, m, e->string, &tmp);
			break;
		}
	}
	cJSON_ArrayForEach(e, wss)
	{
		long k = lg_importer_rel(ls, e->string);
		cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
		if (k >= 0 && cJSON_IsObject(e))
			add_edges(ls, ls->imp_node[k], e,
				  cJSON_IsString(name) && *e->string ? name->valuestring : "",
				  &tmp);
	}
	strbuf_release(&tmp);
	rc = 0;
out:
	cJSON_Delete(doc);
	return rc;
}
