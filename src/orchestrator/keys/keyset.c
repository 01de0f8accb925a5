/* keyset.c - every task's key of a run, folded from its inputs, its
 * environment, its command, its programs, its external dependencies and
 * its dependencies' keys (SPEC §6), with the facts --explain-key and -v
 * print of each (keyset.h).
 *
 * All keys are computed before the first task starts: a key folds the
 * dependencies' keys, never their outputs, so it is known up front (as in
 * Turborepo), the dry run can print it, and every input file of the run is
 * hashed in one parallel batch through the stat cache. */
#include "orchestrator/keys/keyset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cache/filehash.h"
#include "orchestrator/config/schema.h"
#include "orchestrator/keys/inputs.h"
#include "orchestrator/keys/taskenv.h"
#include "orchestrator/keys/toolchain.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/readcache.h"
#include "util/strbuf.h"
#include "util/strmap.h"

void keyset_init(struct keyset *ks, const struct workspace *ws, const struct graph *g, bool traced)
{
	memset(ks, 0, sizeof *ks);
	ks->ws = ws;
	ks->g = g;
	ks->traced = traced;
	size_t n = g->nodes.n + 1;
	ks->keys = xcalloc(n, sizeof *ks->keys);
	ks->inputs = xcalloc(n, sizeof *ks->inputs);
	ks->facts = xcalloc(n, sizeof *ks->facts);
	ks->tools = xcalloc(n, sizeof *ks->tools);
}

static void inputs_free(struct task_inputs *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		strvec_clear(&v[i].paths);
		free(v[i].hashes);
	}
	free(v);
}

void keyset_release(struct keyset *ks)
{
	if (!ks->g)
		return;
	size_t n = ks->g->nodes.n;
	inputs_free(ks->inputs, n);
	inputs_free(ks->facts, n);
	inputs_free(ks->tools, n);
	externals_release(&ks->ext);
	free(ks->keys);
	memset(ks, 0, sizeof *ks);
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

static void fold_key(struct keyset *ks, size_t i, const char *command, const char *platform)
{
	const struct task_node *t = ks->g->nodes.v[i];
	struct fold f = {.facts = &ks->facts[i]};
	key_init(&f.k);
	fold_str(&f, "task", t->id, NULL); /* the id is the entry's name, not a fact */
	fold_str(&f, "command", command, "//command");
	fold_str(&f, "platform", platform, "//platform");
	const struct task_inputs *in = &ks->inputs[i];
	key_add_int(&f.k, "inputs", (int64_t)in->paths.n);
	for (size_t n = 0; n < in->paths.n; n++)
		fold_file(&f, "file", in->paths.v[n], in->hashes[n], "");
	struct strvec names = STRVEC_INIT, inferred = STRVEC_INIT;
	task_env_keyed(ks->ws, t, &names, &inferred);
	for (size_t e = 0; e < names.n; e++)
		fold_named(&f, "env", names.v[e], getenv(names.v[e]), "//env/");
	/* its framework's public variables (framework.h), apart: a task
	 * whose framework sees none set keeps the key it had */
	for (size_t e = 0; e < inferred.n; e++)
		fold_named(&f, "inferred env", inferred.v[e], getenv(inferred.v[e]), "//env/");
	strvec_clear(&names);
	strvec_clear(&inferred);
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
	const struct task_inputs *tools = &ks->tools[i];
	key_add_int(&f.k, "tools", (int64_t)tools->paths.n);
	for (size_t n = 0; n < tools->paths.n; n++)
		fold_file(&f, "tool", tools->paths.v[n], tools->hashes[n], "//toolchain");
	if (ks->ext.path) {
		/* the project's external dependencies, and (not in the key: for
		 * -v to find the closure it was) the lockfile they came from */
		key_add_str(&f.k, "externals", ks->ext.hash[t->project]);
		push_fact(f.facts, "//externals", ks->ext.hash[t->project]);
		push_fact(f.facts, "//lockfile", ks->ext.content);
	}
	if (t->cfg->sandbox) {
		struct strbuf sb = STRBUF_INIT;
		schema_sandbox_fold(t->cfg->sandbox, &sb);
		key_add_str(&f.k, "sandbox", sb.buf);
		key_add_int(&f.k, "traced", ks->traced);
		strbuf_addf(&sb, "traced=%d\n", ks->traced); /* the fact: both, as one text */
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
		strvec_pushf(&deps, "%s\n%s", ks->g->nodes.v[j]->id, ks->keys[j]);
		char *fact = xasprintf("//dep/%s", ks->g->nodes.v[j]->id);
		add_fact(f.facts, fact, ks->keys[j]);
		free(fact);
	}
	key_add_strvec_sorted(&f.k, "deps", &deps);
	strvec_clear(&deps);
	key_finish(&f.k, ks->keys[i]);
}

void keyset_hash(const struct keyset *ks, const char *const *paths, size_t n,
		 char (*hashes)[KEY_HEX_SIZE], int *errs)
{
	if (!n)
		return;
	if (ks->sc)
		statcache_lookup_many(ks->sc, paths, n, hashes, errs, 0);
	else
		filehash_many(paths, n, hashes, errs, 0);
}

/* Lists and hashes the inputs of the nodes which marks (every node when
 * NULL) into ks->inputs, in one parallel batch of distinct paths. Returns
 * 0, or -1 after an error line. */
static int collect_inputs(struct keyset *ks, const bool *which)
{
	const struct graph *g = ks->g;
	struct inputs in;
	inputs_init(&in, ks->ws, ks->listing, ks->reads, ks->lc, ks->ig, ks->cache_dir);
	struct strvec batch = STRVEC_INIT;
	struct strmap index = STRMAP_INIT;
	size_t **where = xcalloc(g->nodes.n + 1, sizeof *where);
	int rc = 0;
	for (size_t i = 0; i < g->nodes.n && !rc; i++) {
		if (which && !which[i])
			continue;
		rc = inputs_collect(&in, g->nodes.v[i], &ks->inputs[i].paths);
		size_t np = ks->inputs[i].paths.n;
		where[i] = xmalloc((np + 1) * sizeof **where);
		for (size_t f = 0; f < np && !rc; f++) {
			char *abs = path_join(ks->ws->root, ks->inputs[i].paths.v[f]);
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
		keyset_hash(ks, (const char *const *)batch.v, batch.n, hashes, errs);
	for (size_t i = 0; i < g->nodes.n && !rc; i++) {
		if (which && !which[i])
			continue;
		struct task_inputs *ti = &ks->inputs[i];
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

/* The programs node i runs: inputs.toolchain, else its command's first
 * word (the script's, for a package.json script), each with the
 * interpreter its "#!" names. */
static void node_tools(struct keyset *ks, size_t i, struct strmap *memo, struct strvec *memo_vals)
{
	const struct task_node *t = ks->g->nodes.v[i];
	const struct project *p = ks->ws->projects.v[t->project];
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
	char *path = names.n ? task_env_path(ks->ws, t) : NULL;
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
			bool mine = readcache_exists(ks->reads, nm) && access(own, X_OK) == 0;
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
			if (strvec_find(&ks->tools[i].paths, one) < 0)
				strvec_push_nodup(&ks->tools[i].paths, one);
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
static void collect_tools(struct keyset *ks, const bool *which)
{
	struct strmap memo = STRMAP_INIT;
	struct strvec memo_vals = STRVEC_INIT, all = STRVEC_INIT;
	for (size_t i = 0; i < ks->g->nodes.n; i++) {
		if (which && !which[i])
			continue;
		strvec_clear(&ks->tools[i].paths);
		free(ks->tools[i].hashes);
		ks->tools[i].hashes = NULL;
		node_tools(ks, i, &memo, &memo_vals);
		strvec_extend(&all, &ks->tools[i].paths);
	}
	strvec_sort_unique(&all);
	char(*hashes)[KEY_HEX_SIZE] = xcalloc(all.n + 1, sizeof *hashes);
	int *errs = xcalloc(all.n + 1, sizeof *errs);
	keyset_hash(ks, (const char *const *)all.v, all.n, hashes, errs);
	for (size_t i = 0; i < ks->g->nodes.n; i++) {
		if (which && !which[i])
			continue;
		struct task_inputs *ti = &ks->tools[i];
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

int keyset_compute(struct keyset *ks, const char *cache_dir, bool write_externals)
{
	long long t0 = loop_now();
	ks->cache_dir = cache_dir;
	externals_load(&ks->ext, ks->ws, cache_dir, write_externals);
	collect_tools(ks, NULL);
	int rc = collect_inputs(ks, NULL);
	char platform[160];
	platform_name(platform, sizeof platform);
	for (size_t i = 0; i < ks->g->nodes.n && !rc; i++)
		fold_key(ks, i, ks->g->nodes.v[i]->command, platform);
	/* the stats the workspace's load took served these keys; the next
	 * ones (vx watch's keyset_rekey) look again */
	readcache_forget_stats(ks->reads);
	ks->hash_ms = loop_now() - t0;
	return rc;
}

int keyset_rekey(struct keyset *ks, const bool *touched, bool *changed)
{
	long long t0 = loop_now();
	const struct graph *g = ks->g;
	for (size_t i = 0; i < g->nodes.n; i++) {
		if (!touched[i])
			continue;
		strvec_clear(&ks->inputs[i].paths);
		free(ks->inputs[i].hashes);
		ks->inputs[i].hashes = NULL;
	}
	collect_tools(ks, touched);
	int rc = collect_inputs(ks, touched);
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
		memcpy(old, ks->keys[i], KEY_HEX_SIZE);
		strvec_clear(&ks->facts[i].paths);
		free(ks->facts[i].hashes);
		ks->facts[i].hashes = NULL;
		fold_key(ks, i, t->command, platform);
		changed[i] = strcmp(old, ks->keys[i]) != 0;
	}
	ks->hash_ms = loop_now() - t0;
	return rc;
}

void keyset_add_execs(struct keyset *ks, size_t i, const struct strvec *execs)
{
	if (!execs || !execs->n)
		return;
	char(*h)[KEY_HEX_SIZE] = xcalloc(execs->n, sizeof *h);
	int *errs = xcalloc(execs->n, sizeof *errs);
	keyset_hash(ks, (const char *const *)execs->v, execs->n, h, errs);
	struct task_inputs *facts = &ks->facts[i];
	for (size_t k = 0; k < execs->n; k++) {
		char *name = xasprintf("//exec%s", execs->v[k]);
		if (!errs[k] && strvec_find(&facts->paths, name) < 0)
			push_fact(facts, name, h[k]);
		free(name);
	}
	free(h);
	free(errs);
}
