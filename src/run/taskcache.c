/* taskcache.c - keys for every task, and the hooks that turn a key into a
 * replay or a saved entry.
 *
 * All keys are computed before the first task starts: a key folds the
 * dependencies' keys, never their outputs, so it is known up front (as in
 * Turborepo), the dry run can print it, and every input file of the run is
 * hashed in one parallel batch through the stat cache. */
#include "run/taskcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cache/restore.h"
#include "cache/entry.h"
#include "cache/filehash.h"
#include "cache/inplace.h"
#include "cache/prefetch.h"
#include "cache/remote.h"
#include "cache/saver.h"
#include "cache/transfer.h"
#include "keys/listing.h"
#include "config/schema.h"
#include "keys/taskenv.h"
#include "keys/toolchain.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/worker.h"

/* Threads that restore hits: one, so hits are opened and restored in the
 * order the tasks came up (a -j1 run's output stays in that order) while
 * the loop goes on with everything else; before, each ran on the loop. */
#define RESTORE_THREADS 1

const char *cache_status_name(enum cache_status s)
{
	switch (s) {
	case CACHE_HIT:
		return "hit";
	case CACHE_MISS:
		return "miss";
	case CACHE_BAD:
		return "miss";
	default:
		return "disabled";
	}
}

bool taskcache_cacheable(const struct task_node *t)
{
	return t->command && t->cfg->cache && !t->cfg->persistent;
}

/* The remote cache a run uses: cache.remote, each field overridden by
 * VX_REMOTE_CACHE_URL, _TOKEN, _TEAM, _TEAM_ID, and, where vx's own are
 * unset, by Turborepo's TURBO_API, TURBO_TOKEN, TURBO_TEAM, TURBO_TEAMID (a
 * token alone means Vercel's API, as in Turborepo); the signing key from
 * VX_REMOTE_CACHE_SIGNATURE_KEY, else TURBO_REMOTE_CACHE_SIGNATURE_KEY.
 * Returns NULL when none is set, or when signatures are asked for and
 * there is no key (said: never an unsigned upload in their place). */
static struct remote *remote_from(const struct workspace *ws, const struct taskcache_opts *o)
{
	const struct remote_cfg *rc = ws->cfg->remote;
	const char *url = getenv("VX_REMOTE_CACHE_URL"), *token = getenv("VX_REMOTE_CACHE_TOKEN"),
		   *team = getenv("VX_REMOTE_CACHE_TEAM"),
		   *team_id = getenv("VX_REMOTE_CACHE_TEAM_ID");
	if (!url || !*url)
		url = rc && rc->url ? rc->url : getenv("TURBO_API");
	if (!token || !*token)
		token = rc && rc->token ? rc->token : getenv("TURBO_TOKEN");
	if (!team || !*team)
		team = rc && rc->team ? rc->team : getenv("TURBO_TEAM");
	if (!team_id || !*team_id)
		team_id = rc && rc->team_id ? rc->team_id : getenv("TURBO_TEAMID");
	const char *key = NULL;
	if (rc && rc->signature) {
		key = getenv("VX_REMOTE_CACHE_SIGNATURE_KEY");
		if (!key || !*key)
			key = getenv("TURBO_REMOTE_CACHE_SIGNATURE_KEY");
		if (!key || !*key) {
			warning("%s:%d:%d: cache.remote.signature is on, but neither "
				"VX_REMOTE_CACHE_SIGNATURE_KEY nor "
				"TURBO_REMOTE_CACHE_SIGNATURE_KEY is set: "
				"the remote cache is off for this run",
				rc->loc.file, rc->loc.line, rc->loc.col);
			return NULL;
		}
	}
	/* a token alone means Vercel's API, as in Turborepo; so does a config
	 * that names no url (turbo.json's remoteCache) */
	if ((!url || !*url) && token && *token && !(rc && rc->url))
		url = "https://vercel.com/api";
	if (!url || !*url)
		return NULL;
	struct remote_opts ro = {
	    .url = url,
	    .token = token,
	    .team = team,
	    .team_id = team_id,
	    .signature_key = key,
	    .read = (rc ? rc->read : true) && o->read,
	    .write = (rc ? rc->write : true) && o->write && !o->dry_run,
	    .timeout_ms = rc ? (long)rc->timeout_ms : 0,
	};
	return remote_new(&ro);
}

int taskcache_open(struct taskcache *tc, const struct workspace *ws, const struct graph *g,
		   const struct taskcache_opts *o)
{
	memset(tc, 0, sizeof *tc);
	tc->dry_run = o->dry_run;
	tc->ws = ws;
	tc->g = g;
	tc->read = o->read;
	tc->write = o->write;
	tc->traced = o->traced;
	tc->verbose = o->verbose;
	tc->level = ws->cfg->cache_compression;
	tc->dir = xstrdup(o->dir);
	size_t n = g->nodes.n + 1;
	tc->keys = xcalloc(n, sizeof *tc->keys);
	tc->inputs = xcalloc(n, sizeof *tc->inputs);
	tc->status = xcalloc(n, sizeof *tc->status);
	tc->saving = xcalloc(n ? n : 1, sizeof *tc->saving);
	tc->facts = xcalloc(n, sizeof *tc->facts);
	tc->tools = xcalloc(n, sizeof *tc->tools);
	tc->from_remote = xcalloc(n, sizeof *tc->from_remote);
	tc->prefetch_of = xcalloc(n, sizeof *tc->prefetch_of);
	tc->fetching = xcalloc(n, sizeof *tc->fetching);
	if (o->remote != REMOTE_OFF && (o->read || o->write))
		tc->remote = remote_from(ws, o);
	tc->remote_only = tc->remote && o->remote == REMOTE_ONLY;
	struct stat st;
	if (o->dry_run && stat(tc->dir, &st) != 0)
		return 0; /* a dry run writes nothing, not even an empty store */
	if (o->read || o->write) {
		if (store_open(&tc->store, tc->dir))
			return -1;
		tc->store_open = true;
		if (tc->store.read_only) {
			/* issue 39: every task rebuilt, and "cannot open .lock"
			 * twenty times, though every entry was there */
			if (tc->write && !tc->dry_run)
				warning(
				    "the cache %s is read-only (%s): its hits are restored, and "
				    "nothing is saved to it",
				    tc->store.path, strerror(tc->store.read_only));
			tc->write = false;
		}
		char *scpath = path_join(tc->dir, "statcache");
		tc->sc = statcache_load(scpath);
		statcache_use_reads(tc->sc, tc->ws->reads);
		free(scpath);
		/* the input walk's, when it ran while the configs were read */
		listing_take_kept(tc->ws->listing, tc->dir, &tc->lc, &tc->ig);
		if (!tc->lc) {
			char *lcpath = path_join(tc->dir, "listings");
			tc->lc = listcache_load(lcpath);
			free(lcpath);
		}
		if (!tc->ig) {
			char *igpath = path_join(tc->dir, "ignores");
			tc->ig = ignores_load(igpath, tc->ws->root);
			free(igpath);
		}
		char *ippath = path_join(tc->dir, "inplace");
		tc->ip = inplace_load(ippath);
		free(ippath);
	}
	return 0;
}

/* Records one key ingredient under name, hashed, for the -v explanation. */
static void add_fact(struct task_inputs *facts, const char *name, const char *text)
{
	strvec_push(&facts->paths, name);
	facts->hashes = xrealloc(facts->hashes, (facts->paths.n + 1) * sizeof *facts->hashes);
	struct key k;
	key_init(&k);
	key_add_str(&k, "fact", text);
	key_finish(&k, facts->hashes[facts->paths.n - 1]);
}

/* Records one key ingredient under name with its hash as it is. */
static void push_fact(struct task_inputs *facts, const char *name, const char *hash)
{
	strvec_push(&facts->paths, name);
	facts->hashes = xrealloc(facts->hashes, (facts->paths.n + 1) * sizeof *facts->hashes);
	snprintf(facts->hashes[facts->paths.n - 1], KEY_HEX_SIZE, "%s", hash);
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* A key being folded and the facts --explain-key and -v print of it: each
 * ingredient goes into both by one call, so the two cannot drift (issue
 * 38). The key's bytes are what they were before the facts joined it. */
struct fold {
	struct key k;
	struct task_inputs *facts;
};

/* tag: value into the key; the fact (NULL: none) records value hashed. */
static void fold_str(struct fold *f, const char *tag, const char *value, const char *fact)
{
	key_add_str(&f->k, tag, value);
	if (fact)
		add_fact(f->facts, fact, value);
}

/* A named value (an env variable, a define): name, then its value, into
 * the key; the fact prefix+name records the value hashed. */
static void fold_named(struct fold *f, const char *tag, const char *name, const char *value,
		       const char *prefix)
{
	key_add_str(&f->k, tag, name);
	key_add_str(&f->k, "value", value); /* unset is not "" */
	char *fact = xasprintf("%s%s", prefix, name);
	add_fact(f->facts, fact, value);
	free(fact);
}

/* A file by its content hash ("": unreadable): the fact records the hash
 * as it is, under prefix+path. */
static void fold_file(struct fold *f, const char *tag, const char *path, const char *hash,
		      const char *prefix)
{
	key_add_str(&f->k, tag, path);
	key_add_str(&f->k, "hash", hash[0] ? hash : NULL);
	char *fact = xasprintf("%s%s", prefix, path);
	push_fact(f->facts, fact, hash);
	free(fact);
}

static void fold_key(struct taskcache *tc, size_t i, const char *command, const char *platform)
{
	const struct task_node *t = tc->g->nodes.v[i];
	struct fold f = {.facts = &tc->facts[i]};
	key_init(&f.k);
	fold_str(&f, "task", t->id, NULL); /* the id is the entry's name, not a fact */
	fold_str(&f, "command", command, "//command");
	fold_str(&f, "platform", platform, "//platform");
	const struct task_inputs *in = &tc->inputs[i];
	key_add_int(&f.k, "inputs", (int64_t)in->paths.n);
	for (size_t n = 0; n < in->paths.n; n++)
		fold_file(&f, "file", in->paths.v[n], in->hashes[n], "");
	struct strvec names = STRVEC_INIT;
	for (size_t e = 0; e < t->cfg->input_env.n; e++)
		strvec_push(&names, t->cfg->input_env.v[e].s);
	for (size_t e = 0; e < tc->ws->cfg->ws_input_env.n; e++)
		strvec_push(&names, tc->ws->cfg->ws_input_env.v[e].s);
	strvec_sort_unique(&names);
	for (size_t e = 0; e < names.n; e++)
		fold_named(&f, "env", names.v[e], getenv(names.v[e]), "//env/");
	strvec_clear(&names);
	size_t nd = t->cfg->env_define.n;
	struct kv *defs = xmalloc((nd + 1) * sizeof *defs);
	if (nd) {
		memcpy(defs, t->cfg->env_define.v, nd * sizeof *defs);
		qsort(defs, nd, sizeof *defs, cmp_kv);
	}
	for (size_t e = 0; e < nd; e++)
		fold_named(&f, "define", defs[e].key, defs[e].value, "//define/");
	free(defs);
	/* the programs it runs, by content (toolchain.h) */
	const struct task_inputs *tools = &tc->tools[i];
	key_add_int(&f.k, "tools", (int64_t)tools->paths.n);
	for (size_t n = 0; n < tools->paths.n; n++)
		fold_file(&f, "tool", tools->paths.v[n], tools->hashes[n], "//toolchain");
	if (tc->ext.path) {
		/* the project's external dependencies, and (not in the key: for
		 * -v to find the closure it was) the lockfile they came from */
		key_add_str(&f.k, "externals", tc->ext.hash[t->project]);
		push_fact(f.facts, "//externals", tc->ext.hash[t->project]);
		push_fact(f.facts, "//lockfile", tc->ext.content);
	}
	if (t->cfg->sandbox) {
		struct strbuf sb = STRBUF_INIT;
		schema_sandbox_fold(t->cfg->sandbox, &sb);
		key_add_str(&f.k, "sandbox", sb.buf);
		key_add_int(&f.k, "traced", tc->traced);
		strbuf_addf(&sb, "traced=%d\n", tc->traced); /* the fact: both, as one text */
		add_fact(f.facts, "//sandbox", sb.buf);
		strbuf_release(&sb);
	} else {
		fold_str(&f, "sandbox", NULL, NULL);
	}
	/* Output globs: a "!" makes order meaningful (later wins), else sorted. */
	struct strvec outs = STRVEC_INIT;
	bool negated = false;
	struct strbuf ot = STRBUF_INIT;
	for (size_t o = 0; o < t->cfg->outputs.n; o++) {
		strvec_push(&outs, t->cfg->outputs.v[o].s);
		strbuf_addf(&ot, "%s\n", t->cfg->outputs.v[o].s);
		negated |= t->cfg->outputs.v[o].s[0] == '!';
	}
	if (negated)
		for (size_t o = 0; o < outs.n; o++)
			key_add_str(&f.k, "output", outs.v[o]);
	else
		key_add_strvec_sorted(&f.k, "outputs", &outs);
	add_fact(f.facts, "//outputs", ot.buf);
	strbuf_release(&ot);
	strvec_clear(&outs);
	/* Dependencies by id, so the key does not depend on edge order; the
	 * facts in edge order. */
	struct strvec deps = STRVEC_INIT;
	for (size_t d = 0; d < t->deps.n; d++) {
		size_t j = t->deps.v[d].to;
		strvec_pushf(&deps, "%s\n%s", tc->g->nodes.v[j]->id, tc->keys[j]);
		char *fact = xasprintf("//dep/%s", tc->g->nodes.v[j]->id);
		add_fact(f.facts, fact, tc->keys[j]);
		free(fact);
	}
	key_add_strvec_sorted(&f.k, "deps", &deps);
	strvec_clear(&deps);
	key_finish(&f.k, tc->keys[i]);
}

void taskcache_hash(struct taskcache *tc, const char *const *paths, size_t n,
		    char (*hashes)[KEY_HEX_SIZE], int *errs)
{
	if (!n)
		return;
	if (tc->sc)
		statcache_lookup_many(tc->sc, paths, n, hashes, errs, 0);
	else
		filehash_many(paths, n, hashes, errs, 0);
}

/* Lists and hashes the inputs of the nodes which marks (every node when
 * NULL) into tc->inputs, in one parallel batch of distinct paths. Returns
 * 0, or -1 after an error line. */
static int collect_inputs(struct taskcache *tc, const bool *which)
{
	const struct graph *g = tc->g;
	struct inputs in;
	inputs_init(&in, tc->ws, tc->lc, tc->ig);
	struct strvec batch = STRVEC_INIT;
	struct strmap index = STRMAP_INIT;
	size_t **where = xcalloc(g->nodes.n + 1, sizeof *where);
	int rc = 0;
	for (size_t i = 0; i < g->nodes.n && !rc; i++) {
		if (which && !which[i])
			continue;
		rc = inputs_collect(&in, g->nodes.v[i], &tc->inputs[i].paths);
		size_t np = tc->inputs[i].paths.n;
		where[i] = xmalloc((np + 1) * sizeof **where);
		for (size_t f = 0; f < np && !rc; f++) {
			char *abs = path_join(tc->ws->root, tc->inputs[i].paths.v[f]);
			size_t at;
			if (!strmap_get(&index, abs, &at)) {
				at = batch.n;
				strvec_push_nodup(&batch, abs);
				/* the map borrows keys: rebuild below after the batch stops growing
				 */
			} else {
				free(abs);
			}
			where[i][f] = at;
			if (at == batch.n - 1)
				strmap_put(&index, batch.v[at], at);
		}
	}
	/* strvec growth moved no strings (only the pointer array), so the
	 * borrowed keys are still valid. */
	char(*hashes)[KEY_HEX_SIZE] = xcalloc(batch.n + 1, sizeof *hashes);
	int *errs = xcalloc(batch.n + 1, sizeof *errs);
	if (!rc)
		taskcache_hash(tc, (const char *const *)batch.v, batch.n, hashes, errs);
	for (size_t i = 0; i < g->nodes.n && !rc; i++) {
		if (which && !which[i])
			continue;
		struct task_inputs *ti = &tc->inputs[i];
		ti->hashes = xcalloc(ti->paths.n + 1, sizeof *ti->hashes);
		size_t out = 0;
		for (size_t f = 0; f < ti->paths.n; f++) {
			int e = errs[where[i][f]];
			if (e == ENOENT || (e == EISDIR && in.in_git)) {
				/* listed by git but deleted in the work tree, or a
				 * directory there now (a tracked file replaced, not
				 * yet committed: the walk lists its files): not an
				 * input itself */
				free(ti->paths.v[f]);
				continue;
			}
			if (e)
				warning("cannot hash %s: %s; it counts as changed", ti->paths.v[f],
					strerror(e));
			memcpy(ti->hashes[out], hashes[where[i][f]], KEY_HEX_SIZE);
			ti->paths.v[out++] = ti->paths.v[f];
		}
		ti->paths.n = out;
		if (ti->paths.v)
			ti->paths.v[out] = NULL;
	}
	for (size_t i = 0; i < g->nodes.n; i++)
		free(where[i]);
	free(where);
	free(hashes);
	free(errs);
	strmap_clear(&index);
	strvec_clear(&batch);
	inputs_release(&in);
	return rc;
}

static void platform_name(char *buf, size_t n)
{
	struct utsname u;
	snprintf(buf, n, "unknown");
	if (uname(&u) == 0)
		snprintf(buf, n, "%s/%s", u.sysname, u.machine);
}

/* "PATH\tHASH\n" for each "//exec/PATH" fact: of names/hashes (n), or of
 * a manifest's inputs when m. Caller frees. */
static char *exec_blob(char **names, char (*hashes)[KEY_HEX_SIZE], size_t n,
		       const struct manifest *m)
{
	struct strbuf sb = STRBUF_INIT;
	size_t count = m ? m->inputs.n : n;
	for (size_t k = 0; k < count; k++) {
		const char *name = m ? m->inputs.v[k].path : names[k];
		const char *hash = m ? m->inputs.v[k].hash : hashes[k];
		if (!strncmp(name, "//exec/", 7))
			strbuf_addf(&sb, "%s\t%s\n", name + 6, hash);
	}
	return strbuf_detach(&sb, NULL);
}

/* Whether a program of blob (exec_blob's) is no longer the one recorded:
 * its content hash differs, or it is gone. Says the first in which. */
static bool tools_changed_blob(struct taskcache *tc, const char *blob, struct strbuf *which)
{
	struct strvec paths = STRVEC_INIT, want = STRVEC_INIT;
	for (const char *s = blob ? blob : ""; *s;) {
		size_t n = strcspn(s, "\n");
		const char *tab = memchr(s, '\t', n);
		if (tab) {
			strvec_push_nodup(&paths, xstrndup(s, (size_t)(tab - s)));
			strvec_push_nodup(&want, xstrndup(tab + 1, n - (size_t)(tab - s) - 1));
		}
		s += n + (s[n] == '\n');
	}
	bool changed = false;
	if (paths.n) {
		char(*now)[KEY_HEX_SIZE] = xcalloc(paths.n, sizeof *now);
		int *errs = xcalloc(paths.n, sizeof *errs);
		taskcache_hash(tc, (const char *const *)paths.v, paths.n, now, errs);
		for (size_t k = 0; k < paths.n && !changed; k++)
			if (errs[k] || strcmp(now[k], want.v[k])) {
				changed = true;
				if (which) {
					if (errs[k])
						strbuf_addf(which, "%s (%.8s… → gone)", paths.v[k],
							    want.v[k]);
					else
						strbuf_addf(which, "%s (%.8s… → %.8s…)", paths.v[k],
							    want.v[k], now[k]);
				}
			}
		free(now);
		free(errs);
	}
	strvec_clear(&paths);
	strvec_clear(&want);
	return changed;
}

/* <cache>/reads/<hash of the task id>: one file per task, replaced. */
static char *reads_path(const struct taskcache *tc, size_t i)
{
	struct key k;
	char h[KEY_HEX_SIZE];
	key_init(&k);
	key_add_str(&k, "reads-of", tc->g->nodes.v[i]->id);
	key_finish(&k, h);
	return xasprintf("%s/reads/%s", tc->dir, h);
}

void taskcache_set_reads(struct taskcache *tc, size_t i, const struct strvec *reads)
{
	if (!tc->write || !tc->store_open || tc->dry_run || !reads)
		return;
	char *dir = path_join(tc->dir, "reads");
	char *f = reads_path(tc, i);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "vx-reads 1 %s\n", tc->g->nodes.v[i]->id);
	for (size_t r = 0; r < reads->n; r++)
		strbuf_addf(&sb, "%s\n", reads->v[r]);
	/* a record it cannot keep is only --explain-key's loss: said nowhere */
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		(void)write_file_atomic(f, sb.buf, sb.len);
	strbuf_release(&sb);
	free(f);
	free(dir);
}

bool taskcache_get_reads(const struct taskcache *tc, size_t i, struct strvec *out)
{
	char *f = reads_path(tc, i);
	struct strbuf sb = STRBUF_INIT;
	bool ok = strbuf_read_file(&sb, f) == 0;
	char *first = ok ? strchr(sb.buf, '\n') : NULL;
	ok = first && !strncmp(sb.buf, "vx-reads 1 ", 11);
	for (const char *s = ok ? first + 1 : ""; *s;) {
		size_t n = strcspn(s, "\n");
		strvec_push_nodup(out, xstrndup(s, n));
		s += n + (s[n] == '\n');
	}
	strbuf_release(&sb);
	free(f);
	return ok;
}

const struct strvec *taskcache_tools(const struct taskcache *tc, size_t i)
{
	return taskcache_keyed_files(tc, i) ? &tc->tools[i].paths : NULL;
}

void taskcache_set_execs(struct taskcache *tc, size_t i, const struct strvec *execs)
{
	if (!execs || !execs->n)
		return;
	char(*h)[KEY_HEX_SIZE] = xcalloc(execs->n, sizeof *h);
	int *errs = xcalloc(execs->n, sizeof *errs);
	taskcache_hash(tc, (const char *const *)execs->v, execs->n, h, errs);
	struct task_inputs *facts = &tc->facts[i];
	for (size_t k = 0; k < execs->n; k++) {
		char *name = xasprintf("//exec%s", execs->v[k]);
		if (!errs[k] && strvec_find(&facts->paths, name) < 0)
			push_fact(facts, name, h[k]);
		free(name);
	}
	free(h);
	free(errs);
}

/* The programs node i runs: inputs.toolchain, else its command's first
 * word (the script's, for a package.json script), each with the
 * interpreter its "#!" names. */
static void node_tools(struct taskcache *tc, size_t i, struct strmap *memo,
		       struct strvec *memo_vals)
{
	const struct task_node *t = tc->g->nodes.v[i];
	const struct project *p = tc->ws->projects.v[t->project];
	struct strvec names = STRVEC_INIT;
	if (t->cfg->set & TF_TOOLCHAIN) {
		lstr_vec_strings(&t->cfg->toolchain, &names);
	} else if (t->command) {
		const char *script = t->from_script ? project_script(p, t->task) : NULL;
		struct strbuf w = STRBUF_INIT;
		toolchain_first_word(script ? script : t->command, &w);
		if (w.len)
			strvec_push(&names, w.buf);
		strbuf_release(&w);
	}
	char *path = names.n ? task_env_path(tc->ws, t) : NULL;
	for (size_t k = 0; k < names.n; k++) {
		/* One lookup per (PATH, name, and the directory for a relative
		 * path). A package's PATH starts with its own node_modules/.bin:
		 * when the name is not there, every package shares the rest of
		 * PATH, and the lookup is done once for all of them. */
		const char *look = path;
		bool rel = strchr(names.v[k], '/') != NULL;
		if (!rel && p->pkg_path && !p->is_root) {
			/* most packages have no node_modules of their own: the
			 * kept reads know that for one stat of the package */
			char *nm = path_join(p->dir, "node_modules");
			char *own = xasprintf("%s/.bin/%s", nm, names.v[k]);
			bool mine = readcache_exists(tc->ws->reads, nm) && access(own, X_OK) == 0;
			if (!mine && strchr(path, ':'))
				look = strchr(path, ':') + 1;
			free(own);
			free(nm);
		}
		char *mk = xasprintf("%s\n%s\n%s", look, names.v[k], rel ? p->dir : "");
		size_t at;
		if (!strmap_get(memo, mk, &at)) {
			struct strvec found = STRVEC_INIT;
			toolchain_resolve(names.v[k], look, p->dir, &found);
			struct strbuf joined = STRBUF_INIT;
			for (size_t f = 0; f < found.n; f++)
				strbuf_addf(&joined, "%s\n", found.v[f]);
			strvec_clear(&found);
			at = memo_vals->n;
			strvec_push_nodup(memo_vals, strbuf_detach(&joined, NULL));
			strvec_push_nodup(memo_vals, mk); /* the key, kept alive for the map */
			strmap_put(memo, memo_vals->v[at + 1], at);
		} else {
			free(mk);
		}
		for (const char *s = memo_vals->v[at]; *s;) {
			size_t n = strcspn(s, "\n");
			char *one = xstrndup(s, n);
			if (strvec_find(&tc->tools[i].paths, one) < 0)
				strvec_push_nodup(&tc->tools[i].paths, one);
			else
				free(one);
			s += n + (s[n] == '\n');
		}
	}
	free(path);
	strvec_clear(&names);
}

/* Resolves and hashes the programs of the nodes which marks (every node
 * when NULL), in one batch through the stat cache. */
static void collect_tools(struct taskcache *tc, const bool *which)
{
	struct strmap memo = STRMAP_INIT;
	struct strvec memo_vals = STRVEC_INIT, all = STRVEC_INIT;
	for (size_t i = 0; i < tc->g->nodes.n; i++) {
		if (which && !which[i])
			continue;
		strvec_clear(&tc->tools[i].paths);
		free(tc->tools[i].hashes);
		tc->tools[i].hashes = NULL;
		node_tools(tc, i, &memo, &memo_vals);
		strvec_extend(&all, &tc->tools[i].paths);
	}
	strvec_sort_unique(&all);
	char(*hashes)[KEY_HEX_SIZE] = xcalloc(all.n + 1, sizeof *hashes);
	int *errs = xcalloc(all.n + 1, sizeof *errs);
	taskcache_hash(tc, (const char *const *)all.v, all.n, hashes, errs);
	for (size_t i = 0; i < tc->g->nodes.n; i++) {
		if (which && !which[i])
			continue;
		struct task_inputs *ti = &tc->tools[i];
		ti->hashes = xcalloc(ti->paths.n + 1, sizeof *ti->hashes);
		for (size_t f = 0; f < ti->paths.n; f++) {
			long at = strvec_find(&all, ti->paths.v[f]);
			memcpy(ti->hashes[f], hashes[at], KEY_HEX_SIZE);
		}
	}
	free(hashes);
	free(errs);
	strvec_clear(&all);
	strvec_clear(&memo_vals);
	strmap_clear(&memo);
}

int taskcache_keys(struct taskcache *tc)
{
	long long t0 = loop_now();
	externals_load(&tc->ext, tc->ws, tc->dir, tc->write && tc->store_open && !tc->dry_run);
	collect_tools(tc, NULL);
	int rc = collect_inputs(tc, NULL);
	char platform[160];
	platform_name(platform, sizeof platform);
	for (size_t i = 0; i < tc->g->nodes.n && !rc; i++)
		fold_key(tc, i, tc->g->nodes.v[i]->command, platform);
	/* the stats the workspace's load took served these keys; the next
	 * ones (vx watch's taskcache_rekey) look again */
	readcache_forget_stats(tc->ws->reads);
	tc->hash_ms = loop_now() - t0;
	return rc;
}

int taskcache_rekey(struct taskcache *tc, const bool *touched, bool *changed)
{
	long long t0 = loop_now();
	const struct graph *g = tc->g;
	for (size_t i = 0; i < g->nodes.n; i++) {
		if (!touched[i])
			continue;
		strvec_clear(&tc->inputs[i].paths);
		free(tc->inputs[i].hashes);
		tc->inputs[i].hashes = NULL;
	}
	collect_tools(tc, touched);
	int rc = collect_inputs(tc, touched);
	char platform[160];
	platform_name(platform, sizeof platform);
	/* In the graph's order: a node's dependencies are folded first. */
	for (size_t i = 0; i < g->nodes.n && !rc; i++) {
		const struct task_node *t = g->nodes.v[i];
		bool again = touched[i];
		for (size_t d = 0; d < t->deps.n && !again; d++)
			again = changed[t->deps.v[d].to];
		changed[i] = false;
		if (!again)
			continue;
		char old[KEY_HEX_SIZE];
		memcpy(old, tc->keys[i], KEY_HEX_SIZE);
		strvec_clear(&tc->facts[i].paths);
		free(tc->facts[i].hashes);
		tc->facts[i].hashes = NULL;
		fold_key(tc, i, t->command, platform);
		changed[i] = strcmp(old, tc->keys[i]) != 0;
	}
	tc->hash_ms = loop_now() - t0;
	return rc;
}

void taskcache_checkpoint(struct taskcache *tc)
{
	if (tc->sc && !tc->dry_run && !tc->store.read_only) {
		statcache_save(tc->sc);
		listcache_save(tc->lc);
		ignores_save(tc->ig);
		inplace_save(tc->ip);
		readcache_save(tc->ws->reads);
	}
}

/* Appends a fact's name as a reader says it: "env CI", "dependency
 * app#build", "the command"; a file as its path. */
static void add_fact_name(struct strbuf *out, const char *name)
{
	static const struct {
		const char *prefix, *say;
	} names[] = {
	    {"//env/", "env "},
	    {"//define/", "env.define "},
	    {"//dep/", "dependency "},
	    {"//command", "the command"},
	    {"//platform", "the platform"},
	    {"//sandbox", "the sandbox block"},
	    {"//outputs", "the outputs"},
	    {"//externals", "the external dependencies (lockfile)"},
	    {"//toolchain", "toolchain "},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i].prefix);
		if (!strncmp(name, names[i].prefix, n)) {
			strbuf_addf(out, "%s%s", names[i].say, name + n);
			return;
		}
	}
	strbuf_addstr(out, name);
}

/* Is the workspace-relative input path one the task writes itself (it lies
 * in its sandbox's allow.write)? Such an input changes on every run, so the
 * task never hits (.next/BUILD_ID under `files: ["**"]`: issue 11). */
static bool written_by_task(const struct taskcache *tc, const struct task_node *t, const char *path)
{
	if (!t->cfg->sandbox)
		return false;
	const struct project *p = tc->ws->projects.v[t->project];
	bool root = !strcmp(p->rel, ".");
	size_t plen = strlen(p->rel);
	if (!root && (strncmp(path, p->rel, plen) || path[plen] != '/'))
		return false;
	const char *rel = root ? path : path + plen + 1;
	const lstr_vec *w = &t->cfg->sandbox->allow_write;
	for (size_t k = 0; k < w->n; k++) {
		const char *g = w->v[k].s;
		size_t n = strlen(g);
		if (!strcmp(g, "./") || !strcmp(g, ".") || glob_match(g, rel) ||
		    (n && g[n - 1] == '/' && !strncmp(g, rel, n)))
			return true;
	}
	return false;
}

/* Says on stderr why node i missed: which of its key's ingredients differ
 * from the manifest of the task's last saved run. */
static void explain_miss(struct taskcache *tc, size_t i)
{
	const struct task_node *t = tc->g->nodes.v[i];
	const struct inplace_record *rec = tc->ip ? inplace_get(tc->ip, t->id) : NULL;
	struct strbuf last = STRBUF_INIT;
	if (rec)
		strbuf_addstr(&last, rec->key);
	struct entry e;
	struct strbuf why = STRBUF_INIT;
	if (!rec || entry_open(&tc->store, last.buf, &e, &why) != ENTRY_HIT) {
		fprintf(stderr, "%s: cache miss: no earlier run of this task in the cache\n",
			t->id);
		strbuf_release(&last);
		strbuf_release(&why);
		return;
	}
	const struct task_inputs *now = &tc->facts[i];
	struct strbuf out = STRBUF_INIT;
	size_t shown = 0, total = 0;
	/* Both lists: the old one as saved, the new one in the order built. */
	for (size_t a = 0; a < now->paths.n; a++) {
		const char *what = NULL;
		size_t b;
		for (b = 0; b < e.m.inputs.n; b++)
			if (!strcmp(e.m.inputs.v[b].path, now->paths.v[a]))
				break;
		if (b == e.m.inputs.n)
			what = "added";
		else if (strcmp(e.m.inputs.v[b].hash, now->hashes[a]))
			what = "changed";
		if (!strcmp(now->paths.v[a], "//lockfile") ||
		    !strncmp(now->paths.v[a], "//exec/", 7))
			continue; /* not in the key: where "//externals" came from, what it ran */
		if (what && !strcmp(now->paths.v[a], "//externals") && b < e.m.inputs.n &&
		    total++ < 8) {
			const char *old = NULL;
			for (size_t c = 0; c < e.m.inputs.n; c++)
				if (!strcmp(e.m.inputs.v[c].path, "//lockfile"))
					old = e.m.inputs.v[c].hash;
			strbuf_addstr(&out, shown++ ? ", " : "");
			externals_explain(&tc->ext, t->project, old, &out);
			continue;
		}
		if (what && total++ < 8) {
			strbuf_addstr(&out, shown++ ? ", " : "");
			add_fact_name(&out, now->paths.v[a]);
			strbuf_addf(&out, " %s", what);
			if (b < e.m.inputs.n && !strncmp(now->paths.v[a], "//toolchain", 11))
				strbuf_addf(&out, " (%.8s… → %.8s…)", e.m.inputs.v[b].hash,
					    now->hashes[a]); /* a program: which content */
			if (written_by_task(tc, t, now->paths.v[a]))
				strbuf_addstr(&out, " (changes each run: it is written by this "
						    "task; declare it an output)");
		}
	}
	for (size_t b = 0; b < e.m.inputs.n; b++) {
		if (strvec_find(&now->paths, e.m.inputs.v[b].path) >= 0 ||
		    !strcmp(e.m.inputs.v[b].path, "//lockfile") ||
		    !strncmp(e.m.inputs.v[b].path, "//exec/", 7))
			continue;
		if (total++ < 8) {
			strbuf_addstr(&out, shown++ ? ", " : "");
			add_fact_name(&out, e.m.inputs.v[b].path);
			strbuf_addstr(&out, " removed");
		}
	}
	if (total > shown)
		strbuf_addf(&out, ", and %zu more", total - shown);
	if (!total)
		strbuf_addstr(&out, "the key's encoding changed (a newer vx)");
	fprintf(stderr, "%s: cache miss since %.8s: %s\n", t->id, last.buf, out.buf);
	entry_close(&e);
	strbuf_release(&out);
	strbuf_release(&last);
	strbuf_release(&why);
}

const struct strvec *taskcache_keyed_files(const struct taskcache *tc, size_t i)
{
	/* a task with no command keys its inputs for its dependents as a
	 * command's does (Turborepo's <NONEXISTENT> task: issue 37, create-turbo's
	 * next build read packages/typescript-config's files read-unkeyed) */
	const struct task_node *t = tc->g->nodes.v[i];
	bool cached =
	    tc->inputs && (tc->read || tc->write) && (taskcache_cacheable(t) || !t->command);
	return cached ? &tc->inputs[i].paths : NULL;
}

size_t taskcache_node_of(const struct taskcache *tc, const struct job *job)
{
	const struct task_node *t = job->data;
	if (t->index >= tc->g->nodes.n || tc->g->nodes.v[t->index] != t)
		die("a job without its task node");
	return t->index;
}

enum cache_status taskcache_probe(struct taskcache *tc, size_t i)
{
	const struct task_node *t = tc->g->nodes.v[i];
	if (!taskcache_cacheable(t) || !tc->read)
		return tc->status[i] = CACHE_DISABLED;
	if (!tc->store_open)
		return tc->status[i] = CACHE_MISS; /* a dry run before any store exists */
	struct entry e;
	struct strbuf why = STRBUF_INIT;
	int r = entry_open(&tc->store, tc->keys[i], &e, &why);
	strbuf_release(&why);
	if (r == ENTRY_HIT) {
		entry_close(&e);
		return tc->status[i] = CACHE_HIT;
	}
	if (tc->verbose)
		explain_miss(tc, i); /* the dry run's "why" */
	return tc->status[i] = (r == ENTRY_BAD ? CACHE_BAD : CACHE_MISS);
}

bool taskcache_remote_readable(const struct taskcache *tc)
{
	return tc->remote && remote_readable(tc->remote);
}

bool taskcache_remote_has(struct taskcache *tc, size_t i)
{
	return tc->read && taskcache_cacheable(tc->g->nodes.v[i]) &&
	       taskcache_remote_readable(tc) && remote_head(tc->remote, tc->keys[i]) == 1;
}

/* Node i's entry from the remote cache into the local store, checked
 * whole before it enters (transfer.h). Returns 0 when it is there now, 1
 * for a miss, -1 after a warning. */
static int remote_fetch(struct taskcache *tc, size_t i)
{
	if (!remote_readable(tc->remote))
		return 1;
	const char *key = tc->keys[i];
	char *path = NULL;
	int fd = transfer_tmp(&tc->store, key, &path);
	if (fd < 0)
		return -1;
	int rc = remote_get(tc->remote, key, fd);
	if (rc == 1) {
		struct strbuf why = STRBUF_INIT;
		rc = transfer_import(&tc->store, key, fd, path, &why);
		if (rc == 1)
			warning(
			    "%s: the remote cache's artifact %s is refused (%s); running the task",
			    tc->g->nodes.v[i]->id, key, why.buf);
		strbuf_release(&why);
		rc = rc == 0 ? 0 : -1;
	} else {
		rc = rc == 0 ? 1 : -1;
	}
	close(fd);
	unlinkat(tc->store.dirfd, path, 0);
	free(path);
	return rc;
}

/* A hit's log as restore reads it: into the job's log, which spills as a
 * command's output does. */
struct replay {
	struct job *job;
	const char *spill_dir;
};

static int replay_add(void *ctx, const char *buf, size_t n)
{
	struct replay *rp = ctx;
	scheduler_job_log_add(rp->job, rp->spill_dir, buf, n);
	return 0;
}

/* Whether the store holds an entry of key: its manifest or its bundle
 * (a hash lookup costs two stats; opening it is the restore's). */
static bool entry_here(const struct taskcache *tc, const char *key)
{
	/* by the store's descriptor: a workspace deeper than PATH_MAX has
	 * a store no absolute path reaches (issue 39) */
	char *man = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	char *bundle = store_entry_name(key, STORE_BUNDLE_SUFFIX);
	bool here = faccessat(tc->store.dirfd, man, F_OK, 0) == 0 ||
		    faccessat(tc->store.dirfd, bundle, F_OK, 0) == 0;
	free(man);
	free(bundle);
	return here;
}

/* One hit's way from the store (or the remote) into the project, off the
 * loop when the run has a worker: opened (and fetched), then, on the loop,
 * its programs checked against the ones here, then restored. While it is
 * on its way the job is pending (scheduler.h) and its log is the fetch's;
 * the before hook asked again takes the answer. */
struct fetch {
	struct taskcache *tc;
	struct job *job;
	size_t i;
	enum prefetch_state pf; /* the prefetch's answer, taken once */
	int r;			/* entry_open's */
	bool bad;		/* the local entry was damaged (why says how) */
	struct strbuf why;
	struct entry e;
	bool from_remote;
	char *entry_tools;   /* the programs its cached run exec'd (exec_blob) */
	int rc;		     /* the restore's */
	struct strvec after; /* the outputs once restored */
	int after_rc;
	enum taskcache_answer answer; /* TASKCACHE_WAIT until settled */
};

static void fetch_free(struct fetch *f)
{
	strbuf_release(&f->why);
	free(f->entry_tools);
	strvec_clear(&f->after);
	free(f);
}

/* The answer is known: the job is asked again (async) or answered now. */
static void fetch_settle(struct fetch *f, enum taskcache_answer a)
{
	f->answer = a;
	f->job->pending = false;
}

/* Worker: the local entry, else the remote's into the store, opened. */
static void fetch_open(void *arg)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	const char *key = tc->keys[f->i];
	f->r = tc->remote_only && f->pf != PREFETCH_HIT
		   ? ENTRY_MISS
		   : entry_open(&tc->store, key, &f->e, &f->why);
	f->from_remote = f->r == ENTRY_HIT && f->pf == PREFETCH_HIT;
	f->bad = f->r == ENTRY_BAD;
	if (f->r != ENTRY_HIT && f->r != ENTRY_ERROR && f->pf == PREFETCH_ASK &&
	    remote_fetch(tc, f->i) == 0) {
		struct strbuf why = STRBUF_INIT;
		f->r = entry_open(&tc->store, key, &f->e, &why);
		strbuf_release(&why);
		f->from_remote = f->r == ENTRY_HIT;
	}
	if (f->r == ENTRY_HIT)
		f->entry_tools = exec_blob(NULL, NULL, 0, &f->e.m);
}

/* Worker: the project's outputs replaced by the entry's, its log into the
 * job's (the job is pending: its log is the fetch's). */
static void fetch_restore(void *arg)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	const struct task_node *t = tc->g->nodes.v[f->i];
	const struct project *p = tc->ws->projects.v[t->project];
	struct strvec current = STRVEC_INIT;
	f->rc = outputs_collect(p->dir, &t->cfg->outputs, &current);
	if (!f->rc) {
		scheduler_job_log_reset(f->job);
		/* no entry writes more than the whole cache may hold (issue 36:
		 * a tiny remote artifact can unpack to gigabytes) */
		f->e.restore_limit = (uint64_t)tc->ws->cfg->cache_max_size;
		struct replay rp = {f->job, tc->spill_dir};
		struct restore_log sink = {replay_add, &rp};
		f->rc = restore_entry_to(&f->e, p->dir, (const char *const *)current.v, current.n,
					 &sink);
	}
	entry_close(&f->e);
	strvec_clear(&current);
	if (f->rc < 0) {
		scheduler_job_log_reset(f->job);
		return;
	}
	if (!tc->store.read_only)
		store_touch(&tc->store, tc->keys[f->i]);
	f->after_rc = outputs_collect(p->dir, &t->cfg->outputs, &f->after);
}

static void fetch_restored(void *arg, const char *messages)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	const struct task_node *t = tc->g->nodes.v[f->i];
	fputs(messages ? messages : "", stderr);
	if (f->rc < 0) {
		warning("%s: cannot restore cache entry %s; running the task", t->id,
			tc->keys[f->i]);
		tc->status[f->i] = CACHE_MISS;
		fetch_settle(f, TASKCACHE_RUN);
		return;
	}
	if (!f->after_rc)
		inplace_put(tc->ip, t->id, tc->keys[f->i], tc->ws->projects.v[t->project]->dir,
			    f->after.v, f->after.n, f->job->log.buf, f->job->log.len,
			    f->entry_tools);
	fetch_settle(f, TASKCACHE_HIT);
}

/* Loop: what the open found; a hit whose programs are still the ones here
 * goes on to its restore. */
static void fetch_opened(void *arg, const char *messages)
{
	struct fetch *f = arg;
	struct taskcache *tc = f->tc;
	size_t i = f->i;
	const struct task_node *t = tc->g->nodes.v[i];
	fputs(messages ? messages : "", stderr);
	if (f->bad) {
		warning("%s: cache entry %s is damaged (%s); running the task and replacing it",
			t->id, tc->keys[i], f->why.buf);
		tc->status[i] = CACHE_BAD;
	}
	if (f->r != ENTRY_HIT) {
		if (tc->verbose)
			explain_miss(tc, i);
		fetch_settle(f, TASKCACHE_RUN);
		return;
	}
	/* the programs its cached run exec'd must be the ones here (issue 18);
	 * the same list goes into the in-place record */
	struct strbuf which = STRBUF_INIT;
	if (tools_changed_blob(tc, f->entry_tools, &which)) {
		if (tc->verbose)
			fprintf(stderr,
				"%s: cache miss: toolchain changed: %s (a program its "
				"cached run exec'd)\n",
				t->id, which.buf);
		entry_close(&f->e);
		strbuf_release(&which);
		f->from_remote = false;
		fetch_settle(f, TASKCACHE_RUN);
		return;
	}
	strbuf_release(&which);
	if (tc->worker) {
		worker_submit(tc->worker, fetch_restore, fetch_restored, f);
		return;
	}
	fetch_restore(f);
	fetch_restored(f, NULL);
}

/* The settled fetch of node i, taken: its answer, and the node's status. */
static enum taskcache_answer fetch_take(struct taskcache *tc, size_t i, struct job *job)
{
	struct fetch *f = tc->fetching[i];
	tc->fetching[i] = NULL;
	enum taskcache_answer a = f->answer;
	tc->from_remote[i] = job->remote = a == TASKCACHE_HIT && f->from_remote;
	if (a == TASKCACHE_HIT) {
		tc->status[i] = CACHE_HIT;
		job->exit_code = 0;
	}
	fetch_free(f);
	return a;
}

enum taskcache_answer taskcache_before(struct job *job, void *ctx)
{
	struct taskcache *tc = ctx;
	size_t i = taskcache_node_of(tc, job);
	const struct task_node *t = tc->g->nodes.v[i];
	if (tc->fetching[i]) /* asked again: its fetch has settled */
		return fetch_take(tc, i, job);
	if (!taskcache_cacheable(t) || !tc->store_open) {
		tc->status[i] = CACHE_DISABLED;
		return TASKCACHE_RUN;
	}
	tc->status[i] = CACHE_MISS;
	if (!tc->read)
		return TASKCACHE_RUN;
	const struct project *p = tc->ws->projects.v[t->project];
	tc->from_remote[i] = false;
	/* The fast hit: outputs still in place from the last time this key
	 * was built or restored, so no entry is opened. */
	const struct inplace_record *rec = tc->remote_only ? NULL : inplace_get(tc->ip, t->id);
	if (rec && !strcmp(rec->key, tc->keys[i]) && rec->has_log && inplace_check(rec, p->dir) &&
	    !tools_changed_blob(tc, rec->tools, NULL)) {
		strbuf_reset(&job->log);
		strbuf_add(&job->log, rec->log, rec->log_len);
		tc->status[i] = CACHE_HIT;
		job->exit_code = 0;
		return TASKCACHE_HIT;
	}
	/* The prefetch's answer, taken once: a later ask (a --shard wait)
	 * goes to the remote itself. */
	enum prefetch_state pf = PREFETCH_ASK;
	if (tc->prefetch && tc->prefetch_of[i]) {
		prefetch_say(tc->prefetch);
		pf = prefetch_state(tc->prefetch, tc->prefetch_of[i] - 1);
		if (pf == PREFETCH_PENDING)
			return TASKCACHE_WAIT;
		tc->prefetch_of[i] = 0;
	}
	/* A plain miss is known on the loop, in the order the tasks come up:
	 * no entry here (two stats, as the prefetch asks) and no GET to make.
	 * Only a hit's way in, or a GET, leaves the loop. */
	bool here = (!tc->remote_only || pf == PREFETCH_HIT) && entry_here(tc, tc->keys[i]);
	if (!here && !(pf == PREFETCH_ASK && remote_readable(tc->remote))) {
		if (tc->verbose)
			explain_miss(tc, i);
		return TASKCACHE_RUN;
	}
	struct fetch *f = xcalloc(1, sizeof *f);
	f->tc = tc;
	f->job = job;
	f->i = i;
	f->pf = pf;
	f->answer = TASKCACHE_WAIT;
	strbuf_init(&f->why);
	tc->fetching[i] = f;
	if (tc->worker) {
		/* off the loop: the entry's open, a remote GET (and its
		 * back-off), the restore (docs/architecture.md) */
		worker_submit(tc->worker, fetch_open, fetch_opened, f);
		return TASKCACHE_PENDING;
	}
	fetch_open(f);
	fetch_opened(f, NULL);
	return fetch_take(tc, i, job);
}

static void save_finished(struct taskcache *tc, struct job *job, int rc, const char *messages);
static void on_save_ready(struct loop *l, int fd, unsigned events, void *data);

void taskcache_after(struct job *job, void *ctx)
{
	struct taskcache *tc = ctx;
	size_t i = taskcache_node_of(tc, job);
	const struct task_node *t = tc->g->nodes.v[i];
	/* a log that could not be kept whole was said with its reason */
	if (job->state != JOB_SUCCEEDED || !tc->write || !taskcache_cacheable(t) ||
	    !tc->store_open || job->log_lost)
		return;
	const struct project *p = tc->ws->projects.v[t->project];
	/* An input that moved under the task (an editor's save, a checkout)
	 * makes its key and its outputs two contents' (issue 37: a writer
	 * rewriting an input every 3 ms gave 39 wrong entries of 39) */
	const struct task_inputs *hashed = &tc->inputs[i];
	for (size_t f = 0; tc->sc && f < hashed->paths.n; f++) {
		char *abs = path_join(tc->ws->root, hashed->paths.v[f]);
		bool moved = statcache_changed(tc->sc, abs);
		free(abs);
		if (moved) {
			warning(
			    "%s: not saved to the cache: its input %s changed while it ran (its "
			    "key holds what was there before)",
			    t->id, hashed->paths.v[f]);
			return;
		}
	}
	struct strvec outs = STRVEC_INIT;
	if (outputs_collect(p->dir, &t->cfg->outputs, &outs)) {
		warning("%s: not saved to the cache: its outputs cannot be listed", t->id);
		strvec_clear(&outs);
		return;
	}
	const struct task_inputs *ti = &tc->facts[i];
	struct entry_input *ins = xcalloc(ti->paths.n + 1, sizeof *ins);
	for (size_t f = 0; f < ti->paths.n; f++) {
		ins[f].path = ti->paths.v[f];
		ins[f].hash = ti->hashes[f];
	}
	struct entry_save_request req = {
	    .key = tc->keys[i],
	    .task = t->id,
	    .project_dir = p->dir,
	    .outputs = (const char *const *)outs.v,
	    .n_outputs = outs.n,
	    .inputs = ins,
	    .n_inputs = ti->paths.n,
	    /* a spilled log is streamed from its file, never held whole */
	    .log_fd = job->log_fd >= 0 && lseek(job->log_fd, 0, SEEK_SET) == 0 ? job->log_fd : -1,
	    .log = job->log_fd < 0 && job->log.len ? job->log.buf : NULL,
	    .log_len = job->log_fd < 0 ? job->log.len : 0,
	    .exit_code = job->exit_code,
	    .duration_ms = (uint64_t)(job->duration_ms > 0 ? job->duration_ms : 0),
	    .level = tc->level,
	};
	if (tc->loop && !tc->saver) { /* a fully cached run never starts it */
		tc->saver = saver_new(&tc->store, remote_writable(tc->remote) ? tc->remote : NULL);
		loop_watch(tc->loop, saver_fd(tc->saver), LOOP_READ, on_save_ready, tc);
	}
	tc->saving[i] = outs;
	if (tc->saver) {
		/* Off the loop: the dependents wait for the save (job->held),
		 * every other task goes on. The request is copied at submit. */
		saver_submit(tc->saver, &req, job);
		job->held = true;
	} else {
		struct strbuf messages = STRBUF_INIT;
		report_to(strbuf_report_line, &messages);
		int rc = entry_save(&tc->store, &req, NULL);
		report_to(NULL, NULL);
		save_finished(tc, job, rc, messages.buf);
		strbuf_release(&messages);
	}
	free(ins);
}

/* A save of job's outputs ended with rc, saying messages (the lines its
 * error() and warning() calls made): on success they are printed and the
 * outputs it holds are recorded as in place (the fast hit of the next
 * run); on failure they are the reason of one warning that names the task
 * (issue 39: "cannot write the archive: No space left on device" named no
 * task and no file, and lacked "warning:"). */
static void save_finished(struct taskcache *tc, struct job *job, int rc, const char *messages)
{
	size_t i = taskcache_node_of(tc, job);
	const struct task_node *t = tc->g->nodes.v[i];
	const struct project *p = tc->ws->projects.v[t->project];
	struct strvec *outs = &tc->saving[i];
	if (rc) {
		struct strbuf why = STRBUF_INIT;
		for (const char *s = messages; s && *s;) {
			const char *nl = strchr(s, '\n');
			if (!nl)
				nl = s + strlen(s);
			const char *line = s;
			if (!strncmp(line, "vx: ", 4))
				line += 4;
			if (!strncmp(line, "warning: ", 9))
				line += 9;
			if (nl > line)
				strbuf_addf(&why, "%s%.*s", why.len ? "; " : ": ", (int)(nl - line),
					    line);
			s = *nl ? nl + 1 : nl;
		}
		warning("%s: not saved to the cache%s; the run goes on", t->id, why.buf);
		strbuf_release(&why);
	} else {
		fputs(messages, stderr);
		/* a log too long for the record (a spilled one is) leaves it without one */
		char *tools = exec_blob(tc->facts[i].paths.v, tc->facts[i].hashes,
					tc->facts[i].paths.n, NULL);
		inplace_put(tc->ip, t->id, tc->keys[i], p->dir, outs->v, outs->n, job->log.buf,
			    job->log_len > job->log.len ? job->log_len : job->log.len, tools);
		free(tools);
	}
	strvec_clear(outs);
	job->held = false;
}

static void on_saved(void *tag, int rc, const char *messages, void *ctx)
{
	save_finished(ctx, tag, rc, messages);
}

static void on_save_ready(struct loop *l, int fd, unsigned events, void *data)
{
	struct taskcache *tc = data;
	saver_reap(tc->saver, on_saved, tc);
}

/* Every key the run may need that the local store lacks goes to the
 * prefetch, in the graph's order (the order the tasks come up). */
static void prefetch_begin(struct taskcache *tc)
{
	size_t n = tc->g->nodes.n, k = 0;
	const char **keys = xcalloc(n + 1, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		tc->prefetch_of[i] = 0;
		if (!taskcache_cacheable(tc->g->nodes.v[i]))
			continue;
		if (!tc->remote_only) {
			/* built or restored with this key last time: its entry is
			 * here (a hash lookup, where the store costs a stat) */
			const struct inplace_record *rec =
			    inplace_get(tc->ip, tc->g->nodes.v[i]->id);
			if (rec && !strcmp(rec->key, tc->keys[i]))
				continue;
			if (entry_here(tc, tc->keys[i]))
				continue;
		}
		keys[k] = tc->keys[i];
		tc->prefetch_of[i] = ++k;
	}
	tc->prefetch = prefetch_start(&tc->store, tc->remote, keys, k);
	if (!tc->prefetch)
		memset(tc->prefetch_of, 0, n * sizeof *tc->prefetch_of);
	free(keys);
}

void taskcache_start(struct taskcache *tc, struct loop *l)
{
	if (!tc->store_open || tc->dry_run)
		return;
	if (tc->read && taskcache_remote_readable(tc))
		prefetch_begin(tc);
	if (tc->read && l)
		tc->worker = worker_new(l, RESTORE_THREADS);
	if (tc->write)
		tc->loop = l;
}

void taskcache_finish(struct taskcache *tc)
{
	worker_free(tc->worker); /* idle: the scheduler waits for its pending jobs */
	tc->worker = NULL;
	/* a fetch settled after a stop was never asked for (the job was
	 * skipped): the next cycle asks afresh */
	for (size_t i = 0; tc->fetching && i < tc->g->nodes.n; i++) {
		if (tc->fetching[i])
			fetch_free(tc->fetching[i]);
		tc->fetching[i] = NULL;
	}
	prefetch_free(tc->prefetch);
	tc->prefetch = NULL;
	if (tc->saver) {
		saver_drain(tc->saver, on_saved, tc);
		loop_unwatch(tc->loop, saver_fd(tc->saver));
		saver_free(tc->saver);
		tc->saver = NULL;
	}
	tc->loop = NULL;
}

void taskcache_close(struct taskcache *tc)
{
	taskcache_finish(tc);
	if (tc->sc) {
		if (!tc->dry_run && !tc->store.read_only) {
			statcache_save(tc->sc);
			listcache_save(tc->lc);
			ignores_save(tc->ig);
			inplace_save(tc->ip);
			readcache_save(tc->ws->reads);
		}
		statcache_free(tc->sc);
	}
	listcache_free(tc->lc);
	ignores_free(tc->ig);
	inplace_free(tc->ip);
	if (tc->store_open)
		store_close(&tc->store);
	for (size_t i = 0; tc->inputs && i < tc->g->nodes.n; i++) {
		strvec_clear(&tc->inputs[i].paths);
		free(tc->inputs[i].hashes);
		strvec_clear(&tc->facts[i].paths);
		free(tc->facts[i].hashes);
	}
	for (size_t i = 0; tc->saving && i < tc->g->nodes.n; i++)
		strvec_clear(&tc->saving[i]);
	free(tc->saving);
	free(tc->facts);
	for (size_t i = 0; tc->tools && i < tc->g->nodes.n; i++) {
		strvec_clear(&tc->tools[i].paths);
		free(tc->tools[i].hashes);
	}
	free(tc->tools);
	externals_release(&tc->ext);
	free(tc->inputs);
	free(tc->keys);
	free(tc->status);
	free(tc->from_remote);
	free(tc->prefetch_of);
	free(tc->fetching);
	remote_free(tc->remote);
	free(tc->dir);
}
