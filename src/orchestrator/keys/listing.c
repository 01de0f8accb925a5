/* listing.c - the workspace's files as git sees them.
 *
 * `git ls-files --others --exclude-standard` walks the whole tree each
 * time (18.6 of the 22 ms git took in a 1000-project work tree), while
 * `--cached` alone reads the index (3.8 ms). So git lists the tracked
 * files, and vx finds the untracked ones: a walk of the workspace whose
 * unchanged directories are answered by the kept listings (one stat each),
 * where every path the index lacks is judged by git's own `git
 * check-ignore`, whose answers are kept while the rules they came from are
 * unchanged. A directory holding no tracked file is asked about as a whole
 * first (dist/, .turbo/): an ignored one is not entered, as git enters
 * none. When the walk or git's answer fails, git's own walk is taken.
 *
 * The walk runs on a thread of its own, started with git at load, while
 * the main one reads the configs: it touches nothing the main thread does
 * (its own kept listings and answers, loaded there; the root's stat taken
 * again), and hands them and the list over when joined. */
#include "orchestrator/keys/listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/die.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"
#include "util/thread.h"
#include "util/vec.h"

static char *ls_cached[] = {"git", "ls-files", "-z", "--cached", "--stage", NULL};
static char *ls_others[] = {"git", "ls-files", "-z", "--others", "--exclude-standard", NULL};

struct listing {
	struct spawned cached;
	struct spawned others; /* pid 0: vx walks for the untracked files */
	/* the walk's thread, and what it keeps and finds */
	bool threaded, joined, collected;
	pthread_t thread;
	char *root, *cache_dir;
	struct listcache *lc;
	struct ignores *ig;
	struct strvec files;
	int rc;
};

static int collect(struct listing *started, const char *root, struct listcache *lc,
		   const struct readcache *reads, struct ignores *ig, struct strvec *files);

static void *walk_thread(void *arg)
{
	struct listing *l = arg;
	char *f = path_join(l->cache_dir, "listings");
	l->lc = listcache_load(f);
	free(f);
	f = path_join(l->cache_dir, "ignores");
	l->ig = ignores_load(f, l->root);
	free(f);
	l->rc = collect(l, l->root, l->lc, NULL, l->ig, &l->files);
	return NULL;
}

struct listing *listing_start(const char *root, const char *cache_dir)
{
	struct listing *l = xcalloc(1, sizeof *l);
	if (spawn_start(ls_cached, root, &l->cached) ||
	    (!cache_dir && spawn_start(ls_others, root, &l->others))) {
		listing_abandon(l);
		return NULL;
	}
	if (cache_dir) {
		l->root = xstrdup(root);
		l->cache_dir = xstrdup(cache_dir);
		/* without a thread, the walk is done when it is asked for */
		l->threaded = thread_start(&l->thread, NULL, walk_thread, l) == 0;
	}
	return l;
}

static void join(struct listing *l)
{
	if (l && l->threaded && !l->joined) {
		pthread_join(l->thread, NULL);
		l->joined = true;
	}
}

void listing_take_kept(struct listing *l, const char *cache_dir, struct listcache **lc,
		       struct ignores **ig)
{
	*lc = NULL;
	*ig = NULL;
	join(l);
	if (!l || !l->joined || strcmp(l->cache_dir, cache_dir))
		return;
	*lc = l->lc;
	*ig = l->ig;
	l->lc = NULL;
	l->ig = NULL;
}

void listing_abandon(struct listing *l)
{
	if (!l)
		return;
	/* The thread waits for git itself: joined, never killed under it. */
	join(l);
	spawn_abandon(&l->cached);
	spawn_abandon(&l->others);
	listcache_free(l->lc);
	ignores_free(l->ig);
	strvec_clear(&l->files);
	free(l->root);
	free(l->cache_dir);
	free(l);
}

static void split_nul(const struct strbuf *sb, struct strvec *out)
{
	for (size_t i = 0; i < sb->len;) {
		size_t l = strlen(sb->buf + i);
		if (l)
			strvec_push(out, sb->buf + i);
		i += l + 1;
	}
}

/* Splits `ls-files --stage -z` records ("MODE OBJECT STAGE\tPATH") into
 * paths, and the paths of gitlinks (mode 160000: submodules) into links. */
static void split_staged(const struct strbuf *sb, struct strvec *paths, struct strvec *links)
{
	for (size_t i = 0; i < sb->len;) {
		const char *rec = sb->buf + i, *tab = strchr(rec, '\t');
		i += strlen(rec) + 1;
		if (!tab || !tab[1])
			continue;
		strvec_push(paths, tab + 1);
		if (!strncmp(rec, "160000 ", 7))
			strvec_push(links, tab + 1);
	}
}

struct walk {
	const char *root;
	struct listcache *lc;
	const struct readcache *reads;
	struct ignores *ig;
	const struct strvec *tracked; /* sorted */
	struct strvec *out;	      /* untracked, not ignored */
	struct strvec ask;	      /* paths whose answer is not kept (directories end in '/') */
	const struct strvec *links;   /* sorted: the submodules' paths */
	struct strbuf rel;	      /* the directory being walked, then each entry in turn */
	struct strbuf abs;	      /* root/rel */
};

/* The range [*lo, *hi) of tracked paths under dir ("" every one):
 * sorted, they lie together. */
static void tracked_under(const struct strvec *t, const char *dir, size_t n, size_t *lo, size_t *hi)
{
	*lo = 0;
	*hi = t->n;
	if (!n)
		return;
	size_t a = 0, b = t->n;
	while (a < b) { /* the first >= dir + "/" */
		size_t mid = a + (b - a) / 2;
		int c = strncmp(t->v[mid], dir, n);
		if (c < 0 || (c == 0 && (unsigned char)t->v[mid][n] < '/'))
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	b = t->n;
	while (a < b) { /* the first past every dir + "/" ... */
		size_t mid = a + (b - a) / 2;
		int c = strncmp(t->v[mid], dir, n);
		if (c < 0 || (c == 0 && (unsigned char)t->v[mid][n] <= '/'))
			a = mid + 1;
		else
			b = mid;
	}
	*hi = a;
}

static bool tracks(const struct strvec *t, size_t lo, size_t hi, const char *path)
{
	return hi > lo && bsearch(&path, t->v + lo, hi - lo, sizeof *t->v, str_ptr_cmp);
}

static bool tracks_under(const struct strvec *t, const char *dir)
{
	size_t a, b;
	tracked_under(t, dir, strlen(dir), &a, &b);
	return a < b;
}

/* Is abs/.git a repository git would not enter: a directory holding HEAD,
 * or a "gitdir: X" file naming one? */
static bool is_repository(const char *abs)
{
	char *dotgit = path_join(abs, ".git"), *head = NULL;
	struct stat st;
	int there = fs_stat(dotgit, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (there && S_ISDIR(st.st_mode)) {
		head = path_join(dotgit, "HEAD");
	} else if (there && S_ISREG(st.st_mode)) {
		struct strbuf sb = STRBUF_INIT;
		if (strbuf_read_file(&sb, dotgit) >= 0 && !strncmp(sb.buf, "gitdir: ", 8)) {
			while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r'))
				strbuf_setlen(&sb, sb.len - 1);
			char *gd = path_join(abs, sb.buf + 8);
			head = path_join(gd, "HEAD");
			free(gd);
		}
		strbuf_release(&sb);
	}
	bool repo = head && fs_stat(head, &st, 0) == 0;
	free(head);
	free(dotgit);
	return repo;
}

enum kind { NONE, FILE_, DIR_ };

/* What git makes of entry abs: a directory, a file (a link is one, never
 * followed), or nothing it lists (a socket, a fifo, a name gone). */
static int kind_of(const char *abs, unsigned char type)
{
	if (type == DT_DIR)
		return DIR_;
	if (type == DT_REG || type == DT_LNK)
		return FILE_;
	if (type != DT_UNKNOWN)
		return NONE;
	struct stat st;
	if (fs_stat(abs, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT || errno == ENOTDIR ? NONE : -1;
	return S_ISDIR(st.st_mode)			    ? DIR_
	       : S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) ? FILE_
							    : NONE;
}

const char *const listing_skip_names[] = {".git", "node_modules", ".vx", NULL};

static bool skipped(const char *name)
{
	for (const char *const *k = listing_skip_names; *k; k++)
		if (!strcmp(name, *k))
			return true;
	return false;
}

/* Does rel (root-relative) lie below a directory the walk never enters?
 * git's --others enters them where no ignore rule says otherwise: the same
 * tree listed by git, then by vx's walk through the kept listings, would
 * key different files on the second run than on the first (a miss), and
 * vx's own .vx/ among a task's inputs. */
static bool below_skipped(const char *rel)
{
	for (const char *s = rel, *slash; (slash = strchr(s, '/')); s = slash + 1) {
		char name[256];
		size_t n = (size_t)(slash - s);
		if (n < sizeof name) {
			memcpy(name, s, n);
			name[n] = 0;
			if (skipped(name))
				return true;
		}
	}
	return false;
}

struct plain {
	struct strvec *out;
	const char *prefix;
};

static int add_plain(const char *relpath, void *ctx)
{
	struct plain *p = ctx;
	strvec_pushf(p->out, "%s/%s", p->prefix, relpath);
	return 0;
}

/* Another repository inside the work tree (a submodule, or a clone never
 * added): git lists none of its files, and the directory itself ("DIR/",
 * or a submodule's path) is no file to key. Its files, under rel, are
 * walked as a workspace outside git walks them (inputs.c): no ignore rule
 * of either repository leaves one out, so no change in it can hide. */
static int walk_repository(const char *root, const char *rel, struct listcache *lc,
			   struct strvec *out)
{
	char *abs = path_join(root, rel);
	struct plain p = {out, rel};
	struct glob_walk_opts o = {.skip_names = listing_skip_names, .listings = lc};
	int rc = 0;
	if (glob_walk_with(abs, "**", GLOB_WALK_FILES | GLOB_WALK_LINKS, &o, add_plain, &p) < 0 &&
	    errno != ENOENT && errno != ENOTDIR) {
		warning("cannot read %s: %s", abs, strerror(errno));
		rc = -1;
	}
	free(abs);
	return rc;
}

/* Sets w->rel to rel + "/" + name (rel of length n) and w->abs to match. */
static void at_entry(struct walk *w, size_t n, const char *name)
{
	strbuf_setlen(&w->rel, n);
	if (n)
		strbuf_addch(&w->rel, '/');
	strbuf_addstr(&w->rel, name);
	strbuf_setlen(&w->abs, strlen(w->root));
	strbuf_addch(&w->abs, '/');
	strbuf_add(&w->abs, w->rel.buf, w->rel.len);
}

/* Walks the directory w->rel names ("" the root); leaves w->rel as it was. */
static int walk_dir(struct walk *w)
{
	size_t n = w->rel.len;
	char *rel = xstrdup(w->rel.buf), *abs = n ? path_join(w->root, rel) : xstrdup(w->root);
	const char *at;
	int dfd = fs_at(abs, &at);
	struct stat st;
	const struct stat *known =
	    !n && w->lc && readcache_dir_stat(w->reads, w->root, &st) ? &st : NULL;
	struct listcache_scratch scratch = {0};
	size_t count;
	const struct listcache_entry *e =
	    listcache_list(w->lc, dfd, at, abs, !n, known, &scratch, &count);
	int rc = 0;
	if (!e && n && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
		goto done; /* gone or a link since its parent was listed */
	if (!e) {
		rc = -1;
		warning("cannot read %s: %s", abs, strerror(errno));
		goto done;
	}
	bool has_git = false, has_gitignore = false;
	for (size_t i = 0; i < count; i++) {
		has_git |= !strcmp(e[i].name, ".git");
		has_gitignore |= !strcmp(e[i].name, ".gitignore");
	}
	size_t lo, hi;
	tracked_under(w->tracked, rel, n, &lo, &hi);
	if (n && has_git && lo == hi && is_repository(abs)) {
		rc = walk_repository(w->root, rel, w->lc, w->out);
		goto done;
	}
	if (ignores_enter(w->ig, rel, has_gitignore) < 0) {
		rc = -1;
		warning("cannot read %s/.gitignore: %s", abs, strerror(errno));
		goto done;
	}
	for (size_t i = 0; !rc && i < count; i++) {
		if (skipped(e[i].name))
			continue;
		at_entry(w, n, e[i].name);
		int kind = kind_of(w->abs.buf, e[i].type);
		if (kind < 0) {
			rc = -1;
			warning("cannot read %s: %s", w->abs.buf, strerror(errno));
		} else if (kind == FILE_ && !tracks(w->tracked, lo, hi, w->rel.buf)) {
			int a = ignores_get(w->ig, w->rel.buf);
			if (a == 0)
				strvec_push(w->out, w->rel.buf);
			else if (a < 0)
				strvec_push(&w->ask, w->rel.buf);
		} else if (kind == DIR_) {
			/* A submodule is walked whole afterwards; a path the
			 * index holds as a file but is a directory now is
			 * entered as git enters it. */
			if (tracks(w->links, 0, w->links->n, w->rel.buf))
				continue;
			if (tracks(w->tracked, lo, hi, w->rel.buf) ||
			    tracks_under(w->tracked, w->rel.buf)) {
				rc = walk_dir(w);
				continue;
			}
			/* Wholly untracked: entered once git says it is not
			 * ignored (asked now, or kept). */
			strbuf_addch(&w->rel, '/');
			int a = ignores_get(w->ig, w->rel.buf);
			if (a < 0)
				strvec_push(&w->ask, w->rel.buf);
			strbuf_setlen(&w->rel, w->rel.len - 1);
			if (a == 0)
				rc = walk_dir(w);
		}
	}
done:
	strbuf_setlen(&w->rel, n);
	listcache_scratch_release(&scratch);
	free(rel);
	free(abs);
	return rc;
}

/* The untracked files git does not ignore, into w->out. Returns 0, or -1
 * after a warning. */
static int find_untracked(struct walk *w)
{
	strbuf_reset(&w->rel);
	if (walk_dir(w) < 0)
		return -1;
	/* Each round asks git about what the walk could not judge, then
	 * enters the directories git does not ignore (which may hold more). */
	while (w->ask.n) {
		struct strvec asked = w->ask;
		memset(&w->ask, 0, sizeof w->ask);
		int rc = ignores_ask(w->ig, asked.v, asked.n);
		for (size_t i = 0; !rc && i < asked.n; i++) {
			char *p = asked.v[i];
			size_t n = strlen(p);
			if (ignores_get(w->ig, p) != 0)
				continue;
			if (p[n - 1] != '/') {
				strvec_push(w->out, p);
				continue;
			}
			strbuf_reset(&w->rel);
			strbuf_add(&w->rel, p, n - 1);
			rc = walk_dir(w);
		}
		strvec_clear(&asked);
		if (rc)
			return -1;
	}
	return 0;
}

int listing_finish(struct listing *started, const char *root, struct listcache *lc,
		   const struct readcache *reads, struct ignores *ig, struct strvec *files)
{
	join(started);
	if (started && started->joined && !started->collected) {
		started->collected = true;
		strvec_extend(files, &started->files);
		strvec_clear(&started->files);
		return started->rc;
	}
	return collect(started, root, lc, reads, ig, files);
}

static int collect(struct listing *started, const char *root, struct listcache *lc,
		   const struct readcache *reads, struct ignores *ig, struct strvec *files)
{
	struct strbuf out = STRBUF_INIT;
	/* A listing started at load is collected once; a second caller asks
	 * git again. */
	bool begun = started && started->cached.pid;
	bool others = begun ? started->others.pid != 0 : !lc;
	int rc = begun ? spawn_finish(&started->cached, &out)
		       : spawn_capture(ls_cached, root, &out, NULL);
	if (rc != 0) {
		if (begun)
			spawn_abandon(&started->others);
		strbuf_release(&out);
		return rc;
	}
	struct strvec tracked = STRVEC_INIT, links = STRVEC_INIT, untracked = STRVEC_INIT;
	split_staged(&out, &tracked, &links);
	/* ls-files lists a file once per stage during a merge conflict. */
	strvec_sort_unique(&tracked);
	strvec_sort_unique(&links);
	struct walk w = {.root = root,
			 .lc = lc,
			 .reads = reads,
			 .ig = ig,
			 .tracked = &tracked,
			 .links = &links,
			 .out = &untracked,
			 .rel = STRBUF_INIT,
			 .abs = STRBUF_INIT};
	strbuf_addstr(&w.abs, root);
	bool walked = !others && find_untracked(&w) == 0;
	if (!walked) {
		if (!others)
			warning("asking git for the untracked files of %s instead", root);
		strvec_clear(&untracked);
		strbuf_reset(&out);
		rc = begun && others ? spawn_finish(&started->others, &out)
				     : spawn_capture(ls_others, root, &out, NULL);
		struct strvec listed = STRVEC_INIT;
		split_nul(&out, &listed);
		/* git names another repository in the tree "DIR/" */
		for (size_t i = 0; !rc && i < listed.n; i++) {
			size_t n = strlen(listed.v[i]);
			if (below_skipped(listed.v[i]))
				continue;
			if (listed.v[i][n - 1] != '/' || listed.v[i][0] == '/') {
				strvec_push(&untracked, listed.v[i]);
				continue;
			}
			listed.v[i][n - 1] = '\0';
			walk_repository(root, listed.v[i], lc, &untracked);
		}
		strvec_clear(&listed);
	}
	strvec_clear(&w.ask);
	strbuf_release(&w.rel);
	strbuf_release(&w.abs);
	for (size_t i = 0; i < links.n; i++)
		walk_repository(root, links.v[i], lc, &untracked);
	for (size_t i = 0; i < tracked.n; i++)
		if (!tracks(&links, 0, links.n, tracked.v[i]))
			strvec_push(files, tracked.v[i]);
	for (size_t i = 0; i < untracked.n; i++)
		strvec_push(files, untracked.v[i]);
	strvec_sort_unique(files);
	strvec_clear(&tracked);
	strvec_clear(&links);
	strvec_clear(&untracked);
	strbuf_release(&out);
	return rc;
}
