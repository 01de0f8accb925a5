/* package-lock.json and npm-shrinkwrap.json, lockfileVersion 2 and 3: the
 * "packages" object keyed by install location ("" the root,
 * "apps/web" a workspace, "node_modules/react", a nested
 * "node_modules/a/node_modules/b", "node_modules/web" with "link": true
 * for a workspace's link). A dependency is found where Node would load it:
 * NAME under the dependent's own node_modules, then each ancestor's. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/json.h"

static const char *const dep_kinds[] = {"dependencies", "devDependencies", "optionalDependencies",
					"peerDependencies"};

/* The location NAME resolves to from location loc, or -1. */
static long find_from(const struct lockset *ls, const char *loc, const char *name,
		      struct strbuf *tmp)
{
	size_t dir = strlen(loc);
	for (;;) {
		strbuf_reset(tmp);
		if (dir)
			strbuf_addf(tmp, "%.*s/", (int)dir, loc);
		strbuf_addf(tmp, "node_modules/%s", name);
		long i = lg_find(ls, tmp->buf);
		if (i >= 0 || !dir)
			return i;
		/* up one directory, and past a node_modules (no package's dir) */
		while (dir && loc[dir - 1] != '/')
			dir--;
		dir -= dir > 0;
		if (dir >= 12 && !memcmp(loc + dir - 12, "node_modules", 12) &&
		    (dir == 12 || loc[dir - 13] == '/')) {
			dir -= 12;
			dir -= dir > 0;
		}
	}
}

/* The package name of location loc: what follows its last node_modules/. */
static const char *name_of(const char *loc)
{
	const char *n = loc, *p = loc;
	while ((p = strstr(p, "node_modules/"))) {
		if (p == loc || p[-1] == '/')
			n = p + 13;
		p += 13;
	}
	return n;
}

int lock_parse_npm(struct lockset *ls, const char *text, size_t len, struct strbuf *err)
{
	struct json_error je;
	cJSON *doc = json_parse(text, len, "a package-lock.json", &je);
	if (!doc || !cJSON_IsObject(doc)) {
		lock_json_error(err, text, doc ? NULL : &je);
		cJSON_Delete(doc);
		return -1;
	}
	int rc = -1;
	cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "lockfileVersion");
	cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(doc, "packages");
	if (!cJSON_IsNumber(ver) || ver->valueint < 2 || ver->valueint > 3) {
		if (cJSON_IsNumber(ver))
			strbuf_addf(err, "lockfileVersion %d is not read (2 and 3 are)",
				    ver->valueint);
		else
			strbuf_addstr(err, "no lockfileVersion");
		goto out;
	}
	if (!cJSON_IsObject(pkgs)) {
		strbuf_addstr(err, "no \"packages\" object");
		goto out;
	}
	cJSON *e;
	/* every location first, so a dependency finds its target in any order */
	cJSON_ArrayForEach(e, pkgs)
	{
		if (!cJSON_IsObject(e))
			continue;
		size_t i = lg_node(ls, e->string);
		long k = lg_importer_rel(ls, e->string);
		if (k >= 0 && !strstr(e->string, "node_modules/")) {
			lg_importer(ls, (size_t)k, i);
			continue;
		}
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "link")))
			continue;
		if (!strstr(e->string, "node_modules/"))
			continue; /* a workspace package vx was not asked about */
		cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
		cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "version");
		cJSON *integrity = cJSON_GetObjectItemCaseSensitive(e, "integrity");
		cJSON *resolved = cJSON_GetObjectItemCaseSensitive(e, "resolved");
		lg_resolve(ls, i, cJSON_IsString(name) ? name->valuestring : name_of(e->string),
			   cJSON_IsString(v) ? v->valuestring : NULL,
			   cJSON_IsString(integrity)  ? integrity->valuestring
			   : cJSON_IsString(resolved) ? resolved->valuestring
						      : NULL);
	}
	struct strbuf tmp = STRBUF_INIT;
	cJSON_ArrayForEach(e, pkgs)
	{
		if (!cJSON_IsObject(e))
			continue;
		size_t i = (size_t)lg_find(ls, e->string);
		cJSON *resolved = cJSON_GetObjectItemCaseSensitive(e, "resolved");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "link"))) {
			/* a workspace's link: to its location ("apps/web") */
			long to =
			    cJSON_IsString(resolved) ? lg_find(ls, resolved->valuestring) : -1;
			if (to >= 0)
				lg_edge(ls, i, (size_t)to);
			continue;
		}
		for (size_t k = 0; k < sizeof dep_kinds / sizeof *dep_kinds; k++) {
			cJSON *deps = cJSON_GetObjectItemCaseSensitive(e, dep_kinds[k]);
			cJSON *d;
			if (!cJSON_IsObject(deps))
				continue;
			cJSON_ArrayForEach(d, deps)
			{
				long to = find_from(ls, e->string, d->string, &tmp);
				if (to >= 0) /* an optional one not installed is in no location */
					lg_edge(ls, i, (size_t)to);
			}
		}
	}
	strbuf_release(&tmp);
	rc = 0;
out:
	cJSON_Delete(doc);
	return rc;
}
