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

#include "cache/restore.h"
#include "cache/entry.h"
#include "cache/inplace.h"
#include "cache/prefetch.h"
#include "cache/remote.h"
#include "cache/saver.h"
#include "cache/transfer.h"
#include "orchestrator/keys/listing.h"
#include "util/fsclock.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/worker.h"

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
	tc->verbose = o->verbose;
	tc->level = ws->cfg->cache_compression;
	tc->dir = xstrdup(o->dir);
	size_t n = g->nodes.n + 1;
	tc->status = xcalloc(n, sizeof *tc->status);
	tc->saving = xcalloc(n ? n : 1, sizeof *tc->saving);
	tc->from_remote = xcalloc(n, sizeof *tc->from_remote);
	tc->prefetch_of = xcalloc(n, sizeof *tc->prefetch_of);
	tc->fetching = xcalloc(n, sizeof *tc->fetching);
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
	       taskcache_remote_readable(tc) && remote_head(tc->remote, tc->ks.keys[i]) == 1;
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

/* Node i's entry from the remote cache into the local store, checked
 * whole before it enters (transfer.h). Returns 0 when it is there now, 1
 * for a miss, -1 after a warning. */
static int remote_fetch(struct taskcache *tc, size_t i)
{
	if (!remote_readable(tc->remote))
		return 1;
	const char *key = tc->ks.keys[i];
	char *path = NULL;
	int fd = transfer_tmp(&tc->store, key, &path);
	if (fd < 0)
		return -1;
	bool had = !tc->keep_local && entry_here(tc, key);
	int rc = remote_get(tc->remote, key, fd, transfer_body_begins);
	if (rc == 1) {
		struct strbuf why = STRBUF_INIT;
		rc = transfer_import(&tc->store, key, fd, path, &why);
		tc->imported[i] |= !tc->keep_local && rc == 0 && !had;
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
	char *entry_tools;	  /* the programs its cached run exec'd (exec_blob) */
	int rc;			  /* the restore's */
	struct strvec after;	  /* the outputs once restored */
	struct strvec trusted;	  /* outputs on disk as the in-place record has them */
	struct inplace_seen seen; /* the outputs as a restore found them in place */
	int after_rc;
	enum taskcache_answer answer; /* TASKCACHE_WAIT until settled */
};

static void fetch_free(struct fetch *f)
{
	strbuf_release(&f->why);
	free(f->entry_tools);
	strvec_clear(&f->after);
	strvec_clear(&f->trusted);
	inplace_seen_release(&f->seen);
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
	const char *key = tc->ks.keys[f->i];
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
		f->e.trusted = &f->trusted;
		f->e.seen = &f->seen;
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
	if (!tc->store.read_only && tc->keep_local)
		store_touch(&tc->store, tc->ks.keys[f->i]);
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
			tc->ks.keys[f->i]);
		tc->status[f->i] = CACHE_MISS;
		fetch_settle(f, TASKCACHE_RUN);
		return;
	}
	if (!f->after_rc)
		inplace_put(tc->ip, t->id, tc->ks.keys[f->i], tc->ws->projects.v[t->project]->dir,
			    f->after.v, f->after.n, f->job->log.buf, f->job->log.len,
			    f->entry_tools, f->rc == RESTORE_IN_PLACE ? &f->seen : NULL);
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
			t->id, tc->ks.keys[i], f->why.buf);
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
		worker_submit(tc->worker, WORKER_READ, fetch_restore, fetch_restored, f);
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
	tc->from_remote[i] = a == TASKCACHE_HIT && f->from_remote;
	job->hit_from = tc->from_remote[i] ? "remote" : NULL;
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
	/* else, the outputs still as recorded for this key: the restore's
	 * in-place check need not hash them */
	struct strvec trusted = STRVEC_INIT;
	if (rec && !strcmp(rec->key, tc->ks.keys[i]) && inplace_check(rec, p->dir, &trusted) &&
	    rec->has_log && !tools_changed_blob(tc, rec->tools, NULL)) {
		strvec_clear(&trusted);
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
		if (pf == PREFETCH_PENDING) {
			strvec_clear(&trusted);
			if (!tc->prefetch_waiting)
				return TASKCACHE_WAIT;
			tc->prefetch_waiting[i] = job;
			return TASKCACHE_PENDING;
		}
		tc->prefetch_of[i] = 0;
	}
	/* A plain miss is known on the loop, in the order the tasks come up:
	 * no entry here (two stats, as the prefetch asks) and no GET to make.
	 * Only a hit's way in, or a GET, leaves the loop. */
	bool here = (!tc->remote_only || pf == PREFETCH_HIT) && entry_here(tc, tc->ks.keys[i]);
	if (!here && !(pf == PREFETCH_ASK && remote_readable(tc->remote))) {
		strvec_clear(&trusted);
		if (tc->verbose)
			explain_miss(tc, i);
		return TASKCACHE_RUN;
	}
	struct fetch *f = xcalloc(1, sizeof *f);
	f->trusted = trusted;
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
		worker_submit(tc->worker, WORKER_READ, fetch_open, fetch_opened, f);
		return TASKCACHE_PENDING;
	}
	fetch_open(f);
	fetch_opened(f, NULL);
	return fetch_take(tc, i, job);
}

static void save_finished(struct taskcache *tc, struct job *job, int rc, const char *messages,
			  const struct inplace_seen *seen);
static void on_saved(void *tag, int rc, const char *messages, const struct inplace_seen *seen,
		     void *ctx);

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
	const struct task_inputs *hashed = &tc->ks.inputs[i];
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
	const struct task_inputs *ti = &tc->ks.facts[i];
	struct entry_input *ins = xcalloc(ti->paths.n + 1, sizeof *ins);
	for (size_t f = 0; f < ti->paths.n; f++) {
		ins[f].path = ti->paths.v[f];
		ins[f].hash = ti->hashes[f];
	}
	struct inplace_seen seen = {0};
	struct entry_save_request req = {
	    .key = tc->ks.keys[i],
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
	    /* the in-place record from the save's own lstats, not a second
	     * of each output on the loop (issue 43) */
	    .seen = &seen,
	};
	if (tc->worker && !tc->saver) /* a fully cached run never makes it */
		tc->saver = saver_new(&tc->store, remote_writable(tc->remote) ? tc->remote : NULL,
				      tc->keep_local, tc->worker, on_saved, tc);
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
		save_finished(tc, job, rc, messages.buf, &seen);
		strbuf_release(&messages);
		inplace_seen_release(&seen);
	}
	free(ins);
}

/* A save of job's outputs ended with rc, saying messages (the lines its
 * error() and warning() calls made): on success they are printed and the
 * outputs it holds are recorded as in place (the fast hit of the next
 * run); on failure they are the reason of one warning that names the task
 * (issue 39: "cannot write the archive: No space left on device" named no
 * task and no file, and lacked "warning:"). */
static void save_finished(struct taskcache *tc, struct job *job, int rc, const char *messages,
			  const struct inplace_seen *seen)
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
		char *tools = exec_blob(tc->ks.facts[i].paths.v, tc->ks.facts[i].hashes,
					tc->ks.facts[i].paths.n, NULL);
		inplace_put(tc->ip, t->id, tc->ks.keys[i], p->dir, outs->v, outs->n, job->log.buf,
			    job->log_len > job->log.len ? job->log_len : job->log.len, tools, seen);
		free(tools);
	}
	strvec_clear(outs);
	job->held = false;
}

static void on_saved(void *tag, int rc, const char *messages, const struct inplace_seen *seen,
		     void *ctx)
{
	save_finished(ctx, tag, rc, messages, seen);
}

/* Keys settled: each job waiting on one goes back to the scheduler, whose
 * hook then takes the prefetch's answer. */
static void on_prefetch(void *ctx)
{
	struct taskcache *tc = ctx;
	for (size_t i = 0; tc->prefetch_waiting && i < tc->g->nodes.n; i++) {
		struct job *job = tc->prefetch_waiting[i];
		if (job &&
		    prefetch_state(tc->prefetch, tc->prefetch_of[i] - 1) != PREFETCH_PENDING) {
			job->pending = false;
			tc->prefetch_waiting[i] = NULL;
		}
	}
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
			if (rec && !strcmp(rec->key, tc->ks.keys[i]))
				continue;
			if (entry_here(tc, tc->ks.keys[i]))
				continue;
		}
		keys[k] = tc->ks.keys[i];
		tc->prefetch_of[i] = ++k;
		/* fetched ahead into the store: not kept there without local:w */
		tc->imported[i] |= !tc->keep_local && !entry_here(tc, tc->ks.keys[i]);
	}
	tc->prefetch = prefetch_start(&tc->store, tc->remote, keys, k, tc->worker, on_prefetch, tc);
	if (!tc->prefetch)
		memset(tc->prefetch_of, 0, n * sizeof *tc->prefetch_of);
	free(keys);
}

void taskcache_stop(struct taskcache *tc)
{
	if (tc->prefetch)
		prefetch_stop(tc->prefetch);
	for (size_t i = 0; tc->prefetch_waiting && i < tc->g->nodes.n; i++) {
		if (tc->prefetch_waiting[i])
			tc->prefetch_waiting[i]->pending = false;
		tc->prefetch_waiting[i] = NULL;
	}
}

void taskcache_start(struct taskcache *tc, struct loop *l)
{
	if (!tc->store_open || tc->dry_run)
		return;
	/* the run's pool: its threads start at their first item, so this
	 * costs a fully cached run one pipe */
	if (l)
		tc->worker = worker_new(l);
	if (tc->worker && tc->read && taskcache_remote_readable(tc)) {
		tc->prefetch_waiting = xcalloc(tc->g->nodes.n, sizeof *tc->prefetch_waiting);
		prefetch_begin(tc);
	}
}

void taskcache_finish(struct taskcache *tc)
{
	/* a fetch settled after a stop was never asked for (the job was
	 * skipped): the next cycle asks afresh */
	for (size_t i = 0; tc->fetching && i < tc->g->nodes.n; i++) {
		if (tc->fetching[i])
			fetch_free(tc->fetching[i]);
		tc->fetching[i] = NULL;
	}
	prefetch_free(tc->prefetch);
	tc->prefetch = NULL;
	free(tc->prefetch_waiting);
	tc->prefetch_waiting = NULL;
	saver_free(tc->saver); /* its saves reported, its uploads over */
	tc->saver = NULL;
	/* idle by now: the scheduler waited for its pending jobs, and the
	 * prefetch and the saves were waited for above */
	worker_free(tc->worker);
	tc->worker = NULL;
	for (size_t i = 0; tc->imported && i < tc->g->nodes.n; i++) {
		if (tc->imported[i] && tc->store_open)
			store_remove(&tc->store, tc->ks.keys[i]);
		tc->imported[i] = false;
	}
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
	for (size_t i = 0; tc->saving && i < tc->g->nodes.n; i++)
		strvec_clear(&tc->saving[i]);
	free(tc->saving);
	keyset_release(&tc->ks);
	free(tc->status);
	free(tc->from_remote);
	free(tc->imported);
	free(tc->prefetch_of);
	free(tc->fetching);
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
