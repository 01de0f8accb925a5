/* workspace.c - discovery of the workspace root and its projects.
 *
 * Projects come from workspace.projects globs, else package.json
 * "workspaces" (an array, or Yarn's {packages: [...]}), as npm, pnpm and Yarn
 * spell them. A matched directory is a project when it holds a vx.yaml or a
 * package.json. */
#include "orchestrator/config/workspace.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orchestrator/config/config_blob.h"
#include "orchestrator/config/framework.h"
#include "orchestrator/config/pkgmanager.h"
#include "orchestrator/config/pnpm.h"
#include "orchestrator/config/turbo.h"
#include "util/closest.h"
#include "util/glob.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/json.h"
#include "util/jsonloc.h"
#include "util/path.h"
#include "util/readcache.h"
#include "util/strbuf.h"
#include "util/strmap.h"

/* Whether a configuration file vx looks for is at path: 1, 0 when there
 * is none, or -1 after an error line when something is there that cannot
 * be read as one (issue 57 item 3: a root vx.yaml that was a FIFO was
 * passed over without a word, and the root's task defaults with it). */
static int config_present(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR
			   ? 0
			   : error("cannot read %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error("cannot read %s: %s", path, strbuf_read_strerror(EINVAL));
	return 1;
}

/* Reads path into sb, through the kept reads rc (NULL: from the file).
 * Returns 1, 0 when there is no such file, or -1 after an error line.
 * Opening directly (no stat first) halves the system calls of discovering
 * 1000 projects; the kept reads cut them to one stat a file. */
static int read_optional(struct readcache *rc, const char *path, struct strbuf *sb)
{
	if (readcache_read(rc, path, sb) == 0)
		return config_check_size(path, sb->len) ? -1 : 1;
	if (errno == ENOENT || errno == ENOTDIR)
		return 0;
	return error("cannot read %s: %s", path, strbuf_read_strerror(errno));
}

/* Where the value keys name lies in a package.json's text (or the
 * deepest one found on the way), for an error there. */
static struct loc pkg_loc(const char *path, const struct strbuf *text, const char *const *keys,
			  size_t n)
{
	struct loc l = {path, 1, 1};
	jsonloc_line_col(text->buf, jsonloc_find(text->buf, text->len, keys, n), &l.line, &l.col);
	return l;
}

static struct loc byte_loc(const char *path, const struct strbuf *text, size_t off)
{
	struct loc l = {path, 1, 1};
	jsonloc_line_col(text->buf, off, &l.line, &l.col);
	return l;
}

/* Parses a package.json. Returns the document, or NULL after printing
 * "vx: FILE:LINE:COL: ..." at the byte that is wrong (util/json.h: a
 * byte JSON may not hold, invalid JSON, text after the object (issue 39),
 * a repeated key (issue 57)), or when it holds no object. */
static cJSON *pkg_parse(const char *path, struct strbuf *text)
{
	struct json_error err;
	cJSON *doc = json_parse(text->buf, text->len, "a package.json", &err);
	if (!doc) {
		struct loc l = byte_loc(path, text, err.at);
		config_error(&l, "%s", err.message);
		return NULL;
	}
	if (!cJSON_IsObject(doc)) {
		struct loc l = byte_loc(path, text, 0);
		config_error(&l, "package.json must hold a JSON object");
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* Takes what vx reads of a package.json (path, parsed or from its blob)
 * into p; f is left empty. */
static void pkg_apply(struct project *p, const char *path, struct pkg_fields *f)
{
	p->pkg_path = xstrdup(path);
	if (!p->name && f->name && *f->name) {
		p->name = f->name;
		f->name = NULL;
		p->name_loc = (struct loc){p->pkg_path, f->name_line, f->name_col};
	}
	/* everything but a name p already had is moved */
	p->pkg_version = f->version;
	p->pkg_deps = f->deps;
	p->pkg_dep_specs = f->dep_specs;
	p->pkg_peer_at = f->peer_at;
	p->script_names = f->script_names;
	p->scripts = f->scripts;
	free(f->name);
	memset(f, 0, sizeof *f);
}

/* An object's members, each a string (a dependency's spec, a script's
 * command), into names and values. Returns 0, or -1 after an error line
 * at the one that is not (issue 39: "scripts": {"build": 42} became a
 * task with no command). */
static int pkg_strings(const char *path, const struct strbuf *text, const cJSON *obj,
		       const char *field, const char *what, struct strvec *names,
		       struct strvec *values)
{
	const cJSON *m;
	if (!cJSON_IsObject(obj)) {
		struct loc l = pkg_loc(path, text, &field, 1);
		return config_error(&l, "package.json \"%s\" must be an object", field);
	}
	cJSON_ArrayForEach(m, obj)
	{
		if (!cJSON_IsString(m)) {
			const char *keys[] = {field, m->string};
			struct loc l = pkg_loc(path, text, keys, 2);
			return config_error(&l, "package.json \"%s\" \"%s\" must be %s", field,
					    m->string, what);
		}
		strvec_push(names, m->string);
		strvec_push(values, m->valuestring);
	}
	return 0;
}

/* Parses a package.json into f. Returns 0, or -1 after an error line. */
static int pkg_fields_parse(const char *path, struct strbuf *text, struct pkg_fields *f)
{
	memset(f, 0, sizeof *f);
	cJSON *doc = pkg_parse(path, text);
	if (!doc)
		return -1;
	int rc = 0;
	static const char *const name_key[] = {"name"};
	struct loc name_loc = pkg_loc(path, text, name_key, 1);
	cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
	if (name && !cJSON_IsString(name))
		rc = config_error(&name_loc, "package.json \"name\" must be a string");
	if (name && !rc) {
		f->name = xstrdup(name->valuestring);
		f->name_line = name_loc.line;
		f->name_col = name_loc.col;
	}
	cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "version");
	if (cJSON_IsString(version))
		f->version = xstrdup(version->valuestring);
	static const char *const kinds[] = {"dependencies", "devDependencies",
					    "optionalDependencies", "peerDependencies"};
	for (size_t k = 0; !rc && k < sizeof kinds / sizeof *kinds; k++) {
		if (!strcmp(kinds[k], "peerDependencies"))
			f->peer_at = f->deps.n;
		cJSON *deps = cJSON_GetObjectItemCaseSensitive(doc, kinds[k]);
		if (deps)
			rc = pkg_strings(path, text, deps, kinds[k], "a version string", &f->deps,
					 &f->dep_specs);
	}
	cJSON *scripts = cJSON_GetObjectItemCaseSensitive(doc, "scripts");
	if (!rc && scripts)
		rc = pkg_strings(path, text, scripts, "scripts", "a command string",
				 &f->script_names, &f->scripts);
	cJSON_Delete(doc);
	if (rc)
		pkg_fields_free(f);
	return rc;
}

/* Reads p's package.json at path (1), or says there is none (0), or -1
 * after an error line: from its kept blob in reads when the file is
 * unchanged, else parsed (and its blob kept). */
static int pkg_load(struct readcache *reads, struct project *p, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct pkg_fields f;
	int rc = 1;
	if (readcache_blob(reads, path, &text) && pkg_blob_read(text.buf, text.len, &f)) {
		pkg_apply(p, path, &f);
	} else {
		strbuf_reset(&text);
		rc = read_optional(reads, path, &text);
		if (rc > 0 && pkg_fields_parse(path, &text, &f) < 0)
			rc = -1;
		if (rc > 0) {
			struct strbuf blob = STRBUF_INIT;
			pkg_blob_write(&f, &blob);
			readcache_keep_blob(reads, path, blob.buf, blob.len);
			strbuf_release(&blob);
			pkg_apply(p, path, &f);
		}
	}
	strbuf_release(&text);
	return rc;
}

/* Reads a project's vx.yaml at path into *cfg (1), or says there is none
 * (0), or -1 after an error line; from its kept blob as pkg_load does. */
static int yaml_load(struct readcache *reads, const char *path, struct config **cfg)
{
	struct strbuf text = STRBUF_INIT;
	int rc = 1;
	if (readcache_blob(reads, path, &text) &&
	    (*cfg = config_blob_read(path, text.buf, text.len))) {
		strbuf_release(&text);
		return 1;
	}
	strbuf_reset(&text);
	rc = read_optional(reads, path, &text);
	if (rc > 0) {
		*cfg = config_parse(path, text.buf, text.len);
		if (!*cfg) {
			rc = -1;
		} else if (!(*cfg)->is_workspace) {
			struct strbuf blob = STRBUF_INIT;
			if (config_blob_write(*cfg, text.buf, text.len, &blob))
				readcache_keep_blob(reads, path, blob.buf, blob.len);
			strbuf_release(&blob);
		}
	}
	strbuf_release(&text);
	return rc;
}

/* The root package.json's "workspaces" (doc, read from path as text; found
 * as read_optional says) into patterns. Returns 0 (none is fine), or -1
 * after an error line. */
static int pkg_workspaces(const char *path, int found, struct strbuf *text, const cJSON *doc,
			  lstr_vec *out)
{
	if (found <= 0)
		return found;
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(pkg_parse(path, text)); /* says where it is not JSON */
		return -1;
	}
	const char *keys[] = {"workspaces", "packages"};
	size_t depth = 1;
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(doc, "workspaces");
	if (ws && cJSON_IsObject(ws)) {
		ws = cJSON_GetObjectItemCaseSensitive(ws, "packages");
		depth = 2;
	}
	if (!ws)
		return 0;
	size_t at = jsonloc_find(text->buf, text->len, keys, depth);
	if (!cJSON_IsArray(ws)) {
		struct loc loc = byte_loc(path, text, at);
		return config_error(&loc, "package.json \"%s\" must be an array of globs",
				    depth == 2 ? "workspaces.packages" : "workspaces");
	}
	const cJSON *e;
	size_t i = 0;
	cJSON_ArrayForEach(e, ws)
	{
		struct loc loc = byte_loc(path, text, jsonloc_item(text->buf, text->len, at, i++));
		if (!cJSON_IsString(e))
			return config_error(&loc,
					    "package.json \"workspaces\" entries must be strings");
		struct lstr s = {xstrdup(e->valuestring), loc};
		vec_push(out, s);
	}
	return 0;
}

/* Whether dir is the root of a JavaScript workspace by its own files: a
 * root turbo.json, a pnpm-workspace.yaml, a package.json with
 * "workspaces". Returns 1 and sets *why to which, 0, or -1 after an error
 * line (one of them is there and cannot be read). */
static int js_root(const char *dir, const char **why)
{
	int turbo = turbo_is_root(dir);
	if (turbo < 0)
		return -1;
	if (turbo) {
		char *json = path_join(dir, "turbo.json");
		*why = config_present(json) > 0 ? "turbo.json" : "turbo.jsonc";
		free(json);
		return turbo;
	}
	char *f = path_join(dir, "pnpm-workspace.yaml");
	int pnpm = config_present(f);
	free(f);
	if (pnpm)
		return pnpm < 0 ? -1 : (*why = "pnpm-workspace.yaml", 1);
	f = path_join(dir, "package.json");
	struct strbuf sb = STRBUF_INIT;
	int ws = read_optional(NULL, f, &sb);
	if (ws > 0 && strstr(sb.buf, "\"workspaces\"")) {
		cJSON *doc = cJSON_ParseWithLength(sb.buf, sb.len);
		ws = cJSON_GetObjectItemCaseSensitive(doc, "workspaces") != NULL;
		cJSON_Delete(doc);
	} else if (ws > 0) {
		ws = 0;
	}
	strbuf_release(&sb);
	free(f);
	if (ws > 0)
		*why = "package.json workspaces";
	return ws;
}

/* Finds the workspace root: the nearest ancestor of dir whose vx.yaml has
 * workspace:, or that is a JavaScript workspace's root (js_root), whose
 * vx.yaml, if any, is then the root's configuration. Returns its loaded
 * config and sets *root and *why, or NULL (error printed). */
static struct config *find_root(const char *start, char **root, const char **why)
{
	char *dir = xstrdup(start);
	for (;;) {
		char *yaml = path_join(dir, "vx.yaml");
		struct config *cfg = NULL;
		int here = config_present(yaml), js = 0;
		if (here) {
			cfg = here > 0 ? config_load(yaml) : NULL;
			if (!cfg) {
				free(yaml);
				free(dir);
				return NULL;
			}
			if (cfg->is_workspace) {
				free(yaml);
				*root = dir;
				*why = "vx.yaml workspace:";
				return cfg;
			}
		}
		if ((js = js_root(dir, why)) < 0) {
			config_free(cfg);
			free(yaml);
			free(dir);
			return NULL;
		}
		if (js) {
			if (!cfg) {
				static const char empty[] = "workspace: {}\n";
				cfg = config_parse(yaml, empty, sizeof empty - 1);
			}
			cfg->is_workspace = true;
			free(yaml);
			*root = dir;
			return cfg;
		}
		config_free(cfg);
		free(yaml);
		if (!strcmp(dir, "/")) {
			free(dir);
			error("no workspace found: no vx.yaml with a \"workspace:\" key, root "
			      "turbo.json, pnpm-workspace.yaml or package.json with \"workspaces\" "
			      "in %s or any parent",
			      start);
			return NULL;
		}
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
	}
}

struct collect {
	struct strvec *dirs;
};

static int collect_dir(const char *rel, void *ctx)
{
	struct collect *c = ctx;
	strvec_push(c->dirs, rel);
	return 0;
}

static const char *const SKIP_DIRS[] = {".git", "node_modules", ".vx", NULL};

/* Expands the project patterns into directories relative to root. A pattern
 * with a leading '!' takes directories back, later entries winning. */
static int expand_projects(const char *root, const lstr_vec *pats, struct strvec *dirs)
{
	struct strvec all = STRVEC_INIT;
	for (size_t i = 0; i < pats->n; i++) {
		const char *pat = pats->v[i].s;
		if (pat[0] == '!')
			continue;
		const char *why;
		size_t off;
		if (glob_check(pat, &why, &off))
			return config_error(&pats->v[i].loc, "project pattern \"%s\": %s", pat,
					    why);
		if (pat[0] == '/' || !strncmp(pat, "../", 3) || !strcmp(pat, ".."))
			return config_error(&pats->v[i].loc,
					    "project pattern \"%s\" leaves the workspace root",
					    pat);
		struct collect c = {&all};
		if (glob_walk(root, pat, GLOB_WALK_DIRS, SKIP_DIRS, collect_dir, &c) < 0) {
			strvec_clear(&all);
			return error_errno("cannot read the projects of %s", root);
		}
	}
	strvec_sort_unique(&all);
	struct strvec pv = STRVEC_INIT;
	for (size_t i = 0; i < pats->n; i++)
		strvec_push(&pv, pats->v[i].s);
	for (size_t i = 0; i < all.n; i++)
		if (globlist_match(pv.v, pv.n, all.v[i]))
			strvec_push(dirs, all.v[i]);
	strvec_clear(&pv);
	strvec_clear(&all);
	return 0;
}

static struct project *project_new(struct workspace *ws, const char *rel)
{
	struct project *p = xcalloc(1, sizeof *p);
	p->rel = xstrdup(rel);
	p->dir = !strcmp(rel, ".") ? xstrdup(ws->root) : path_join(ws->root, rel);
	p->is_root = !strcmp(rel, ".");
	return p;
}

/* Loads p's vx.yaml and package.json, through the kept reads. Returns 0, 1
 * when the directory holds neither (not a project), or -1 after an error
 * line. */
static int project_load(struct workspace *ws, struct readcache *reads, struct project *p)
{
	char *yaml = path_join(p->dir, "vx.yaml");
	char *pkg = path_join(p->dir, "package.json");
	int rc = 0, found_yaml = 0, found_pkg = 0;
	if (p->is_root) {
		p->cfg = ws->cfg;
		found_yaml = 1;
	} else if ((found_yaml = yaml_load(reads, yaml, &p->cfg)) < 0) {
		rc = -1;
	} else if (found_yaml) {
		if (p->cfg->is_workspace)
			rc = config_error(&(struct loc){p->cfg->path, 1, 1},
					  "a project's vx.yaml must not hold workspace: (the "
					  "workspace root is %s)",
					  ws->root);
	}
	if (!rc && p->cfg && p->cfg->name.s) {
		p->name = xstrdup(p->cfg->name.s);
		p->name_loc = p->cfg->name.loc;
	}
	if (!rc && (found_pkg = pkg_load(reads, p, pkg)) < 0)
		rc = -1;
	if (!rc && !found_yaml && !found_pkg)
		rc = 1;
	if (!rc && !p->name) {
		p->name = xstrdup(p->is_root ? "//" : p->rel);
		p->name_loc = (struct loc){p->cfg ? p->cfg->path : p->pkg_path, 1, 1};
	}
	free(yaml);
	free(pkg);
	return rc;
}

static int cmp_project(const void *a, const void *b)
{
	return strcmp((*(struct project *const *)a)->rel, (*(struct project *const *)b)->rel);
}

static void project_free(struct project *p, const struct workspace *ws)
{
	free(p->name);
	free(p->dir);
	free(p->rel);
	if (p->cfg != ws->cfg)
		config_free(p->cfg);
	config_free(p->turbo_cfg);
	free(p->pkg_path);
	free(p->pkg_version);
	strvec_clear(&p->script_names);
	strvec_clear(&p->scripts);
	strvec_clear(&p->pkg_deps);
	strvec_clear(&p->pkg_dep_specs);
	vec_free(&p->deps);
	vec_free(&p->nested);
	free(p);
}

void workspace_free(struct workspace *ws)
{
	if (!ws)
		return;
	for (size_t i = 0; i < ws->projects.n; i++)
		project_free(ws->projects.v[i], ws);
	vec_free(&ws->projects);
	strmap_clear(&ws->by_name);
	strvec_clear(&ws->project_globs);
	free(ws->pnpm_path);
	free(ws->root_pkg_path);
	cJSON_Delete(ws->root_pkg);
	config_free(ws->cfg);
	free(ws->root);
	free(ws);
}

void workspace_loader_release(struct workspace_loader *ld)
{
	readcache_free(ld->reads);
	ld->reads = NULL;
	if (ld->stop && ld->listing)
		ld->stop(ld->listing);
	ld->listing = NULL;
}

long workspace_find(const struct workspace *ws, const char *name)
{
	size_t i;
	if (strmap_get(&ws->by_name, name, &i))
		return (long)i;
	if (!strcmp(name, "//")) /* Turborepo's name for the root project */
		for (i = 0; i < ws->projects.n; i++)
			if (ws->projects.v[i]->is_root)
				return (long)i;
	return -1;
}

const char *project_script(const struct project *p, const char *name)
{
	long i = strvec_find(&p->script_names, name);
	return i < 0 ? NULL : p->scripts.v[i];
}

long workspace_project_of(const struct workspace *ws, const char *path)
{
	char *rel = path[0] == '/' ? path_relative(ws->root, path) : path_normalize(path);
	long best = -1;
	size_t best_len = 0;
	for (size_t i = 0; i < ws->projects.n; i++) {
		const struct project *p = ws->projects.v[i];
		if (path_is_within(p->rel, rel) && (best < 0 || strlen(p->rel) > best_len)) {
			best = (long)i;
			best_len = strlen(p->rel);
		}
	}
	free(rel);
	return best;
}

static bool add_edge(struct project *p, size_t to)
{
	for (size_t i = 0; i < p->deps.n; i++)
		if (p->deps.v[i] == to)
			return false;
	vec_push(&p->deps, to);
	return true;
}

static int resolve_edges(struct workspace *ws)
{
	for (size_t i = 0; i < ws->projects.n; i++) {
		struct project *p = ws->projects.v[i];
		/* its framework, from its external dependencies: a workspace
		 * package named "vite" is no Vite (as Turborepo) */
		struct strvec external = STRVEC_INIT;
		for (size_t d = 0; d < p->pkg_deps.n; d++) {
			long j = workspace_find(ws, p->pkg_deps.v[d]);
			if (j >= 0 && (size_t)j != i)
				add_edge(p, (size_t)j);
			else if (j < 0 && d < p->pkg_peer_at)
				strvec_push(&external, p->pkg_deps.v[d]);
		}
		p->framework = framework_infer(&external);
		strvec_clear(&external);
		if (!p->cfg)
			continue;
		const lstr_vec *dv = &p->cfg->depends_on;
		for (size_t d = 0; d < dv->n; d++) {
			long j = workspace_find(ws, dv->v[d].s);
			if (j < 0)
				return config_error(
				    &dv->v[d].loc,
				    "dependsOn names \"%s\", which is no project of this workspace",
				    dv->v[d].s);
			if ((size_t)j == i)
				return config_error(&dv->v[d].loc,
						    "project \"%s\" cannot depend on itself",
						    p->name);
			add_edge(p, (size_t)j);
		}
	}
	/* Nesting: each project's ancestors, found by walking up its directory. */
	struct strmap by_rel = STRMAP_INIT;
	for (size_t i = 0; i < ws->projects.n; i++)
		strmap_put(&by_rel, ws->projects.v[i]->rel, i);
	for (size_t j = 0; j < ws->projects.n; j++) {
		const char *rel = ws->projects.v[j]->rel;
		size_t len = strcmp(rel, ".") ? strlen(rel) : 0, up;
		while (len) {
			while (len && rel[len - 1] != '/')
				len--;
			if (len)
				len--;
			if (len ? strmap_getn(&by_rel, rel, len, &up)
				: strmap_get(&by_rel, ".", &up))
				vec_push(&ws->projects.v[up]->nested, j);
		}
	}
	strmap_clear(&by_rel);
	return 0;
}

/* The root is a project of its own when its vx.yaml names it or holds a
 * root-only "//#task" (Turborepo's spelling): the root's plain tasks: are the
 * defaults every project inherits, and running them in the root too would run
 * e.g. a root package.json "build": "vx run build" inside itself. */
static bool root_is_project(const struct config *cfg)
{
	if (cfg->name.s || cfg->depends_on.n)
		return true;
	for (size_t i = 0; i < cfg->tasks.n; i++)
		if (!strncmp(cfg->tasks.v[i]->name, "//#", 3))
			return true;
	return false;
}

/* The kept reads of the cache directory dir, when it exists (a run that
 * has never cached keeps none, and creates nothing here). */
static struct readcache *reads_open(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	char *f = path_join(dir, "configs");
	struct readcache *rc = readcache_load(f);
	free(f);
	return rc;
}

/* Whether a run kept what it saw in the cache directory dir (its stat
 * cache is there): the input walk then goes by the listings it kept, or
 * keeps them now, once. Not in a fresh clone: git walks instead. */
static bool cache_kept(const char *dir)
{
	char *f = path_join(dir, "statcache");
	struct stat st;
	bool kept = stat(f, &st) == 0;
	free(f);
	return kept;
}

static int check_project_tasks(const struct workspace *ws);

struct workspace *workspace_load_with(const char *start_dir, struct workspace_loader *ld)
{
	char *start = realpath(start_dir, NULL);
	if (!start) {
		error_errno("cannot enter %s", start_dir);
		return NULL;
	}
	struct workspace *ws = xcalloc(1, sizeof *ws);
	ws->cfg = find_root(start, &ws->root, &ws->root_from);
	free(start);
	if (!ws->cfg) {
		free(ws);
		return NULL;
	}
	if (turbo_load(ws->root, ws->cfg) < 0) {
		config_free(ws->cfg);
		free(ws->root);
		free(ws);
		return NULL;
	}
	fs_anchor(ws->root);
	char *cache = workspace_cache_dir(ws);
	const char *refused = workspace_cache_dir_refused(ws, cache);
	if (refused) {
		const char *env = getenv("VX_CACHE_DIR");
		if (env && *env)
			error("VX_CACHE_DIR=%s cannot be the cache directory: %s", env, refused);
		else if (ws->cfg->cache_dir_loc.file)
			config_error(&ws->cfg->cache_dir_loc,
				     "cache.dir \"%s\" (%s) cannot be the cache directory: %s",
				     ws->cfg->cache_dir, cache, refused);
		else
			error("%s cannot be the cache directory: %s", cache, refused);
		free(cache);
		config_free(ws->cfg);
		free(ws->root);
		free(ws);
		return NULL;
	}
	/* every racy rule from here on (the listing's walk starts below)
	 * reads the file system's clock, stamped in the cache directory */
	fs_clock_anchor(cache);
	if (ld->start)
		ld->listing = ld->start(ws->root, cache_kept(cache) ? cache : NULL);
	ld->reads = reads_open(cache);
	free(cache);
	lstr_vec pkg_pats = {0};
	const lstr_vec *pats = &ws->cfg->projects;
	struct strvec dirs = STRVEC_INIT;
	ws->projects_from = "vx.yaml workspace.projects";
	/* The root package.json, read and parsed once: its workspaces, its
	 * packageManager, and (externals.c) its dependencies. Not JSON, it is
	 * an error only where its workspaces are asked for. */
	char *pkg = path_join(ws->root, "package.json");
	ws->root_pkg_path = xstrdup(pkg); /* the locs of its workspaces point here */
	struct strbuf pkg_text = STRBUF_INIT;
	int pkg_found = read_optional(NULL, pkg, &pkg_text);
	if (pkg_found < 0)
		goto fail;
	if (pkg_found > 0) {
		struct json_error err;
		ws->root_pkg = json_parse(pkg_text.buf, pkg_text.len, "a package.json", &err);
		/* a repeated key is an error wherever vx reads it: its
		 * packageManager and dependencies are read too */
		if (!ws->root_pkg && err.fault == JSON_REPEATED_KEY) {
			struct loc l = byte_loc(ws->root_pkg_path, &pkg_text, err.at);
			config_error(&l, "%s", err.message);
			goto fail;
		}
	}
	if (!ws->cfg->projects_set) {
		/* pnpm keeps its list in pnpm-workspace.yaml and ignores
		 * package.json's; npm, Yarn and Bun keep it in package.json */
		ws->pnpm_path = path_join(ws->root, "pnpm-workspace.yaml");
		int rc = pnpm_workspace_packages(ws->pnpm_path, &pkg_pats);
		if (rc < 0)
			goto fail;
		ws->projects_from = "pnpm-workspace.yaml packages";
		if (rc == 0) {
			rc = pkg_workspaces(ws->root_pkg_path, pkg_found, &pkg_text, ws->root_pkg,
					    &pkg_pats);
			if (rc)
				goto fail;
			ws->projects_from = "package.json workspaces";
		}
		pats = &pkg_pats;
	}
	package_manager_detect(ws->root, ws->root_pkg, &ws->pm);
	/* Turborepo's single-package mode: a turbo.json beside a package.json
	 * that lists no workspaces (or --single-package): the root package is
	 * the one project, and turbo.json's tasks and its scripts are its own */
	ws->single_package = ld->single_package || (ws->cfg->turbo_path && !ws->cfg->projects_set &&
						    !pats->n && pkg_found > 0);
	for (size_t i = 0; !ws->single_package && i < pats->n; i++)
		strvec_push(&ws->project_globs, pats->v[i].s);
	if (!ws->single_package && expand_projects(ws->root, pats, &dirs))
		goto fail;
	if (ws->single_package || root_is_project(ws->cfg))
		strvec_push(&dirs, ".");
	for (size_t i = 0; i < dirs.n; i++) {
		struct project *p = project_new(ws, dirs.v[i]);
		int rc = project_load(ws, ld->reads, p);
		if (rc > 0) { /* matched a pattern, but holds neither file */
			project_free(p, ws);
			continue;
		}
		vec_push(&ws->projects, p);
		if (rc)
			goto fail;
	}
	if (ws->projects.n) /* none: the vector's array is NULL, which qsort may not take */
		qsort(ws->projects.v, ws->projects.n, sizeof *ws->projects.v, cmp_project);
	for (size_t i = 0; i < ws->projects.n; i++) {
		size_t j;
		struct project *b = ws->projects.v[i];
		if (strmap_get(&ws->by_name, b->name, &j)) {
			config_error(&b->name_loc, "duplicate project name \"%s\" (also %s)",
				     b->name, ws->projects.v[j]->rel);
			goto fail;
		}
		strmap_put(&ws->by_name, b->name, i);
	}
	if (resolve_edges(ws) || check_project_tasks(ws))
		goto fail;
	/* A package's own turbo.json ("extends": ["//"]) over the root's. */
	for (size_t i = 0; ws->cfg->turbo_path && i < ws->projects.n; i++) {
		struct project *p = ws->projects.v[i];
		if (p->is_root)
			continue;
		p->turbo_cfg = xcalloc(1, sizeof *p->turbo_cfg);
		int r = turbo_load_package(ld->reads, p->dir, p->name, ws->cfg, p->turbo_cfg);
		if (r < 0)
			goto fail;
		if (!r) {
			config_free(p->turbo_cfg);
			p->turbo_cfg = NULL;
		}
	}
	for (size_t i = 0; i < pkg_pats.n; i++)
		free(pkg_pats.v[i].s);
	vec_free(&pkg_pats);
	strvec_clear(&dirs);
	strbuf_release(&pkg_text);
	free(pkg);
	return ws;
fail:
	for (size_t i = 0; i < pkg_pats.n; i++)
		free(pkg_pats.v[i].s);
	vec_free(&pkg_pats);
	strvec_clear(&dirs);
	strbuf_release(&pkg_text);
	free(pkg);
	workspace_free(ws);
	return NULL;
}

/* A vx.yaml's "PROJECT#TASK" (and "//#TASK"): only the root's may name
 * another project's task, and the project must be one of the workspace, a
 * misspelt name being an error, not a layer nobody reads. (turbo.json's are
 * not checked: Turborepo does not.) Returns 0, or -1 after the error. */
static int check_project_tasks(const struct workspace *ws)
{
	const char **names = xmalloc((ws->projects.n + 1) * sizeof *names);
	for (size_t i = 0; i < ws->projects.n; i++)
		names[i] = ws->projects.v[i]->name;
	int rc = 0;
	for (size_t i = 0; !rc && i <= ws->projects.n; i++) {
		const struct project *p = i < ws->projects.n ? ws->projects.v[i] : NULL;
		const struct config *cfg = p ? p->cfg : ws->cfg;
		if (!cfg || (p && cfg == ws->cfg))
			continue;
		for (size_t k = 0; !rc && k < cfg->tasks.n; k++) {
			const struct task_cfg *t = cfg->tasks.v[k];
			const char *hash = strchr(t->name, '#');
			if (!hash || !t->loc.file || strcmp(t->loc.file, cfg->path))
				continue; /* a plain task, or turbo.json's */
			char *proj = xstrndup(t->name, (size_t)(hash - t->name));
			size_t at;
			if (p && !strcmp(proj, "//"))
				rc = config_error(&t->loc,
						  "\"%s\": a \"//#\" task belongs in the workspace "
						  "root's vx.yaml",
						  t->name);
			else if (p)
				rc = config_error(&t->loc,
						  "\"%s\": a project's vx.yaml names its own tasks "
						  "(\"%s\"); PROJECT#TASK belongs in the root's",
						  t->name, hash + 1);
			else if (strcmp(proj, "//") && !strmap_get(&ws->by_name, proj, &at)) {
				const char *near = closest_name(proj, names, ws->projects.n);
				rc = config_error(&t->loc,
						  "\"%s\": no project is named \"%s\"%s%s%s",
						  t->name, proj, near ? " (did you mean \"" : "",
						  near ? near : "", near ? "\"?)" : "");
			}
			free(proj);
		}
	}
	free(names);
	return rc;
}

struct workspace *workspace_load(const char *start_dir)
{
	struct workspace_loader ld = {0};
	struct workspace *ws = workspace_load_with(start_dir, &ld);
	workspace_loader_release(&ld);
	return ws;
}

struct workspace *workspace_load_here(void)
{
	char *cwd = path_absolute(".");
	struct workspace *ws = workspace_load(cwd);
	free(cwd);
	return ws;
}

char *workspace_fix_yaml(const struct workspace *ws, const struct project *p)
{
	return p->cfg && p->cfg != ws->cfg ? path_relative(ws->root, p->cfg->path)
					   : xasprintf("%s/vx.yaml", p->rel);
}

void workspace_closure(const struct workspace *ws, const bool *seed, bool reverse, bool *mark)
{
	size_t n = ws->projects.n;
	size_t *queue = xmalloc((n + 1) * sizeof *queue), head = 0, tail = 0;
	bool *seen = xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++)
		if (seed[i]) {
			queue[tail++] = i;
			seen[i] = true;
		}
	while (head < tail) {
		size_t u = queue[head++];
		for (size_t v = 0; v < n; v++) {
			if (mark[v] && seen[v])
				continue;
			const struct project *from =
			    reverse ? ws->projects.v[v] : ws->projects.v[u];
			size_t to = reverse ? u : v;
			for (size_t k = 0; k < from->deps.n; k++)
				if (from->deps.v[k] == to) {
					/* a seed reached from another is marked too
					 * ("[REF]^..." keeps a changed package that
					 * another changed one depends on, as turbo) */
					mark[v] = true;
					if (!seen[v]) {
						seen[v] = true;
						queue[tail++] = v;
					}
					break;
				}
		}
	}
	free(queue);
	free(seen);
}
