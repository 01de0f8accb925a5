/* inputs.c - which files a task's key folds.
 *
 * Inside a git work tree the files git lists (tracked, and untracked but
 * not ignored: keys/listing.h) are found once per run, and each
 * task takes its slice of the sorted list. Outside git, each project directory is
 * walked, and so is a workspace whose enclosing repository ignores it (git
 * lists none of its files). Either way a file belongs to the deepest project holding it, which
 * is how nested projects' files stay out of their parent's inputs. */
#include "orchestrator/keys/inputs.h"
#include "orchestrator/keys/listing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/strbuf.h"

static const char *const SKIP_EXPLICIT[] = {".git", ".vx", NULL};

/* Whether git's listing holds a file that can make a workspace root
 * (workspace.c find_root): the root exists because one does, so a listing
 * without any is one that ignores the whole workspace. */
static bool lists_a_root_file(const struct strvec *files)
{
	static const char *const roots[] = {"vx.yaml",	    "turbo.json",	   "turbo.jsonc",
					    "package.json", "pnpm-workspace.yaml", NULL};
	for (const char *const *r = roots; *r; r++)
		if (files->n && bsearch(r, files->v, files->n, sizeof *files->v, str_ptr_cmp))
			return true;
	return false;
}

int inputs_init(struct inputs *in, const struct workspace *ws, struct listing *started,
		const struct readcache *reads, struct listcache *listings, struct ignores *ignores,
		const char *cache_dir)
{
	memset(in, 0, sizeof *in);
	in->ws = ws;
	in->listings = listings;
	in->reads = reads;
	char *rel = cache_dir ? path_relative(ws->root, cache_dir) : NULL;
	if (rel && strcmp(rel, "..") && strncmp(rel, "../", 3) && strcmp(rel, "."))
		in->cache_rel = rel;
	else
		free(rel);
	for (size_t i = 0; i < ws->projects.n; i++)
		strmap_put(&in->projects, ws->projects.v[i]->rel, i);
	struct ignores *asked = ignores ? ignores : ignores_load(NULL, ws->root);
	if (listing_finish(started, ws->root, listings, reads, asked, &in->git_files) == 0) {
		in->in_git = true;
		if (!lists_a_root_file(&in->git_files)) {
			/* The workspace lies in a directory its enclosing
			 * repository ignores: git lists none of its files, and
			 * taking that as "no inputs" would replay every task
			 * whatever changed. Walk, as outside git. */
			strvec_clear(&in->git_files);
			in->in_git = false;
		}
	}
	if (!ignores)
		ignores_free(asked);
	return 0;
}

void inputs_release(struct inputs *in)
{
	strvec_clear(&in->git_files);
	strmap_clear(&in->projects);
	strvec_clear(&in->ws_files);
	free(in->cache_rel);
}

/* Whether root-relative rel is the cache directory or lies in it. */
static bool in_cache(const struct inputs *in, const char *rel)
{
	return in && in->cache_rel && path_is_within(in->cache_rel, rel);
}

/* Returns the index of the deepest project holding root-relative rel, or -1. */
static long owner_of(const struct inputs *in, const char *rel)
{
	size_t len = strlen(rel), idx;
	for (;;) {
		while (len && rel[len - 1] != '/')
			len--;
		if (!len)
			break;
		len--; /* drop the '/' */
		if (strmap_getn(&in->projects, rel, len, &idx))
			return (long)idx;
	}
	return strmap_get(&in->projects, ".", &idx) ? (long)idx : -1;
}

static bool has_skipped_component(const char *rel)
{
	for (const char *s = rel; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		for (const char *const *k = listing_skip_names; *k; k++)
			if (strlen(*k) == n && !strncmp(*k, s, n))
				return true;
		if (!e)
			break;
		s = e + 1;
	}
	return false;
}

struct collect {
	struct strvec *out;
	const char *prefix;	 /* prepended with a '/' unless "" or "." */
	const struct inputs *in; /* with owner >= 0: keep only files of that project */
	long owner;
	const struct inputs *cache; /* its cache directory's files are no hit; NULL: none */
	char *const *exclude;	    /* a globlist (project-relative) taking hits out, or NULL */
	size_t nexclude;
};

static int collect_one(const char *rel, void *ctx)
{
	struct collect *c = ctx;
	if (c->exclude && globlist_match(c->exclude, c->nexclude, rel))
		return 0;
	char *full = (!*c->prefix || !strcmp(c->prefix, ".")) ? xstrdup(rel)
							      : xasprintf("%s/%s", c->prefix, rel);
	if (strstr(full, "..") || strstr(full, "./")) {
		/* a package's "../../tsup.config.base.ts": named as the
		 * workspace names it, once (issue 42 item 10) */
		char *n = path_normalize(full);
		free(full);
		full = n;
	}
	if ((c->owner >= 0 && owner_of(c->in, full) != c->owner) || in_cache(c->cache, full)) {
		free(full);
		return 0;
	}
	strvec_push_nodup(c->out, full);
	return 0;
}

/* Walks base once for the list pats (glob_walk_list: "!" entries take
 * back, later entries win; issue 57 item 4, 1000 globalDependencies were
 * 1000 walks). */
static int walk_globs(const char *base, const char *prefix, const struct strvec *pats,
		      const char *const *skip, struct collect *c)
{
	c->prefix = prefix;
	struct glob_walk_opts o = {.skip_names = skip,
				   .listings = c->in ? c->in->listings : NULL,
				   .reads = c->in ? c->in->reads : NULL};
	if (glob_walk_list(base, pats->v, pats->n, GLOB_WALK_FILES | GLOB_WALK_LINKS, &o,
			   collect_one, c) < 0 &&
	    errno != ENOENT)
		return error_errno("cannot read %s", base);
	return 0;
}

/* Is every path at or below dir (project-relative) one of the task's
 * outputs? A literal "X/" + "**" output at or above it, and no "!" entry
 * that could take a path there back. Such a directory holds no input, and
 * the walk does not read it (a build's dist/ or .next/: as many files as
 * its sources, issue 20). */
static bool outputs_only(const char *dir, void *ctx)
{
	const struct collect *c = ctx;
	if (c->cache && c->cache->cache_rel) {
		/* the cache directory is not read either */
		bool root = !*c->prefix || !strcmp(c->prefix, ".");
		char *full = root ? xstrdup(dir) : xasprintf("%s/%s", c->prefix, dir);
		bool cached = in_cache(c->cache, full);
		free(full);
		if (cached)
			return true;
	}
	bool covered = false;
	for (size_t i = 0; i < c->nexclude; i++) {
		const char *p = c->exclude[i];
		if (p[0] == '!') {
			if (glob_match(p + 1, dir) || glob_match_below(p + 1, dir))
				return false;
			continue;
		}
		while (p[0] == '.' && p[1] == '/')
			p += 2;
		size_t n = strlen(p);
		if (n > 3 && !strcmp(p + n - 3, "/**")) {
			char *stem = xstrndup(p, n - 3);
			covered |= !glob_has_magic(stem) && path_is_within(stem, dir);
			free(stem);
		}
	}
	return covered;
}

/* The default inputs: every file of the project not excluded. */
static int default_files(struct inputs *in, const struct task_node *t, const struct strvec *outputs,
			 struct strvec *out)
{
	const struct project *p = in->ws->projects.v[t->project];
	/* The root's are every file of the workspace, its projects' too, as
	 * Turborepo's (the oracle, t0181): a root task (//#format, //#lint)
	 * works over the whole repository, and keyed on the root's own files
	 * it replayed after a package's source changed (issue 42). */
	long owner = p->is_root ? -1 : (long)t->project;
	struct collect c = {.out = out,
			    .in = in,
			    .owner = owner,
			    .exclude = outputs->v,
			    .nexclude = outputs->n,
			    .cache = in};
	if (!in->in_git) {
		c.prefix = p->rel;
		struct glob_walk_opts o = {.skip_names = listing_skip_names,
					   .prune = outputs_only,
					   .listings = in->listings,
					   .reads = in->reads};
		if (glob_walk_with(p->dir, "**", GLOB_WALK_FILES | GLOB_WALK_LINKS, &o, collect_one,
				   &c) < 0 &&
		    errno != ENOENT)
			return error_errno("cannot read %s", p->dir);
		return 0;
	}
	/* The slice of the sorted list under p->rel + "/". */
	bool root = !strcmp(p->rel, ".");
	size_t plen = root ? 0 : strlen(p->rel);
	size_t lo = 0, hi = in->git_files.n;
	if (!root) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(in->git_files.v[mid], p->rel) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (size_t i = lo; i < in->git_files.n; i++) {
		const char *f = in->git_files.v[i];
		if (!root) {
			int cmp = strncmp(f, p->rel, plen);
			if (cmp > 0)
				break;
			/* "pkg-a/x" sorts between "pkg" and "pkg/x": skip, don't stop. */
			if (cmp < 0 || f[plen] != '/')
				continue;
		}
		if (has_skipped_component(f) || in_cache(in, f) ||
		    (owner >= 0 && owner_of(in, f) != owner))
			continue;
		const char *prel = root ? f : f + plen + 1;
		if (outputs->n && globlist_match(outputs->v, outputs->n, prel))
			continue;
		strvec_push(out, f);
	}
	return 0;
}

/* Appends to out the files of t's inputs.workspaceFiles and then the
 * workspace's, as one list (later entries winning): the workspace's part
 * is walked once a run, not once a task (issue 57 item 4: 1000
 * globalDependencies over 3000 files and 10 tasks were 10 000 walks).
 * A path a workspace glob matches is the workspace list's to decide; the
 * task's own globs decide the rest. Returns 0, or -1 after an error line. */
static int workspace_files(struct inputs *in, const struct task_node *t, struct strvec *out)
{
	struct strvec ws = STRVEC_INIT, own = STRVEC_INIT;
	lstr_vec_strings(&in->ws->cfg->ws_input_files, &ws);
	int rc = 0;
	if (!in->ws_files_done && ws.n) {
		struct collect c = {.out = &in->ws_files, .owner = -1, .cache = in};
		rc = walk_globs(in->ws->root, "", &ws, listing_skip_names, &c);
		strvec_sort_unique(&in->ws_files);
	}
	in->ws_files_done = !rc;
	lstr_vec_strings(&t->cfg->input_ws_files, &own);
	if (!rc && own.n) {
		struct strvec mine = STRVEC_INIT;
		struct collect c = {.out = &mine, .owner = -1, .cache = in};
		rc = walk_globs(in->ws->root, "", &own, listing_skip_names, &c);
		for (size_t i = 0; !rc && i < mine.n; i++) {
			bool decided = false;
			for (size_t k = 0; !decided && k < ws.n; k++)
				decided = glob_match(ws.v[k] + (ws.v[k][0] == '!'), mine.v[i]);
			if (!decided)
				strvec_push(out, mine.v[i]);
		}
		strvec_clear(&mine);
	}
	for (size_t i = 0; !rc && i < in->ws_files.n; i++)
		strvec_push(out, in->ws_files.v[i]);
	strvec_clear(&ws);
	strvec_clear(&own);
	return rc;
}

int inputs_collect(struct inputs *in, const struct task_node *t, struct strvec *out)
{
	const struct project *p = in->ws->projects.v[t->project];
	struct strvec pats = STRVEC_INIT, outputs = STRVEC_INIT;
	lstr_vec_strings(&t->cfg->outputs, &outputs);
	int rc = 0;
	if (t->cfg->set & TF_INPUT_FILES) {
		lstr_vec_strings(&t->cfg->input_files, &pats);
		/* A task's outputs are never its inputs, whatever the globs
		 * say: `files: ["**", ".env*"]` keyed .next/BUILD_ID, and the
		 * build never hit (issue 11). */
		struct collect c = {.out = out,
				    .in = in,
				    .owner = -1,
				    .exclude = outputs.v,
				    .nexclude = outputs.n,
				    .cache = in};
		rc = walk_globs(p->dir, p->rel, &pats, SKIP_EXPLICIT, &c);
	} else {
		rc = default_files(in, t, &outputs, out);
	}
	strvec_clear(&pats);
	if (!rc)
		rc = workspace_files(in, t, out);
	/* ... nor through a workspace glob that reaches into the project. */
	bool root = !strcmp(p->rel, ".");
	size_t plen = root ? 0 : strlen(p->rel), keep = 0;
	for (size_t i = 0; outputs.n && i < out->n; i++) {
		const char *f = out->v[i];
		bool mine = root || (!strncmp(f, p->rel, plen) && f[plen] == '/');
		if (mine && globlist_match(outputs.v, outputs.n, root ? f : f + plen + 1))
			free(out->v[i]);
		else
			out->v[keep++] = out->v[i];
	}
	if (outputs.n) {
		out->n = keep;
		if (out->v)
			out->v[keep] = NULL;
	}
	strvec_clear(&outputs);
	strvec_sort_unique(out);
	return rc;
}

struct out_collect {
	struct strvec *out;
	char *const *globs;
	size_t n;
	const char *dir;
};

static int output_one(const char *rel, void *ctx)
{
	struct out_collect *c = ctx;
	if (!globlist_match(c->globs, c->n, rel))
		return 0;
	strvec_push(c->out, rel);
	return 0;
}

int outputs_collect(const char *project_dir, const lstr_vec *globs, struct strvec *out)
{
	struct strvec g = STRVEC_INIT;
	lstr_vec_strings(globs, &g);
	struct out_collect c = {out, g.v, g.n, project_dir};
	int rc = 0;
	struct strvec dirs = STRVEC_INIT;
	for (size_t i = 0; i < g.n && !rc; i++) {
		if (g.v[i][0] == '!')
			continue;
		/* a fifo, socket or device matched is listed: the save refuses
		 * it by name, as it does one inside an output directory (issue
		 * 57: matched by a glob it was left out unsaid, and a hit
		 * restored the rest) */
		if (glob_walk(project_dir, g.v[i],
			      GLOB_WALK_FILES | GLOB_WALK_LINKS | GLOB_WALK_OTHER, SKIP_EXPLICIT,
			      output_one, &c) < 0 &&
		    errno != ENOENT)
			rc = error_errno("cannot read the outputs of %s", project_dir);
		struct out_collect dc = {&dirs, g.v, g.n, project_dir};
		if (!rc &&
		    glob_walk(project_dir, g.v[i], GLOB_WALK_DIRS, SKIP_EXPLICIT, output_one, &dc) <
			0 &&
		    errno != ENOENT)
			rc = error_errno("cannot read the outputs of %s", project_dir);
	}
	/* An empty directory is an output too ("mkdir -p dist/cache" is
	 * restored). Sorted, what lies below a directory is found by bisection
	 * (issue 43: comparing each directory with each output was 10^8
	 * strncmp for 100 000 outputs in 1000 directories). */
	strvec_sort_unique(out);
	strvec_sort_unique(&dirs);
	size_t n_files = out->n;
	for (size_t i = 0; i < dirs.n && !rc; i++) {
		struct strvec files = {.v = out->v, .n = n_files};
		if (!strvec_sorted_below(&files, dirs.v[i], NULL) &&
		    !strvec_sorted_below(&dirs, dirs.v[i], NULL))
			strvec_push(out, dirs.v[i]);
	}
	strvec_clear(&dirs);
	strvec_clear(&g);
	strvec_sort_unique(out);
	return rc;
}
