/* ignores.c - git's ignore answers, kept by the stat data of the rules.
 *
 * The file: "VXIGNORE 1\n", "env HEX\n" (a hash of git's environment),
 * then a line per rule file outside the workspace
 * "r FOLLOW ERR DEV INO SIZE MTIME_NS CTIME_NS MODE LEN\n" and the path's
 * bytes and "\n", one per workspace directory holding a .gitignore
 * "g ERR DEV INO SIZE MTIME_NS CTIME_NS MODE LEN\n" and the directory,
 * one per answer "a IGNORED LEN\n" and the path; last "end XXH3\n"
 * (util/keptfile.h). Lengths, not delimiters, carry the paths.
 *
 * Which files are rules is learned from git itself the first time a run
 * asks (`git rev-parse` for the top and the git directories, `git config
 * --list --show-origin` for every config file, those it includes and
 * core.excludesFile), beside the check-ignore, all three at once. */
#include "orchestrator/keys/ignores.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "util/die.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/keptfile.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/strmap.h"
#include "util/vec.h"

#define MAGIC "VXIGNORE 1\n"

extern char **environ;

/* What lstat or stat said of a path: its data, or the errno (ENOENT: not
 * there, which is a state too: a .gitignore created later must tell). */
struct ident {
	int64_t err, dev, ino, size, mtime_ns, ctime_ns, mode;
};

enum {
	RULE_FOLLOW = 1,   /* stat (git follows a link there), else lstat */
	RULE_PRESENCE = 2, /* only whether it is there, and what: a .git, whose
			    * directory's times move with every commit */
};

struct rule { /* a rule file outside the workspace */
	char *path;
	int64_t flags; /* RULE_* */
	struct ident id;
};

struct gitignore { /* a workspace directory's .gitignore */
	char *dir;
	struct ident id;
	bool present; /* false: gone since (the map keeps its key) */
	bool entered; /* its directory was walked this run: kept at save */
};

struct answer {
	char *path;
	signed char ignored; /* 1, 0, or -1: dropped */
	bool used;	     /* given or asked this run: kept at save */
};

struct ignores {
	char *file; /* NULL: nothing is kept */
	char *root;
	uint64_t env;
	bool rules_known; /* rules[] checked at load, or learned this run */
	VEC(struct rule) rules;
	VEC(struct gitignore) gis;
	struct strmap gi_by_dir;
	VEC(struct answer) answers;
	struct strmap by_path;
	int64_t t0; /* the second of the load: a rule changed in it or later is racy */
	bool dirty;
	size_t kept, asked;
};

static void rule_ident(const struct rule *r, struct ident *id);
static void clear(struct ignores *ig);

static void ident_of(int dfd, const char *path, bool follow, struct ident *id)
{
	struct stat st;
	memset(id, 0, sizeof *id);
	if (fstatat(dfd, path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0) {
		id->err = errno ? errno : EIO;
		return;
	}
	id->dev = (int64_t)st.st_dev;
	id->ino = (int64_t)st.st_ino;
	id->size = (int64_t)st.st_size;
	id->mtime_ns = fs_ns(st.st_mtim);
	id->ctime_ns = fs_ns(st.st_ctim);
	id->mode = (int64_t)st.st_mode;
}

static bool ident_eq(const struct ident *a, const struct ident *b)
{
	return !memcmp(a, b, sizeof *a);
}

static bool ident_racy(const struct ident *id, int64_t t0)
{
	return !id->err && fs_sec_of(id->mtime_ns) >= t0;
}

/* Git's environment: what decides the repository, its config files and the
 * home the global ones lie in. */
static uint64_t env_hash(void)
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_64bits_reset(s);
	struct strvec vars = STRVEC_INIT;
	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "GIT_", 4) || !strncmp(*e, "HOME=", 5) ||
		    !strncmp(*e, "XDG_CONFIG_HOME=", 16))
			strvec_push(&vars, *e);
	strvec_sort_unique(&vars);
	for (size_t i = 0; i < vars.n; i++)
		XXH3_64bits_update(s, vars.v[i], strlen(vars.v[i]) + 1);
	strvec_clear(&vars);
	uint64_t h = XXH3_64bits_digest(s);
	XXH3_freeState(s);
	return h;
}

static void clear(struct ignores *ig)
{
	for (size_t i = 0; i < ig->rules.n; i++)
		free(ig->rules.v[i].path);
	vec_free(&ig->rules);
	for (size_t i = 0; i < ig->gis.n; i++)
		free(ig->gis.v[i].dir);
	vec_free(&ig->gis);
	strmap_clear(&ig->gi_by_dir);
	for (size_t i = 0; i < ig->answers.n; i++)
		free(ig->answers.v[i].path);
	vec_free(&ig->answers);
	strmap_clear(&ig->by_path);
	ig->rules_known = false;
}

static void put_answer(struct ignores *ig, const char *path, int ignored, bool used)
{
	size_t at;
	if (strmap_get(&ig->by_path, path, &at)) {
		ig->answers.v[at].ignored = (signed char)ignored;
		ig->answers.v[at].used = used;
		return;
	}
	struct answer a = {xstrdup(path), (signed char)ignored, used};
	vec_push(&ig->answers, a);
	strmap_put(&ig->by_path, a.path, ig->answers.n - 1);
}

static void put_gitignore(struct ignores *ig, const char *dir, const struct ident *id, bool entered)
{
	size_t at;
	if (strmap_get(&ig->gi_by_dir, dir, &at)) {
		ig->gis.v[at].id = *id;
		ig->gis.v[at].present = true;
		ig->gis.v[at].entered = entered;
		return;
	}
	struct gitignore g = {xstrdup(dir), *id, true, entered};
	vec_push(&ig->gis, g);
	strmap_put(&ig->gi_by_dir, g.dir, ig->gis.n - 1);
}

static bool read_ident(const char **p, const char *end, struct ident *id)
{
	return keptfile_num(p, end, ' ', &id->err) && keptfile_num(p, end, ' ', &id->dev) &&
	       keptfile_num(p, end, ' ', &id->ino) && keptfile_num(p, end, ' ', &id->size) &&
	       keptfile_num(p, end, ' ', &id->mtime_ns) &&
	       keptfile_num(p, end, ' ', &id->ctime_ns) && keptfile_num(p, end, ' ', &id->mode);
}

/* A length, "\n", that many bytes and "\n": *s (owned) set. */
static bool read_str(const char **p, const char *end, char **s)
{
	int64_t len;
	if (!keptfile_num(p, end, '\n', &len) || len < 0 || end - *p < len + 1 ||
	    (*p)[len] != '\n' || memchr(*p, '\0', (size_t)len))
		return false;
	*s = xstrndup(*p, (size_t)len);
	*p += len + 1;
	return true;
}

/* Parses body. Returns NULL, or why not. */
static const char *parse(void *ctx, const char *p, const char *end)
{
	struct ignores *ig = ctx;
	static const char env_tag[] = "env ";
	if (end - p < (long)sizeof env_tag || memcmp(p, env_tag, sizeof env_tag - 1))
		return "no env line";
	p += sizeof env_tag - 1;
	char *e;
	errno = 0;
	unsigned long long env = strtoull(p, &e, 16);
	if (errno || e == p || e >= end || *e != '\n')
		return "a bad env line";
	p = e + 1;
	ig->env = env;
	while (p < end) {
		char tag = *p;
		if (end - p < 2 || p[1] != ' ')
			return "a bad line";
		p += 2;
		char *s = NULL;
		int64_t flags, ignored;
		struct ident id;
		if (tag == 'r') {
			if (!keptfile_num(&p, end, ' ', &flags) || !read_ident(&p, end, &id) ||
			    !read_str(&p, end, &s))
				return "a bad rule";
			struct rule r = {s, flags, id};
			vec_push(&ig->rules, r);
		} else if (tag == 'g') {
			if (!read_ident(&p, end, &id) || !read_str(&p, end, &s))
				return "a bad .gitignore";
			put_gitignore(ig, s, &id, false);
			free(s);
		} else if (tag == 'a') {
			if (!keptfile_num(&p, end, ' ', &ignored) ||
			    (ignored != 0 && ignored != 1) || !read_str(&p, end, &s))
				return "a bad answer";
			put_answer(ig, s, (int)ignored, false);
			free(s);
		} else {
			return "an unknown line";
		}
	}
	return NULL;
}

struct ignores *ignores_load(const char *file, const char *root)
{
	struct ignores *ig = xcalloc(1, sizeof *ig);
	ig->root = xstrdup(root);
	ig->t0 = fs_clock_sec();
	ig->env = env_hash();
	/* A repository or index named by the environment is one this run
	 * may not share with the next: keep nothing. */
	if (!file || getenv("GIT_DIR") || getenv("GIT_WORK_TREE") || getenv("GIT_INDEX_FILE") ||
	    getenv("GIT_COMMON_DIR"))
		return ig;
	ig->file = xstrdup(file);
	uint64_t env = ig->env;
	enum keptfile_state st =
	    keptfile_load(file, MAGIC, parse, ig, "ignore cache", "asking git again");
	if (st == KEPT_UNREAD)
		return ig;
	/* the rule files themselves are checked as each walk starts */
	bool ok = st == KEPT_OK && ig->env == env && ig->rules.n;
	ig->env = env;
	if (!ok)
		clear(ig);
	ig->rules_known = ok;
	ig->dirty = !ok;
	return ig;
}

/* Drops everything when a rule file outside the tree is not what the
 * answers were given under. */
static void check_rules(struct ignores *ig)
{
	bool ok = ig->rules_known;
	for (size_t i = 0; ok && i < ig->rules.n; i++) {
		struct ident now;
		rule_ident(&ig->rules.v[i], &now);
		ok = ident_eq(&now, &ig->rules.v[i].id);
	}
	if (!ok && (ig->rules.n || ig->answers.n || ig->gis.n)) {
		clear(ig);
		ig->dirty = true;
	}
}

/* Drops every answer under dir ("" all); dir's own ("DIR/") stays: the
 * rules above it gave it. */
static void drop_under(struct ignores *ig, const char *dir)
{
	size_t n = strlen(dir);
	for (size_t i = 0; i < ig->answers.n; i++) {
		const char *p = ig->answers.v[i].path;
		if (!n || (!strncmp(p, dir, n) && p[n] == '/' && p[n + 1]))
			ig->answers.v[i].ignored = -1;
	}
	ig->dirty = true;
}

int ignores_enter(struct ignores *ig, const char *rel, bool has_gitignore)
{
	if (!*rel)
		check_rules(ig); /* each walk starts at the root */
	size_t at;
	bool known = strmap_get(&ig->gi_by_dir, rel, &at) && ig->gis.v[at].present;
	if (!has_gitignore) {
		if (known) {
			ig->gis.v[at].present = false;
			drop_under(ig, rel);
		}
		return 0;
	}
	char *path = *rel ? xasprintf("%s/%s/.gitignore", ig->root, rel)
			  : xasprintf("%s/.gitignore", ig->root);
	const char *in;
	int dfd = fs_at(path, &in);
	struct ident id;
	ident_of(dfd, in, false, &id);
	free(path);
	if (id.err && id.err != ENOENT) {
		errno = (int)id.err;
		return -1;
	}
	if (known && ident_eq(&id, &ig->gis.v[at].id)) {
		ig->gis.v[at].entered = true;
		return 0;
	}
	/* New, changed, or seen here for the first time: nothing kept under
	 * rel was answered under it. */
	drop_under(ig, rel);
	put_gitignore(ig, rel, &id, true);
	return 0;
}

int ignores_get(struct ignores *ig, const char *rel)
{
	size_t at;
	if (!strmap_get(&ig->by_path, rel, &at) || ig->answers.v[at].ignored < 0)
		return -1;
	ig->answers.v[at].used = true;
	ig->kept++;
	return ig->answers.v[at].ignored;
}

static void rule_ident(const struct rule *r, struct ident *id)
{
	ident_of(AT_FDCWD, r->path, r->flags & RULE_FOLLOW, id);
	if (r->flags & RULE_PRESENCE) {
		id->size = id->mtime_ns = id->ctime_ns = 0;
		id->mode &= S_IFMT;
	}
}

static void add_rule(struct ignores *ig, const char *path, int flags)
{
	for (size_t i = 0; i < ig->rules.n; i++)
		if (!strcmp(ig->rules.v[i].path, path))
			return;
	struct rule r = {xstrdup(path), flags, {0}};
	rule_ident(&r, &r.id);
	vec_push(&ig->rules, r);
}

/* A path as git's config takes it: "~/" from $HOME, a relative one from
 * base. */
static char *config_path(const char *value, const char *base)
{
	const char *home = getenv("HOME");
	if (!strncmp(value, "~/", 2) && home)
		return path_join(home, value + 2);
	return path_join(base, value);
}

/* The config files git reads wherever they are: system, global, XDG. */
static void add_config_homes(struct ignores *ig)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *sys = getenv("GIT_CONFIG_SYSTEM"), *glob = getenv("GIT_CONFIG_GLOBAL");
	if (!getenv("GIT_CONFIG_NOSYSTEM"))
		add_rule(ig, sys && *sys ? sys : "/etc/gitconfig", RULE_FOLLOW);
	char *x = xdg && *xdg ? path_join(xdg, "git/config")
		  : home      ? path_join(home, ".config/git/config")
			      : NULL;
	if (glob && *glob) {
		add_rule(ig, glob, RULE_FOLLOW);
	} else {
		if (home) {
			char *g = path_join(home, ".gitconfig");
			add_rule(ig, g, RULE_FOLLOW);
			free(g);
		}
		if (x)
			add_rule(ig, x, RULE_FOLLOW);
	}
	free(x);
}

/* Learns the rule files from `git rev-parse` (top, git dir, common dir:
 * three lines) and `git config --list --show-origin -z`. Returns 0, or
 * -1 when they make no sense. */
static int learn(struct ignores *ig, struct strbuf *revparse, struct strbuf *config)
{
	char *lines[3] = {0};
	char *p = revparse->buf;
	for (int i = 0; i < 3; i++) {
		char *nl = p ? strchr(p, '\n') : NULL;
		if (!nl)
			return -1;
		*nl = '\0';
		lines[i] = p;
		p = nl + 1;
	}
	const char *top = lines[0];
	if (*top != '/')
		return -1;
	char *gitdir = path_join(ig->root, lines[1]);
	char *common = path_join(ig->root, lines[2]);
	/* Every directory from the workspace root up to the top: a .git made
	 * in one makes another repository; a .gitignore above the root rules
	 * over all of it (the root's own is the walk's). */
	char *d = xstrdup(ig->root);
	for (;;) {
		char *f = path_join(d, ".git");
		add_rule(ig, f, RULE_PRESENCE);
		free(f);
		if (strcmp(d, ig->root)) {
			f = path_join(d, ".gitignore");
			add_rule(ig, f, 0);
			free(f);
		}
		if (!strcmp(d, top) || !strcmp(d, "/"))
			break;
		char *slash = strrchr(d, '/');
		if (slash == d)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(d);
	static const char *const in_gitdir[] = {"info/exclude", "config", "config.worktree", NULL};
	for (const char *const *n = in_gitdir; *n; n++) {
		char *a = path_join(common, *n), *b = path_join(gitdir, *n);
		add_rule(ig, a, RULE_FOLLOW);
		add_rule(ig, b, RULE_FOLLOW);
		free(a);
		free(b);
	}
	add_config_homes(ig);
	/* Each record: "ORIGIN\0KEY\nVALUE\0" (or "KEY\0" without a value). */
	char *excludes = NULL;
	for (size_t i = 0; i < config->len;) {
		const char *origin = config->buf + i;
		i += strlen(origin) + 1;
		if (i >= config->len)
			break;
		char *key = config->buf + i;
		i += strlen(key) + 1;
		char *value = strchr(key, '\n');
		if (value)
			*value++ = '\0';
		/* a file's entries, and `git -c` or GIT_CONFIG_* ones
		 * ("command line:"): excludesFile may come from either */
		char *file = strncmp(origin, "file:", 5) ? NULL : path_join(top, origin + 5);
		if (file)
			add_rule(ig, file, RULE_FOLLOW);
		size_t kl = strlen(key);
		bool include =
		    !strcmp(key, "include.path") ||
		    (!strncmp(key, "includeif.", 10) && kl > 15 && !strcmp(key + kl - 5, ".path"));
		if (value && include) {
			char *dir = file ? path_dirname(file) : xstrdup(top);
			char *inc = config_path(value, dir);
			add_rule(ig, inc, RULE_FOLLOW);
			free(inc);
			free(dir);
		} else if (value && !strcmp(key, "core.excludesfile")) {
			free(excludes);
			excludes = config_path(value, top);
		}
		free(file);
	}
	if (!excludes) {
		const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
		excludes = xdg && *xdg ? path_join(xdg, "git/ignore")
			   : home      ? path_join(home, ".config/git/ignore")
				       : NULL;
	}
	if (excludes)
		add_rule(ig, excludes, RULE_FOLLOW);
	free(excludes);
	free(gitdir);
	free(common);
	ig->rules_known = true;
	return 0;
}

int ignores_ask(struct ignores *ig, char *const *paths, size_t n)
{
	if (!n)
		return 0;
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_add(&in, paths[i], strlen(paths[i]) + 1);
	char *check[] = {"git", "check-ignore", "--no-index", "--stdin", "-z", NULL};
	char *rev[] = {
	    "git", "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", NULL};
	char *cfg[] = {"git", "config", "--list", "--show-origin", "-z", NULL};
	struct spawned sc, sr = {0}, sg = {0};
	bool learning = ig->file && !ig->rules_known;
	if (learning && (spawn_start(rev, ig->root, &sr) || spawn_start(cfg, ig->root, &sg))) {
		spawn_abandon(&sr);
		learning = false;
	}
	int rc = spawn_start_input(check, ig->root, in.buf, in.len, &sc);
	if (!rc)
		rc = spawn_finish(&sc, &out);
	strbuf_release(&in);
	if (learning) {
		struct strbuf r = STRBUF_INIT, g = STRBUF_INIT;
		int r1 = spawn_finish(&sr, &r), r2 = spawn_finish(&sg, &g);
		/* Config may be empty of records (exit 1 when it has none). */
		if (r1 != 0 || (r2 != 0 && r2 != 1) || learn(ig, &r, &g)) {
			free(ig->file); /* cannot say what rules these are: keep none */
			ig->file = NULL;
		}
		strbuf_release(&r);
		strbuf_release(&g);
	}
	/* 0: some path ignored; 1: none. */
	if (rc != 0 && rc != 1) {
		strbuf_release(&out);
		if (rc < 0)
			warning("cannot run git check-ignore: %s", strerror(errno));
		else
			warning("git check-ignore failed (exit %d)", rc);
		return -1;
	}
	struct strmap ignored = STRMAP_INIT;
	for (size_t i = 0; i < out.len;) {
		const char *p = out.buf + i;
		i += strlen(p) + 1;
		strmap_put(&ignored, p, 1);
	}
	for (size_t i = 0; i < n; i++) {
		size_t v;
		put_answer(ig, paths[i], strmap_get(&ignored, paths[i], &v), true);
	}
	ig->asked += n;
	ig->dirty = true;
	strmap_clear(&ignored);
	strbuf_release(&out);
	return 0;
}

static void add_ident(struct strbuf *sb, const struct ident *id)
{
	strbuf_addf(sb,
		    "%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
		    " %" PRId64 " ",
		    id->err, id->dev, id->ino, id->size, id->mtime_ns, id->ctime_ns, id->mode);
}

int ignores_save(struct ignores *ig)
{
	if (!ig->file || !ig->dirty || !ig->rules_known)
		return 0;
	for (size_t i = 0; i < ig->rules.n; i++)
		if (ident_racy(&ig->rules.v[i].id, ig->t0))
			return 0;
	for (size_t i = 0; i < ig->gis.n; i++)
		if (ig->gis.v[i].present && ig->gis.v[i].entered &&
		    ident_racy(&ig->gis.v[i].id, ig->t0))
			return 0;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, MAGIC);
	strbuf_addf(&sb, "env %016" PRIx64 "\n", ig->env);
	for (size_t i = 0; i < ig->rules.n; i++) {
		const struct rule *r = &ig->rules.v[i];
		strbuf_addf(&sb, "r %" PRId64 " ", r->flags);
		add_ident(&sb, &r->id);
		strbuf_addf(&sb, "%zu\n%s\n", strlen(r->path), r->path);
	}
	for (size_t i = 0; i < ig->gis.n; i++) {
		const struct gitignore *g = &ig->gis.v[i];
		if (!g->present || !g->entered)
			continue;
		strbuf_addstr(&sb, "g ");
		add_ident(&sb, &g->id);
		strbuf_addf(&sb, "%zu\n%s\n", strlen(g->dir), g->dir);
	}
	for (size_t i = 0; i < ig->answers.n; i++) {
		const struct answer *a = &ig->answers.v[i];
		if (a->used && a->ignored >= 0)
			strbuf_addf(&sb, "a %d %zu\n%s\n", a->ignored, strlen(a->path), a->path);
	}
	int rc = keptfile_save(&sb, ig->file, "ignore cache");
	if (!rc)
		ig->dirty = false;
	return rc;
}

void ignores_counts(const struct ignores *ig, size_t *kept, size_t *asked)
{
	*kept = ig->kept;
	*asked = ig->asked;
}

void ignores_free(struct ignores *ig)
{
	if (!ig)
		return;
	clear(ig);
	free(ig->file);
	free(ig->root);
	free(ig);
}
