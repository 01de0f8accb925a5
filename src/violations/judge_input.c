/* judge_input.c - the questions the judge asks of a task's facts, and
 * the facts its sandbox request decides (judge_input_from_request). */
#include "violations/judge_input.h"

#include <stdlib.h>
#include <string.h>

#include "util/glob.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The path macOS reports under /private (/private/tmp/x) as its user
 * writes it (/tmp/x), or NULL when it is no such path. */
static const char *unprivate(const char *path)
{
	static const char *const links[] = {"/tmp", "/var", "/etc"};
	if (strncmp(path, "/private/", 9))
		return NULL;
	for (size_t i = 0; i < sizeof links / sizeof *links; i++)
		if (path_is_within(links[i], path + 8))
			return path + 8;
	return NULL;
}

/* An ignore glob: relative ones are anchored at the project, "~/" at home.
 * A path macOS spells under /private is matched as written too: an ignore
 * says /tmp/cache, as on Linux, and a Seatbelt record /private/tmp/cache. */
bool judge_ignored(const struct judge_input *in, const char *const *globs, size_t n,
		   const char *path)
{
	const char *alt = unprivate(path);
	if (alt && judge_ignored(in, globs, n, alt))
		return true;
	for (size_t i = 0; i < n; i++) {
		const char *g = globs[i];
		char *abs;
		if (g[0] == '~' && (g[1] == '/' || !g[1]))
			abs = in->home ? path_join(in->home, g[1] ? g + 2 : ".") : NULL;
		else
			abs = path_join(in->project_dir, g);
		if (!abs)
			continue;
		/* A trailing '/' names a directory and all below it. */
		size_t len = strlen(g);
		bool hit = glob_match(abs + 1, path + 1) ||
			   ((len && g[len - 1] == '/') && path_is_within(abs, path));
		if (!hit && !glob_has_magic(g))
			hit = path_is_within(abs, path);
		free(abs);
		if (hit)
			return true;
	}
	return false;
}

char *judge_display_path(const struct judge_input *in, const char *path)
{
	if (in->workspace_root && path_is_within(in->workspace_root, path))
		return path_relative(in->workspace_root, path);
	if (in->home && *in->home && strcmp(in->home, "/") && path_is_within(in->home, path)) {
		char *rel = path_relative(in->home, path);
		char *out = xasprintf("~/%s", rel);
		free(rel);
		return out;
	}
	return xstrdup(path);
}

/* The credential store under home that holds path, or NULL. */
const char *judge_credential_store(const struct judge_input *in, const char *path)
{
	if (!in->home || !*in->home)
		return NULL;
	for (const char *const *c = walls_credentials; *c; c++) {
		char *store = path_join(in->home, *c);
		bool hit = path_is_within(store, path);
		free(store);
		if (hit)
			return *c;
	}
	return NULL;
}

/* The dependency whose project holds path (the deepest), or NULL. */
const struct judge_dep *judge_dep_of(const struct judge_input *in, const char *path)
{
	const struct judge_dep *best = NULL;
	for (size_t i = 0; i < in->n_deps; i++)
		if (judge_under(in->deps[i].dir, path) &&
		    (!best || strlen(in->deps[i].dir) > strlen(best->dir)))
			best = &in->deps[i];
	return best;
}

/* path is a regular file a dependency wrote in this run (newer than the
 * run's start): one its outputs should name. */
bool judge_dep_written(const struct judge_input *in, const char *path)
{
	if (!in->run_started || !judge_dep_of(in, path) || !in->host)
		return false;
	char *real = judge_host_resolve(in, path);
	bool r = real && judge_host_kind(in, real) == JUDGE_FILE &&
		 in->host->mtime(in->host, real) >= in->run_started;
	free(real);
	return r;
}

enum judge_kind judge_host_kind(const struct judge_input *in, const char *path)
{
	return in->host ? in->host->kind(in->host, path) : JUDGE_ABSENT;
}

char *judge_host_resolve(const struct judge_input *in, const char *path)
{
	return in->host ? in->host->resolve(in->host, path) : NULL;
}

bool judge_on_host(const struct judge_input *in, const char *path)
{
	return judge_host_kind(in, path) != JUDGE_ABSENT;
}

bool judge_host_is_dir(const struct judge_input *in, const char *path)
{
	char *real = judge_host_resolve(in, path);
	bool r = real && judge_host_kind(in, real) == JUDGE_DIR;
	free(real);
	return r;
}

enum judge_kind judge_read_kind(const struct judge_input *in, const struct access_event *e,
				const char *path)
{
	if (e->opened_dir)
		return JUDGE_DIR;
	enum judge_kind k = judge_host_kind(in, path);
	return k == JUDGE_ABSENT && e->real && !e->err ? JUDGE_FILE : k;
}

bool judge_is_write_root(const struct judge_input *in, const char *path)
{
	for (size_t i = 0; i < in->n_write_roots; i++)
		if (!strcmp(in->write_roots[i], path))
			return true;
	return false;
}

bool judge_network_ignored(const struct judge_input *in, const char *target)
{
	const char *colon = strrchr(target, ':');
	char *host = xstrndup(target, colon ? (size_t)(colon - target) : strlen(target));
	bool quiet = false;
	for (size_t i = 0; i < in->n_ignore_network && !quiet; i++)
		quiet = glob_match(in->ignore_network[i], target) ||
			glob_match(in->ignore_network[i], host);
	free(host);
	return quiet;
}

/* Is path one of the files that decide what vx runs? */
bool judge_is_config(const struct judge_input *in, const char *path)
{
	for (size_t i = 0; i < in->n_configs; i++)
		if (!strcmp(in->configs[i], path))
			return true;
	return false;
}

static bool request_sees(const char *path, void *ctx)
{
	return sandbox_request_sees(ctx, path);
}

void judge_input_from_request(struct judge_input *in, const struct sandbox_request *req)
{
	in->project_dir = req->cwd;
	in->withheld = (const char *const *)req->withheld.v;
	in->n_withheld = req->withheld.n;
	in->widened = (const char *const *)req->widened.v;
	in->n_widened = req->widened.n;
	in->configs = (const char *const *)req->configs.v;
	in->n_configs = req->configs.n;
	in->sees = request_sees;
	in->sees_ctx = (void *)req;
	in->write_roots = (const char *const *)req->write_roots.v;
	in->n_write_roots = req->write_roots.n;
	in->placeholders = req->placeholders.v;
	in->n_placeholders = req->placeholders.n;
	in->walls = req->walls.v;
	in->n_walls = req->walls.n;
	in->host = judge_host_disk();
}
