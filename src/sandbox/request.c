/* request.c - from a task's grants to the plan of mounts bwrap carries out. */
#include "sandbox/request.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/denies.h"
#include "sandbox/grants.h"
#include "sandbox/probe.h"
#include "sandbox/proxy.h"
#include "sandbox/seccomp.h"
#include "sandbox/walls.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"

/* Everything a build needs while it is being assembled. */
struct builder {
	const struct sandbox_input *in;
	struct sandbox_request *req;
	struct strbuf *err;
	char *ws, *proj, *home, *tmp;
	bool home_masked; /* home is an empty read-only tmpfs but for what is granted */
	bool run_masked;  /* so is /run, where the host's sockets live */
	wall_vec walls;
	grant_vec reads, writes;
	struct strvec rw_dirs;	      /* canonical dirs bound read-write */
	struct strvec rw_files;	      /* canonical files bound read-write alone (untraced) */
	grant_vec glob_heads;	      /* the literal head dir of each write glob */
	struct strvec punched;	      /* masked-and-punched dirs (avoid doing one twice) */
	struct strvec masked;	      /* walls inside a RW bind: masked read-only there */
	struct strvec hidden_outputs; /* other tasks' outputs masked (other_outputs) */
	struct strvec staged_roots;   /* canonical paths of the staged grants (in the project) */
	bool staging;		      /* the project is bound from the stage (see plan_stage) */
};

static void mount_add(struct sandbox_request *req, enum sandbox_mount_kind kind, const char *src,
		      const char *dst)
{
	struct sandbox_mount m = {kind, src ? xstrdup(src) : NULL, xstrdup(dst), -1, false};
	vec_push(&req->mounts, m);
}

bool sandbox_path_safe(const char *p)
{
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._/+@-", *p)))
			return false;
	return true;
}

static bool is_strictly_within(const char *dir, const char *p)
{
	return strcmp(dir, p) && path_is_within(dir, p);
}

/* A wall strictly inside dir that exists, or NULL: a read bind cannot let
 * the task make one that is not there, so only a real one is punched
 * around (a project with no .git was punched child by child for the .git
 * it might have had). */
static const struct wall *wall_below(const wall_vec *w, const char *dir)
{
	struct stat st;
	for (size_t i = 0; i < w->n; i++)
		if (is_strictly_within(dir, w->v[i].path) && lstat(w->v[i].path, &st) == 0)
			return &w->v[i];
	return NULL;
}

static bool is_wall(const wall_vec *w, const char *p)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i].path, p))
			return true;
	return false;
}

/* Under a masked home: hidden by the mask (a grant that holds a wall there
 * is punched around it). */
static bool under_masked_home(const struct builder *b, const char *p)
{
	return (b->home_masked && path_is_within(b->home, p)) ||
	       (b->run_masked && path_is_within(SANDBOX_RUN_DIR, p));
}

/* Would the host's copy of p show inside without a bind? (the ro "/" holds it,
 * no mask covers it) */
static bool visible_by_base(struct builder *b, const char *p)
{
	if (b->in->hermetic || path_is_within(b->ws, p) || path_is_within(b->tmp, p) ||
	    under_masked_home(b, p))
		return false;
	const struct wall *w = walls_holding(&b->walls, p);
	return !w;
}

/* Binds dir's children one by one, leaving out each wall, so a grant that
 * holds a wall reaches all of it but the wall. mask: dir is visible from the
 * host and must first be hidden under a tmpfs. */
static void punch_children(struct builder *b, const char *dir, const struct strvec *skip);

static void punch(struct builder *b, const char *dir, bool mask)
{
	if (strvec_find(&b->punched, dir) >= 0)
		return;
	strvec_push(&b->punched, dir);
	struct sandbox_request *req = b->req;
	if (mask) {
		mount_add(req, SANDBOX_TMPFS, NULL, dir);
		mount_add(req, SANDBOX_REMOUNT_RO, NULL, dir);
	} else {
		mount_add(req, SANDBOX_DIR, NULL, dir);
	}
	punch_children(b, dir, NULL);
}

/* The entries of dir that sandbox_request_prepare will create (an
 * ancestor of a planned directory or placeholder, or one itself) and that
 * are not there yet: appended to names and to planned, the placeholder
 * files among them also to files. */
static void planned_children(const struct sandbox_request *req, const char *dir,
			     const struct strvec *skip, struct strvec *names,
			     struct strvec *planned, struct strvec *files)
{
	const struct strvec *lists[] = {&req->mkdirs, &req->files};
	size_t n = strlen(dir);
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const char *p = lists[l]->v[i];
			if (!is_strictly_within(dir, p))
				continue;
			const char *name = p + n + (n > 1);
			size_t len = strcspn(name, "/");
			char *child = xstrndup(name, len);
			char *abs = path_join(dir, child);
			struct stat st;
			if (strvec_find(names, child) < 0 &&
			    !(skip && strvec_find(skip, child) >= 0) && lstat(abs, &st) != 0) {
				strvec_push(names, child);
				strvec_push(planned, child);
				if (l == 1 && !name[len])
					strvec_push(files, child);
			}
			free(abs);
			free(child);
		}
}

/* Binds dir's children read-only one by one (links recreated, a directory
 * holding a wall punched in turn), leaving out each wall and each name in
 * skip. */
static void punch_children(struct builder *b, const char *dir, const struct strvec *skip)
{
	struct sandbox_request *req = b->req;
	struct strvec names = STRVEC_INIT, planned = STRVEC_INIT, planned_files = STRVEC_INIT;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !(skip && strvec_find(skip, e->d_name) >= 0))
			strvec_push(&names, e->d_name);
	if (d)
		closedir(d);
	/* What prepare will create here is bound as if it were there. */
	planned_children(req, dir, skip, &names, &planned, &planned_files);
	if (names.n)
		strvec_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *c = path_join(dir, names.v[i]);
		struct stat st;
		bool plan = strvec_find(&planned, names.v[i]) >= 0;
		if (plan) /* a placeholder file, or a directory */
			st.st_mode =
			    strvec_find(&planned_files, names.v[i]) >= 0 ? S_IFREG : S_IFDIR;
		if (is_wall(&b->walls, c) || (!plan && lstat(c, &st))) {
			free(c);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			struct strbuf t = STRBUF_INIT;
			strbuf_grow(&t, (size_t)st.st_size + 1);
			ssize_t n = readlink(c, t.buf, (size_t)st.st_size + 1);
			if (n >= 0 && (size_t)n <= (size_t)st.st_size) {
				strbuf_setlen(&t, (size_t)n);
				mount_add(req, SANDBOX_SYMLINK, t.buf, c);
			}
			strbuf_release(&t);
		} else if (S_ISDIR(st.st_mode) && wall_below(&b->walls, c)) {
			punch(b, c, false);
		} else {
			mount_add(req, SANDBOX_RO, c, c);
		}
		free(c);
	}
	strvec_clear(&names);
	strvec_clear(&planned);
	strvec_clear(&planned_files);
}

/* Hide the walls that lie outside the workspace, where the ro "/" shows them:
 * a directory under an empty read-only tmpfs, a file by punching its parent
 * (a mount cannot make a file absent). */
static void mask_outside_walls(struct builder *b)
{
	if (b->in->hermetic)
		return;
	for (size_t i = 0; i < b->walls.n; i++) {
		const char *w = b->walls.v[i].path;
		struct stat st;
		if (path_is_within(b->ws, w) || path_is_within(b->tmp, w) ||
		    under_masked_home(b, w) || lstat(w, &st))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			char *parent = path_dirname(w);
			punch(b, parent, true);
			free(parent);
		}
	}
	for (size_t i = 0; i < b->walls.n; i++) {
		const char *w = b->walls.v[i].path;
		struct stat st;
		if (path_is_within(b->ws, w) || path_is_within(b->tmp, w) ||
		    under_masked_home(b, w) || lstat(w, &st) || !S_ISDIR(st.st_mode))
			continue;
		char *parent = path_dirname(w);
		bool in_punched = strvec_find(&b->punched, parent) >= 0;
		free(parent);
		if (!in_punched) {
			mount_add(b->req, SANDBOX_TMPFS, NULL, w);
			mount_add(b->req, SANDBOX_REMOUNT_RO, NULL, w);
		}
	}
}

static void add_read(struct builder *b, const char *path)
{
	struct grant g = {0};
	g.path = xstrdup(path);
	g.lexical = xstrdup(path);
	g.entry = "(baseline)";
	g.exists = true;
	g.is_dir = true;
	vec_push(&b->reads, g);
}

bool sandbox_input_keys(const struct sandbox_input *in, const char *real)
{
	for (size_t i = 0; i < in->n_keyed; i++) {
		char *k = grants_canonical(in->keyed_projects[i]);
		bool hit = !strcmp(k, real);
		free(k);
		if (hit)
			return true;
	}
	return false;
}

/* The node_modules of the project and of the workspace root, and each
 * workspace package linked into them (the orchestrator found them: it
 * knows the workspace): granted, unless it lies in a wall, or the task's
 * graph does not reach that project (withheld then: a task, cached or
 * not, persistent or not, reads the packages it depends on; issue 36, a
 * dev server read every sibling its cached build was refused). */
static void baseline_reads(struct builder *b)
{
	const char *roots[] = {b->proj, b->ws};
	for (size_t i = 0; i < 2; i++) {
		char *nm = path_join(roots[i], "node_modules");
		struct stat st;
		if (stat(nm, &st) == 0 && S_ISDIR(st.st_mode))
			add_read(b, nm);
		free(nm);
	}
	for (size_t i = 0; i < b->in->n_linked; i++) {
		char *real = grants_canonical(b->in->linked_projects[i]);
		if (!walls_show_linked(&b->walls, b->ws, b->proj, real)) {
			free(real);
			continue;
		}
		if (!sandbox_input_keys(b->in, real)) {
			/* The judge says so (a note) only if the task reaches for it. */
			if (strvec_find(&b->req->withheld, real) < 0)
				strvec_push(&b->req->withheld, real);
		} else {
			add_read(b, real);
		}
		free(real);
	}
}

/* The settings a root .npmrc may hold and still be shown to every task:
 * npm's, pnpm's and yarn 1's, each one that carries no credential (issue
 * 53 item 6). A list of what is harmless, not of what is secret: the
 * filter it replaced looked for _authToken, _auth and _password and let
 * `key=` (an inline private key) through, and the next credential setting
 * a package manager adds would pass a list of secrets the same way, where
 * here it hides the file. */
static const char *const npmrc_harmless[] = {
    "registry",
    "save",
    "save-exact",
    "save-prefix",
    "save-workspace-protocol",
    "engine-strict",
    "auto-install-peers",
    "strict-peer-dependencies",
    "dedupe-peer-dependents",
    "resolve-peers-from-workspace-root",
    "shamefully-hoist",
    "hoist",
    "hoist-pattern[]",
    "public-hoist-pattern[]",
    "hoist-workspace-packages",
    "node-linker",
    "symlink",
    "link-workspace-packages",
    "prefer-workspace-packages",
    "shared-workspace-lockfile",
    "inject-workspace-packages",
    "disallow-workspace-cycles",
    "recursive-install",
    "legacy-peer-deps",
    "install-strategy",
    "install-links",
    "package-lock",
    "lockfile",
    "prefer-frozen-lockfile",
    "prefer-offline",
    "prefer-online",
    "resolution-mode",
    "enable-pre-post-scripts",
    "manage-package-manager-versions",
    "package-manager-strict",
    "package-manager-strict-version",
    "use-node-version",
    "fund",
    "audit",
    "audit-level",
    "progress",
    "loglevel",
    "color",
    "update-notifier",
    "git-checks",
    "omit[]",
    "include[]",
    "optional",
    "child-concurrency",
    "network-concurrency",
    "fetch-retries",
    "fetch-timeout",
    NULL,
};

/* Is the key (n bytes, trimmed) of a .npmrc line a harmless setting: one of
 * npmrc_harmless, or a scope's registry (@scope:registry)? A `//host/:...`
 * line is a registry's own setting, where npm keeps tokens, passwords,
 * certificates and keys: never harmless, whatever its value. */
static bool npmrc_key_harmless(const char *k, size_t n)
{
	if (n > 10 && k[0] == '@' && !memcmp(k + n - 9, ":registry", 9) && !memchr(k, '/', n))
		return true;
	for (const char *const *h = npmrc_harmless; *h; h++)
		if (strlen(*h) == n && !memcmp(*h, k, n))
			return true;
	return false;
}

/* Does the value v (n bytes) hold a URL whose authority names a user
 * (scheme://user[:password]@host)? */
static bool url_has_user(const char *v, size_t n)
{
	const char *s = v, *stop = v + n;
	for (; s + 3 <= stop; s++)
		if (!memcmp(s, "://", 3))
			break;
	if (s + 3 > stop)
		return false;
	for (s += 3; s < stop && *s != '/'; s++)
		if (*s == '@')
			return true;
	return false;
}

/* May a root .npmrc be shown to every task: is each line blank, a comment
 * (`#`, `;`) or a harmless setting (`key = value`) whose value is no URL
 * with a user in it (`registry=https://me:token@host/`)? A section header,
 * a line with no `=`, an unknown key and an unreadable file hide it. */
static bool npmrc_harmless_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	bool ok = strbuf_read_file(&sb, path) == 0;
	for (const char *line = sb.buf; ok && line && *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		const char *k = line, *stop = line + n;
		while (k < stop && (*k == ' ' || *k == '\t' || *k == '\r'))
			k++;
		if (k < stop && *k != '#' && *k != ';') {
			const char *eq = memchr(k, '=', (size_t)(stop - k));
			const char *ke = eq;
			while (ke && ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			ok = eq && npmrc_key_harmless(k, (size_t)(ke - k)) &&
			     !url_has_user(eq + 1, (size_t)(stop - eq - 1));
		}
		line = end ? end + 1 : NULL;
	}
	strbuf_release(&sb);
	return ok;
}

bool sandbox_lockfile_name(const char *name)
{
	static const char *const names[] = {"package-lock.json",
					    "npm-shrinkwrap.json",
					    "pnpm-lock.yaml",
					    "yarn.lock",
					    "bun.lock",
					    "bun.lockb",
					    NULL};
	for (const char *const *n = names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	return false;
}

/* Is name one of the workspace root's own files that tools walk up to
 * (issue 40 item 5): the manifests, the lockfiles, turbo.json, .gitignore,
 * .npmrc, the TypeScript configs and the .env files? (The last two with a
 * condition: sandbox_root_files.) */
bool sandbox_root_file(const char *name)
{
	static const char *const names[] = {
	    "package.json", "pnpm-workspace.yaml", "turbo.json",
	    "turbo.jsonc",  ".gitignore",	   ".npmrc",
	    NULL,
	};
	for (const char *const *n = names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	size_t len = strlen(name);
	return sandbox_lockfile_name(name) ||
	       (!strncmp(name, "tsconfig", 8) && len >= 13 && !strcmp(name + len - 5, ".json")) ||
	       !strcmp(name, ".env") || !strncmp(name, ".env.", 5);
}

void sandbox_root_files(const char *ws, const char *proj, const char *const *named, size_t n_named,
			struct strvec *out)
{
	if (!strcmp(proj, ws))
		return; /* the root project reads its own */
	DIR *d = opendir(ws);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (!sandbox_root_file(e->d_name))
			continue;
		/* A .env file holds the secrets of whatever reads it (issue 53
		 * item 6: every task of every project read .env.keys): shown
		 * to a task whose own key names it, which says the task reads
		 * it; an allow.read grant shows it as any grant does. */
		if ((!strcmp(e->d_name, ".env") || !strncmp(e->d_name, ".env.", 5)) &&
		    !globlist_match((char *const *)named, n_named, e->d_name))
			continue;
		char *p = path_join(ws, e->d_name);
		struct stat st;
		if (!lstat(p, &st) && S_ISREG(st.st_mode) &&
		    (strcmp(e->d_name, ".npmrc") || npmrc_harmless_file(p)))
			strvec_push(out, p);
		free(p);
	}
	closedir(d);
	strvec_sort(out);
}

static void root_files(struct builder *b)
{
	struct strvec files = STRVEC_INIT;
	sandbox_root_files(b->ws, b->proj, b->in->input_ws_files, b->in->n_input_ws_files, &files);
	for (size_t i = 0; i < files.n; i++) {
		struct grant g = {0};
		g.path = xstrdup(files.v[i]);
		g.lexical = xstrdup(files.v[i]);
		g.entry = "(workspace root file)";
		g.exists = true;
		vec_push(&b->reads, g);
	}
	strvec_clear(&files);
}

/* One file a dependency produced, readable to the task as the file it is,
 * never as a way out (issue 12: a dependency's `dist/k -> ~/.ssh/id_rsa`
 * made the key readable downstream, with no violation). A link is shown as
 * the link it is (its target readable only where the task may read it
 * anyway); a path whose directory leads through a link out of the
 * workspace, or into .git, the cache or a credential store, is not shown,
 * with a note. */
static void dep_output(struct builder *b, const char *path)
{
	char *lexical = path_normalize(path);
	char *at = grants_canonical_dir(path);
	const struct wall *w = walls_holding(&b->walls, at);
	struct stat st;
	if (!path_is_within(b->ws, at) || (w && w->kind != WALL_NESTED)) {
		strvec_pushf(&b->req->notes,
			     "a dependency's output %s leads through a link to %s, %s; it is not "
			     "shown to the task",
			     lexical, at, w ? walls_kind_name(w->kind) : "outside the workspace");
	} else if (lstat(at, &st) == 0 && S_ISLNK(st.st_mode)) {
		struct strbuf t = STRBUF_INIT;
		strbuf_grow(&t, (size_t)st.st_size + 1);
		ssize_t n = readlink(at, t.buf, (size_t)st.st_size + 1);
		if (n >= 0 && (size_t)n <= (size_t)st.st_size) {
			strbuf_setlen(&t, (size_t)n);
			mount_add(b->req, SANDBOX_SYMLINK, t.buf, at);
		}
		strbuf_release(&t);
	} else {
		struct grant g = {0};
		g.lexical = lexical;
		g.path = at;
		g.entry = "(dependency output)";
		g.exists = lstat(at, &st) == 0;
		g.is_dir = g.exists && S_ISDIR(st.st_mode);
		vec_push(&b->reads, g);
		lexical = at = NULL;
	}
	free(lexical);
	free(at);
}

/* Relative to home: read-only package and tool caches that builds read
 * (and nothing that holds a credential). Measured on the real builds of
 * tests/unsafe/t0330-realbuild.sh: tsc and make+gcc read none; node-gyp's
 * headers and the package managers' stores are what native addons and
 * offline installs read. */
const char *const sandbox_home_caches[] = {
    ".cache/node-gyp",
    ".npm/_cacache",
    ".local/share/pnpm/store",
    ".cache/yarn",
    ".bun/install/cache",
    ".cargo/registry",
    ".cargo/git",
    ".rustup/toolchains",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".cache/node/corepack",
    NULL,
};

/* Home is an empty read-only tmpfs (issue 12: a deny list can never be
 * complete, and ~/.claude/.credentials.json, ~/.yarnrc.yml, ~/.m2/settings.xml
 * and the shell history were readable with no grant). It shows what the
 * task's toolchain needs: each PATH directory under home (a bin/ brings its
 * install prefix: ~/.nvm/versions/node/vX), the caches above, and the
 * task's grants; the credential stores stay walled inside all of them. */
static void home_reads(struct builder *b, const char *path_var)
{
	struct stat st;
	b->home_masked = b->home && strcmp(b->home, "/") && !b->in->hermetic &&
			 !path_is_within(b->tmp, b->home) && !path_is_within(b->ws, b->home) &&
			 stat(b->home, &st) == 0 && S_ISDIR(st.st_mode);
	if (!b->home_masked)
		return;
	const char *s = path_var;
	for (char *dir; (dir = grants_path_next(&s));) {
		char *real = grants_canonical(dir);
		free(dir);
		if (strcmp(real, b->home) && path_is_within(b->home, real)) {
			char *grant = grants_toolchain_dir(real, b->home);
			if (stat(grant, &st) == 0 && S_ISDIR(st.st_mode) &&
			    !walls_holding(&b->walls, grant))
				add_read(b, grant);
			free(grant);
		}
		free(real);
	}
	for (const char *const *c = sandbox_home_caches; *c; c++) {
		char *p = path_join(b->home, *c);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			add_read(b, p);
		free(p);
	}
}

/* Puts the one-line reason a task is refused in err and returns -1. */
static int refuse(struct strbuf *err, const char *fmt, ...) VX_PRINTF(2, 3);
static int refuse(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_reset(err);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Checks the walls a write grant's dir would hold, for the write grant
 * entry: a nested project is refused (its files are other tasks'); .git,
 * the cache or a credential store is masked inside it, read-only, when it
 * is there, and one that is not there is no wall to keep (`write: ["./"]`
 * was refused for a .git that did not exist). The cache and .vx are vx's
 * own: made now, so the task cannot make them and plant entries. The same for a bind
 * and a staged grant (issue 36: staged, a cache dir lost its mask and a
 * nested project was rewritten). Returns 0, or -1 with the reason in err. */
static int plan_walls(struct builder *b, const char *entry, const char *dir)
{
	for (size_t k = 0; k < b->walls.n; k++) {
		const struct wall *in = &b->walls.v[k];
		struct stat st;
		if (!path_is_within(dir, in->path))
			continue;
		bool there = lstat(in->path, &st) == 0;
		if (in->kind == WALL_NESTED && there)
			return refuse(
			    b->err,
			    "write grant '%s' would bind %s read-write, which holds %s (%s); "
			    "grant a directory below it",
			    entry, dir, in->path, walls_kind_name(in->kind));
		if (!there && (in->kind == WALL_CACHE || in->kind == WALL_STATE))
			strvec_push(&b->req->mkdirs, in->path);
		else if (!there)
			continue;
		if (strvec_find(&b->masked, in->path) < 0)
			strvec_push(&b->masked, in->path);
	}
	return 0;
}

/* Plans one read-write bind of dir for the write grant entry, after
 * plan_walls. widened: the bind holds more than the entry names (the judge
 * must catch writes there). Returns 0, or -1 with the reason in err. */
static int plan_bind(struct builder *b, const char *entry, const char *dir, bool widened)
{
	if (plan_walls(b, entry, dir))
		return -1;
	if (strvec_find(&b->rw_dirs, dir) < 0)
		strvec_push(&b->rw_dirs, dir);
	if (widened && strvec_find(&b->req->widened, dir) < 0)
		strvec_push(&b->req->widened, dir);
	return 0;
}

/* Should the project be staged? When the task has a stage dir and a write
 * grant at the project's top level (a directory there, or a file there:
 * its bind would be the project itself), and no grant names the project
 * whole (then all of it is writable as it is). */
static bool wants_stage(const struct builder *b)
{
	if (!b->in->stage_dir)
		return false;
	bool top = false;
	for (size_t i = 0; i < b->writes.n; i++) {
		const struct grant *g = &b->writes.v[i];
		if (g->from_glob)
			continue;
		if (!strcmp(g->path, b->proj))
			return false;
		bool dir = g->exists ? g->is_dir : g->want_dir;
		char *bind = dir ? xstrdup(g->path) : path_dirname(g->path);
		char *parent = path_dirname(bind);
		top |= !strcmp(bind, b->proj) || !strcmp(parent, b->proj);
		free(parent);
		free(bind);
	}
	for (size_t i = 0; i < b->glob_heads.n; i++)
		top |= !strcmp(b->glob_heads.v[i].path, b->proj);
	return top;
}

/* Decides each write grant's bind and what to create; creates nothing. */
static int plan_writes(struct builder *b)
{
	for (size_t i = 0; i < b->writes.n; i++) {
		struct grant *g = &b->writes.v[i];
		/* A glob's hits lie in its head, which is bound whole (below). */
		if (g->from_glob)
			continue;
		const struct wall *w = walls_holding(&b->walls, g->path);
		if (grants_link_out(b->proj, g->lexical, g->path)) {
			grants_say_link_out(b->err, g->entry, g->path, b->proj);
			return -1;
		}
		if (w && w->kind != WALL_NESTED)
			return walls_say_no_writes(b->err, g->entry, w);
		if (denies_refuse_write(b->err, g->entry, g->path, b->ws, b->home))
			return -1;
		bool dir = g->exists ? g->is_dir : g->want_dir;
		/* A FILE grant binds its directory: rename(2) onto a bind mount is
		 * EBUSY, and every atomic writer renames a temp file over its output. */
		char *bind = dir ? xstrdup(g->path) : path_dirname(g->path);
		if (!g->exists) {
			if (!path_is_within(b->proj, g->path)) {
				int rc =
				    refuse(b->err,
					   "write grant '%s': %s does not exist, and vx creates "
					   "missing grants "
					   "only inside the project; create it first",
					   g->entry, g->path);
				free(bind);
				return rc;
			}
			strvec_push(&b->req->mkdirs, bind);
			if (!dir)
				strvec_push(&b->req->files, g->path);
		}
		char *parent = path_dirname(bind);
		bool top = b->staging && (!strcmp(bind, b->proj) || !strcmp(parent, b->proj));
		free(parent);
		if (!dir && !top && !b->in->strace) {
			/* Untraced (a persistent task): nothing would judge a
			 * widened directory, so the file alone is bound, made
			 * first when missing (issue 36: a dev server's
			 * `write: ["server.log"]` opened src/ and vx.yaml). A
			 * writer that renames over it meets EBUSY. */
			free(bind);
			if (plan_walls(b, g->entry, g->path))
				return -1;
			if (strvec_find(&b->rw_files, g->path) < 0)
				strvec_push(&b->rw_files, g->path);
			continue;
		}
		if (top) {
			/* Lives in the stage while the task runs: a plain entry
			 * there, so it can be removed and made again. Its walls
			 * and mandatory denies are the bind's (issue 36: staged,
			 * `write: ["out/"]` rewrote out/.bashrc and out/sub/.git). */
			const char *entry_path = !strcmp(bind, b->proj) ? g->path : bind;
			const char *name = path_basename(entry_path);
			if (strvec_find(&b->req->staged, name) < 0)
				strvec_push(&b->req->staged, name);
			int rc = plan_walls(b, g->entry, entry_path);
			if (!rc && strvec_find(&b->staged_roots, entry_path) < 0)
				strvec_push(&b->staged_roots, entry_path);
			free(bind);
			if (rc)
				return rc;
			continue;
		}
		int rc = plan_bind(b, g->entry, bind, !dir);
		free(bind);
		if (rc)
			return rc;
	}
	/* A write glob binds its literal head, made when missing, whether or
	 * not anything matched at task start: the files it names are often
	 * made by the task (tsup's tsup.config.bundled_<random>.mjs, refused
	 * before as "matched nothing", issue 11). The head is widened: a write
	 * there that the glob does not match is a violation. */
	for (size_t i = 0; i < b->glob_heads.n; i++) {
		const struct grant *h = &b->glob_heads.v[i];
		const struct wall *w = walls_holding(&b->walls, h->path);
		if (grants_link_out(b->proj, h->lexical, h->path)) {
			grants_say_link_out(b->err, h->entry, h->path, b->proj);
			return -1;
		}
		if (w && w->kind != WALL_NESTED)
			return walls_say_no_writes(b->err, h->entry, w);
		if (denies_refuse_write(b->err, h->entry, h->path, b->ws, b->home))
			return -1;
		if (!h->exists) {
			if (!path_is_within(b->proj, h->path))
				return refuse(
				    b->err,
				    "write grant '%s': %s does not exist, and vx creates "
				    "missing grants only inside the project; create it first",
				    h->entry, h->path);
			strvec_push(&b->req->mkdirs, h->path);
		}
		if (b->staging && !strcmp(h->path, b->proj))
			continue; /* the stage is the project's root, widened */
		if (!b->in->strace)
			return refuse(
			    b->err,
			    "write grant '%s' would bind %s read-write whole, and this task "
			    "runs untraced (a persistent task), so nothing would judge what "
			    "it writes there beside what the glob names; grant the directory "
			    "or each file by name",
			    h->entry, h->path);
		if (plan_bind(b, h->entry, h->path, true))
			return -1;
	}
	if (b->staging && strvec_find(&b->req->widened, b->proj) < 0)
		strvec_push(&b->req->widened, b->proj);
	/* A directory some grant names whole is no widening. */
	size_t keep = 0;
	for (size_t i = 0; i < b->req->widened.n; i++) {
		bool whole = false;
		for (size_t j = 0; j < b->writes.n && !whole; j++) {
			const struct grant *g = &b->writes.v[j];
			whole = !g->from_glob && (g->exists ? g->is_dir : g->want_dir) &&
				path_is_within(g->path, b->req->widened.v[i]);
		}
		if (whole)
			free(b->req->widened.v[i]);
		else
			b->req->widened.v[keep++] = b->req->widened.v[i];
	}
	b->req->widened.n = keep;
	if (b->req->widened.v)
		b->req->widened.v[keep] = NULL;
	return 0;
}

static int mount_cmp(const void *a, const void *b)
{
	const struct sandbox_mount *x = a, *y = b;
	bool rx = x->kind == SANDBOX_REMOUNT_RO, ry = y->kind == SANDBOX_REMOUNT_RO;
	if (rx != ry)
		return rx - ry; /* remounts last: after every mount point was made in the mask */
	int c = strcmp(x->dst, y->dst);
	if (c)
		return c;
	return (int)x->kind - (int)y->kind;
}

/* Drops repeats and a DIR where a mount already is; RO and RW at one path keep RW. */
static void mounts_tidy(struct sandbox_request *req)
{
	qsort(req->mounts.v, req->mounts.n, sizeof *req->mounts.v, mount_cmp);
	size_t out = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		struct sandbox_mount *prev = out ? &req->mounts.v[out - 1] : NULL;
		bool drop = false;
		if (prev && !strcmp(prev->dst, m->dst)) {
			if (prev->kind == m->kind)
				drop = true;
			else if (prev->kind == SANDBOX_RO && m->kind == SANDBOX_RW) {
				free(prev->src);
				free(prev->dst);
				out--; /* RW replaces RO */
			} else if (m->kind == SANDBOX_DIR && prev->kind != SANDBOX_REMOUNT_RO)
				drop = true;
		}
		if (drop) {
			free(m->src);
			free(m->dst);
			if (m->fd >= 0)
				close(m->fd);
			continue;
		}
		req->mounts.v[out++] = *m;
	}
	req->mounts.n = out;
	/* A mask's remount where a read-write bind replaced the mask (a write
	 * grant of the workspace root's own file binds the root) would make
	 * the bind read-only: dropped. */
	out = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		bool rw = false;
		for (size_t k = 0; k < req->mounts.n && !rw && m->kind == SANDBOX_REMOUNT_RO; k++)
			rw = req->mounts.v[k].kind == SANDBOX_RW &&
			     !strcmp(req->mounts.v[k].dst, m->dst);
		if (rw) {
			free(m->src);
			free(m->dst);
			continue;
		}
		req->mounts.v[out++] = *m;
	}
	req->mounts.n = out;
}

/* Is read grant i already shown by another bind that holds it whole: a RW
 * dir, or a read grant bound unpunched (of two equal grants, the first)? */
static bool held_whole(struct builder *b, size_t i)
{
	const char *p = b->reads.v[i].path;
	for (size_t j = 0; j < b->rw_dirs.n; j++)
		if (path_is_within(b->rw_dirs.v[j], p))
			return true;
	for (size_t j = 0; j < b->reads.n; j++) {
		const struct grant *r = &b->reads.v[j];
		if (j == i || !r->exists || !path_is_within(r->path, p) ||
		    wall_below(&b->walls, r->path))
			continue;
		if (!strcmp(r->path, p) && j > i)
			continue;
		return true;
	}
	return false;
}

/* The mandatory denies in a writable path (a bound dir, or a staged
 * entry, itself perhaps one): each made read-only where it is, but one in
 * a masked wall (.git/config in a masked .git stays hidden). Returns 0, or
 * -1 with the reason in err. */
static int deny_within(struct builder *b, const char *path)
{
	struct strvec denied = STRVEC_INIT;
	struct stat st;
	if (denies_match(path_basename(path)) && lstat(path, &st) == 0)
		strvec_push(&denied, path);
	else if (denies_walk(path, &denied))
		return refuse(b->err, "cannot walk write grant %s: %s", path, strerror(errno));
	for (size_t j = 0; j < denied.n; j++) {
		bool hidden = false;
		for (size_t k = 0; k < b->masked.n && !hidden; k++)
			hidden = path_is_within(b->masked.v[k], denied.v[j]);
		if (!hidden)
			mount_add(b->req, SANDBOX_RO, denied.v[j], denied.v[j]);
	}
	strvec_clear(&denied);
	return 0;
}

/* Each config file in a writable place that no grant names: bound
 * read-only over itself when it is there (a staged one from its fd, opened
 * before it moves); one not there yet cannot be walled by a mount, so the
 * judge reports the write that makes it (req->configs, which lists these
 * alone: a write anywhere else is refused by the walls already). */
static void protect_configs(struct builder *b)
{
	for (size_t i = 0; i < b->in->n_config; i++) {
		const char *file = b->in->config_files[i];
		bool writable = strvec_find(&b->rw_files, file) >= 0;
		for (size_t k = 0; k < b->rw_dirs.n && !writable; k++)
			writable = path_is_within(b->rw_dirs.v[k], file);
		for (size_t k = 0; k < b->staged_roots.n && !writable; k++)
			writable = path_is_within(b->staged_roots.v[k], file);
		bool named = false;
		for (size_t k = 0; k < b->writes.n && writable && !named; k++)
			named = !b->writes.v[k].from_glob && !strcmp(b->writes.v[k].path, file);
		if (!writable || named)
			continue;
		strvec_push(&b->req->configs, file);
		struct stat st;
		if (lstat(file, &st) == 0 && S_ISREG(st.st_mode))
			mount_add(b->req, SANDBOX_RO, file, file);
	}
}

/* The sandbox has no DNS (issue 54 item 7): the host's resolver is
 * beyond its network namespace, where a query met ENETUNREACH before it
 * was sent, and the trace could name only the resolver. Its resolv.conf
 * names the task's own loopback instead, where nothing answers: the query
 * is sent, and refused at once, and the trace holds the name it asked for
 * (the judge's lookup violation). A resolv.conf that is a link into /run,
 * masked, already dangles inside, and glibc then asks 127.0.0.1 by itself. */
static bool sees(const struct sandbox_request *req, const char *path, int depth);

/* The workspace root's own files the task is not shown, each as a stub
 * that refuses every open (issue 54 item 5): a tool that resolves a path by
 * listing its directory (esbuild, for tsup's `../../tsup.config.base`) saw
 * no such name in the root's mask and said "Could not resolve" with no
 * refusal in the trace, so nothing was learnable. With the name there, its
 * open is refused (EACCES), traced, and judged as the hidden read it is,
 * with the grant. Only names: not a byte of the file. The .env files and
 * .npmrc stay absent (a loader that finds one must not fail on it), and so
 * does every directory (a path through one is refused by its first name
 * that is missing, which the trace shows). */
static void root_stubs(struct builder *b)
{
	if (!strcmp(b->proj, b->ws))
		return;
	DIR *d = opendir(b->ws);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		const char *n = e->d_name;
		if (!strcmp(n, ".npmrc") || !strcmp(n, ".env") || !strncmp(n, ".env.", 5) ||
		    !sandbox_path_safe(n))
			continue;
		char *p = path_join(b->ws, n);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && !sees(b->req, p, 0) &&
		    !walls_holding(&b->walls, p))
			mount_add(b->req, SANDBOX_STUB, NULL, p);
		free(p);
	}
	closedir(d);
}

/* Vite's temp directory: Vite 5+ bundles vite.config.* into the nearest
 * node_modules/.vite-temp before it loads it, which in a hoisted
 * repository is the workspace root's (issue 54: learn could only ask a
 * person for allow.write ["../../node_modules/"] for every Vite app). A
 * private tmpfs at the project's and the root's: Vite writes and deletes
 * its file there, and nothing reaches the host. vx makes the directory
 * (prepare), empty, where node_modules is; a link there is left alone. */
static void vite_scratch(struct builder *b)
{
	const char *roots[] = {b->proj, b->ws};
	for (size_t i = 0; i < 2; i++) {
		if (i && !strcmp(b->proj, b->ws))
			break;
		char *nm = path_join(roots[i], "node_modules");
		char *tmp = path_join(nm, ".vite-temp");
		struct stat st;
		if (lstat(nm, &st) == 0 && S_ISDIR(st.st_mode) && !walls_holding(&b->walls, nm) &&
		    (lstat(tmp, &st) ? errno == ENOENT : S_ISDIR(st.st_mode))) {
			if (strvec_find(&b->req->scratch, tmp) < 0)
				strvec_push(&b->req->scratch, tmp);
			mount_add(b->req, SANDBOX_TMPFS, NULL, tmp);
		}
		free(tmp);
		free(nm);
	}
}

static void resolv_mask(struct builder *b)
{
	static const char text[] = "# vx: a sandboxed task has no DNS; its proxy resolves the "
				   "hosts allow.network names\nnameserver 127.0.0.1\n";
	char *real = realpath("/etc/resolv.conf", NULL);
	struct stat st;
	if (real && stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
	    !(b->run_masked && path_is_within(SANDBOX_RUN_DIR, real)) && sees(b->req, real, 0))
		mount_add(b->req, SANDBOX_DATA, text, real);
	free(real);
}

/* Another task's outputs in the project, which this task does not wait
 * for, shown empty (issue 54: a Next app's typecheck read the .next/types
 * its build had made, or had not yet: its result depended on which ran
 * first, read-unkeyed, and learn could only ask a person for an edge). As
 * Bazel shows an action no output it did not declare an input. Not where a
 * grant of this task reads or writes in it (or it in a grant's). */
static void other_outputs(struct builder *b)
{
	for (size_t i = 0; i < b->in->n_other_outputs; i++) {
		const char *d = b->in->other_outputs[i];
		struct stat st;
		if (!path_is_within(b->proj, d) || !strcmp(d, b->proj) || lstat(d, &st) ||
		    !S_ISDIR(st.st_mode))
			continue;
		/* by the grants as written: a FILE grant's bind of its
		 * directory (tsconfig.tsbuildinfo's: the whole project) holds
		 * nothing more */
		bool held = false;
		for (size_t k = 0; k < b->writes.n && !held; k++) {
			const struct grant *g = &b->writes.v[k];
			bool dir = g->from_glob || (g->exists ? g->is_dir : g->want_dir);
			held = path_is_within(d, g->path) || (dir && path_is_within(g->path, d));
		}
		for (size_t k = 0; k < b->reads.n && !held; k++)
			held = strcmp(b->reads.v[k].path, b->proj) &&
			       path_is_within(d, b->reads.v[k].path);
		if (!held && strvec_find(&b->masked, d) < 0) {
			strvec_push(&b->masked, d);
			strvec_push(&b->hidden_outputs, d);
		}
	}
}

/* A staged project binds each of its entries back read-only (punch), and
 * a read-only bind at a masked output's place would show it again: the
 * mask wins. */
static void drop_hidden_binds(struct builder *b)
{
	size_t keep = 0;
	for (size_t i = 0; i < b->req->mounts.n; i++) {
		struct sandbox_mount *m = &b->req->mounts.v[i];
		bool hidden = false;
		for (size_t k = 0; k < b->hidden_outputs.n && !hidden; k++)
			hidden = (m->kind == SANDBOX_RO || m->kind == SANDBOX_SYMLINK) &&
				 path_is_within(b->hidden_outputs.v[k], m->dst);
		if (hidden) {
			free(m->src);
			free(m->dst);
			continue;
		}
		b->req->mounts.v[keep++] = *m;
	}
	b->req->mounts.n = keep;
}

static int assemble(struct builder *b)
{
	struct sandbox_request *req = b->req;
	mount_add(req, SANDBOX_TMPFS, NULL, b->tmp);
	mount_add(req, SANDBOX_TMPFS, NULL, b->ws);
	mount_add(req, SANDBOX_REMOUNT_RO, NULL, b->ws);
	if (b->home_masked) {
		mount_add(req, SANDBOX_TMPFS, NULL, b->home);
		mount_add(req, SANDBOX_REMOUNT_RO, NULL, b->home);
	}
	if (b->run_masked) {
		mount_add(req, SANDBOX_TMPFS, NULL, SANDBOX_RUN_DIR);
		mount_add(req, SANDBOX_REMOUNT_RO, NULL, SANDBOX_RUN_DIR);
	}
	mask_outside_walls(b);
	resolv_mask(b);
	vite_scratch(b);
	if (b->staging) {
		struct sandbox_mount m = {SANDBOX_RW, xstrdup(b->req->stage), xstrdup(b->proj), -1,
					  false};
		vec_push(&req->mounts, m);
		punch_children(b, b->proj, &b->req->staged);
	}
	for (size_t i = 0; i < b->reads.n; i++) {
		const struct grant *g = &b->reads.v[i];
		if (!g->exists || held_whole(b, i) || visible_by_base(b, g->path))
			continue;
		/* the stage shows every entry of the project but its walls */
		if (b->staging && path_is_within(b->proj, g->path) &&
		    !walls_holding(&b->walls, g->path))
			continue;
		if (g->is_dir && wall_below(&b->walls, g->path))
			punch(b, g->path, false);
		else
			mount_add(req, SANDBOX_RO, g->path, g->path);
	}
	for (size_t i = 0; i < b->rw_dirs.n; i++) {
		/* one prepare will create is empty: nothing in it to deny */
		struct sandbox_mount m = {SANDBOX_RW, xstrdup(b->rw_dirs.v[i]),
					  xstrdup(b->rw_dirs.v[i]), -1, false};
		vec_push(&req->mounts, m);
		if (deny_within(b, b->rw_dirs.v[i]))
			return -1;
	}
	for (size_t i = 0; i < b->staged_roots.n; i++)
		if (deny_within(b, b->staged_roots.v[i]))
			return -1;
	for (size_t i = 0; i < b->rw_files.n; i++) {
		struct sandbox_mount m = {SANDBOX_RW, xstrdup(b->rw_files.v[i]),
					  xstrdup(b->rw_files.v[i]), -1, false};
		vec_push(&req->mounts, m);
	}
	protect_configs(b);
	other_outputs(b);
	for (size_t i = 0; i < b->masked.n; i++) {
		struct stat st;
		const char *w = b->masked.v[i];
		if (lstat(w, &st) == 0 && !S_ISDIR(st.st_mode)) {
			mount_add(req, SANDBOX_RO, w, w); /* a file cannot be made absent */
		} else {
			mount_add(req, SANDBOX_TMPFS, NULL, w);
			mount_add(req, SANDBOX_REMOUNT_RO, NULL, w);
		}
	}
	bool held = b->staging;
	for (size_t i = 0; i < b->reads.n && !held; i++)
		held = b->reads.v[i].exists && path_is_within(b->reads.v[i].path, b->proj);
	for (size_t i = 0; i < b->rw_dirs.n && !held; i++)
		held = path_is_within(b->rw_dirs.v[i], b->proj);
	if (!held) {
		req->cwd_denied = true;
		mount_add(req, SANDBOX_DIR, NULL, b->proj);
		/* Grants inside the project (src/, dist/) show through the empty
		 * cwd, which is what such a task wants; only a cwd with nothing
		 * granted under it is worth a note. */
		bool inside = false;
		for (size_t i = 0; i < b->reads.n && !inside; i++)
			inside =
			    b->reads.v[i].exists && path_is_within(b->proj, b->reads.v[i].path);
		for (size_t i = 0; i < b->rw_dirs.n && !inside; i++)
			inside = path_is_within(b->proj, b->rw_dirs.v[i]);
		if (!inside)
			strvec_pushf(&req->notes,
				     "no grant holds the project dir %s: the task runs in an empty "
				     "directory (grant '.' in allow.read to see it)",
				     b->proj);
	}
	root_stubs(b);
	drop_hidden_binds(b);
	mounts_tidy(req);
	/* A link (a deny mask over one) is bound by its path, as is a mount
	 * planned by path (the proxy's socket, in vx's own 0700 dir); every
	 * other source goes by fd, opened by prepare. */
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		struct stat st;
		m->by_path = m->kind == SANDBOX_RO &&
			     (m->by_path || (lstat(m->src, &st) == 0 && S_ISLNK(st.st_mode)));
		/* by path, a source in a staged entry is where the entry is when
		 * bwrap runs: in the stage (a deny mask over a link there) */
		if (m->by_path && req->stage && is_strictly_within(b->proj, m->src)) {
			const char *rest = m->src + strlen(b->proj) + 1;
			char *name = xstrndup(rest, strcspn(rest, "/"));
			if (strvec_find(&req->staged, name) >= 0) {
				char *in_stage = path_join(req->stage, rest);
				free(m->src);
				m->src = in_stage;
			}
			free(name);
		}
	}
	return 0;
}

static void builder_release(struct builder *b)
{
	free(b->ws);
	free(b->proj);
	free(b->home);
	free(b->tmp);
	walls_clear(&b->walls);
	grants_clear(&b->reads);
	grants_clear(&b->writes);
	strvec_clear(&b->rw_dirs);
	strvec_clear(&b->rw_files);
	grants_clear(&b->glob_heads);
	strvec_clear(&b->punched);
	strvec_clear(&b->masked);
	strvec_clear(&b->hidden_outputs);
	strvec_clear(&b->staged_roots);
}

/* The proxy variables every client reads (curl reads only the lowercase
 * http_proxy; Node's fetch and http read none without NODE_USE_ENV_PROXY).
 * ALL_PROXY is the SOCKS5 front, for tools that speak nothing else; the
 * host's own proxy variables are replaced, never passed on. */
static void proxy_env(struct builder *b)
{
	static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
					    "NO_PROXY",	  "http_proxy",	 "https_proxy",
					    "all_proxy",  "no_proxy",	 "NODE_USE_ENV_PROXY"};
	size_t keep = 0;
	for (size_t i = 0; i < b->req->env.n; i++) {
		bool ours = false;
		for (size_t k = 0; k < sizeof names / sizeof *names && !ours; k++) {
			size_t n = strlen(names[k]);
			ours =
			    !strncmp(b->req->env.v[i], names[k], n) && b->req->env.v[i][n] == '=';
		}
		if (ours)
			free(b->req->env.v[i]);
		else
			b->req->env.v[keep++] = b->req->env.v[i];
	}
	b->req->env.n = keep;
	for (int lower = 0; lower < 2; lower++) {
		strvec_pushf(&b->req->env, "%s=http://127.0.0.1:%d",
			     lower ? "http_proxy" : "HTTP_PROXY", SANDBOX_PROXY_PORT);
		strvec_pushf(&b->req->env, "%s=http://127.0.0.1:%d",
			     lower ? "https_proxy" : "HTTPS_PROXY", SANDBOX_PROXY_PORT);
		strvec_pushf(&b->req->env, "%s=socks5h://127.0.0.1:%d",
			     lower ? "all_proxy" : "ALL_PROXY", SANDBOX_PROXY_PORT);
		strvec_pushf(&b->req->env, "%s=localhost,127.0.0.1,::1",
			     lower ? "no_proxy" : "NO_PROXY");
	}
	strvec_push(&b->req->env, "NODE_USE_ENV_PROXY=1");
}

/* The task's network (netd.h): the vx binary and netd's control socket
 * bound read-only into TMPDIR (a connect needs no write access to the
 * mount), netd run before the command with the ports to listen on. */
static int network_plan(struct builder *b)
{
	const struct sandbox_input *in = b->in;
	if (!in->netd)
		return 0;
	if (!in->net_ctl)
		return refuse(b->err, "a network grant without its control socket");
	b->req->netd = path_join(b->tmp, ".vx-netd");
	b->req->net_ctl = path_join(b->tmp, ".vx-net.sock");
	struct sandbox_mount bin = {SANDBOX_RO, xstrdup(in->netd), xstrdup(b->req->netd), -1, true};
	vec_push(&b->req->mounts, bin);
	struct sandbox_mount ctl = {SANDBOX_RO, xstrdup(in->net_ctl), xstrdup(b->req->net_ctl), -1,
				    true};
	vec_push(&b->req->mounts, ctl);
	b->req->proxy = in->proxy;
	if (in->proxy)
		proxy_env(b);
	for (size_t i = 0; i < in->n_relays; i++)
		vec_push(&b->req->relay_ports, in->relay_ports[i]);
	return 0;
}

/* /run, where the host's UNIX sockets live (the docker socket, the D-Bus
 * buses, the user's runtime dir with its agents): a network namespace does
 * not hide a socket with a path, so /run is an empty read-only tmpfs, as
 * home is, and unixSockets binds back each socket named (and nothing
 * else). A PATH directory under /run (NixOS: /run/current-system/sw/bin)
 * is bound back where it was. */
static int socket_grants(struct builder *b, const char *path_var)
{
	const struct sandbox_input *in = b->in;
	struct stat st;
	b->run_masked = !in->hermetic && lstat(SANDBOX_RUN_DIR, &st) == 0 && S_ISDIR(st.st_mode) &&
			!path_is_within(SANDBOX_RUN_DIR, b->ws) &&
			!path_is_within(SANDBOX_RUN_DIR, b->proj) &&
			!path_is_within(SANDBOX_RUN_DIR, b->tmp);
	const char *s = b->run_masked ? path_var : NULL;
	for (char *dir; (dir = grants_path_next(&s));) {
		char *real = grants_canonical(dir);
		if (path_is_within(SANDBOX_RUN_DIR, dir) && stat(real, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			mount_add(b->req, SANDBOX_RO, real, dir);
		free(real);
		free(dir);
	}
	struct strvec socks = STRVEC_INIT, missing = STRVEC_INIT;
	int rc = sandbox_socket_paths(in, b->proj, b->home, &b->walls, &socks, &missing, b->err);
	for (size_t i = 0; !rc && i + 1 < missing.n; i += 2)
		strvec_pushf(
		    &b->req->notes,
		    "unixSockets entry '%s' names nothing (no socket at %s): nothing is bound",
		    missing.v[i], missing.v[i + 1]);
	for (size_t i = 0; !rc && i < socks.n; i++) {
		/* bound by path, read-only: the RO bind of a socket still connects */
		mount_add(b->req, SANDBOX_RO, socks.v[i], socks.v[i]);
		b->req->mounts.v[b->req->mounts.n - 1].by_path = true;
	}
	strvec_clear(&socks);
	strvec_clear(&missing);
	return rc;
}

int sandbox_socket_paths(const struct sandbox_input *in, const char *proj, const char *home,
			 const wall_vec *walls, struct strvec *out, struct strvec *missing,
			 struct strbuf *err)
{
	grant_vec socks = {0};
	for (size_t i = 0; i < in->n_sockets; i++)
		if (grants_resolve(in->unix_sockets[i], proj, home, &socks, NULL, err)) {
			grants_clear(&socks);
			return -1;
		}
	int rc = 0;
	struct stat st;
	for (size_t i = 0; i < socks.n && !rc; i++) {
		struct grant *g = &socks.v[i];
		const struct wall *w = walls_holding(walls, g->path);
		if (w && w->kind == WALL_CREDENTIAL) {
			rc = refuse(
			    err,
			    "unixSockets entry '%s' lies in %s, a credential store; vx never "
			    "grants it",
			    g->entry, w->path);
		} else if (w) {
			rc = refuse(err, "unixSockets entry '%s' lies in %s, %s", g->entry, w->path,
				    walls_kind_name(w->kind));
		} else if (lstat(g->path, &st) != 0) {
			strvec_push(missing, g->entry);
			strvec_push(missing, g->path);
		} else if (!S_ISSOCK(st.st_mode)) {
			rc =
			    refuse(err,
				   "unixSockets entry '%s' is not a socket (%s): grant a file or a "
				   "directory with allow.read",
				   g->entry, g->path);
		} else {
			strvec_push(out, g->path);
		}
	}
	grants_clear(&socks);
	return rc;
}

static int build(struct builder *b)
{
	const struct sandbox_input *in = b->in;
	if (!in->bwrap) {
		char *missing = probe_missing("bwrap", "bubblewrap");
		int rc = refuse(b->err, "%s: a sandboxed task never runs unprotected", missing);
		free(missing);
		return rc;
	}
	if (!in->workspace_root || !in->project_dir)
		return refuse(b->err,
			      "a sandbox request needs the workspace root and the project dir");
	b->ws = grants_canonical(in->workspace_root);
	b->proj = grants_canonical(in->project_dir);
	b->home = in->home && *in->home ? grants_canonical(in->home) : NULL;
	b->tmp = path_normalize(in->tmpdir ? in->tmpdir : "/tmp");
	if (!sandbox_path_safe(b->tmp))
		return refuse(
		    b->err,
		    "TMPDIR %s (%zu bytes) holds a character outside [A-Za-z0-9._/+@-]; choose a "
		    "plain path",
		    b->tmp, strlen(b->tmp));
	if (path_is_within(b->ws, b->tmp))
		return refuse(b->err, "TMPDIR %s lies in the workspace %s; choose one outside it",
			      b->tmp, b->ws);
	char *cache = in->cache_dir ? grants_canonical(in->cache_dir) : NULL;
	struct walls_input wi = {.workspace_root = b->ws,
				 .project_dir = b->proj,
				 .home = b->home,
				 .cache_dir = cache,
				 .run_base = in->run_base,
				 .nested_dirs = in->nested_dirs,
				 .n_nested = in->n_nested};
	walls_collect(&wi, &b->walls);
	free(cache);
	for (size_t i = 0; i < b->walls.n; i++)
		if (b->walls.v[i].kind != WALL_NESTED) {
			struct wall w = {xstrdup(b->walls.v[i].path), b->walls.v[i].kind};
			vec_push(&b->req->walls, w);
		}

	struct env_input env = in->env;
	env.home = in->home;
	env.tmpdir = b->tmp;
	if (env_build(&env, &b->req->env, b->err))
		return -1;

	for (size_t i = 0; i < in->n_read; i++)
		if (grants_resolve(in->allow_read[i], b->proj, b->home, &b->reads, NULL, b->err))
			return -1;
	for (size_t i = 0; i < in->n_write; i++)
		if (grants_resolve(in->allow_write[i], b->proj, b->home, &b->writes, &b->glob_heads,
				   b->err))
			return -1;
	for (size_t i = 0; i < b->reads.n; i++) {
		const struct grant *g = &b->reads.v[i];
		const struct wall *w = walls_holding(&b->walls, g->path);
		if (w && w->kind == WALL_CREDENTIAL && !g->from_glob)
			return refuse(
			    b->err,
			    "read grant '%s' lies in %s, a credential store; vx never grants it",
			    g->entry, w->path);
	}
	/* A glob hit in a wall is no grant: drop it before anything counts it. */
	size_t keep = 0;
	for (size_t i = 0; i < b->reads.n; i++) {
		struct grant *g = &b->reads.v[i];
		if (g->from_glob && walls_holding(&b->walls, g->path)) {
			free(g->path);
			free(g->lexical);
		} else {
			b->reads.v[keep++] = *g;
		}
	}
	b->reads.n = keep;
	/* The task's own project is readable (issue 11: `sandbox: {}` failed on
	 * its own package.json): its nested projects and .git stay walled,
	 * and the judge answers for what is read of it through the key. */
	add_read(b, b->proj);
	baseline_reads(b);
	root_files(b);
	const char *path_var = NULL;
	for (size_t i = 0; i < b->req->env.n; i++)
		if (!strncmp(b->req->env.v[i], "PATH=", 5))
			path_var = b->req->env.v[i] + 5;
	home_reads(b, path_var);
	if (socket_grants(b, path_var))
		return -1;
	for (size_t i = 0; i < in->n_dep_outputs; i++)
		dep_output(b, in->dep_outputs[i]);
	b->staging = wants_stage(b);
	if (b->staging) /* prepare checks it is a directory: a plan may name a pattern */
		b->req->stage = path_normalize(in->stage_dir);
	if (plan_writes(b))
		return -1;
	if (in->init) {
		/* bound where netd is (network_plan): TMPDIR, a tmpfs only
		 * the task has, read-only */
		b->req->init = path_join(b->tmp, ".vx-init");
		struct sandbox_mount m = {SANDBOX_RO, xstrdup(in->init), xstrdup(b->req->init), -1,
					  true};
		vec_push(&b->req->mounts, m);
	}
	if (in->strace) {
		/* strace runs inside, under init's --traced (bwrap.c): bound
		 * beside it, wherever the host keeps it (a home dir is hidden) */
		if (!in->init)
			return refuse(b->err, "a traced task needs vx-sandbox-init (beside vx, or "
					      "in its ../libexec/vx/)");
		b->req->strace = path_join(b->tmp, ".vx-strace");
		b->req->trace_fd = in->trace_fd;
		struct sandbox_mount m = {SANDBOX_RO, xstrdup(in->strace), xstrdup(b->req->strace),
					  -1, true};
		vec_push(&b->req->mounts, m);
	}
	b->req->bwrap = xstrdup(in->bwrap);
	b->req->shell = xstrdup(in->shell ? in->shell : "/bin/sh");
	b->req->setsid = in->setsid ? xstrdup(in->setsid) : probe_which("setsid");
	b->req->hermetic = in->hermetic;
	if (network_plan(b))
		return -1;
	if (!b->req->setsid) {
		char *missing = probe_missing("setsid", "util-linux");
		int rc = refuse(b->err, "%s: the task's signals need it", missing);
		free(missing);
		return rc;
	}
	b->req->cwd = xstrdup(b->proj);
	return assemble(b);
}

int sandbox_request_plan(const struct sandbox_input *in, struct sandbox_request *req,
			 struct strbuf *err)
{
	memset(req, 0, sizeof *req);
	req->seccomp_fd = -1;
	req->trace_fd = -1;
	struct builder b = {0};
	b.in = in;
	b.req = req;
	b.err = err;
	int rc = build(&b);
	builder_release(&b);
	if (rc) {
		sandbox_request_release(req);
		memset(req, 0, sizeof *req);
		req->seccomp_fd = -1;
		req->trace_fd = -1;
	}
	return rc;
}

static int create_missing(struct sandbox_request *req, struct strbuf *err)
{
	/* never removed by a task's end: another task's tmpfs may be about
	 * to be mounted there (a sweep made bwrap's mkdir meet EROFS) */
	for (size_t i = 0; i < req->scratch.n; i++)
		if (mkdir(req->scratch.v[i], 0755) && errno != EEXIST)
			return refuse(err, "cannot create %s: %s", req->scratch.v[i],
				      strerror(errno));
	for (size_t i = 0; i < req->mkdirs.n; i++) {
		struct stat st;
		bool was = lstat(req->mkdirs.v[i], &st) == 0;
		if (fs_mkdirs(req->mkdirs.v[i], 0777))
			return refuse(err, "cannot create %s for a write grant: %s",
				      req->mkdirs.v[i], strerror(errno));
		if (!was)
			strvec_push(&req->made_dirs, req->mkdirs.v[i]);
	}
	for (size_t i = 0; i < req->files.n; i++) {
		struct stat st;
		/* lstat first: a dangling link must not be followed into a file elsewhere. */
		if (lstat(req->files.v[i], &st) == 0)
			continue;
		int fd = open(req->files.v[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      0644);
		if (fd < 0)
			return refuse(err, "cannot create %s for a write grant: %s",
				      req->files.v[i], strerror(errno));
		if (fstat(fd, &st)) {
			close(fd);
			return refuse(err, "cannot stat %s: %s", req->files.v[i], strerror(errno));
		}
		close(fd);
		struct sandbox_placeholder p = {xstrdup(req->files.v[i]), st.st_dev, st.st_ino,
						st.st_mtim};
		vec_push(&req->placeholders, p);
	}
	return 0;
}

/* Opens a bind source O_PATH|O_NOFOLLOW and checks that the fd is the
 * path vx judged: bwrap then mounts the fd, so a component swapped for a
 * link after this point binds nothing new. */
static int open_source(const char *path, bool dir, int *out, struct strbuf *err)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | (dir ? O_DIRECTORY : 0) | O_CLOEXEC);
	if (fd < 0)
		return refuse(err, "cannot open %s to bind it: %s", path, strerror(errno));
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	char *real = realpath(proc, NULL);
	bool same = real && !strcmp(real, path);
	free(real);
	if (!same) {
		close(fd);
		return refuse(err, "%s changed while vx checked it (a link appeared); run again",
			      path);
	}
	*out = fd; /* where it lands for bwrap is sandbox_fds_lift's business */
	return 0;
}

/* Every bind source by fd, checked: the write grants, and the read-only
 * ones too (--ro-bind-fd): a concurrent task with a write grant over one
 * could swap a component for a link between the plan and bwrap's mount,
 * and bind a file elsewhere read-only (~/.ssh/id_rsa). A link itself (a
 * deny mask over one) stays by path, and a read source gone since the plan
 * is dropped: there is nothing left to show. */
static int open_sources(struct sandbox_request *req, struct strbuf *err)
{
	size_t keep = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		struct stat st;
		int rc = 0;
		if (m->kind == SANDBOX_RW && m->fd < 0) {
			/* a directory, or a file bound alone (untraced) */
			rc = open_source(m->src, lstat(m->src, &st) || S_ISDIR(st.st_mode), &m->fd,
					 err);
		} else if ((m->kind == SANDBOX_DATA || m->kind == SANDBOX_STUB) && m->fd < 0) {
			m->fd = memfd_create("vx-data", MFD_CLOEXEC);
			if (m->fd < 0 || (m->src && write_all(m->fd, m->src, strlen(m->src)) < 0) ||
			    lseek(m->fd, 0, SEEK_SET) != 0)
				rc = refuse(err, "cannot make the sandbox's %s: %s", m->dst,
					    strerror(errno));
		} else if (m->kind == SANDBOX_RO && m->fd < 0 && !m->by_path) {
			if (lstat(m->src, &st) != 0) {
				free(m->src);
				free(m->dst);
				continue;
			}
			rc = open_source(m->src, S_ISDIR(st.st_mode), &m->fd, err);
		}
		if (rc) {
			/* keep every mount not yet freed, for the release */
			size_t rest = req->mounts.n - i;
			memmove(&req->mounts.v[keep], m, rest * sizeof *m);
			req->mounts.n = keep + rest;
			return -1;
		}
		req->mounts.v[keep++] = *m;
	}
	req->mounts.n = keep;
	return 0;
}

int sandbox_request_prepare(struct sandbox_request *req, struct strbuf *err)
{
	struct stat st;
	int rc = 0;
	if (req->stage && (stat(req->stage, &st) || !S_ISDIR(st.st_mode)))
		rc = refuse(err, "cannot stage the project in %s: it is not a directory",
			    req->stage);
	if (!rc)
		rc = create_missing(req, err);
	if (!rc) {
		req->seccomp_fd = seccomp_program_fd();
		if (req->seccomp_fd < 0)
			rc = refuse(err, "cannot make the sandbox's system call filter: %s",
				    strerror(errno));
	}
	if (!rc)
		rc = open_sources(req, err);
	if (rc) {
		sandbox_request_sweep(req);
		sandbox_request_release(req);
		memset(req, 0, sizeof *req);
		req->seccomp_fd = -1;
		req->trace_fd = -1;
	}
	return rc;
}

int sandbox_request_build(const struct sandbox_input *in, struct sandbox_request *req,
			  struct strbuf *err)
{
	return sandbox_request_plan(in, req, err) ? -1 : sandbox_request_prepare(req, err);
}

const char *const sandbox_os_roots[] = {"/usr",	  "/bin",    "/sbin", "/lib", "/lib32",
					"/lib64", "/libx32", "/etc",  "/opt", NULL};

static bool sees(const struct sandbox_request *req, const char *path, int depth)
{
	const struct sandbox_mount *deepest = NULL;
	size_t best = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		const struct sandbox_mount *m = &req->mounts.v[i];
		size_t len = strlen(m->dst);
		if (m->kind == SANDBOX_REMOUNT_RO || !path_is_within(m->dst, path) ||
		    (deepest && len < best))
			continue;
		deepest = m;
		best = len;
	}
	if (!deepest) {
		if (!req->hermetic)
			return true;
		for (const char *const *r = sandbox_os_roots; *r; r++)
			if (path_is_within(*r, path))
				return true;
		return false;
	}
	bool same = !strcmp(deepest->dst, path);
	switch (deepest->kind) {
	case SANDBOX_RW:
		if (req->stage && !strcmp(deepest->src, req->stage)) {
			/* the stage: the project's root, and its staged entries */
			if (same)
				return true;
			const char *rest = path + best + 1;
			char *name = xstrndup(rest, strcspn(rest, "/"));
			bool r = strvec_find(&req->staged, name) >= 0;
			free(name);
			return r;
		}
		return !strcmp(deepest->src, deepest->dst);
	case SANDBOX_RO:
		return !strcmp(deepest->src, deepest->dst);
	case SANDBOX_STUB:
		return false; /* its name shows, nothing of it */
	case SANDBOX_SYMLINK: {
		if (same || depth > 8)
			return same;
		char *dir = path_dirname(deepest->dst);
		char *target = path_join(dir, deepest->src); /* an absolute src stays itself */
		char *rest = path_join(target, path + best + (path[best] == '/'));
		bool r = sees(req, rest, depth + 1);
		free(rest);
		free(target);
		free(dir);
		return r;
	}
	default: /* a tmpfs or an empty directory: it shows, nothing of the host's below it does */
		return same;
	}
}

bool sandbox_request_sees(const struct sandbox_request *req, const char *path)
{
	if (path[0] != '/')
		return false;
	/* bwrap makes the directories that hold a mount point */
	for (size_t i = 0; i < req->mounts.n; i++)
		if (req->mounts.v[i].kind != SANDBOX_REMOUNT_RO &&
		    strcmp(req->mounts.v[i].dst, path) &&
		    path_is_within(path, req->mounts.v[i].dst))
			return true;
	return sees(req, path, 0);
}

bool sandbox_placeholder_untouched(const struct sandbox_placeholder *p)
{
	struct stat st;
	return lstat(p->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 &&
	       st.st_dev == p->dev && st.st_ino == p->ino && st.st_mtim.tv_sec == p->mtime.tv_sec &&
	       st.st_mtim.tv_nsec == p->mtime.tv_nsec;
}

size_t sandbox_request_sweep(struct sandbox_request *req)
{
	size_t removed = 0;
	for (size_t i = 0; i < req->placeholders.n; i++) {
		struct sandbox_placeholder *p = &req->placeholders.v[i];
		if (sandbox_placeholder_untouched(p) && unlink(p->path) == 0)
			removed++;
		free(p->path);
	}
	vec_free(&req->placeholders);
	return removed;
}

size_t sandbox_request_sweep_dirs(struct sandbox_request *req)
{
	size_t removed = 0;
	for (size_t i = req->made_dirs.n; i-- > 0;)
		removed += rmdir(req->made_dirs.v[i]) == 0;
	strvec_clear(&req->made_dirs);
	return removed;
}

void sandbox_request_release(struct sandbox_request *req)
{
	free(req->bwrap);
	free(req->shell);
	free(req->setsid);
	free(req->strace);
	free(req->init);
	free(req->netd);
	free(req->net_ctl);
	vec_free(&req->relay_ports);
	if (req->seccomp_fd >= 0)
		close(req->seccomp_fd);
	req->seccomp_fd = -1;
	for (size_t i = 0; i < req->mounts.n; i++) {
		free(req->mounts.v[i].src);
		free(req->mounts.v[i].dst);
		if (req->mounts.v[i].fd >= 0)
			close(req->mounts.v[i].fd);
	}
	vec_free(&req->mounts);
	strvec_clear(&req->env);
	free(req->cwd);
	strvec_clear(&req->notes);
	strvec_clear(&req->withheld);
	strvec_clear(&req->widened);
	strvec_clear(&req->configs);
	walls_clear(&req->walls);
	free(req->stage);
	strvec_clear(&req->staged);
	strvec_clear(&req->mkdirs);
	strvec_clear(&req->made_dirs);
	strvec_clear(&req->scratch);
	strvec_clear(&req->files);
	for (size_t i = 0; i < req->placeholders.n; i++)
		free(req->placeholders.v[i].path);
	vec_free(&req->placeholders);
}

int sandbox_request_stage(const struct sandbox_request *req)
{
	if (!req->stage)
		return 0;
	int pfd = open(req->cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int sfd = pfd < 0 ? -1 : open(req->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0) {
		int e = errno;
		if (pfd >= 0)
			close(pfd);
		errno = e;
		return -1;
	}
	size_t moved = 0;
	int rc = 0;
	for (; moved < req->staged.n; moved++) {
		const char *name = req->staged.v[moved];
		if (renameat(pfd, name, sfd, name) < 0 && errno != ENOENT) {
			rc = -1;
			break;
		}
	}
	if (rc) {
		int e = errno;
		while (moved--)
			renameat(sfd, req->staged.v[moved], pfd, req->staged.v[moved]);
		errno = e;
	}
	close(sfd);
	close(pfd);
	return rc;
}

/* Does a write grant (as written in allow.write, relative to the project)
 * name the top-level entry name, or something below it? (A glob of logs
 * anywhere takes a new x.log; its first component alone, a globstar,
 * would take any name.) */
static bool granted_top(const char *name, const char *const *allow, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *g = allow[i];
		if (g[0] == '.' && g[1] == '/')
			g += 2;
		if (glob_match(g, name) || glob_match_below(g, name))
			return true;
	}
	return false;
}

size_t sandbox_request_unstage(const struct sandbox_request *req, const char *const *allow_write,
			       size_t n_allow_write)
{
	if (!req->stage)
		return 0;
	int pfd = open(req->cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int sfd = pfd < 0 ? -1 : open(req->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t discarded = 0;
	struct strvec names = STRVEC_INIT;
	if (sfd >= 0)
		dir_names_at(sfd, &names);
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		struct stat st;
		/* bwrap's mount points for the project's own entries: they stand
		 * for what is still in the project, and go */
		bool stub = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		bool back = !stub && (strvec_find(&req->staged, name) >= 0 ||
				      granted_top(name, allow_write, n_allow_write));
		if (back) {
			/* one that cannot go back stays in the stage, never
			 * removed: the next run's sweep tries again */
			renameat(sfd, name, pfd, name);
			continue;
		}
		if (!stub)
			discarded++;
		remove_tree_at(sfd, name);
	}
	strvec_clear(&names);
	if (sfd >= 0)
		close(sfd);
	if (pfd >= 0)
		close(pfd);
	return discarded;
}
