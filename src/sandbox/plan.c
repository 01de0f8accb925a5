/* plan.c - sandbox_request_plan: from a task's grants to a plan that does
 * not act. Resolves the read and write grants, the baselines (the
 * project, node_modules, linked packages, home's toolchain and caches,
 * dependency outputs), the sockets, the network, what to stage and what to
 * create; mounts.c lays them out. */
#include "sandbox/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/denies.h"
#include "sandbox/mounts.h"
#include "sandbox/probe.h"
#include "sandbox/proxy.h"
#include "sandbox/rootfiles.h"
#include "util/path.h"

int plan_refuse(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_reset(err);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
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
			return plan_refuse(
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
				int rc = plan_refuse(
				    b->err,
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
				return plan_refuse(
				    b->err,
				    "write grant '%s': %s does not exist, and vx creates "
				    "missing grants only inside the project; create it first",
				    h->entry, h->path);
			strvec_push(&b->req->mkdirs, h->path);
		}
		if (b->staging && !strcmp(h->path, b->proj))
			continue; /* the stage is the project's root, widened */
		if (!b->in->strace)
			return plan_refuse(
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
		return plan_refuse(b->err, "a network grant without its control socket");
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
			rc = plan_refuse(
			    err,
			    "unixSockets entry '%s' lies in %s, a credential store; vx never "
			    "grants it",
			    g->entry, w->path);
		} else if (w) {
			rc = plan_refuse(err, "unixSockets entry '%s' lies in %s, %s", g->entry,
					 w->path, walls_kind_name(w->kind));
		} else if (lstat(g->path, &st) != 0) {
			strvec_push(missing, g->entry);
			strvec_push(missing, g->path);
		} else if (!S_ISSOCK(st.st_mode)) {
			rc = plan_refuse(
			    err,
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
		int rc =
		    plan_refuse(b->err, "%s: a sandboxed task never runs unprotected", missing);
		free(missing);
		return rc;
	}
	if (!in->workspace_root || !in->project_dir)
		return plan_refuse(
		    b->err, "a sandbox request needs the workspace root and the project dir");
	b->ws = grants_canonical(in->workspace_root);
	b->proj = grants_canonical(in->project_dir);
	b->home = in->home && *in->home ? grants_canonical(in->home) : NULL;
	b->tmp = path_normalize(in->tmpdir ? in->tmpdir : "/tmp");
	if (!sandbox_path_safe(b->tmp))
		return plan_refuse(
		    b->err,
		    "TMPDIR %s (%zu bytes) holds a character outside [A-Za-z0-9._/+@-]; choose a "
		    "plain path",
		    b->tmp, strlen(b->tmp));
	if (path_is_within(b->ws, b->tmp))
		return plan_refuse(b->err,
				   "TMPDIR %s lies in the workspace %s; choose one outside it",
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
			return plan_refuse(
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
			return plan_refuse(b->err,
					   "a traced task needs vx-sandbox-init (beside vx, or "
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
		int rc = plan_refuse(b->err, "%s: the task's signals need it", missing);
		free(missing);
		return rc;
	}
	b->req->cwd = xstrdup(b->proj);
	if (mounts_assemble(b))
		return -1;
	sandbox_request_write_roots(b->req);
	return 0;
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
