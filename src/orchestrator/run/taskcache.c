/* taskcache.c - the cache as a run sees it: the hooks that turn a task's
 * key (keys/keyset.c, all computed before the first task starts) into a
 * replay or a saved entry. */
#include "orchestrator/run/taskcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/entry.h"
#include "cache/inplace.h"
#include "cache/remote.h"
#include "orchestrator/keys/listing.h"
#include "util/fsclock.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"

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

/* The remote's url: VX_REMOTE_CACHE_URL, else cache.remote.url, else
 * TURBO_API, or Vercel's API for a token alone; NULL: none. *tokenp: the
 * token, the same way (VX_REMOTE_CACHE_TOKEN, the config, TURBO_TOKEN). */
static const char *remote_url(const struct remote_cfg *rc, const char **tokenp)
{
	const char *url = getenv("VX_REMOTE_CACHE_URL"), *token = getenv("VX_REMOTE_CACHE_TOKEN");
	if (!url || !*url)
		url = rc && rc->url ? rc->url : getenv("TURBO_API");
	if (!token || !*token)
		token = rc && rc->token ? rc->token : getenv("TURBO_TOKEN");
	*tokenp = token;
	/* a token alone means Vercel's API, as in Turborepo; so does a config
	 * that names no url (turbo.json's remoteCache) */
	if ((!url || !*url) && token && *token && !(rc && rc->url))
		url = "https://vercel.com/api";
	return url && *url ? url : NULL;
}

bool taskcache_remote_named(const struct workspace *ws, enum remote_mode mode, bool read)
{
	const struct remote_cfg *rc = ws->cfg->remote;
	const char *token;
	return mode != REMOTE_OFF && read && (rc ? rc->read : true) && remote_url(rc, &token);
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
	const char *token, *url = remote_url(rc, &token), *team = getenv("VX_REMOTE_CACHE_TEAM"),
			   *team_id = getenv("VX_REMOTE_CACHE_TEAM_ID");
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
	if (!url)
		return NULL;
	struct remote_opts ro = {
	    .url = url,
	    .token = token,
	    .team = team,
	    .team_id = team_id,
	    .signature_key = key,
	    .read = (rc ? rc->read : true) && o->read && !o->no_remote_read,
	    .write = (rc ? rc->write : true) && o->write && !o->dry_run && !o->no_remote_write,
	    .timeout_ms = rc ? (long)rc->timeout_ms : 0,
	    /* no download lands past what the cache may hold (issue 57) */
	    .max_body = (uint64_t)ws->cfg->cache_max_size,
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
	keyset_init(&tc->ks, ws, g, o->traced);
	if (o->load) {
		tc->reads = o->load->reads;
		tc->ks.reads = o->load->reads;
		tc->ks.listing = o->load->listing;
	}
	tc->verbose = o->verbose;
	tc->level = ws->cfg->cache_compression;
	tc->dir = xstrdup(o->dir);
	size_t n = g->nodes.n + 1;
	tc->status = xcalloc(n, sizeof *tc->status);
	tc->saving = xcalloc(n ? n : 1, sizeof *tc->saving);
	tc->from_remote = xcalloc(n, sizeof *tc->from_remote);
	tc->prefetch_of = xcalloc(n, sizeof *tc->prefetch_of);
	tc->fetching = xcalloc(n, sizeof *tc->fetching);
	tc->state = xcalloc(n, sizeof *tc->state); /* CACHE_STATE_IDLE */
	tc->waiting = xcalloc(n, sizeof *tc->waiting);
	if (o->remote != REMOTE_OFF && (o->read || o->write))
		tc->remote = remote_from(ws, o);
	tc->remote_only = tc->remote && (o->remote == REMOTE_ONLY || o->no_local_read);
	tc->imported = xcalloc(n, sizeof *tc->imported);
	/* --cache: a side off is one the run cannot use; with neither, the
	 * run neither reads nor writes */
	tc->keep_local = !o->no_local_write;
	if (o->no_local_read && !taskcache_remote_readable(tc))
		tc->read = false;
	if (o->no_local_write && !(tc->remote && remote_writable(tc->remote)))
		tc->write = false;
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
		/* --cache-dir: the run's kept records lie here, and so does
		 * the stamp their racy rule reads (util/fsclock.h) */
		fs_clock_anchor(tc->dir);
		char *scpath = path_join(tc->dir, "statcache");
		tc->sc = statcache_load(scpath);
		statcache_use_reads(tc->sc, tc->reads);
		free(scpath);
		/* the input walk's, when it ran while the configs were read */
		listing_take_kept(tc->ks.listing, tc->dir, &tc->lc, &tc->ig);
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
		/* the keys list and hash through what the store keeps */
		tc->ks.sc = tc->sc;
		tc->ks.lc = tc->lc;
		tc->ks.ig = tc->ig;
	}
	return 0;
}

int taskcache_keys(struct taskcache *tc)
{
	return keyset_compute(&tc->ks, tc->dir, tc->write && tc->store_open && !tc->dry_run);
}

int taskcache_rekey(struct taskcache *tc, const bool *touched, bool *changed)
{
	return keyset_rekey(&tc->ks, touched, changed);
}

char *taskcache_exec_blob(char **names, char (*hashes)[KEY_HEX_SIZE], size_t n,
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

bool taskcache_tools_changed(struct taskcache *tc, const char *blob, struct strbuf *which)
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
		keyset_hash(&tc->ks, (const char *const *)paths.v, paths.n, now, errs);
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
	return taskcache_keyed_files(tc, i) ? &tc->ks.tools[i].paths : NULL;
}

void taskcache_set_execs(struct taskcache *tc, size_t i, const struct strvec *execs)
{
	keyset_add_execs(&tc->ks, i, execs);
}

void taskcache_checkpoint(struct taskcache *tc)
{
	if (tc->sc && !tc->dry_run && !tc->store.read_only) {
		statcache_save(tc->sc);
		listcache_save(tc->lc);
		ignores_save(tc->ig);
		inplace_save(tc->ip);
		readcache_save(tc->reads);
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

void taskcache_explain_miss(struct taskcache *tc, size_t i)
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
	const struct task_inputs *now = &tc->ks.facts[i];
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
			externals_explain(&tc->ks.ext, t->project, old, &out);
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
	    tc->ks.inputs && (tc->read || tc->write) && (taskcache_cacheable(t) || !t->command);
	return cached ? &tc->ks.inputs[i].paths : NULL;
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
	int r = entry_open(&tc->store, tc->ks.keys[i], &e, &why);
	strbuf_release(&why);
	if (r == ENTRY_HIT) {
		entry_close(&e);
		return tc->status[i] = CACHE_HIT;
	}
	if (tc->verbose)
		taskcache_explain_miss(tc, i); /* the dry run's "why" */
	return tc->status[i] = (r == ENTRY_BAD ? CACHE_BAD : CACHE_MISS);
}

bool taskcache_remote_readable(const struct taskcache *tc)
{
	return tc->remote && remote_readable(tc->remote);
}

bool taskcache_remote_has(struct taskcache *tc, size_t i)
{
	return tc->read && taskcache_cacheable(tc->g->nodes.v[i]) &&
	       taskcache_remote_readable(tc) && remote_head(tc->remote, tc->ks.keys[i]) == 1;
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
			readcache_save(tc->reads);
		}
		statcache_free(tc->sc);
	}
	listcache_free(tc->lc);
	ignores_free(tc->ig);
	inplace_free(tc->ip);
	if (tc->store_open)
		store_close(&tc->store);
	for (size_t i = 0; tc->saving && i < tc->g->nodes.n; i++)
		strvec_clear(&tc->saving[i]);
	free(tc->saving);
	keyset_release(&tc->ks);
	free(tc->status);
	free(tc->from_remote);
	free(tc->imported);
	free(tc->prefetch_of);
	free(tc->fetching);
	free(tc->state);
	free(tc->waiting);
	remote_free(tc->remote);
	free(tc->dir);
}

long long taskcache_saved_ms(const struct taskcache *tc, size_t i)
{
	if (!tc->store_open)
		return -1;
	/* the manifest alone (or a bundle's head): the archive's checksum is
	 * the restore's to check, not a report's */
	const char *key = tc->ks.keys[i];
	struct manifest m = {0};
	struct strbuf json = STRBUF_INIT, why = STRBUF_INIT;
	int rc = -1;
	char *name = store_entry_name(key, STORE_MANIFEST_SUFFIX);
	int fd = openat(tc->store.dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		if (strbuf_read_fd(&json, fd) >= 0)
			rc = manifest_parse(json.buf, json.len, &m, &why);
		close(fd);
	} else {
		free(name);
		name = store_entry_name(key, STORE_BUNDLE_SUFFIX);
		fd = openat(tc->store.dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		off_t off;
		if (fd >= 0) {
			rc = entry_bundle_read(fd, &m, &off, &why) ? -1 : 0;
			close(fd);
		}
	}
	long long ms = rc < 0 || !m.key || strcmp(m.key, key) ? -1 : (long long)m.duration_ms;
	manifest_release(&m);
	strbuf_release(&json);
	strbuf_release(&why);
	free(name);
	return ms;
}
