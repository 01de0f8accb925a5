/* Unit tests for sandbox/seatbelt.c: the Seatbelt profile of a request,
 * compared by its exact text with the golden profiles in
 * fixtures/seatbelt/ (the temp root spelled @ROOT@), on a real small tree;
 * and each glob's regex run, as POSIX ERE, against the paths the glob
 * matches and does not. VX_UPDATE_GOLDEN=1 rewrites the goldens (read the
 * diff before committing it). */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "fstest.h"
#include "sandbox/seatbelt.h"
#include "util/glob.h"
#include "util/path.h"

static char *root;

static void mk(const char *rel)
{
	char *cmd = xasprintf("mkdir -p '%s/%s'", root, rel);
	if (system(cmd))
		die("%s", cmd);
	free(cmd);
}

static void touch(const char *rel)
{
	char *p = path_join(root, rel), *d = path_dirname(rel);
	mk(d);
	fs_write(root, rel, "", 0644);
	free(d);
	free(p);
}

/* A request for project proj (relative to root/ws) with the usual
 * surroundings; the caller sets the rest. */
struct req {
	struct sandbox_input in;
	char *ws, *proj, *home, *cache, *path_env;
	const char *host[3];
	const char *nested[4];
};

static void req_init(struct req *r, const char *proj)
{
	memset(r, 0, sizeof *r);
	r->ws = xasprintf("%s/ws", root);
	r->proj = proj[0] ? xasprintf("%s/ws/%s", root, proj) : xstrdup(r->ws);
	r->home = xasprintf("%s/home", root);
	r->cache = xasprintf("%s/ws/.vx/cache", root);
	r->path_env = xasprintf("PATH=/usr/bin:/bin:%s/home/.nvm/versions/node/v20/bin:"
				"/opt/homebrew/bin:%s/ws/node_modules/.bin",
				root, root);
	r->host[0] = r->path_env;
	r->host[1] = "LANG=C";
	r->nested[0] = r->ws;
	r->nested[1] = "";
	r->in.workspace_root = r->ws;
	r->in.project_dir = r->proj;
	r->in.home = r->home;
	r->in.cache_dir = r->cache;
	r->in.tmpdir = "/tmp/vx-501/vx-run-abc123/tmp";
	r->in.env.host = r->host;
	r->in.nested_dirs = (const char *const *)r->nested;
	r->in.n_nested = 1;
}

static void req_nested(struct req *r, const char *a, const char *b)
{
	r->nested[1] = a ? xasprintf("%s/ws/%s", root, a) : NULL;
	r->nested[2] = b ? xasprintf("%s/ws/%s", root, b) : NULL;
	r->in.n_nested = 1 + (a != NULL) + (b != NULL);
}

static void req_free(struct req *r)
{
	free(r->ws);
	free(r->proj);
	free(r->home);
	free(r->cache);
	free(r->path_env);
	if (r->in.n_nested > 1)
		free((char *)r->nested[1]);
	if (r->in.n_nested > 2)
		free((char *)r->nested[2]);
}

/* s with every occurrence of from replaced by to. */
static char *replace(const char *s, const char *from, const char *to)
{
	struct strbuf out = STRBUF_INIT;
	size_t n = strlen(from);
	for (const char *p = s; *p;) {
		const char *hit = strstr(p, from);
		if (!hit) {
			strbuf_addstr(&out, p);
			break;
		}
		strbuf_add(&out, p, (size_t)(hit - p));
		strbuf_addstr(&out, to);
		p = hit + n;
	}
	return strbuf_detach(&out, NULL);
}

/* The profile (notes appended as "; note: " lines), root spelled @ROOT@. */
static char *profile(const struct sandbox_input *in)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec notes = STRVEC_INIT;
	if (seatbelt_profile(in, &out, &notes, &err))
		strbuf_addf(&out, "ERR %s\n", err.buf);
	for (size_t i = 0; i < notes.n; i++)
		strbuf_addf(&out, "; note: %s\n", notes.v[i]);
	char *sroot = seatbelt_path(root);
	char *spelled = replace(out.buf, sroot, "@ROOT@");
	char *text = replace(spelled, root, "@ROOT@");
	free(spelled);
	free(sroot);
	strbuf_release(&out);
	strbuf_release(&err);
	strvec_clear(&notes);
	return text;
}

static void golden(const char *name, const struct sandbox_input *in)
{
	char *got = profile(in);
	char *rel = xasprintf("fixtures/seatbelt/%s.sb", name);
	if (getenv("VX_UPDATE_GOLDEN")) {
		fs_write(".", rel, got, 0644);
	} else {
		char *want = fs_read(".", rel);
		if (!want || strcmp(got, want)) {
			fprintf(stderr, "%s differs; got:\n%s\n", rel, got);
			CHECK(!"profile matches its golden");
		} else {
			CHECK(1);
		}
		free(want);
	}
	free(rel);
	free(got);
}

/* Every `(regex #"…")` of text, in order. */
static void regexes(const char *text, struct strvec *out)
{
	for (const char *p = text; (p = strstr(p, "(regex #\""));) {
		p += 9;
		const char *e = strstr(p, "\")");
		strvec_push_nodup(out, xstrndup(p, (size_t)(e - p)));
		p = e;
	}
}

static bool rx_matches(const char *rx, const char *path)
{
	regex_t re;
	if (regcomp(&re, rx, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "regex does not compile: %s\n", rx);
		return false;
	}
	bool hit = regexec(&re, path, 0, NULL, 0) == 0;
	regfree(&re);
	return hit;
}

/* The one allow.read glob grant's regex matches exactly what glob_match
 * says of each path (relative to the project). */
static void glob_agrees(const char *glob, const char *const *paths)
{
	struct req r;
	req_init(&r, "packages/app");
	const char *reads[] = {glob};
	r.in.allow_read = reads;
	r.in.n_read = 1;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec notes = STRVEC_INIT, rx = STRVEC_INIT;
	CHECK_INT(seatbelt_profile(&r.in, &out, &notes, &err), 0);
	regexes(out.buf, &rx);
	/* the grant's regex is the first one after the grants' header */
	const char *mine = NULL;
	for (size_t i = 0; i < rx.n && !mine; i++)
		if (strstr(rx.v[i], "packages/app") || strstr(rx.v[i], "/ws/"))
			mine = rx.v[i];
	CHECK(mine != NULL);
	char *proj = seatbelt_path(r.proj);
	for (size_t i = 0; mine && paths[i]; i++) {
		char *abs = path_join(proj, paths[i]);
		bool want = glob_match(glob, paths[i]);
		if (rx_matches(mine, abs) != want) {
			fprintf(stderr, "glob %s, path %s: regex %s says %d, glob says %d\n", glob,
				paths[i], mine, !want, want);
			CHECK(!"regex agrees with the glob");
		} else {
			CHECK(1);
		}
		free(abs);
	}
	free(proj);
	strbuf_release(&out);
	strbuf_release(&err);
	strvec_clear(&notes);
	strvec_clear(&rx);
	req_free(&r);
}

static void test_globs_agree(void)
{
	const char *const p1[] = {"src/a.ts", "src/x/y/b.ts",	"src/a.js", "src.ts",
				  "lib/a.ts", "src/.hidden.ts", NULL};
	glob_agrees("src/**/*.ts", p1);
	const char *const p2[] = {"data/a1.csv",  "data/c9.csv", "data/d1.csv",
				  "data/a12.csv", "data/a/.csv", NULL};
	glob_agrees("data/[a-c]?.csv", p2);
	const char *const p3[] = {"x/a", "x/.a", "x/ab", NULL};
	glob_agrees("x/[!.]*", p3);
	const char *const p4[] = {"a.b+c(1).txt", "a.b+c(1)xtxt", "aXb+c(1).txt", NULL};
	glob_agrees("a.b+c(1).*", p4);
	const char *const p5[] = {"gen[1]/o.js", "gen1/o.js", "gen[1]/o.ts", NULL};
	glob_agrees("gen\\[1\\]/*.js", p5);
	/* classes whose ERE spelling would read otherwise (fuzz_seatbelt_profile) */
	const char *const p6[] = {"ab", "cb", "-b", "db", "b", NULL};
	glob_agrees("[a-c-c]b", p6);
	const char *const p7[] = {"z]", "za", "zb", "z^", "z-", "z[", "z.", NULL};
	glob_agrees("z[]a]", p7);
	glob_agrees("z[!]a]", p7);
	glob_agrees("z[[.a]", p7);
	glob_agrees("z[-^]", p7);
	glob_agrees("z[!^]", p7);
}

static void test_path(void)
{
	char *p = seatbelt_path("/tmp/vx-seatbelt-none/x");
	CHECK_STR(p, "/private/tmp/vx-seatbelt-none/x");
	free(p);
	p = seatbelt_path("/var/folders/zz/T/vx");
	CHECK_STR(p, "/private/var/folders/zz/T/vx");
	free(p);
	p = seatbelt_path("/etcetera/x");
	CHECK_STR(p, "/etcetera/x");
	free(p);
	p = seatbelt_path("/usr/lib/../bin");
	CHECK_STR(p, "/usr/bin");
	free(p);
}

static void test_goldens(void)
{
	struct req r;

	req_init(&r, "packages/app");
	golden("plain", &r.in);
	req_free(&r);

	req_init(&r, "packages/app");
	const char *g_reads[] = {"src/**/*.ts", "../*/package.json", "config.{json,yaml}",
				 "../../tsconfig.base.json"};
	const char *g_writes[] = {"dist/**", "*.tsbuildinfo", "coverage/"};
	r.in.allow_read = g_reads;
	r.in.n_read = 4;
	r.in.allow_write = g_writes;
	r.in.n_write = 3;
	golden("globs", &r.in);
	req_free(&r);

	req_init(&r, "packages/app");
	const char *b_reads[] = {"gen\\[1\\].txt",  "data/[a-c]?.csv", "x/[!.]*",
				 "lit\\*star.txt",  "q\\?/*.md",       "odd\"quote/*",
				 "sp ace/(v1)+.js", "y/[[.a.]]x"};
	r.in.allow_read = b_reads;
	r.in.n_read = 8;
	golden("brackets", &r.in);
	req_free(&r);

	req_init(&r, "");
	req_nested(&r, "packages/app", "packages/lib");
	const char *n_reads[] = {"packages/lib/dist/index.js"};
	r.in.allow_read = n_reads;
	r.in.n_read = 1;
	golden("root-nested", &r.in);
	req_free(&r);

	req_init(&r, "packages/app");
	const char *d_writes[] = {"tools/", "out.log"};
	r.in.allow_write = d_writes;
	r.in.n_write = 2;
	golden("write-denies", &r.in);
	req_free(&r);

	req_init(&r, "packages/app");
	r.in.hermetic = true;
	const char *mach[] = {"com.apple.FontServer", "com.apple.system.opendirectoryd.*"};
	const char *sysinfo[] = {"kern.hostname", "machdep.cpu.*"};
	r.in.mach_lookup = mach;
	r.in.n_mach = 2;
	r.in.system_info = sysinfo;
	r.in.n_system_info = 2;
	golden("hermetic", &r.in);
	req_free(&r);

	req_init(&r, "packages/app");
	int relays[] = {5432};
	const char *sockets[] = {"/var/vx-seatbelt-none/docker.sock"};
	r.in.proxy = true;
	r.in.proxy_port = 49152;
	r.in.relay_ports = relays;
	r.in.n_relays = 1;
	r.in.unix_sockets = sockets;
	r.in.n_sockets = 1;
	golden("network", &r.in);
	req_free(&r);

	req_init(&r, "packages/app");
	int ports[] = {5173, 4173};
	r.in.local_ports = ports;
	r.in.n_local = 2;
	r.in.pty = true;
	golden("local-binding", &r.in);
	req_free(&r);

	req_init(&r, "packages/app");
	const char *t_reads[] = {"/tmp/vx-seatbelt-shared/fixtures/", "/var/cache/tool/*.db"};
	r.in.allow_read = t_reads;
	r.in.n_read = 2;
	golden("private-tmp", &r.in);
	req_free(&r);

	/* A ~ grant reaches the workspace (in home here) from above: the
	 * anchor takes it back but for the grants in it. */
	req_init(&r, "packages/app");
	const char *h_reads[] = {"~/"};
	const char *h_writes[] = {"dist/"};
	r.in.allow_read = h_reads;
	r.in.n_read = 1;
	r.in.allow_write = h_writes;
	r.in.n_write = 1;
	r.in.home = root;
	golden("anchor", &r.in);
	req_free(&r);
}

static void test_refusals(void)
{
	struct req r;
	req_init(&r, "odd[dir]/app");
	char *got = profile(&r.in);
	CHECK(strstr(got, "ERR the project @ROOT@/ws/odd[dir]/app lies under a directory whose "
			  "name holds '['") == got);
	free(got);
	req_free(&r);

	req_init(&r, "packages/app");
	const char *reads[] = {"~/.ssh/id_ed25519"};
	r.in.allow_read = reads;
	r.in.n_read = 1;
	got = profile(&r.in);
	CHECK_STR(got, "ERR read grant '~/.ssh/id_ed25519' lies in @ROOT@/home/.ssh, a credential "
		       "store; vx never grants it\n");
	free(got);
	req_free(&r);

	/* refused as the bwrap plan refuses them (request.c), not granted and
	 * then denied by a wall, or granted through a link out of the project */
	req_init(&r, "packages/app");
	const char *git_w[] = {".git/hooks/"};
	r.in.allow_write = git_w;
	r.in.n_write = 1;
	got = profile(&r.in);
	CHECK_STR(got, "ERR write grant '.git/hooks/' lies in @ROOT@/ws/packages/app/.git (the git "
		       "repository); vx never grants writes there\n");
	free(got);
	/* a mandatory deny: no grant opens it, named or as a glob's head
	 * (issue 36: `.vscode/` was granted, and its tasks.json written) */
	const char *deny_w[] = {".vscode/"};
	r.in.allow_write = deny_w;
	got = profile(&r.in);
	CHECK_STR(got, "ERR write grant '.vscode/' names @ROOT@/ws/packages/app/.vscode, a "
		       "mandatory deny (tasks.json and settings can run programs when the folder "
		       "opens); no grant opens it: grant a directory that does not hold it\n");
	free(got);
	const char *deny_glob[] = {".github/workflows/*.yml"};
	r.in.allow_write = deny_glob;
	got = profile(&r.in);
	CHECK(!strncmp(got,
		       "ERR write grant '.github/workflows/*.yml' names "
		       "@ROOT@/ws/packages/app/.github/workflows, a mandatory deny",
		       95));
	free(got);
	/* the files that decide what vx runs: read-only inside a write grant
	 * that does not name them, missing or not, as the bwrap plan binds
	 * them (issue 36) */
	char *cfg_yaml = xasprintf("%s/ws/packages/app/vx.yaml", root);
	char *cfg_pkg = xasprintf("%s/ws/packages/app/package.json", root);
	char *cfg_other = xasprintf("%s/ws/packages/lib/vx.yaml", root);
	const char *configs[] = {cfg_yaml, cfg_pkg, cfg_other};
	r.in.config_files = configs;
	r.in.n_config = 3;
	const char *cfg_w[] = {"./", "package.json"};
	r.in.allow_write = cfg_w;
	r.in.n_write = 2;
	got = profile(&r.in);
	CHECK(strstr(got, "(deny file-write* (literal \"@ROOT@/ws/packages/app/vx.yaml\"))") !=
	      NULL);
	CHECK(strstr(got, "(deny file-write* (literal \"@ROOT@/ws/packages/app/package.json\"))") ==
	      NULL);
	CHECK(strstr(got, "packages/lib/vx.yaml") == NULL);
	free(got);
	r.in.n_write = 1;
	r.in.config_files = NULL;
	r.in.n_config = 0;
	free(cfg_yaml);
	free(cfg_pkg);
	free(cfg_other);
	const char *git_glob[] = {".git/hooks/*"};
	r.in.allow_write = git_glob;
	got = profile(&r.in);
	CHECK_STR(got, "ERR write grant '.git/hooks/*' lies in @ROOT@/ws/packages/app/.git (the "
		       "git repository); vx never grants writes there\n");
	free(got);
	mk("elsewhere/out");
	mk("ws/packages/app");
	char *link = xasprintf("%s/ws/packages/app/out", root);
	if (symlink("../../../elsewhere/out", link))
		die_errno("symlink %s", link);
	const char *link_w[] = {"out/"};
	r.in.allow_write = link_w;
	got = profile(&r.in);
	CHECK_STR(got,
		  "ERR write grant 'out/' leads through a link to @ROOT@/elsewhere/out, outside "
		  "the project @ROOT@/ws/packages/app; grant the real path, or replace the link "
		  "with a directory\n");
	free(got);
	const char *glob_w[] = {"out/*.js"};
	r.in.allow_write = glob_w;
	got = profile(&r.in);
	CHECK_STR(got, "ERR write grant 'out/*.js' leads through a link to @ROOT@/elsewhere/out, "
		       "outside the project @ROOT@/ws/packages/app; grant the real path, or "
		       "replace the link with a directory\n");
	free(got);
	const char *real_w[] = {"../../../elsewhere/out/"};
	r.in.allow_write = real_w;
	got = profile(&r.in);
	CHECK(!strncmp(got, "(version 1)", 11)); /* the real path, outside: granted */
	free(got);
	/* the project reached through a link itself: its own grants stand */
	char *wslink = xasprintf("%s/wslink", root),
	     *via = xasprintf("%s/wslink/packages/app", root);
	if (symlink("ws", wslink))
		die_errno("symlink %s", wslink);
	const char *dist_w[] = {"dist/"};
	r.in.allow_write = dist_w;
	r.in.project_dir = via;
	r.in.workspace_root = wslink;
	got = profile(&r.in);
	CHECK(strstr(got,
		     "(allow file-read* file-write* (subpath \"@ROOT@/ws/packages/app/dist\"))"));
	free(got);
	r.in.project_dir = r.proj;
	r.in.workspace_root = r.ws;
	unlink(wslink);
	free(wslink);
	free(via);
	r.in.allow_write = real_w;
	const char *read_link[] = {"out/"};
	r.in.allow_read = read_link;
	r.in.n_read = 1;
	r.in.n_write = 0;
	got = profile(&r.in);
	CHECK(!strncmp(got, "(version 1)", 11)); /* reads through it: as on Linux */
	free(got);
	unlink(link);
	free(link);
	req_free(&r);
}

static void test_note(void)
{
	struct req r;
	req_init(&r, "packages/app");
	const char *reads[] = {"src/"};
	r.in.allow_read = reads;
	r.in.n_read = 1;
	struct strbuf n = STRBUF_INIT;
	seatbelt_failure_note(&r.in, 0, "app#build", &n);
	CHECK_STR(n.buf,
		  "it ran under a Seatbelt profile: reads of the OS roots, its project and "
		  "its TMPDIR, its PATH's toolchain, writes to its TMPDIR; allow.read: src/; "
		  "no network. macOS reported no denial of it: the OS does not always report "
		  "what a profile applied by sandbox-exec refused, so an access outside these "
		  "may have failed without a word. `vx sandbox show app#build --platform "
		  "darwin` prints the whole profile");
	strbuf_reset(&n);
	seatbelt_failure_note(&r.in, 2, "app#build", &n);
	CHECK(!strstr(n.buf, "reported no denial"));
	strbuf_release(&n);
	req_free(&r);

	struct strvec argv = STRVEC_INIT;
	seatbelt_argv("(version 1)", NULL, "make", &argv);
	CHECK_INT(argv.n, 6);
	CHECK_STR(argv.v[0], "/usr/bin/sandbox-exec");
	CHECK_STR(argv.v[2], "(version 1)");
	CHECK_STR(argv.v[5], "make");
	strvec_clear(&argv);
}

/* Linked workspace packages (a node_modules link to another project):
 * each is read whole, as on Linux (request.c) — but never one that holds
 * the project, such as the workspace root linked by name: that would make
 * every sibling readable. A withheld one (a cached task whose key does
 * not fold it) is not read either. */
static void test_linked(void)
{
	struct req r;
	req_init(&r, "packages/app");
	char *lib = xasprintf("%s/ws/packages/lib", root),
	     *util = xasprintf("%s/ws/packages/util", root);
	const char *linked[] = {r.ws, lib, r.proj, util};
	const char *keyed[] = {lib, util};
	r.in.linked_projects = linked;
	r.in.n_linked = 4;
	r.in.keyed_projects = keyed;
	r.in.n_keyed = 2;
	char *text = profile(&r.in);
	CHECK(strstr(text, "(allow file-read* (subpath \"@ROOT@/ws/packages/lib\")) ; a linked "
			   "workspace package (packages/lib)"));
	CHECK(strstr(text, "(subpath \"@ROOT@/ws/packages/util\")"));
	CHECK(!strstr(text, "(subpath \"@ROOT@/ws\")"));
	CHECK(!strstr(text, "a linked workspace package (.)"));
	CHECK(!strstr(text, "a linked workspace package (packages/app)"));
	free(text);
	/* what the task's graph does not reach is withheld, cached or not,
	 * persistent or not (issue 36: a dev server read every sibling) */
	r.in.n_keyed = 1;
	text = profile(&r.in);
	CHECK(strstr(text, "(subpath \"@ROOT@/ws/packages/lib\")"));
	CHECK(!strstr(text, "(subpath \"@ROOT@/ws/packages/util\")"));
	CHECK(!strstr(text, "(subpath \"@ROOT@/ws\")"));
	free(text);
	free(lib);
	free(util);
	req_free(&r);
}

/* A dependency's output is read as the file it is: a link among them is
 * granted as the link, never as what it points at (a sibling's source
 * here, which the task may not read), as the bwrap plan shows it. */
static void test_dep_outputs(void)
{
	struct req r;
	req_init(&r, "packages/app");
	touch("ws/packages/lib/dist/index.js");
	touch("ws/packages/other/src/secret.ts");
	char *k = xasprintf("%s/ws/packages/lib/dist/k.js", root);
	if (symlink("../../other/src/secret.ts", k))
		die_errno("symlink %s", k);
	char *idx = xasprintf("%s/ws/packages/lib/dist/index.js", root);
	const char *outs[] = {idx, k};
	r.in.dep_outputs = outs;
	r.in.n_dep_outputs = 2;
	char *text = profile(&r.in);
	CHECK(strstr(text, "(literal \"@ROOT@/ws/packages/lib/dist/index.js\")"));
	CHECK(strstr(text, "(literal \"@ROOT@/ws/packages/lib/dist/k.js\")"));
	CHECK(!strstr(text, "secret.ts"));
	free(text);
	unlink(k);
	free(k);
	free(idx);
	req_free(&r);
}

/* allow.unixSockets read as on Linux (request.c): "~" and project-relative
 * paths resolved, a socket in a credential store or anything that is not a
 * socket refused; one that does not exist yet is still named (a literal
 * can name a socket made later, unlike a bind). */
static void test_sockets(void)
{
	struct req r;
	req_init(&r, "packages/app");
	mk("home/.ssh");
	mk("home/run");
	mk("ws/packages/app");
	const char *made[] = {"home/run/agent.sock", "home/.ssh/agent.sock",
			      "ws/packages/app/db.sock"};
	int fds[3];
	for (int i = 0; i < 3; i++) {
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		snprintf(a.sun_path, sizeof a.sun_path, "%s/%s", root, made[i]);
		fds[i] = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a, sizeof a) < 0)
			die_errno("socket %s", a.sun_path);
	}
	const char *ok[] = {"~/run/agent.sock", "db.sock", "/var/vx-seatbelt-none/later.sock"};
	r.in.unix_sockets = ok;
	r.in.n_sockets = 3;
	char *text = profile(&r.in);
	CHECK(strstr(text, "(path-literal \"@ROOT@/home/run/agent.sock\")"));
	CHECK(strstr(text, "(path-literal \"@ROOT@/ws/packages/app/db.sock\")"));
	CHECK(strstr(text, "(path-literal \"/private/var/vx-seatbelt-none/later.sock\")"));
	free(text);
	const char *cred[] = {"~/.ssh/agent.sock"};
	r.in.unix_sockets = cred;
	r.in.n_sockets = 1;
	text = profile(&r.in);
	CHECK_STR(text, "ERR unixSockets entry '~/.ssh/agent.sock' lies in @ROOT@/home/.ssh, a "
			"credential store; vx never grants it\n");
	free(text);
	touch("ws/packages/app/notes.txt");
	const char *file[] = {"notes.txt"};
	r.in.unix_sockets = file;
	text = profile(&r.in);
	CHECK_STR(text, "ERR unixSockets entry 'notes.txt' is not a socket "
			"(@ROOT@/ws/packages/app/notes.txt): grant a file or a directory with "
			"allow.read\n");
	free(text);
	for (int i = 0; i < 3; i++) {
		close(fds[i]);
		char *p = path_join(root, made[i]);
		unlink(p);
		free(p);
	}
	req_free(&r);
}

int main(void)
{
	root = fs_tmpdir();
	mk("ws/.git");
	mk("ws/node_modules/.bin");
	touch("ws/package.json");
	touch("ws/tsconfig.base.json");
	mk("ws/packages/app/src");
	mk("ws/packages/app/node_modules");
	touch("ws/packages/app/package.json");
	mk("ws/packages/app/tools/.git/hooks");
	mk("ws/packages/lib/dist");
	touch("ws/packages/lib/dist/index.js");
	mk("ws/odd[dir]/app");
	mk("home/.nvm/versions/node/v20/bin");
	mk("home/.npm/_cacache");
	mk("home/.ssh");
	test_path();
	test_goldens();
	test_globs_agree();
	test_refusals();
	test_note();
	test_linked();
	test_dep_outputs();
	test_sockets();
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", root);
	free(cmd);
	free(root);
	return check_finish("seatbelt");
}
