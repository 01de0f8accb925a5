/* Unit tests for sandbox/grants.c, walls.c and request.c refusals: how an
 * entry as written becomes canonical paths, on a small temp tree. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "sandbox/bwrap.h"
#include "sandbox/grants.h"
#include "sandbox/request.h"
#include "sandbox/rootfiles.h"
#include "sandbox/walls.h"
#include "util/path.h"

static char *root;

static void mk(const char *rel, bool dir)
{
	char *p = path_join(root, rel);
	char *cmd = dir ? xasprintf("mkdir -p '%s'", p)
			: xasprintf("mkdir -p \"$(dirname '%s')\" && : > '%s'", p, p);
	if (system(cmd))
		die("%s", cmd);
	free(cmd);
	free(p);
}

static char *at(const char *rel)
{
	return path_join(root, rel);
}

/* Resolves entry in project "real/ws/p" and returns the paths, ' '-joined
 * and relative to root. */
static char *resolve(const char *entry, const char *proj_rel)
{
	grant_vec g = {0};
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	char *proj = at(proj_rel), *home = at("home");
	char *cproj = grants_canonical(proj);
	if (grants_resolve(entry, cproj, home, &g, NULL, &err))
		strbuf_addf(&out, "ERR %s", err.buf);
	for (size_t i = 0; i < g.n; i++) {
		char *rel = path_relative(root, g.v[i].path);
		strbuf_addf(&out, "%s%s", i ? " " : "", rel);
		free(rel);
	}
	grants_clear(&g);
	free(cproj);
	free(proj);
	free(home);
	strbuf_release(&err);
	return strbuf_detach(&out, NULL);
}

static void want(const char *entry, const char *proj, const char *expect)
{
	char *got = resolve(entry, proj);
	CHECK_STR(got, expect);
	free(got);
}

static void test_resolve(void)
{
	mk("real/ws/p/src[x]/c.ts", false);
	/* Relative to the project, through the symlinked workspace "link". */
	want("src", "link/p", "real/ws/p/src");
	want("../q/lib", "link/p", "real/ws/q/lib");
	want("~/.cache/x", "link/p", "home/.cache/x");
	want("~", "link/p", "home");
	want("g/{a,b}.txt", "link/p", "real/ws/p/g/a.txt real/ws/p/g/b.txt");
	want("dist/**", "link/p", "real/ws/p/dist");
	want("dist/**/*", "link/p", "real/ws/p/dist");
	want("missing/deeper/", "link/p", "real/ws/p/missing/deeper");
	/* A glob expands now; a hit whose real path leaves the wildcard's dir is dropped. */
	want("src/*.ts", "link/p", "real/ws/p/src/a.ts real/ws/p/src/b.ts");
	want("src/*", "link/p", "real/ws/p/src/a.ts real/ws/p/src/b.ts");
	want("nothing-*", "link/p", "");
	want("~bob/x", "link/p",
	     "ERR grant '~bob/x': ~user is not supported; write the absolute path");
	/* A dangling link is followed: judged where the file would land. */
	want("out.txt", "link/p", "real/ws/q/x");
	/* `\` escapes one character (SPEC 2.2): the path names the character,
	 * in a literal grant and in a glob's literal head. */
	want("gen\\[1\\].txt", "link/p", "real/ws/p/gen[1].txt");
	want("src\\[x\\]/*.ts", "link/p", "real/ws/p/src[x]/c.ts");
}

static void test_canonical(void)
{
	char *p = at("link/p/not/yet"), *c = grants_canonical(p), *w = at("real/ws/p/not/yet");
	CHECK_STR(c, w);
	free(p);
	free(c);
	free(w);
}

static void test_walls(void)
{
	wall_vec w = {0};
	char *ws = at("real/ws"), *proj = at("real/ws/p"), *q = at("real/ws/q"), *home = at("home");
	const char *nested[] = {proj, q};
	char *run = at("vxtmp");
	struct walls_input in = {ws, proj, home, NULL, run, nested, 2};
	walls_collect(&in, &w);
	char *qx = at("real/ws/q/x"), *ssh = at("home/.ssh/id_rsa"),
	     *git = at("real/ws/.git/config"), *sock = at("vxtmp/vx-run-ab12/net-cd34/proxy.sock");
	/* another task's proxy socket lives in the run base (issue 14's hole) */
	const struct wall *r = walls_holding(&w, sock);
	CHECK(r && r->kind == WALL_RUN);
	free(sock);
	free(run);
	const struct wall *h = walls_holding(&w, qx);
	CHECK(h && h->kind == WALL_NESTED);
	h = walls_holding(&w, ssh);
	CHECK(h && h->kind == WALL_CREDENTIAL);
	h = walls_holding(&w, git);
	CHECK(h && h->kind == WALL_GIT);
	/* all of .vx (issue 53 item 10: .vx/probe and .vx/runs were written) */
	const char *state[] = {"real/ws/.vx", "real/ws/.vx/probe", "real/ws/.vx/runs/a.json",
			       "real/ws/.vx/cache/ab/cd.json", "real/ws/.vx/stage/x"};
	for (size_t k = 0; k < sizeof state / sizeof *state; k++) {
		char *s = at(state[k]);
		h = walls_holding(&w, s);
		CHECK(h && h->kind == WALL_STATE);
		free(s);
	}
	CHECK(walls_holding(&w, proj) == NULL); /* the task's own project is no wall */
	h = walls_inside(&w, ws);
	CHECK(h != NULL);
	walls_clear(&w);
	free(qx);
	free(ssh);
	free(git);
	free(ws);
	free(proj);
	free(q);
	free(home);
}

/* Builds a request for project p of real/ws into req (released by the
 * caller on success). */
static int build_req(const char *const *read, size_t nr, const char *const *write, size_t nw,
		     const char *bwrap, struct sandbox_request *req, struct strbuf *err)
{
	char *ws = at("real/ws"), *proj = at("real/ws/p"), *q = at("real/ws/q"), *home = at("home");
	const char *nested[] = {proj, q};
	struct sandbox_input in = {0};
	in.workspace_root = ws;
	in.project_dir = proj;
	in.home = home;
	in.bwrap = bwrap;
	in.setsid = "/usr/bin/setsid";
	in.nested_dirs = nested;
	in.n_nested = 2;
	in.allow_read = read;
	in.n_read = nr;
	in.allow_write = write;
	in.n_write = nw;
	int rc = sandbox_request_build(&in, req, err);
	free(ws);
	free(proj);
	free(q);
	free(home);
	return rc;
}

static int build(const char *const *read, size_t nr, const char *const *write, size_t nw,
		 const char *bwrap, struct strbuf *err)
{
	struct sandbox_request req;
	int rc = build_req(read, nr, write, nw, bwrap, &req, err);
	if (!rc) {
		sandbox_request_sweep(&req);
		sandbox_request_release(&req);
	}
	return rc;
}

static void test_refusals(void)
{
	struct strbuf err = STRBUF_INIT;
	CHECK_INT(build(NULL, 0, NULL, 0, NULL, &err), -1);
	CHECK(strstr(err.buf, "bwrap is not installed") != NULL);
	strbuf_reset(&err);
	const char *w1[] = {"out.txt"};
	CHECK_INT(build(NULL, 0, w1, 1, "/usr/bin/bwrap", &err), -1);
	CHECK(strstr(err.buf, "outside the project") != NULL);
	char *qx = at("real/ws/q/x");
	CHECK(access(qx, F_OK) != 0); /* nothing created */
	free(qx);
	strbuf_reset(&err);
	/* a write glob whose head is a link out of the project: refused as a
	 * literal one is (it bound the link's target read-write) */
	char *gen = at("real/ws/p/gen");
	mk("real/elsewhere/gen", true);
	if (symlink("../../elsewhere/gen", gen))
		die_errno("symlink");
	const char *wg[] = {"gen/*.js"};
	CHECK_INT(build(NULL, 0, wg, 1, "/usr/bin/bwrap", &err), -1);
	CHECK(strstr(err.buf, "write grant 'gen/*.js' leads through a link to ") != NULL);
	strbuf_reset(&err);
	const char *rg[] = {"gen/*.js"};
	CHECK_INT(build(rg, 1, NULL, 0, "/usr/bin/bwrap", &err), 0); /* a read: as before */
	unlink(gen);
	free(gen);
	strbuf_reset(&err);
	const char *w2[] = {"../"};
	CHECK_INT(build(NULL, 0, w2, 1, "/usr/bin/bwrap", &err), -1);
	CHECK(strstr(err.buf, "which holds") != NULL);
	strbuf_reset(&err);
	const char *r1[] = {"~/.ssh"};
	CHECK_INT(build(r1, 1, NULL, 0, "/usr/bin/bwrap", &err), -1);
	CHECK(strstr(err.buf, "credential store") != NULL);
	strbuf_reset(&err);
	/* next build's fix named 9 write dirs, and vx refused more than 6 (the
	 * fds dash could close): bwrap's --bind-fd closes them, so no cap. */
	const char *w3[] = {"a/", "b/", "c/", "d/", "e/", "f/", "g/", "h/", "i/"};
	struct sandbox_request many;
	CHECK_INT(build_req(NULL, 0, w3, 9, "/usr/bin/bwrap", &many, &err), 0);
	size_t rw = 0;
	for (size_t i = 0; i < many.mounts.n; i++)
		rw += many.mounts.v[i].kind == SANDBOX_RW && many.mounts.v[i].fd >= 0;
	CHECK_INT(rw, 9);
	sandbox_request_sweep(&many);
	sandbox_request_release(&many);
	strbuf_release(&err);
	CHECK(sandbox_path_safe("/tmp/vx-1000/a_b.c+d@e"));
	CHECK(!sandbox_path_safe("/tmp/a b"));
	CHECK(!sandbox_path_safe("/tmp/a$b"));
}

/* What the planned mounts show: grants and the base, never the masks. */
static void test_sees(void)
{
	char *ws = at("real/ws"), *proj = at("real/ws/p"), *q = at("real/ws/q");
	const char *nested[] = {proj, q};
	const char *reads[] = {"src/", "../outside-secret"};
	for (int hermetic = 0; hermetic < 2; hermetic++) {
		struct sandbox_input in = {0};
		in.workspace_root = ws;
		in.project_dir = proj;
		in.bwrap = "/usr/bin/bwrap";
		in.setsid = "/usr/bin/setsid";
		in.nested_dirs = nested;
		in.n_nested = 2;
		in.allow_read = reads;
		in.n_read = 2;
		in.hermetic = hermetic;
		struct sandbox_request req;
		struct strbuf err = STRBUF_INIT;
		CHECK_INT(sandbox_request_build(&in, &req, &err), 0);
		char *a = at("real/ws/p/src/a.ts"), *secret = at("real/ws/outside-secret"),
		     *dist = at("real/ws/p/dist"), *lib = at("real/ws/q/lib"),
		     *git = at("real/ws/.git"), *sib = at("sibling-of-ws");
		CHECK(sandbox_request_sees(&req, a));
		CHECK(sandbox_request_sees(&req, secret)); /* granted from outside the project */
		CHECK(sandbox_request_sees(&req, dist)); /* the own project: readable (issue 11) */
		CHECK(!sandbox_request_sees(&req, lib)); /* a nested project */
		CHECK(!sandbox_request_sees(&req, git));
		CHECK(!sandbox_request_sees(&req, sib)); /* under the private /tmp */
		CHECK(sandbox_request_sees(&req, "/usr/bin/env"));
		CHECK_INT(sandbox_request_sees(&req, "/var/lib/dpkg"), !hermetic);
		CHECK(!sandbox_request_sees(&req, "relative/path"));
		free(a);
		free(secret);
		free(dist);
		free(lib);
		free(git);
		free(sib);
		sandbox_request_release(&req);
		strbuf_release(&err);
	}
	free(ws);
	free(proj);
	free(q);
}

/* A plan decides and touches nothing; prepare makes it real, and the argv
 * `vx sandbox show` prints of the plan is the one the prepared request runs. */
static void test_plan(void)
{
	char *ws = at("real/ws"), *proj = at("real/ws/p"), *q = at("real/ws/q");
	const char *nested[] = {proj, q};
	const char *reads[] = {"src/"};
	const char *writes[] = {"gen/deep/", "reports/summary.json"};
	struct sandbox_input in = {0};
	in.workspace_root = ws;
	in.project_dir = proj;
	in.bwrap = "/usr/bin/bwrap";
	in.setsid = "/usr/bin/setsid";
	in.nested_dirs = nested;
	in.n_nested = 2;
	in.allow_read = reads;
	in.n_read = 1;
	in.allow_write = writes;
	in.n_write = 2;
	struct sandbox_request req;
	struct strbuf err = STRBUF_INIT, planned = STRBUF_INIT, prepared = STRBUF_INIT;
	char *gen = at("real/ws/p/gen"), *deep = at("real/ws/p/gen/deep"),
	     *reports = at("real/ws/p/reports"), *summary = at("real/ws/p/reports/summary.json");
	CHECK_INT(sandbox_request_plan(&in, &req, &err), 0);
	struct stat st;
	CHECK(lstat(gen, &st) != 0 && lstat(reports, &st) != 0); /* nothing created */
	CHECK(strvec_find(&req.mkdirs, deep) >= 0);
	CHECK(strvec_find(&req.mkdirs, reports) >= 0);
	CHECK_INT(req.files.n, 1);
	CHECK_STR(req.files.v[0], summary);
	CHECK_INT(req.seccomp_fd, -1);
	size_t rw = 0;
	for (size_t i = 0; i < req.mounts.n; i++) {
		CHECK_INT(req.mounts.v[i].fd, -1);
		rw += req.mounts.v[i].kind == SANDBOX_RW;
	}
	CHECK_INT(rw, 2); /* gen/deep, and reports (a FILE grant binds its dir) */
	sandbox_show(&req, "true", &planned);
	CHECK_INT(sandbox_request_prepare(&req, &err), 0);
	CHECK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(stat(summary, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	CHECK_INT(req.placeholders.n, 1);
	CHECK(req.seccomp_fd > 2);
	for (size_t i = 0; i < req.mounts.n; i++)
		if (req.mounts.v[i].kind == SANDBOX_RW)
			CHECK(req.mounts.v[i].fd > 2);
	sandbox_show(&req, "true", &prepared);
	CHECK_STR(prepared.buf, planned.buf);
	CHECK_INT(sandbox_request_sweep(&req), 1);
	sandbox_request_release(&req);
	CHECK(lstat(summary, &st) != 0);
	char *rm = xasprintf("rm -rf '%s' '%s'", gen, reports);
	CHECK_INT(system(rm), 0);
	free(rm);
	free(gen);
	free(deep);
	free(reports);
	free(summary);
	free(ws);
	free(proj);
	free(q);
	strbuf_release(&err);
	strbuf_release(&planned);
	strbuf_release(&prepared);
}

/* PATH entries, and what a toolchain directory on it grants: a bin/ under
 * home brings its install prefix, never home itself. */
static void test_toolchain(void)
{
	const char *s = "rel/bin::/usr/bin:/h/.nvm/versions/node/v20/bin:/h/bin:/opt/x/bin";
	const char *want[] = {"/usr/bin", "/h/.nvm/versions/node/v20/bin", "/h/bin", "/opt/x/bin"};
	size_t n = 0;
	for (char *d; (d = grants_path_next(&s)); n++) {
		if (n < 4)
			CHECK_STR(d, want[n]);
		free(d);
	}
	CHECK_INT(n, 4);
	s = NULL;
	CHECK(grants_path_next(&s) == NULL);
	struct {
		const char *dir, *home, *grant;
	} cases[] = {
	    {"/h/.nvm/versions/node/v20/bin", "/h", "/h/.nvm/versions/node/v20"},
	    {"/h/bin", "/h", "/h/bin"}, /* the prefix would be home: the bin/ alone */
	    {"/h", "/h", "/h"},
	    {"/h/.cargo/tools", "/h", "/h/.cargo/tools"}, /* not a bin/ */
	    {"/opt/x/bin", "/h", "/opt/x/bin"},		  /* not under home */
	    {"/hx/bin/bin", "/h", "/hx/bin/bin"},	  /* a sibling of home's name */
	    {"/opt/x/bin", NULL, "/opt/x/bin"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *g = grants_toolchain_dir(cases[i].dir, cases[i].home);
		CHECK_STR(g, cases[i].grant);
		free(g);
	}
}

/* vx sandbox learn writes an outside grant from above its version or hash. */
static void test_generalised(void)
{
	const char *cases[][2] = {
	    {"~/.local/share/fnm/node-versions/v20.11.1/installation/lib/",
	     "~/.local/share/fnm/node-versions/"},
	    {"/opt/tool/1.2.3-beta.1/bin/x", "/opt/tool/"},
	    {"~/.cache/bazel/_bazel_u/4f2a9c8e1b7d3a60/external/", "~/.cache/bazel/_bazel_u/"},
	    {"~/.cache/tool/", "~/.cache/tool/"},     /* nothing versioned */
	    {"~/v1/x", "~/v1/x"},		      /* never all of home */
	    {"/2.0/x", "/2.0/x"},		      /* nor all of / */
	    {"../../shared/v2/", "../../shared/v2/"}, /* the workspace: as written */
	    {"dist/", "dist/"},
	    {"~/.vdist/deadbeef/x", "~/.vdist/deadbeef/x"},	      /* 8 hex digits: no hash */
	    {"~/.config/abcdefabcdef/x", "~/.config/abcdefabcdef/x"}, /* no digit */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *g = grants_generalised(cases[i][0]);
		CHECK_STR(g, cases[i][1]);
		free(g);
	}
}

/* Issue 40 item 5: the root's own files every task of the workspace reads:
 * the list, regular files only, a .env* only when the task's key names
 * it, a .npmrc only of harmless settings (issue 53 item 6), none for the
 * root project. */
static void test_root_files(void)
{
	CHECK(sandbox_root_file("package.json") && sandbox_root_file("pnpm-lock.yaml") &&
	      sandbox_root_file("turbo.jsonc") && sandbox_root_file(".gitignore") &&
	      sandbox_root_file("tsconfig.json") && sandbox_root_file("tsconfig.base.json") &&
	      sandbox_root_file(".env") && sandbox_root_file(".env.local") &&
	      sandbox_root_file(".npmrc"));
	CHECK(!sandbox_root_file("tsconfig") && !sandbox_root_file("tsconfig.json.bak") &&
	      !sandbox_root_file(".envrc") && !sandbox_root_file("secret.txt") &&
	      !sandbox_root_file(".yarnrc.yml") && !sandbox_root_file(".git"));
	mk("rf/package.json", false);
	mk("rf/.env", false);
	mk("rf/.env.keys", false);
	mk("rf/notes.txt", false);
	mk("rf/tsconfig.json", true); /* a directory of that name */
	mk("rf/app", true);
	char *ws = at("rf"), *app = at("rf/app"), *link = at("rf/.env.local");
	if (symlink("../home/.ssh/id_rsa", link))
		die_errno("symlink");
	struct strvec out = STRVEC_INIT;
	sandbox_root_files(ws, app, NULL, 0, &out); /* no .env named */
	CHECK_INT(out.n, 1);
	CHECK(out.n == 1 && !strcmp(path_basename(out.v[0]), "package.json"));
	strvec_clear(&out);
	const char *named[] = {".env", "tsconfig.json"};
	sandbox_root_files(ws, app, named, 2, &out); /* .env.keys is not named */
	CHECK_INT(out.n, 2);
	CHECK(out.n == 2 && !strcmp(path_basename(out.v[0]), ".env") &&
	      !strcmp(path_basename(out.v[1]), "package.json"));
	strvec_clear(&out);
	const char *glob[] = {".env*"};
	sandbox_root_files(ws, app, glob, 1, &out); /* .env.local is a link: never */
	CHECK_INT(out.n, 3);
	CHECK(out.n == 3 && !strcmp(path_basename(out.v[1]), ".env.keys"));
	strvec_clear(&out);
	const char *npmrc[][2] = {
	    {"registry=https://r.example/\n", "shown"},
	    {"# team\n\n; pnpm\n  auto-install-peers = true\r\n@acme:registry=https://a.example/\n"
	     "public-hoist-pattern[]=*eslint*\nsave-exact=true",
	     "shown"},
	    {"", "shown"},
	    {"//r.example/:_authToken=${NPM_TOKEN}\n", "hidden"},
	    {"//r.example/:_authToken = npm_abc\n", "hidden"},
	    {"registry=x\n_auth=dXNlcjpwYXNz\n", "hidden"},
	    {"//r.example/:_password=cGFzcw==\n", "hidden"},
	    {"registry=https://r.example/\nkey=-----BEGIN PRIVATE KEY-----\n", "hidden"},
	    {"cert=x\n", "hidden"},
	    {"keyfile=/k\n", "hidden"},
	    {"cafile=/k\n", "hidden"},
	    {"email=a@b.example\n", "hidden"},
	    {"username=me\n", "hidden"},
	    {"always-auth=true\n", "hidden"},
	    {"registry=https://me:tok@r.example/\n", "hidden"},
	    {"@acme/x:registry=https://a.example/\n", "hidden"},
	    {"[section]\nregistry=x\n", "hidden"},
	    {"registry\n", "hidden"},
	    {"script-shell=/bin/evil\n", "hidden"},
	};
	for (size_t i = 0; i < sizeof npmrc / sizeof *npmrc; i++) {
		fixture_write(ws, ".npmrc", npmrc[i][0]);
		sandbox_root_files(ws, app, NULL, 0, &out);
		bool shown = false;
		for (size_t k = 0; k < out.n; k++)
			shown |= !strcmp(path_basename(out.v[k]), ".npmrc");
		if (shown != !strcmp(npmrc[i][1], "shown"))
			fprintf(stderr, "npmrc %zu: %s\n", i, npmrc[i][0]);
		CHECK(shown == !strcmp(npmrc[i][1], "shown"));
		strvec_clear(&out);
	}
	sandbox_root_files(ws, ws, named, 2, &out); /* the root project reads its own */
	CHECK_INT(out.n, 0);
	free(ws);
	free(app);
	free(link);
}

int main(void)
{
	char tmpl[] = "/tmp/vx-grants-XXXXXX";
	if (!mkdtemp(tmpl))
		die_errno("mkdtemp");
	root = realpath(tmpl, NULL);
	mk("real/ws/p/src/a.ts", false);
	mk("real/ws/p/src/b.ts", false);
	mk("real/ws/p/dist", true);
	mk("real/ws/q/lib", true);
	mk("real/ws/outside-secret", false);
	mk("home/.ssh/id_rsa", false);
	mk("real/ws/.git", true);
	char *l = at("link"), *esc = at("real/ws/p/src/esc.ts"), *out = at("real/ws/p/out.txt");
	if (symlink("real/ws", l) || symlink("../../outside-secret", esc) || symlink("../q/x", out))
		die_errno("symlink");
	test_resolve();
	test_canonical();
	test_walls();
	test_refusals();
	test_sees();
	test_plan();
	test_toolchain();
	test_root_files();
	test_generalised();
	char *rm = xasprintf("rm -rf '%s'", root);
	if (system(rm))
		return 1;
	free(rm);
	free(l);
	free(esc);
	free(out);
	free(root);
	return check_finish("sandbox grants");
}
