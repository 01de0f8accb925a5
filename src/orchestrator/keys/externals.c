#include "orchestrator/keys/externals.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <xxhash.h>

#include "util/die.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/path.h"

static const struct {
	const char *file, *pm;
	enum lock_format fmt;
} locks[] = {
    {"pnpm-lock.yaml", "pnpm", LOCK_PNPM},  {"npm-shrinkwrap.json", "npm", LOCK_NPM},
    {"package-lock.json", "npm", LOCK_NPM}, {"yarn.lock", "yarn", LOCK_YARN},
    {"bun.lock", "bun", LOCK_BUN},	    {"bun.lockb", "bun", LOCK_BUN},
};
#define N_LOCKS (sizeof locks / sizeof *locks)

const char *externals_lockfile_name(size_t i)
{
	return i < N_LOCKS ? locks[i].file : NULL;
}

bool externals_is_lockfile(const char *name)
{
	for (size_t k = 0; k < N_LOCKS; k++)
		if (!strcmp(name, locks[k].file))
			return true;
	return false;
}

/* Kept copies of the lockfile, for -v: the newest few. */
#define KEEP_COPIES 8

static long find_lock(const struct workspace *ws, struct stat *st)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < N_LOCKS; k++) {
			if (!pass && strcmp(locks[k].pm, ws->pm.name))
				continue;
			char *f = path_join(ws->root, locks[k].file);
			/* one that is there and no file (a FIFO) is taken, and
			 * said unreadable, not passed over (issue 57 item 3) */
			int r = stat(f, st);
			free(f);
			if (!r && !S_ISDIR(st->st_mode))
				return (long)k;
		}
	return -1;
}

/* The workspace's lockfile (find_lock) into x: its path, name and
 * format. Returns its index in locks[], or -1 when there is none. */
static long lock_take(struct externals *x, struct stat *st)
{
	long k = find_lock(x->ws, st);
	if (k >= 0) {
		x->path = path_join(x->ws->root, locks[k].file);
		x->name = locks[k].file;
		x->fmt = locks[k].fmt;
	}
	return k;
}

/* The root package.json's dependencies of the four kinds, into x. */
static void read_root_deps(struct externals *x)
{
	const cJSON *doc = x->ws->root_pkg;
	static const char *const kinds[] = {"dependencies", "devDependencies",
					    "optionalDependencies", "peerDependencies"};
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		const cJSON *d, *deps = cJSON_GetObjectItemCaseSensitive(doc, kinds[k]);
		if (!cJSON_IsObject(deps))
			continue;
		cJSON_ArrayForEach(d, deps)
		{
			strvec_push(&x->root_deps, d->string);
			strvec_push(&x->root_specs, cJSON_IsString(d) ? d->valuestring : "");
		}
	}
}

/* One importer per project, and the root's when it is no project: its
 * devDependencies (typescript, eslint) are what every project loads. */
static void build_importers(struct externals *x)
{
	const struct workspace *ws = x->ws;
	x->imp = xcalloc(ws->projects.n + 2, sizeof *x->imp);
	bool root = false;
	for (size_t i = 0; i < ws->projects.n; i++) {
		const struct project *p = ws->projects.v[i];
		root |= p->is_root;
		x->imp[i] = (struct lock_importer){
		    .rel = p->rel,
		    .name = p->pkg_path ? p->name : NULL,
		    .dep_names = (const char *const *)p->pkg_deps.v,
		    .dep_specs = (const char *const *)p->pkg_dep_specs.v,
		    .n_deps = p->pkg_deps.n,
		};
	}
	x->n_imp = ws->projects.n;
	if (!root) {
		read_root_deps(x);
		x->imp[x->n_imp++] = (struct lock_importer){
		    .rel = ".",
		    .dep_names = (const char *const *)x->root_deps.v,
		    .dep_specs = (const char *const *)x->root_specs.v,
		    .n_deps = x->root_deps.n,
		};
	}
}

/* What the closures depend on besides the file: the projects, their names
 * and their package.json dependencies (yarn.lock v1 reads them). */
static void importers_digest(const struct workspace *ws, char out[KEY_HEX_SIZE])
{
	struct key k;
	key_init(&k);
	for (size_t i = 0; i < ws->projects.n; i++) {
		const struct project *p = ws->projects.v[i];
		key_add_str(&k, "rel", p->rel);
		key_add_str(&k, "name", p->pkg_path ? p->name : NULL);
		for (size_t d = 0; d < p->pkg_deps.n; d++) {
			key_add_str(&k, "dep", p->pkg_deps.v[d]);
			key_add_str(&k, "spec", p->pkg_dep_specs.v[d]);
		}
	}
	key_finish(&k, out);
}

/* The snapshot's first line: what must be unchanged for its hashes to hold. */
static void stat_line(struct strbuf *sb, const char *name, const struct stat *st,
		      const char *digest)
{
	strbuf_addf(sb, "vx-lockfile-closures 1 %s %lld %lld.%09ld %lld.%09ld %llu %s\n", name,
		    (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		    (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec,
		    (unsigned long long)st->st_ino, digest);
}

/* Fills x from the snapshot when it answers for this lockfile and these
 * projects. Returns 0, or -1. */
static int snapshot_read(struct externals *x, const char *path, const char *first)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = -1;
	size_t n = x->ws->projects.n, fl = strlen(first);
	if (strbuf_read_file(&sb, path) || sb.len < fl || memcmp(sb.buf, first, fl))
		goto out;
	/* "CONTENT WHOLE\n", then "HASH REL\n" per project, in order */
	const char *s = sb.buf + fl;
	if (strlen(s) < 35 || s[32] != ' ' || (s[33] != '0' && s[33] != '1') || s[34] != '\n')
		goto out;
	memcpy(x->content, s, 32);
	x->content[32] = '\0';
	x->whole = s[33] == '1';
	s += 35;
	for (size_t i = 0; i < n; i++) {
		const char *rel = x->ws->projects.v[i]->rel;
		size_t rl = strlen(rel);
		if (strlen(s) < 34 + rl || s[32] != ' ' || memcmp(s + 33, rel, rl) ||
		    s[33 + rl] != '\n')
			goto out;
		memcpy(x->hash[i], s, 32);
		x->hash[i][32] = '\0';
		s += 34 + rl;
	}
	rc = *s ? -1 : 0;
out:
	strbuf_release(&sb);
	return rc;
}

static void snapshot_write(const struct externals *x, const char *path, const char *first)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s%s %d\n", first, x->content, x->whole);
	for (size_t i = 0; i < x->ws->projects.n; i++)
		strbuf_addf(&sb, "%s %s\n", x->hash[i], x->ws->projects.v[i]->rel);
	if (write_file_atomic(path, sb.buf, sb.len))
		warning("%s: cannot save the lockfile snapshot: %s", path, strerror(errno));
	strbuf_release(&sb);
}

static int cmp_mtime(const void *a, const void *b)
{
	const struct {
		char *name;
		time_t t;
	} *x = a, *y = b;
	return (x->t < y->t) - (x->t > y->t);
}

/* Keeps a copy of the lockfile as read, by its content hash, and drops all
 * but the newest KEEP_COPIES. */
static void keep_copy(const struct externals *x, const char *text, size_t len)
{
	char *dir = path_join(x->cache_dir, "lockfiles");
	char *f = path_join(dir, x->content);
	struct stat st;
	if (stat(f, &st) && (mkdir(dir, 0755) == 0 || errno == EEXIST)) {
		if (write_file_atomic(f, text, len))
			warning("%s: cannot keep a copy of the lockfile: %s", f, strerror(errno));
		DIR *d = opendir(dir);
		struct {
			char *name;
			time_t t;
		} *all = NULL;
		size_t n = 0;
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (strlen(de->d_name) != 32)
				continue;
			char *p = path_join(dir, de->d_name);
			if (!stat(p, &st)) {
				all = xrealloc(all, (n + 1) * sizeof *all);
				all[n].name = p;
				all[n++].t = st.st_mtime;
			} else {
				free(p);
			}
		}
		if (d)
			closedir(d);
		if (n)
			qsort(all, n, sizeof *all, cmp_mtime);
		for (size_t i = 0; i < n; i++) {
			if (i >= KEEP_COPIES && strcmp(path_basename(all[i].name), x->content))
				unlink(all[i].name);
			free(all[i].name);
		}
		free(all);
	}
	free(f);
	free(dir);
}

static struct lockset *parse(struct externals *x, const char *text, size_t len, struct strbuf *err)
{
	if (!x->imp)
		build_importers(x);
	if (!strcmp(x->name, "bun.lockb")) {
		strbuf_addstr(err, "bun.lockb is Bun's binary lockfile (bun.lock, its text one, "
				   "is read: `bun install --save-text-lockfile`)");
		return NULL;
	}
	return lockset_read(x->fmt, x->path, text, len, x->imp, x->n_imp, err);
}

void externals_load(struct externals *x, const struct workspace *ws, const char *cache_dir,
		    bool write)
{
	memset(x, 0, sizeof *x);
	x->ws = ws;
	struct stat st;
	if (lock_take(x, &st) < 0)
		return;
	x->cache_dir = xstrdup(cache_dir);
	x->hash = xcalloc(ws->projects.n + 1, sizeof *x->hash);
	char digest[KEY_HEX_SIZE];
	importers_digest(ws, digest);
	struct strbuf first = STRBUF_INIT;
	stat_line(&first, x->name, &st, digest);
	/* the root package.json too: yarn.lock v1 lists no importers, so a
	 * root dependency on a workspace package changes no lockfile byte */
	char *rootpkg = path_join(ws->root, "package.json");
	struct stat pst;
	if (!stat(rootpkg, &pst))
		stat_line(&first, "package.json", &pst, digest);
	free(rootpkg);
	char *snap = path_join(cache_dir, "lockfile-closures");
	if (!snapshot_read(x, snap, first.buf))
		goto out;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	if (strbuf_read_file(&text, x->path)) {
		/* keyed by what it is not: an unreadable file is said, and the key
		 * holds the error, so it changes when the file comes back */
		warning("%s: cannot read the lockfile: %s", x->path, strbuf_read_strerror(errno));
		x->whole = true;
		strcpy(x->content, "unreadable");
		for (size_t i = 0; i < ws->projects.n; i++)
			strcpy(x->hash[i], x->content);
		strbuf_release(&text);
		goto out;
	}
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(text.buf, text.len));
	key_hex(c.digest, x->content);
	x->now = parse(x, text.buf, text.len, &err);
	if (!x->now) {
		warning("%s: the lockfile is not read (%s): every task is keyed by its whole "
			"content instead",
			x->path, err.buf);
		x->whole = true;
	}
	for (size_t i = 0; i < ws->projects.n; i++)
		strcpy(x->hash[i], x->now ? lockset_hash(x->now, i) : x->content);
	if (write) {
		/* racy: a file written in the second it was read may change again
		 * with the same stat; trust it next time only when older, by
		 * the file system's clock (issue 57: not vx's own) */
		if (fs_clock_sec() - fs_sec_of(fs_ns(st.st_mtim)) >= 2)
			snapshot_write(x, snap, first.buf);
		if (!x->whole)
			keep_copy(x, text.buf, text.len);
	}
	strbuf_release(&text);
	strbuf_release(&err);
out:
	free(snap);
	strbuf_release(&first);
}

void externals_release(struct externals *x)
{
	free(x->path);
	free(x->hash);
	free(x->cache_dir);
	free(x->imp);
	strvec_clear(&x->root_deps);
	strvec_clear(&x->root_specs);
	lockset_free(x->now);
	lockset_free(x->old);
	memset(x, 0, sizeof *x);
}

int externals_prune(const struct workspace *ws, const bool *keep, const char **name,
		    struct strbuf *out, struct strvec *extra, struct strbuf *err)
{
	struct externals x = {.ws = ws};
	struct stat st;
	if (lock_take(&x, &st) < 0)
		return 0;
	*name = x.name;
	struct strbuf text = STRBUF_INIT;
	int rc = -1;
	if (strbuf_read_file(&text, x.path)) {
		strbuf_addf(err, "%s: %s", x.name, strerror(errno));
		goto out;
	}
	struct strbuf why = STRBUF_INIT;
	struct lockset *ls = parse(&x, text.buf, text.len, &why);
	if (!ls) {
		strbuf_addf(err, "%s: not read (%s)", x.name, why.buf);
	} else {
		/* the root importer parse() adds when the root is no project: kept */
		bool *kept = xcalloc(x.n_imp + 1, 1);
		for (size_t i = 0; i < x.n_imp; i++)
			kept[i] = i >= ws->projects.n || keep[i];
		if (lockset_prune(ls, x.fmt, text.buf, text.len, kept, out, extra, &why))
			strbuf_addf(err, "%s:%s%s", x.name,
				    isdigit((unsigned char)why.buf[0]) ? "" : " ", why.buf);
		else
			rc = 1;
		free(kept);
	}
	lockset_free(ls);
	strbuf_release(&why);
out:
	strbuf_release(&text);
	externals_release(&x);
	return rc;
}

/* The lockset of the kept copy with content hash h, or NULL. */
static struct lockset *copy_set(struct externals *x, const char *h)
{
	char *f = xasprintf("%s/lockfiles/%s", x->cache_dir, h);
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct lockset *ls = NULL;
	if (!strbuf_read_file(&text, f))
		ls = parse(x, text.buf, text.len, &err);
	strbuf_release(&text);
	strbuf_release(&err);
	free(f);
	return ls;
}

void externals_explain(struct externals *x, size_t p, const char *old, struct strbuf *out)
{
	if (!x->path)
		return;
	if (x->whole) {
		strbuf_addf(out, "%s changed (it is keyed whole: vx could not read it)", x->name);
		return;
	}
	if (!x->now)
		x->now = copy_set(x, x->content);
	if (strcmp(x->old_content, old ? old : "")) {
		lockset_free(x->old);
		x->old = old ? copy_set(x, old) : NULL;
		snprintf(x->old_content, sizeof x->old_content, "%s", old ? old : "");
	}
	if (!x->now || !x->old) {
		strbuf_addstr(out, "external dependencies changed (the lockfile they were keyed "
				   "by is no longer kept)");
		return;
	}
	struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
	lockset_lines(x->old, p, &a);
	lockset_lines(x->now, p, &b);
	strbuf_addstr(out, "external dependencies changed: ");
	size_t at = out->len;
	lock_lines_diff(&a, &b, 6, out);
	if (out->len == at)
		strbuf_addstr(out, "the same packages, linked differently");
	strvec_clear(&a);
	strvec_clear(&b);
}
