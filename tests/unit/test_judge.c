/* Unit tests for violations/judge.c and report.c: each rule of the judge on
 * a hand-written strace log against a real temporary tree (ENOENT counts
 * only for a path that exists on the host), ignore matching, fix spelling. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "violations/seatbelt_log.h"
#include "fixture.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/fix.h"
#include "violations/judge.h"
#include "violations/report.h"

static char root[64], proj[128], logp[160];

/* The host the judge is told of: a table, no file (issue 58 item 3: the
 * judge asks the host nothing behind the facts' back). Only the log, the
 * trace itself, is a file. */
static struct judge_host_table host;

/* root/rel is a regular file on the host, and its directories are there. */
static void host_file(const char *rel)
{
	char *p = path_join(root, rel);
	judge_host_table_put(&host, p, JUDGE_FILE, NULL, -1);
	free(p);
}

static void judge(const char *log, const struct judge_input *in, struct verdict *v)
{
	FILE *f = fopen(logp, "w");
	fputs(log, f);
	fclose(f);
	CHECK(judge_trace(in, logp, v) == 0);
}

static struct judge_input input(void)
{
	struct judge_input in = {.project_dir = proj,
				 .workspace_root = root,
				 .home = "/home/u",
				 .tmpdir = "/tmp",
				 .host = &host.host};
	return in;
}

#define EXIT "2 +++ exited with 0 +++\n"

static bool has_violation(const struct verdict *v, bool write, const char *suffix)
{
	for (size_t i = 0; i < v->violations.n; i++) {
		const char *p = v->violations.v[i].path;
		size_t n = strlen(p), m = strlen(suffix);
		if ((v->violations.v[i].op == VIOLATION_WRITE) == write && n >= m &&
		    !strcmp(p + n - m, suffix))
			return true;
	}
	return false;
}

static bool sees_nothing(const char *path, void *ctx)
{
	(void)path;
	return ctx != NULL;
}

static const struct judge_note *note_of(const struct verdict *v, const char *kind)
{
	for (size_t i = 0; i < v->notes.n; i++)
		if (!strcmp(v->notes.v[i].kind, kind))
			return &v->notes.v[i];
	return NULL;
}

/* The notes: each kind, its grant spelled as a committed vx.yaml spells it,
 * never a grant into a credential store. A workspace of its own (w/), with
 * home beside it (h/), and a TMPDIR elsewhere: the fixture lies in /tmp. */
static void test_notes(void)
{
	char ws[160], app[192], home[160], dist[224], log[4096];
	snprintf(ws, sizeof ws, "%s/w", root);
	snprintf(app, sizeof app, "%s/app", ws);
	snprintf(home, sizeof home, "%s/h", root);
	snprintf(dist, sizeof dist, "%s/dist", app);
	host_file("w/app/tsconfig.json");
	host_file("w/app/dist/a");
	host_file("w/app/src/x");
	host_file("w/shared/cfg.json");
	host_file("w/.git/HEAD");
	host_file("h/.ssh/id_rsa");
	host_file("h/notes/x");
	struct judge_input in = {.project_dir = app,
				 .workspace_root = ws,
				 .home = home,
				 .tmpdir = "/nonexistent-tmp",
				 .host = &host.host};
	struct verdict v;

	snprintf(
	    log, sizeof log,
	    "2 openat(AT_FDCWD, \"%s/.ssh/id_rsa\", O_RDONLY) = -1 ENOENT (No such file or "
	    "directory)\n"
	    "2 openat(AT_FDCWD, \"%s/notes/x\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
	    "2 openat(AT_FDCWD, \"../shared/cfg.json\", O_RDONLY) = -1 ENOENT (No such file or "
	    "directory)\n"
	    "2 openat(AT_FDCWD, \"../other/out\", O_WRONLY|O_CREAT, 0666) = -1 EROFS (Read-only "
	    "file system)\n"
	    "2 openat(AT_FDCWD, \"/var/tmp/t\", O_WRONLY|O_CREAT, 0666) = -1 EROFS (Read-only file "
	    "system)\n" EXIT,
	    home, home);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	CHECK_INT(v.notes.n, 5);
	if (v.notes.n == 5) {
		CHECK_STR(
		    v.notes.v[0].text,
		    "a read of ~/.ssh/id_rsa was refused: it lies in ~/.ssh, a credential store, "
		    "which vx never grants to a task");
		CHECK_STR(
		    v.notes.v[1].text,
		    "a read outside the project was refused: ~/notes/x exists on the host and "
		    "the sandbox hides it; grant it with allow.read: [\"~/notes/x\"]");
		CHECK_STR(v.notes.v[2].text,
			  "a read outside the project was refused: shared/cfg.json exists on the "
			  "host and the sandbox hides it; grant it with allow.read: "
			  "[\"../shared/cfg.json\"]");
		CHECK_STR(v.notes.v[3].text,
			  "a write outside the project was refused: other/out; grant it with "
			  "allow.write: [\"../other/\"]");
		CHECK(strstr(v.notes.v[4].text, "write under $TMPDIR") != NULL);
		CHECK(strstr(v.notes.v[4].text, "allow.write: [\"/var/tmp/\"]") != NULL);
	}
	verdict_release(&v);
	/* a cached task is told to key a granted read from the workspace, not
	 * one from home (the workspace's inputs cannot name it) */
	in.cached = true;
	judge(log, &in, &v);
	CHECK_INT(v.notes.n, 5);
	if (v.notes.n == 5) {
		CHECK(strstr(v.notes.v[1].text, "inputs.workspaceFiles") == NULL);
		CHECK(strstr(v.notes.v[2].text,
			     "allow.read: [\"../shared/cfg.json\"]; key it too: "
			     "inputs.workspaceFiles: [\"shared/cfg.json\"]") != NULL);
	}
	verdict_release(&v);
	/* a name that is a pattern: the note's entries quoted as a vx.yaml
	 * reads them back as this very file (a fix's list, fix_text): the
	 * key was the name raw ("shared/[id].js" keys "shared/i.js" and
	 * "shared/d.js", not the file read), the grant's backslashes inside
	 * double quotes (an escape YAML refuses) */
	host_file("w/shared/[id].js");
	char log2[512];
	snprintf(log2, sizeof log2,
		 "2 openat(AT_FDCWD, \"../shared/[id].js\", O_RDONLY) = -1 ENOENT (No such file or "
		 "directory)\n" EXIT);
	judge(log2, &in, &v);
	CHECK_INT(v.notes.n, 1);
	CHECK_STR(
	    v.notes.n ? v.notes.v[0].text : "",
	    "a read outside the project was refused: shared/[id].js exists on the host and "
	    "the sandbox hides it; grant it with allow.read: [\"../shared/\\\\[id\\\\].js\"]; "
	    "key it too: inputs.workspaceFiles: [\"shared/\\\\[id\\\\].js\"]");
	verdict_release(&v);
	/* the task failed (issue 40): the refusals a fix can open are
	 * violations with their fixes, not notes; the credential store, the
	 * read outside the workspace and the /var/tmp temp file stay notes */
	in.failed = true;
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	CHECK_INT(v.notes.n, 3);
	CHECK_INT(v.fix_read.n, 1);
	CHECK_STR(v.fix_read.n ? v.fix_read.v[0] : "", "../shared/cfg.json");
	CHECK_INT(v.fix_write.n, 1);
	CHECK_STR(v.fix_write.n ? v.fix_write.v[0] : "", "../other/");
	CHECK_INT(v.fix_workspace_inputs.n, 1);
	CHECK_STR(v.fix_workspace_inputs.n ? v.fix_workspace_inputs.v[0] : "", "shared/cfg.json");
	for (size_t k = 0; k < v.notes.n; k++)
		CHECK(strstr(v.notes.v[k].text, "shared/cfg.json") == NULL);
	verdict_release(&v);
	in.failed = false;
	in.cached = false;

	/* rm -rf of a grant root: a note (EBUSY or EROFS); rmdir of another dir
	 * inside the project stays a violation */
	const char *roots[] = {dist};
	in.write_roots = roots;
	in.n_write_roots = 1;
	snprintf(
	    log, sizeof log,
	    "2 unlinkat(AT_FDCWD, \"dist\", AT_REMOVEDIR) = -1 EBUSY (Device or resource busy)\n"
	    "2 rename(\"dist\", \"old\") = -1 EROFS (Read-only file system)\n"
	    "2 unlinkat(AT_FDCWD, \"src\", AT_REMOVEDIR) = -1 EROFS (Read-only file "
	    "system)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2); /* the new name of the rename is refused in its own right */
	CHECK(has_violation(&v, true, "/app/src"));
	CHECK(has_violation(&v, true, "/app/old"));
	const struct judge_note *n = note_of(&v, "grant-root-busy");
	CHECK(n && strstr(n->text, "empty it instead (rm -rf dist/*, not rm -rf dist)"));
	CHECK_INT(v.notes.n, 1);
	verdict_release(&v);
	in.n_write_roots = 0;

	/* a write grant that named nothing, never written */
	char ph[256];
	snprintf(ph, sizeof ph, "%s/gen/out", app);
	struct sandbox_placeholder unwritten = {ph, 0, 0, {0, 0}, true};
	in.placeholders = &unwritten;
	in.n_placeholders = 1;
	judge(EXIT, &in, &v);
	n = note_of(&v, "unwritten-grant");
	CHECK(
	    n &&
	    !strcmp(n->text,
		    "write grant \"gen/out\" named nothing that existed, so vx bound an empty "
		    "file there, and the task never wrote it; if gen/out is a directory, spell it "
		    "\"gen/out/\""));
	verdict_release(&v);
	/* written (or no longer the file vx made): no note */
	unwritten.untouched = false;
	judge(EXIT, &in, &v);
	CHECK(note_of(&v, "unwritten-grant") == NULL);
	verdict_release(&v);
	in.n_placeholders = 0;

	/* git without its repository: the workspace's .git is walled on purpose */
	const char *git_out =
	    "fatal: not a git repository (or any of the parent directories): .git\n";
	in.output = git_out;
	in.output_len = strlen(git_out);
	judge(EXIT, &in, &v);
	n = note_of(&v, "not-a-git-repository");
	CHECK(n && strstr(n->text, "git found no repository: .git is walled on purpose"));
	verdict_release(&v);

	/* the last line names a path: a note when it exists and is hidden; a
	 * missing one, a shown one, or a line before the last: none */
	const char *tsc =
	    "src/x is fine\nerror TS5058: The specified path does not exist: 'tsconfig.json'.\n\n";
	in.output = tsc;
	in.output_len = strlen(tsc);
	in.sees = sees_nothing;
	judge(EXIT, &in, &v);
	CHECK_INT(v.notes.n, 1);
	n = note_of(&v, "hidden-path-in-output");
	CHECK(n &&
	      strstr(n->text,
		     "names app/tsconfig.json, which exists on the host and the sandbox hides") &&
	      strstr(n->text, "allow.read: [\"tsconfig.json\"]"));
	verdict_release(&v);
	in.sees_ctx = (void *)1; /* shown */
	judge(EXIT, &in, &v);
	CHECK_INT(v.notes.n, 0);
	verdict_release(&v);
	/* the task writes that line: only its first 64 words are looked up */
	struct strbuf big = STRBUF_INIT;
	for (int k = 0; k < 100; k++)
		strbuf_addstr(&big, "no/such/path ");
	strbuf_addstr(&big, "tsconfig.json\n");
	in.output = big.buf;
	in.output_len = big.len;
	judge(EXIT, &in, &v);
	CHECK_INT(v.notes.n, 0);
	verdict_release(&v);
	strbuf_release(&big);
	const char *missing = "error: cannot find ./nothing/here.ts or https://x.org/a.b\n";
	in.output = missing;
	in.output_len = strlen(missing);
	in.sees_ctx = NULL;
	judge(EXIT, &in, &v);
	CHECK_INT(v.notes.n, 0);
	verdict_release(&v);
}

static bool allows_npm(const char *host, void *ctx)
{
	return !strcmp(host, "registry.npmjs.org");
}

static bool listens_5173(int port)
{
	return port == 5173 || port == 8080;
}

/* Issue 14: what a failed task's output says about the network gets a note
 * naming the host or the port and the grant. */
static void test_network_notes(void)
{
	struct judge_input in = input();
	struct verdict v;
	/* Node's fetch with no proxy of its own, an allowed host: it ignored the proxy */
	const char *node = "TypeError: fetch failed\n  [cause]: Error: getaddrinfo ENOTFOUND "
			   "registry.npmjs.org\n      at GetAddrInfoReqWrap.onlookup\n";
	in.output = node;
	in.output_len = strlen(node);
	in.net_allowed = allows_npm;
	judge(EXIT, &in, &v);
	const struct judge_note *n = note_of(&v, "unresolved-name");
	CHECK(n && !strcmp(n->path, "registry.npmjs.org") &&
	      strstr(n->text, "registry.npmjs.org did not resolve, and allow.network allows it: "
			      "this client resolves names itself and does not use the proxy"));
	verdict_release(&v);
	/* curl, a host not granted: the grant */
	const char *curl = "curl: (6) Could not resolve host: fonts.googleapis.com\n";
	in.output = curl;
	in.output_len = strlen(curl);
	judge(EXIT, &in, &v);
	n = note_of(&v, "unresolved-name");
	CHECK(n &&
	      strstr(n->text, "fonts.googleapis.com did not resolve: a sandboxed task has no "
			      "DNS") &&
	      strstr(n->text, "allow.network: [\"fonts.googleapis.com\"]"));
	CHECK_INT(v.notes.n, 1);
	/* words for a person, never fix data (issue 53 item 4) */
	CHECK_INT(v.fix_network.n, 0);
	verdict_release(&v);
	/* issue 54 item 7: the trace's query names the host: a violation, and
	 * the output's note on the same host is not repeated; an allowed host
	 * looked up by the client itself says the proxy resolves it; localhost
	 * and ignore.network are no violation */
	in.output = curl;
	in.output_len = strlen(curl);
	judge(
	    "2 sendto(3, "
	    "\"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\5fonts\\ngoogleapis\\3com\\0\\0\\1\\0\\1\", "
	    "37, MSG_NOSIGNAL, NULL, 0) = 37\n"
	    "2 sendto(3, "
	    "\"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\10registry\\5npmjs\\3org\\0\\0\\1\\0\\1\", "
	    "36, MSG_NOSIGNAL, NULL, 0) = 36\n"
	    "2 sendto(3, \"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\tlocalhost\\0\\0\\1\\0\\1\", 27, "
	    "MSG_NOSIGNAL, NULL, 0) = 27\n"
	    "2 sendto(3, "
	    "\"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\3web\\tlocalhost\\0\\0\\1\\0\\1\", 31, "
	    "MSG_NOSIGNAL, NULL, 0) = 31\n" EXIT,
	    &in, &v);
	CHECK_INT(v.violations.n, 2);
	CHECK(v.needs_network);
	CHECK_INT(v.fix_network.n, 0);
	/* one note per host, from the trace (the output's is not repeated) */
	n = note_of(&v, "unresolved-name");
	CHECK(n && !strcmp(n->path, "fonts.googleapis.com") &&
	      strstr(n->text, "the task looked fonts.googleapis.com up itself: a sandboxed task "
			      "has no DNS") &&
	      strstr(n->text, "allow.network: [\"fonts.googleapis.com\"]"));
	CHECK_INT(v.notes.n, 2); /* and registry.npmjs.org's */
	if (v.violations.n == 2) {
		CHECK(v.violations.v[0].op == VIOLATION_NETWORK &&
		      !strcmp(v.violations.v[0].path, "fonts.googleapis.com"));
		CHECK(strstr(v.violations.v[1].reason, "which allow.network cannot grant"));
		struct strbuf out = STRBUF_INIT;
		report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
		CHECK(strstr(out.buf, "app#build: violation: network fonts.googleapis.com (a DNS "
				      "lookup of its own: a sandboxed task has no DNS)\n") != NULL);
		strbuf_release(&out);
	}
	verdict_release(&v);
	const char *quiet[] = {"*.googleapis.com", "registry.npmjs.org"};
	in.ignore_network = quiet;
	in.n_ignore_network = 2;
	judge("2 sendto(3, "
	      "\"\\1\\2\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\5fonts\\ngoogleapis\\3com\\0\\0\\1\\0\\1\", "
	      "37, MSG_NOSIGNAL, NULL, 0) = 37\n" EXIT,
	      &in, &v);
	CHECK_INT(v.violations.n, 0);
	CHECK(!v.needs_network);
	verdict_release(&v);
	in.n_ignore_network = 0;
	/* issue 54 item 7: a package npx fetches as the task runs is a note
	 * naming it, and the registry leaves the fix; without an installer,
	 * the registry stays (npm install in a task is the person's call) */
	{
		struct verdict w;
		const char *npm = "npm error code E403\nnpm error 403 403 Forbidden - GET "
				  "https://registry.npmjs.org/@tailwindcss%2fcli\n";
		in.output = npm;
		in.output_len = strlen(npm);
		memset(&w, 0, sizeof w);
		strvec_push(&w.fix_network, "example.com");
		strvec_push(&w.fix_network, "registry.npmjs.org");
		judge_installs(&in, &w);
		CHECK_INT(w.fix_network.n, 2); /* nothing says a tool installs it */
		strvec_push(&w.execs, "/usr/lib/node_modules/npm/bin/npx-cli.js");
		judge_installs(&in, &w);
		CHECK_INT(w.fix_network.n, 1);
		CHECK(w.fix_network.n == 1 && !strcmp(w.fix_network.v[0], "example.com"));
		n = note_of(&w, "installs-at-build");
		CHECK(n && !strcmp(n->path, "@tailwindcss/cli") &&
		      strstr(n->text, "the task installs @tailwindcss/cli from the npm registry as "
				      "it runs") &&
		      strstr(n->text, "npm install -D @tailwindcss/cli"));
		verdict_release(&w);
		/* pnpm dlx, by its word; the tarball's URL names the package */
		const char *pnpm =
		    "$ pnpm dlx cowsay hi\n ERR_PNPM_FETCH_403  GET "
		    "https://registry.npmjs.org/cowsay/-/cowsay-1.6.0.tgz: Forbidden\n";
		in.output = pnpm;
		in.output_len = strlen(pnpm);
		memset(&w, 0, sizeof w);
		strvec_push(&w.fix_network, "registry.npmjs.org");
		judge_installs(&in, &w);
		CHECK_INT(w.fix_network.n, 0);
		n = note_of(&w, "installs-at-build");
		CHECK(n && !strcmp(n->path, "cowsay"));
		verdict_release(&w);
		/* a URL that names no package as npm allows one: no name, still the note */
		const char *odd = "npx failed: GET https://registry.npmjs.org/%2e%2e/x\n";
		in.output = odd;
		in.output_len = strlen(odd);
		memset(&w, 0, sizeof w);
		strvec_push(&w.fix_network, "registry.npmjs.org");
		judge_installs(&in, &w);
		n = note_of(&w, "installs-at-build");
		CHECK(n && !strcmp(n->path, "") && strstr(n->text, "installs a package"));
		verdict_release(&w);
		in.output = curl;
		in.output_len = strlen(curl);
	}
	/* python names no host */
	const char *py = "socket.gaierror: [Errno -3] Temporary failure in name resolution\n";
	in.output = py;
	in.output_len = strlen(py);
	judge(EXIT, &in, &v);
	n = note_of(&v, "unresolved-name");
	CHECK(n && !strcmp(n->path, "") && strstr(n->text, "a name did not resolve"));
	verdict_release(&v);

	/* a loopback port refused, which the host listens on: the relay grant */
	const char *refused =
	    "Error: connect ECONNREFUSED 127.0.0.1:5173\n"
	    "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect\n"
	    "Error: connect ECONNREFUSED 127.0.0.1:9999\n"
	    "Error: connect ECONNREFUSED 10.0.0.1:5173\n";
	in.output = refused;
	in.output_len = strlen(refused);
	in.host_listens = listens_5173;
	judge(EXIT, &in, &v);
	CHECK_INT(v.notes.n, 2); /* 9999: the host does not listen; 10.0.0.1: not loopback */
	n = note_of(&v, "refused-loopback-port");
	CHECK(n && !strcmp(n->path, "127.0.0.1:5173") &&
	      strstr(n->text, "localhost port 5173 refused it; the host listens there") &&
	      strstr(n->text, "allow.network: [\"localhost:5173\"]"));
	CHECK(v.notes.n == 2 && !strcmp(v.notes.v[1].path, "127.0.0.1:8080"));
	verdict_release(&v);
	/* Chrome's refusal with its URL on the line; a port the task relays: none */
	const char *chrome = "page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:5173/\n"
			     "Error: connect ECONNREFUSED [::1]:8080\n";
	in.output = chrome;
	in.output_len = strlen(chrome);
	const int relayed[] = {8080};
	in.relay_ports = relayed;
	in.n_relay_ports = 1;
	judge(EXIT, &in, &v);
	CHECK_INT(v.notes.n, 1);
	CHECK(v.notes.n == 1 && !strcmp(v.notes.v[0].path, "127.0.0.1:5173"));
	verdict_release(&v);
	/* a port it bridges out (localBinding) is its own too */
	in.n_relay_ports = 0;
	in.bound_ports = relayed;
	in.n_bound_ports = 1;
	judge(EXIT, &in, &v);
	CHECK_INT(v.notes.n, 1);
	CHECK(v.notes.n == 1 && !strcmp(v.notes.v[0].path, "127.0.0.1:5173"));
	verdict_release(&v);
}

/* Issue 11: ENOENT of a path the sandbox shows (a write grant) is plain
 * absence at that moment, though the task made the file later: make's
 * readlink of build/add.o before gcc wrote it was a violation. */
static bool sees_build(const char *path, void *ctx)
{
	return strstr(path, "/app/build") != NULL;
}

static void test_shown_absence(void)
{
	host_file("app/build/add.o");
	host_file("app/hidden.txt");
	struct judge_input in = input();
	in.sees = sees_build;
	struct verdict v;
	judge("2 readlink(\"build/add.o\", 0x7ffd, 1023) = -1 ENOENT (No such file or directory)\n"
	      "2 mkdir(\"build/sub\", 0777) = -1 ENOENT (No such file or directory)\n"
	      "2 openat(AT_FDCWD, \"hidden.txt\", O_RDONLY) = -1 ENOENT (No such file or "
	      "directory)\n" EXIT,
	      &in, &v);
	CHECK_INT(v.violations.n, 1);
	CHECK(has_violation(&v, false, "/app/hidden.txt"));
	verdict_release(&v);
	/* without the model (sees unknown), the host decides as before */
	in.sees = NULL;
	judge("2 readlink(\"build/add.o\", 0x7ffd, 1023) = -1 ENOENT (No such file or "
	      "directory)\n" EXIT,
	      &in, &v);
	CHECK_INT(v.violations.n, 1);
	verdict_release(&v);
}

/* A refusal inside .git (a wall no grant opens) is a violation with no
 * fix: vx would refuse a grant there; a note says why. */
static void test_walled(void)
{
	host_file("app/.git/config");
	struct judge_input in = input();
	char *git = xasprintf("%s/.git", proj);
	struct wall w = {git, WALL_GIT};
	in.walls = &w;
	in.n_walls = 1;
	struct verdict v;
	judge("2 openat(AT_FDCWD, \".git/config\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS "
	      "(Read-only file system)\n" EXIT,
	      &in, &v);
	CHECK_INT(v.violations.n, 1);
	CHECK_INT(v.fix_write.n, 0);
	const struct judge_note *n = note_of(&v, "walled");
	CHECK(n && strstr(n->text, "the git repository"));
	verdict_release(&v);
	free(git);
}

/* SPEC §4 read-unkeyed: a cached task reads a project file its key does
 * not hold (the project is readable now, so the key must answer for it). */
static void test_unkeyed(void)
{
	host_file("app/node_modules/x/index.js");
	host_file("app/dist/old.js");
	char *dist = xasprintf("%s/dist", proj);
	const char *roots[] = {dist};
	const char *keyed[] = {"app/src/a.txt"};
	struct judge_input in = input();
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 1;
	in.write_roots = roots;
	in.n_write_roots = 1;
	in.externals_keyed = true; /* a lockfile keys node_modules */
	const char *log =
	    "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"src/a.txt\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"src\", O_RDONLY|O_DIRECTORY) = 3\n"
	    "2 openat(AT_FDCWD, \"node_modules/x/index.js\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"dist/old.js\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
	    "2 openat(AT_FDCWD, \"dist/old.js\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY) = 3\n" EXIT;
	struct verdict v;
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 1);
	CHECK(v.violations.n == 1 && v.violations.v[0].op == VIOLATION_READ_UNKEYED &&
	      !v.violations.v[0].err);
	CHECK(has_violation(&v, false, "/app/notes.txt"));
	CHECK_INT(v.fix_read.n, 0); /* readable already: only the key is missing */
	CHECK_INT(v.fix_workspace_inputs.n, 1);
	CHECK_STR(v.fix_workspace_inputs.n ? v.fix_workspace_inputs.v[0] : "", "app/notes.txt");
	struct strbuf out = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
	CHECK(strstr(out.buf, "app#build: violation: read-unkeyed app/notes.txt (openat, read, and "
			      "not in the task's cache key)\n") != NULL);
	CHECK(strstr(out.buf, "tasks.build.inputs.workspaceFiles: [\"app/notes.txt\"]") != NULL);
	strbuf_release(&out);
	verdict_release(&v);
	/* explicit inputs: the fix is an inputs.files entry */
	in.inputs_explicit = true;
	judge(log, &in, &v);
	CHECK_INT(v.fix_inputs.n, 1);
	CHECK_INT(v.fix_workspace_inputs.n, 0);
	verdict_release(&v);
	/* what another task of the project makes (issue 40): still a
	 * violation, never keyed by the fix, the note names dependsOn */
	struct judge_other_output others[] = {{"lint", "*.txt", false}};
	in.other_outputs = others;
	in.n_other_outputs = 1;
	judge(log, &in, &v);
	CHECK(has_violation(&v, false, "/app/notes.txt"));
	CHECK_INT(v.fix_inputs.n, 0);
	const struct judge_note *other = note_of(&v, "other-task-output");
	CHECK(other && strstr(other->text, "notes.txt is what this project's task lint makes") &&
	      strstr(other->text, "add dependsOn: [\"lint\"]"));
	verdict_release(&v);
	/* issue 54 item 8: lint depends on this task, so the edge is a cycle */
	others[0].cycle = true;
	judge(log, &in, &v);
	other = note_of(&v, "other-task-output");
	CHECK(other && !strstr(other->text, "dependsOn") &&
	      strstr(other->text, "an edge to it would be a cycle (lint depends on this task)"));
	verdict_release(&v);
	in.n_other_outputs = 0;
	/* not cached (keyed NULL): nothing to answer for */
	in.keyed = NULL;
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	free(dist);
}

/* Issue 37 item 5: in a write grant only what the task made in this run
 * (or the empty file vx made for a file grant) is exempt; what an earlier
 * run left there is judged, one violation per ignore.read entry. */
static void test_leftover(void)
{
	host_file("app/dist/old.js");
	host_file("app/dist/cache/a");
	host_file("app/dist/cache/b");
	host_file("app/dist/gen/x.js");
	host_file("app/dist/moved/y.js");
	host_file("app/src/a.txt");
	host_file("app/info");
	char *dist = xasprintf("%s/dist", proj), *info = xasprintf("%s/info", proj);
	const char *roots[] = {dist, info};
	const char *keyed[] = {"app/src/a.txt"};
	struct sandbox_placeholder ph = {info, 0, 0, {0, 0}, false};
	struct judge_input in = input();
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 1;
	in.write_roots = roots;
	in.n_write_roots = 2;
	in.placeholders = &ph;
	in.n_placeholders = 1;
	const char *log =
	    "2 openat(AT_FDCWD, \"dist/old.js\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"dist/old.js\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
	    "2 openat(AT_FDCWD, \"dist/cache/a\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"dist/cache/b\", O_RDONLY) = 3\n"
	    "2 mkdir(\"dist/gen\", 0755) = 0\n"
	    "2 openat(AT_FDCWD, \"dist/gen/x.js\", O_RDONLY) = 3\n"
	    "2 rename(\"tmp1\", \"dist/moved\") = 0\n"
	    "2 openat(AT_FDCWD, \"dist/moved/y.js\", O_RDONLY) = 3\n"
	    "2 openat(AT_FDCWD, \"info\", O_RDONLY) = 3\n" EXIT;
	struct verdict v;
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	CHECK(has_violation(&v, false, "/app/dist/old.js")); /* read before it was written */
	CHECK(has_violation(&v, false, "/app/dist/cache/a"));
	CHECK(!has_violation(&v, false, "/app/dist/cache/b")); /* one per entry */
	CHECK_INT(v.fix_ignore_read.n, 2);
	CHECK_STR(v.fix_ignore_read.n > 0 ? v.fix_ignore_read.v[0] : "", "dist/old.js");
	CHECK_STR(v.fix_ignore_read.n > 1 ? v.fix_ignore_read.v[1] : "", "dist/cache/");
	CHECK_INT(v.fix_inputs.n + v.fix_workspace_inputs.n, 0); /* an output is no input */
	CHECK(note_of(&v, "leftover") != NULL);
	struct strbuf out = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
	CHECK(strstr(out.buf,
		     "tasks.build.sandbox.ignore.read: [\"dist/old.js\", \"dist/cache/\"]") !=
	      NULL);
	strbuf_release(&out);
	verdict_release(&v);
	/* vouched for: the report leaves them out */
	const char *ig[] = {"dist/old.js", "dist/cache/"};
	in.ignore_read = ig;
	in.n_ignore_read = 2;
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	/* the key holds it: a source under write: ["./"] is no leftover */
	in.n_ignore_read = 0;
	const char *proot[] = {proj};
	in.write_roots = proot;
	in.n_write_roots = 1;
	judge("2 openat(AT_FDCWD, \"src/a.txt\", O_RDONLY) = 3\n" EXIT, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	free(dist);
	free(info);
}

/* Issue 38 item 9 (SPEC §5): op exec was never emitted, the violation's op
 * being three booleans: a refused execve read "read", a program run that
 * the key does not hold "read-unkeyed", and SARIF had no vx/sandbox-exec. */
static void test_exec_op(void)
{
	host_file("app/bin/tool");
	host_file("app/secret/run");
	const char *keyed[] = {"app/src/a.txt"};
	struct judge_input in = input();
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 1;
	const char *log =
	    "2 execve(\"/w-nowhere/app/secret/run\", [\"run\"], 0x0 /* 1 var */) = -1 ENOENT "
	    "(No such file or directory)\n"
	    "2 execve(\"bin/tool\", [\"tool\"], 0x0 /* 1 var */) = 0\n" EXIT;
	char *refused = xasprintf("%s/secret/run", proj);
	struct strbuf l = STRBUF_INIT;
	strbuf_addf(&l,
		    "2 execve(\"%s\", [\"run\"], 0x0 /* 1 var */) = -1 ENOENT (No such file or "
		    "directory)\n%s",
		    refused, strchr(log, '\n') + 1);
	struct verdict v;
	judge(l.buf, &in, &v);
	CHECK_INT(v.violations.n, 2);
	for (size_t i = 0; i < v.violations.n; i++)
		CHECK_INT(v.violations.v[i].op, VIOLATION_EXEC);
	CHECK(v.violations.n == 2 && v.violations.v[0].err == ENOENT &&
	      !violation_unkeyed(&v.violations.v[0]));
	CHECK(v.violations.n == 2 && !v.violations.v[1].err &&
	      violation_unkeyed(&v.violations.v[1]));
	struct strbuf out = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
	CHECK(strstr(out.buf, "violation: exec app/secret/run (execve ENOENT)") != NULL);
	CHECK(strstr(out.buf, "violation: exec app/bin/tool (execve, read, and not in the task's "
			      "cache key)") != NULL);
	strbuf_reset(&out);
	struct task_report tr = {.id = "app#build",
				 .project = "app",
				 .task = "build",
				 .name = "app",
				 .status = "failed",
				 .cache = "miss",
				 .key = "k",
				 .yaml = "app/vx.yaml",
				 .line = 3,
				 .col = 5,
				 .in = &in,
				 .v = &v};
	report_json(&tr, 1, &out);
	CHECK(strstr(out.buf, "\"op\":\t\"exec\"") != NULL); /* cJSON_Print's tab */
	strbuf_reset(&out);
	report_sarif(&tr, 1, &out);
	CHECK(strstr(out.buf, "\"ruleId\":\t\"vx/sandbox-exec\"") != NULL);
	CHECK(strstr(out.buf, "fullDescription") != NULL && strstr(out.buf, "\"help\"") != NULL);
	strbuf_release(&out);
	strbuf_release(&l);
	verdict_release(&v);
	free(refused);
}

/* Issue 19: one judge, two feeds. The same refusals as strace shows them
 * in the Linux sandbox and as Seatbelt's records report them give the
 * same violations and the same fix. */
static void test_two_feeds(void)
{
	host_file("app/vendor/notes.txt");
	struct judge_input in = input();
	char *vendor = xasprintf("%s/vendor/notes.txt", proj), *out = xasprintf("%s/out.o", proj);
	char *log = xasprintf(
	    "2 openat(AT_FDCWD, \"%s\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
	    "2 openat(AT_FDCWD, \"%s\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = -1 EROFS (Read-only file "
	    "system)\n" EXIT,
	    vendor, out);
	struct verdict a, b;
	judge(log, &in, &a);
	char *lines[2] = {xasprintf("Sandbox: cat(2) deny(1) file-read-data %s", vendor),
			  xasprintf("Sandbox: cc(2) deny(1) file-write-create %s", out)};
	struct access_event ev[2];
	size_t n = 0;
	for (size_t i = 0; i < 2; i++) {
		struct seatbelt_record r;
		CHECK_INT(seatbelt_log_line(lines[i], strlen(lines[i]), &r), 1);
		if (seatbelt_record_event(&r, &ev[n]))
			n++;
		seatbelt_record_release(&r);
	}
	CHECK_INT(n, 2);
	memset(&b, 0, sizeof b);
	/* macOS names /tmp /private/tmp, as the records do: so does the input
	 * there (the fixture lives under /tmp) */
	char *proot = xasprintf("/private%s", root), *pproj = xasprintf("/private%s", proj);
	struct judge_input mac = in;
	mac.workspace_root = proot;
	mac.project_dir = pproj;
	judge_events(&mac, ev, n, &b);
	CHECK_INT(a.violations.n, 2);
	CHECK_INT(b.violations.n, a.violations.n);
	for (size_t i = 0; i < a.violations.n && i < b.violations.n; i++) {
		CHECK_STR(b.violations.v[i].path + 8, a.violations.v[i].path); /* past "/private" */
		CHECK_INT(b.violations.v[i].op, a.violations.v[i].op);
	}
	CHECK_INT(b.fix_read.n, a.fix_read.n);
	CHECK_INT(b.fix_write.n, a.fix_write.n);
	for (size_t i = 0; i < a.fix_read.n && i < b.fix_read.n; i++)
		CHECK_STR(b.fix_read.v[i], a.fix_read.v[i]);
	for (size_t i = 0; i < a.fix_write.n && i < b.fix_write.n; i++)
		CHECK_STR(b.fix_write.v[i], a.fix_write.v[i]);
	verdict_release(&a);
	verdict_release(&b);
	/* an ignore written as the user writes it (/tmp/…, as on Linux)
	 * silences the record macOS spells /private/tmp/… */
	const char *ign[] = {vendor};
	mac.ignore_read = ign;
	mac.n_ignore_read = 1;
	memset(&b, 0, sizeof b);
	judge_events(&mac, ev, n, &b);
	CHECK_INT(b.violations.n, 1);
	CHECK(b.violations.n == 1 && b.violations.v[0].op == VIOLATION_WRITE);
	verdict_release(&b);
	for (size_t i = 0; i < n; i++)
		free(ev[i].path);
	free(lines[0]);
	free(lines[1]);
	free(log);
	free(vendor);
	free(out);
	free(proot);
	free(pproj);
}

/* Issue 18: beyond the project, the key holds what its dependencies' keys
 * hold (their files, their outputs); a workspace file neither holds is
 * read-unkeyed with a workspaceFiles fix; node_modules with no lockfile is
 * one violation for the lot, however many files are read. */
static void test_unkeyed_beyond(void)
{
	host_file("lib/src/l.ts");
	host_file("lib/dist/l.js");
	host_file("shared/cfg.json");
	host_file("node_modules/a/index.js");
	host_file("node_modules/b/index.js");
	char *lib = xasprintf("%s/lib", root), *lib_out = xasprintf("%s/lib/dist/l.js", root);
	const char *keyed[] = {"app/src/a.txt"};
	const char *dep_keyed[] = {"lib/src/l.ts"};
	const char *dep_outs[] = {lib_out};
	struct judge_dep deps[] = {{lib, "lib/vx.yaml", "build", "lib#build"}};
	struct judge_input in = input();
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 1;
	in.dep_keyed = dep_keyed;
	in.n_dep_keyed = 1;
	in.dep_outputs = dep_outs;
	in.n_dep_outputs = 1;
	in.deps = deps;
	in.n_deps = 1;
	const char *log = "2 openat(AT_FDCWD, \"../lib/src/l.ts\", O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \"../lib/dist/l.js\", O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \"../shared/cfg.json\", O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \"../node_modules/a/index.js\", O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \"../node_modules/b/index.js\", O_RDONLY) = 3\n" EXIT;
	struct verdict v;
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	CHECK(has_violation(&v, false, "/shared/cfg.json"));
	CHECK(has_violation(&v, false, "/node_modules"));
	CHECK(v.fix_workspace_inputs.n == 1 &&
	      !strcmp(v.fix_workspace_inputs.v[0], "shared/cfg.json"));
	CHECK(note_of(&v, "unkeyed-node-modules") != NULL);
	verdict_release(&v);
	in.externals_keyed = true; /* the lockfile's closure is in the key */
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 1);
	verdict_release(&v);
	in.n_dep_keyed = 0; /* lib's source is no longer held by a dependency's key */
	judge(log, &in, &v);
	CHECK(has_violation(&v, false, "/lib/src/l.ts"));
	CHECK(!has_violation(&v, false, "/lib/dist/l.js"));
	verdict_release(&v);
	/* the root's lockfile (issue 40 item 5: now readable, Next reads it
	 * whole) is held by the key when it keys node_modules; the root's
	 * package.json is judged like any workspace file */
	host_file("package-lock.json");
	host_file("package.json");
	const char *root_log = "2 openat(AT_FDCWD, \"../package-lock.json\", O_RDONLY) = 3\n"
			       "2 openat(AT_FDCWD, \"../package.json\", O_RDONLY) = 3\n" EXIT;
	judge(root_log, &in, &v);
	CHECK_INT(v.violations.n, 1);
	CHECK(has_violation(&v, false, "/package.json"));
	CHECK(v.fix_workspace_inputs.n == 1 &&
	      !strcmp(v.fix_workspace_inputs.v[0], "package.json"));
	verdict_release(&v);
	in.externals_keyed = false;
	judge(root_log, &in, &v);
	CHECK(has_violation(&v, false, "/package-lock.json"));
	verdict_release(&v);
	free(lib);
	free(lib_out);
}

/* Issue 11: a fix must hold on the next run: a hash directory is cut to
 * the stable one above it, a random token in a written name becomes '*'. */
static void test_stable_fix(void)
{
	host_file("app/node_modules/.vite/vitest/da39a3ee5e6b4b0d/results.json");
	struct judge_input in = input();
	struct verdict v;
	judge(
	    "2 openat(AT_FDCWD, \"node_modules/.vite/vitest/da39a3ee5e6b4b0d/results.json\", "
	    "O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only file system)\n"
	    "2 openat(AT_FDCWD, \"tsup.config.bundled_x7f3.mjs\", O_WRONLY|O_CREAT|O_TRUNC, 0666) "
	    "= -1 EROFS (Read-only file system)\n"
	    "2 openat(AT_FDCWD, \"vite.config.bundled_mwlf4twlnq.mjs\", O_WRONLY|O_CREAT|O_TRUNC, "
	    "0666) = -1 EROFS (Read-only file system)\n"
	    "2 openat(AT_FDCWD, \"es2020/out.js\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS "
	    "(Read-only file system)\n"
	    "2 mkdir(\".next\", 0777) = -1 EROFS (Read-only file system)\n" EXIT,
	    &in, &v);
	CHECK_INT(v.violations.n, 5);
	CHECK_INT(v.fix_write.n, 5);
	if (v.fix_write.n == 5) {
		CHECK_STR(v.fix_write.v[0], ".next/");	/* a refused mkdir asks for that dir */
		CHECK_STR(v.fix_write.v[1], "es2020/"); /* a name and a version: no token */
		CHECK_STR(v.fix_write.v[2], "node_modules/.vite/vitest/");
		CHECK_STR(v.fix_write.v[3], "tsup.config.bundled_*.mjs");
		/* a random of one digit after bundled_ (issue 54 item 6) */
		CHECK_STR(v.fix_write.v[4], "vite.config.bundled_*.mjs");
	}
	verdict_release(&v);
	/* a recursive mkdir that works upwards (Node's, vitest's cache): the
	 * grant is the deepest it tried, not the first that was refused
	 * (issue 40: `write: ["node_modules/"]`), whichever pool thread made
	 * each step (vitest's were three); anything else asks for itself */
	judge("3 mkdir(\"lib/node_modules/.vite/vitest\", 0777) = -1 ENOENT (No such "
	      "file or directory)\n"
	      "4 openat(AT_FDCWD, \"src/a.txt\", O_RDONLY) = 3\n"
	      "5 mkdir(\"lib/node_modules/.vite\", 0777) = -1 ENOENT (No such file or "
	      "directory)\n"
	      "6 mkdir(\"lib/node_modules\", 0777) = -1 EROFS (Read-only file system)\n"
	      "2 mkdir(\"out\", 0777) = -1 EROFS (Read-only file system)\n"
	      "2 mkdir(\"dist/x\", 0777) = -1 ENOENT (No such file or directory)\n"
	      "2 mkdir(\"node_modules2\", 0777) = -1 EROFS (Read-only file system)\n"
	      "2 mkdir(\".next/cache\", 0777) = -1 ENOENT (No such file or directory)\n"
	      "2 mkdir(\".next\", 0777) = -1 EROFS (Read-only file system)\n" EXIT,
	      &in, &v);
	CHECK_INT(v.fix_write.n, 4);
	if (v.fix_write.n == 4) {
		CHECK_STR(v.fix_write.v[0],
			  ".next/"); /* only node_modules is never granted whole */
		CHECK_STR(v.fix_write.v[1], "lib/node_modules/.vite/vitest/");
		CHECK_STR(v.fix_write.v[2], "node_modules2/");
		CHECK_STR(v.fix_write.v[3], "out/");
	}
	verdict_release(&v);
}

/* Issue 53 item 3: a fix loads back as the very path that was refused. A
 * project file named `${HOME}` (or `~`, or a glob's letters) that the task
 * failed to write was spelled as written, which the config expands to home
 * (`write: ["${HOME}"]`, `["~"]`) or reads as a pattern. */
static void test_fix_escaped(void)
{
	struct judge_input in = input();
	struct verdict v;
	judge("2 openat(AT_FDCWD, \"${HOME}\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS "
	      "(Read-only file system)\n"
	      "2 openat(AT_FDCWD, \"~\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only "
	      "file system)\n"
	      "2 openat(AT_FDCWD, \"~x/a\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only "
	      "file system)\n"
	      "2 openat(AT_FDCWD, \"*.js\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only "
	      "file system)\n"
	      "2 openat(AT_FDCWD, \"!x[1]{a,b}_x7f3.mjs\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 "
	      "EROFS (Read-only file system)\n" EXIT,
	      &in, &v);
	CHECK_INT(v.fix_write.n, 5);
	if (v.fix_write.n == 5) {
		/* "$\{": no variable for the loader, a '{' for the glob */
		CHECK_STR(v.fix_write.v[0], "$\\{HOME\\}");
		CHECK_STR(v.fix_write.v[1], "./~");
		CHECK_STR(v.fix_write.v[2], "./~x/");
		/* the token still a '*', the rest of the name escaped */
		CHECK_STR(v.fix_write.v[3], "\\!x\\[1\\]\\{a,b\\}_*.mjs");
		CHECK_STR(v.fix_write.v[4], "\\*.js");
	}
	verdict_release(&v);
	/* a dependency's file outside its outputs: the outputs entry is a glob,
	 * escaped and quoted as every fix is (it was spelled "[\"%s\"]" raw,
	 * so "gen/[id].js" was a character class) */
	struct judge_dep d = {"/w/lib", "lib/vx.yaml", "build", "lib#build"};
	char *fix = fix_dep_output(&d, "/w/lib/gen/[id]\".js");
	CHECK_STR(fix, "add to lib/vx.yaml tasks.build.outputs: [\"gen/\\\\[id\\\\]\\\".js\"]");
	free(fix);
}

/* Issue 53 item 8: a read through a link the task made (in its own /tmp,
 * settled as its own place) is judged at what the link reaches: a cached
 * task's unkeyed read of notes.txt through /tmp/n is read-unkeyed, as the
 * direct read is; a chain of links and a link made twice reach each
 * target; a read of the link's own directory reaches nothing new. */
static void test_through_links(void)
{
	const char *keyed[] = {"app/src/a.txt"};
	struct judge_input in = input();
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 1;
	char log[2048];
	snprintf(log, sizeof log,
		 "2 symlink(\"%s/notes.txt\", \"/tmp/n\") = 0\n"
		 "2 openat(AT_FDCWD, \"/tmp/n\", O_RDONLY) = 3\n"
		 "2 openat(AT_FDCWD, \"/tmp/a/b\", O_RDONLY) = 3\n"
		 "2 symlinkat(\"/tmp/c\", AT_FDCWD, \"/tmp/a\") = 0\n"
		 "2 symlink(\"../lib\", \"/tmp/c\") = 0\n"
		 "2 symlink(\"src\", \"/tmp/c\") = 0\n"
		 "2 openat(AT_FDCWD, \"/tmp/x\", O_RDONLY) = 3\n" EXIT,
		 proj);
	struct verdict v;
	judge(log, &in, &v);
	CHECK(has_violation(&v, false, "/app/notes.txt"));
	/* /tmp/a/b -> /tmp/c/b -> /lib/b and /tmp/src/b: outside the
	 * workspace and the task's own tmp, neither keyed nor judged */
	CHECK_INT(v.violations.n, 1);
	CHECK(v.violations.n && v.violations.v[0].op == VIOLATION_READ_UNKEYED);
	verdict_release(&v);
	/* the same read with no link: the task's own place, nothing */
	judge("2 openat(AT_FDCWD, \"/tmp/n\", O_RDONLY) = 3\n" EXIT, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	/* a chain into the workspace: /tmp/p -> /tmp/q -> lib/x.txt */
	snprintf(log, sizeof log,
		 "2 symlink(\"/tmp/q\", \"/tmp/p\") = 0\n"
		 "2 symlink(\"%s/lib\", \"/tmp/q\") = 0\n"
		 "2 openat(AT_FDCWD, \"/tmp/p/x.txt\", O_RDONLY) = 3\n" EXIT,
		 root);
	judge(log, &in, &v);
	CHECK(has_violation(&v, false, "/lib/x.txt"));
	verdict_release(&v);
}

/* Issue 54 item 3: a tool's own incremental cache an earlier run left in
 * its write grant is no leftover: ESLint's, .next/cache, node_modules/.cache;
 * a tsbuildinfo only where the task's outputs save and restore it with
 * what it describes. Anything else still is. */
static void test_tool_caches(void)
{
	host_file("app/.eslintcache");
	host_file("app/.next/cache/webpack/client/index.pack");
	host_file("app/node_modules/.cache/babel-loader/x.json");
	host_file("app/tsconfig.tsbuildinfo");
	host_file("app/.cache/tool/last");
	char *w = xasprintf("%s", proj);
	const char *roots[] = {w};
	const char *keyed[] = {"app/src/a.txt"};
	struct judge_input in = input();
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 1;
	in.write_roots = roots;
	in.n_write_roots = 1;
	in.externals_keyed = true;
	const char *log = "2 openat(AT_FDCWD, \".eslintcache\", O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \".next/cache/webpack/client/index.pack\", "
			  "O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \"node_modules/.cache/babel-loader/x.json\", "
			  "O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \"tsconfig.tsbuildinfo\", O_RDONLY) = 3\n"
			  "2 openat(AT_FDCWD, \".cache/tool/last\", O_RDONLY) = 3\n" EXIT;
	struct verdict v;
	judge(log, &in, &v);
	CHECK(!has_violation(&v, false, "/app/.eslintcache"));
	CHECK(!has_violation(&v, false, "index.pack"));
	CHECK(!has_violation(&v, false, "x.json"));
	CHECK(has_violation(&v, false, "/app/tsconfig.tsbuildinfo")); /* no output holds it */
	CHECK(has_violation(&v, false, "/app/.cache/tool/last"));
	CHECK_INT(v.violations.n, 2);
	verdict_release(&v);
	const char *outs[] = {"dist/**", "tsconfig.tsbuildinfo"};
	in.own_outputs = outs;
	in.n_own_outputs = 2;
	judge(log, &in, &v);
	CHECK(!has_violation(&v, false, "/app/tsconfig.tsbuildinfo"));
	CHECK_INT(v.violations.n, 1);
	verdict_release(&v);
	/* the build info a cached task wrote where its outputs do not hold
	 * it: a tool-state note, which learn declares an output of that task
	 * alone (issue 54); none where the outputs hold it, or uncached */
	const char *wrote =
	    "2 openat(AT_FDCWD, \".cache/tsbuildinfo.json\", "
	    "O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n"
	    "2 openat(AT_FDCWD, \"tsconfig.tsbuildinfo\", O_WRONLY|O_CREAT|O_TRUNC, "
	    "0666) = 4\n" EXIT;
	in.cached = true;
	judge(wrote, &in, &v);
	const struct judge_note *n = note_of(&v, "tool-state");
	CHECK(n && strstr(n->path, "/app/.cache/tsbuildinfo.json") &&
	      strstr(n->text, "the task wrote .cache/tsbuildinfo.json, tsc's build info"));
	CHECK_INT(v.notes.n, 1); /* tsconfig.tsbuildinfo: its outputs hold it */
	verdict_release(&v);
	in.cached = false;
	judge(wrote, &in, &v);
	CHECK(!note_of(&v, "tool-state"));
	verdict_release(&v);
	free(w);
}

/* Issue 12: a path holding a newline or ESC cannot forge a report line or
 * drive the terminal: quoted as git quotes it, in every report. */
static void test_control_bytes(void)
{
	host_file("app/vendor/x\n::error file=f::forged\033[2J");
	struct judge_input in = input();
	struct verdict v;
	judge("2 openat(AT_FDCWD, \"vendor/x\\n::error file=f::forged\\33[2J\", O_RDONLY) = -1 "
	      "ENOENT (No such file or directory)\n" EXIT,
	      &in, &v);
	CHECK_INT(v.violations.n, 1);
	struct strbuf out = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
	CHECK(strstr(out.buf, "violation: read \"app/vendor/x\\n::error file=f::forged\\033[2J\" "
			      "(openat ENOENT)\n") != NULL);
	CHECK(strstr(out.buf, "\n::error") == NULL);
	CHECK(strchr(out.buf, 0x1b) == NULL);
	struct task_report r = {.id = "app#build",
				.project = "app",
				.name = "app",
				.task = "build",
				.status = "failed",
				.yaml = "app/vx.yaml",
				.in = &in,
				.v = &v};
	strbuf_reset(&out);
	report_github(&r, 1, &out);
	CHECK(strstr(out.buf, "\n::error file=f") == NULL);
	CHECK(strchr(out.buf, 0x1b) == NULL);
	CHECK_INT((int)(strchr(out.buf, '\n') - out.buf) + 1, (int)out.len); /* one line */
	strbuf_release(&out);
	verdict_release(&v);
}

/* Issue 41: a task's reason is in its JSON and in the GitHub annotation of
 * a failed task with no violation, including one that never ran. */
static void test_report_reason(void)
{
	struct task_report r[2] = {
	    {.id = "a#build",
	     .project = "a",
	     .name = "a",
	     .task = "build",
	     .status = "failed",
	     .reason = "its sandbox could not be built (see above)",
	     .cache = "miss",
	     .key = "k",
	     .yaml = "a/vx.yaml"},
	    {.id = "b#build",
	     .project = "b",
	     .name = "b",
	     .task = "build",
	     .status = "failed",
	     .ran = true,
	     .exit_code = 3,
	     .cache = "miss",
	     .key = "k",
	     .yaml = "b/vx.yaml"},
	};
	struct strbuf out = STRBUF_INIT;
	report_json(r, 2, &out);
	CHECK(strstr(out.buf, "\"reason\":\t\"its sandbox could not be built (see above)\"") !=
	      NULL);
	CHECK(strstr(out.buf, "\"reason\":\tnull") != NULL);
	strbuf_reset(&out);
	report_github(r, 2, &out);
	CHECK_STR(out.buf,
		  "::error file=a/vx.yaml,title=vx task failed::a#build failed before it "
		  "ran: its sandbox could not be built (see above)\n"
		  "::error file=b/vx.yaml,title=vx task failed::b#build failed (exit 3)\n");
	strbuf_release(&out);
}

/* A fix reads the same in every format (session 31): SARIF and GitHub
 * said "add to" for a whole inputs list the text report says "set in"
 * (and "(its whole list: ...)"), dropped "tasks.TASK." from every field
 * after the first, left out the words for a connection past the proxy
 * that the text report prints as its fix, and named the file the
 * sandbox: block is in (the root's) where the text names the project's
 * own vx.yaml; the annotation itself stays at the sandbox: line. */
static void test_fix_every_format(void)
{
	struct judge_input in = {.project_dir = "/w/app", .workspace_root = "/w"};
	struct verdict v;
	memset(&v, 0, sizeof v);
	struct violation x = {VIOLATION_READ, xstrdup("/w/shared/x"), "openat", ENOENT, NULL};
	vec_push(&v.violations, x);
	strvec_push(&v.fix_read, "../shared/x");
	strvec_push(&v.fix_workspace_inputs, "src/**");
	strvec_push(&v.fix_workspace_inputs, "shared/x");
	v.needs_network = true;
	struct strbuf text = STRBUF_INIT, gh = STRBUF_INIT, sarif = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &text);
	struct task_report tr = {.id = "app#build",
				 .task = "build",
				 .status = "failed",
				 .yaml = "vx.yaml", /* sandbox: in the root's, inherited */
				 .fix_yaml = "app/vx.yaml",
				 .in = &in,
				 .v = &v};
	report_github(&tr, 1, &gh);
	report_sarif(&tr, 1, &sarif);
	/* the text report's fix lines, joined as the one-line formats join them */
	struct strbuf fixes = STRBUF_INIT;
	for (const char *l = text.buf; (l = strstr(l, "app#build: fix: ")); l++) {
		l += strlen("app#build: fix: ");
		strbuf_addstr(&fixes, fixes.len ? "; " : ". Fix: ");
		strbuf_add(&fixes, l, strcspn(l, "\n"));
	}
	CHECK(strstr(fixes.buf, "the task connected past vx's proxy") != NULL);
	CHECK(strstr(fixes.buf,
		     "; add to app/vx.yaml tasks.build.sandbox.allow.read: "
		     "[\"../shared/x\"]; set in app/vx.yaml "
		     "tasks.build.inputs.workspaceFiles: [\"src/**\", \"shared/x\"] "
		     "(its whole list: what it has now, from any layer, and the new)") != NULL);
	struct strbuf want = STRBUF_INIT;
	strbuf_addf(&want,
		    "::error file=vx.yaml,line=1,col=1,title=vx sandbox violation::app#build "
		    "read shared/x refused (openat ENOENT)%s\n",
		    fixes.buf);
	CHECK_STR(gh.buf, want.buf);
	cJSON *doc = cJSON_Parse(sarif.buf);
	const cJSON *res = cJSON_GetArrayItem(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "runs"), 0), "results"),
	    0);
	const char *msg =
	    cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "message"), "text"));
	strbuf_reset(&want);
	strbuf_addf(&want, "app#build: read shared/x refused (openat ENOENT)%s", fixes.buf);
	CHECK_STR(msg ? msg : "", want.buf);
	cJSON_Delete(doc);
	strbuf_release(&want);
	strbuf_release(&fixes);
	strbuf_release(&text);
	strbuf_release(&gh);
	strbuf_release(&sarif);
	verdict_release(&v);
}

/* What the request decides, read off it: the RW binds are the write roots,
 * the stage standing for its staged entries (made once, by the plan);
 * the judge points at the request's lists. */
static void test_from_request(void)
{
	struct sandbox_request req = {0};
	struct sandbox_mount m[] = {
	    {SANDBOX_RO, "/w/lib/dist", "/w/lib/dist", -1, false},
	    {SANDBOX_RW, "/w/app/out", "/w/app/out", -1, false},
	    {SANDBOX_RW, "/w/.vx/stage/run/task-1", "/w/app", -1, false},
	};
	req.mounts.v = m;
	req.mounts.n = 3;
	req.cwd = "/w/app";
	req.stage = "/w/.vx/stage/run/task-1";
	strvec_push(&req.staged, "dist");
	strvec_push(&req.staged, "build");
	strvec_push(&req.widened, "/w/app/gen");
	sandbox_request_write_roots(&req);
	struct judge_input in = {0};
	judge_input_from_request(&in, &req);
	CHECK_STR(in.project_dir, "/w/app");
	CHECK_INT(in.n_write_roots, 3);
	CHECK_STR(in.write_roots[0], "/w/app/out");
	CHECK_STR(in.write_roots[1], "/w/app/dist");
	CHECK_STR(in.write_roots[2], "/w/app/build");
	CHECK_INT(in.n_widened, 1);
	CHECK_STR(in.widened[0], "/w/app/gen");
	CHECK(in.write_roots ==
	      (const char *const *)req.write_roots.v); /* pointed at, not copied */
	CHECK(in.sees != NULL && in.sees_ctx == &req);
	strvec_clear(&req.write_roots);
	strvec_clear(&req.staged);
	strvec_clear(&req.widened);
}

/* A W_OK probe refused (jiti asks whether its cache dir is writable):
 * a write, fixed by a write grant of that directory, never by allow.read
 * (issue 40: the read grant was printed, and printed again once applied);
 * one that succeeded changes nothing and is judged as nothing. */
static void test_probe_write(void)
{
	host_file("app/node_modules/.cache/jiti/.keep");
	struct judge_input in = input();
	struct verdict v;
	char log[1024];
	snprintf(log, sizeof log,
		 "2 faccessat2(AT_FDCWD, \"%s/node_modules/.cache/jiti\", W_OK) = -1 EROFS "
		 "(Read-only file system)\n"
		 "2 faccessat2(AT_FDCWD, \"%s/notes.txt\", R_OK) = 0\n"
		 "2 access(\"%s/src/a.txt\", R_OK|W_OK) = 0\n" EXIT,
		 proj, proj, proj);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 1);
	CHECK(has_violation(&v, true, "/app/node_modules/.cache/jiti"));
	CHECK_INT(v.fix_read.n, 0);
	CHECK_INT(v.fix_write.n, 1);
	CHECK_STR(v.fix_write.n ? v.fix_write.v[0] : "", "node_modules/.cache/jiti/");
	verdict_release(&v);

	/* a file the task could not make in the project's root (eslint's first
	 * .eslintcache): granted by name, not as ./ (all of the project) */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"%s/.eslintcache\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 "
		 "EROFS (Read-only file system)\n" EXIT,
		 proj);
	judge(log, &in, &v);
	CHECK_INT(v.fix_write.n, 1);
	CHECK_STR(v.fix_write.n ? v.fix_write.v[0] : "", ".eslintcache");
	verdict_release(&v);
}

/* Issue 58 item 3: a verdict is a function of the facts and the trace,
 * not of the disk when the judge runs. Each case is judged against three
 * hosts, as the disk could be after the task exited, and must not move. */
static void pure_hosts(struct judge_host_table hosts[3], const char *ws, int variant_of_link)
{
	(void)variant_of_link;
	for (int k = 0; k < 3; k++) {
		judge_host_table_init(&hosts[k]);
		char *a = xasprintf("%s/app/src/a.txt", ws), *v2 = xasprintf("%s/lib/v2.js", ws);
		judge_host_table_put(&hosts[k], a, JUDGE_FILE, NULL, -1);
		judge_host_table_put(&hosts[k], v2, JUDGE_FILE, NULL, -1);
		free(a);
		free(v2);
	}
}

static void test_pure_of_disk(void)
{
	char *ws = xasprintf("%s/pure", root), *app = xasprintf("%s/pure/app", root);
	char *cur = xasprintf("%s/cur.js", app), *v1 = xasprintf("%s/lib/v1.js", ws);
	char *old = xasprintf("%s/dist/old.js", app), *dist = xasprintf("%s/dist", app);
	char *was = xasprintf("%s/dist/was", app);
	const char *keyed[] = {"app/src/a.txt", "lib/v2.js"};
	const char *roots[] = {dist};
	struct judge_input in = input();
	in.project_dir = app;
	in.workspace_root = ws;
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 2;
	in.write_roots = roots;
	in.n_write_roots = 1;
	/* the task read cur.js when it led to ../lib/v1.js (strace -y), and
	 * read the file an earlier run left in dist/, then removed it; read
	 * another, removed it and made a directory of its name */
	char *log = xasprintf("2 openat(AT_FDCWD</x>, \"%s\", O_RDONLY) = 3<%s>\n"
			      "2 openat(AT_FDCWD, \"dist/old.js\", O_RDONLY) = 3<%s>\n"
			      "2 unlink(\"dist/old.js\") = 0\n"
			      "2 openat(AT_FDCWD, \"dist/was\", O_RDONLY) = 3<%s>\n"
			      "2 unlink(\"dist/was\") = 0\n"
			      "2 mkdir(\"dist/was\", 0777) = 0\n" EXIT,
			      cur, v1, old, was);
	/* after the run: cur.js repointed to v2.js (which the key holds),
	 * v1.js there still; cur.js gone and v1.js with it; cur.js as the
	 * task met it and old.js back (a later run) */
	struct judge_host_table hosts[3];
	pure_hosts(hosts, ws, 0);
	judge_host_table_put(&hosts[0], cur, JUDGE_LINK, "lib-link/../../lib/v2.js", -1);
	judge_host_table_put(&hosts[0], v1, JUDGE_FILE, NULL, -1);
	char *lib_link = xasprintf("%s/lib-link", app);
	judge_host_table_put(&hosts[0], lib_link, JUDGE_DIR, NULL, -1);
	judge_host_table_put(&hosts[2], cur, JUDGE_LINK, "../lib/v1.js", -1);
	judge_host_table_put(&hosts[2], v1, JUDGE_FILE, NULL, -1);
	judge_host_table_put(&hosts[2], old, JUDGE_FILE, NULL, -1);
	judge_host_table_put(&hosts[0], was, JUDGE_DIR, NULL, -1);
	judge_host_table_put(&hosts[2], was, JUDGE_FILE, NULL, -1);
	for (int k = 0; k < 3; k++) {
		in.host = &hosts[k].host;
		struct verdict v;
		judge(log, &in, &v);
		CHECK_INT(v.violations.n, 3);
		CHECK(has_violation(&v, false, "/pure/lib/v1.js"));    /* where the read landed */
		CHECK(has_violation(&v, false, "/pure/app/dist/was")); /* a file when read */
		CHECK(!has_violation(&v, false, "/pure/lib/v2.js"));
		CHECK(has_violation(&v, false, "/pure/app/dist/old.js")); /* read, then removed */
		char *listed = xasprintf("U %s", old); /* --explain-key's reads */
		CHECK(strvec_find(&v.reads, listed) >= 0);
		free(listed);
		verdict_release(&v);
	}
	/* without -y (a trace that names no kernel path) the host's answer is
	 * all there is: repointed, the read is taken where the link leads now
	 * — what -y removes */
	char *bare = xasprintf("2 openat(AT_FDCWD, \"%s\", O_RDONLY) = 3\n" EXIT, cur);
	in.host = &hosts[0].host;
	struct verdict v;
	judge(bare, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	in.host = &hosts[2].host;
	judge(bare, &in, &v);
	CHECK(has_violation(&v, false, "/pure/lib/v1.js"));
	verdict_release(&v);
	for (int k = 0; k < 3; k++)
		judge_host_table_release(&hosts[k]);
	free(bare);
	free(lib_link);
	free(log);
	free(dist);
	free(was);
	free(old);
	free(v1);
	free(cur);
	free(app);
	free(ws);
}

/* A file a file grant's glob let the task make, read back and removed (tsup
 * writes tsup.config.bundled_*.mjs beside its config): its own work, as in
 * a write root; a file it did not make, read and removed, is read-unkeyed.
 * The disk after the run has neither: the judge once took "gone" for "no
 * file" and judged neither. */
static void test_made_and_removed(void)
{
	char *ws = xasprintf("%s/made", root), *app = xasprintf("%s/made/app", root);
	char *tmp = xasprintf("%s/tool.bundled_1.mjs", app), *old = xasprintf("%s/old.mjs", app);
	const char *keyed[] = {"app/src/a.txt"};
	const char *widened[] = {app};
	const char *allow[] = {"tool.bundled_*.mjs"};
	struct judge_input in = input();
	in.project_dir = app;
	in.workspace_root = ws;
	in.cached = true;
	in.keyed = keyed;
	in.n_keyed = 1;
	in.widened = widened;
	in.n_widened = 1;
	in.allow_write = allow;
	in.n_allow_write = 1;
	char *log =
	    xasprintf("2 openat(AT_FDCWD</x>, \"%s\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3<%s>\n"
		      "2 openat(AT_FDCWD</x>, \"%s\", O_RDONLY) = 3<%s>\n"
		      "2 unlink(\"%s\") = 0\n"
		      "2 openat(AT_FDCWD</x>, \"%s\", O_RDONLY) = 3<%s>\n"
		      "2 unlink(\"%s\") = 0\n" EXIT,
		      tmp, tmp, tmp, tmp, tmp, old, old, old);
	struct judge_host_table host; /* after the run: neither file is there */
	judge_host_table_init(&host);
	in.host = &host.host;
	struct verdict v;
	judge(log, &in, &v);
	CHECK(!has_violation(&v, false, tmp + strlen(root)));
	CHECK(has_violation(&v, false, old + strlen(root)));
	CHECK(has_violation(&v, true, old + strlen(root))); /* its unlink: no grant names it */
	CHECK_INT(v.violations.n, 2);
	verdict_release(&v);
	free(log);

	/* laundering (a review): an undeclared file hard-linked into an
	 * allowed name and read there is a read of it; a link the task made
	 * in an allowed name, opened to write through it, neither makes the
	 * file it leads to the task's own nor writes it unseen */
	char *cfg = xasprintf("%s/config.json", app),
	     *lnk = xasprintf("%s/tool.bundled_2.mjs", app);
	log = xasprintf("2 link(\"%s\", \"%s\") = 0\n"
			"2 openat(AT_FDCWD</x>, \"%s\", O_RDONLY) = 3<%s>\n"
			"2 unlink(\"%s\") = 0\n" EXIT,
			cfg, tmp, tmp, tmp, tmp);
	judge(log, &in, &v);
	CHECK(has_violation(&v, false, tmp + strlen(root)));
	verdict_release(&v);
	free(log);
	log = xasprintf("2 symlink(\"config.json\", \"%s\") = 0\n"
			"2 openat(AT_FDCWD</x>, \"%s\", O_WRONLY|O_APPEND) = 3<%s>\n"
			"2 openat(AT_FDCWD</x>, \"%s\", O_RDONLY) = 3<%s>\n"
			"2 unlink(\"%s\") = 0\n" EXIT,
			lnk, lnk, cfg, cfg, cfg, lnk);
	judge(log, &in, &v);
	CHECK(has_violation(&v, false, cfg + strlen(root))); /* its read */
	CHECK(has_violation(&v, true, cfg + strlen(root)));  /* the write through the link */
	verdict_release(&v);
	free(log);
	/* an exec through a link the task made and removed: execve names no
	 * descriptor, and the disk after the run has nothing there */
	log = xasprintf("2 symlink(\"../other/tool\", \"%s\") = 0\n"
			"2 execve(\"%s\", [\"tool\"], 0x7ffd /* 1 var */) = 0\n"
			"2 unlink(\"%s\") = 0\n" EXIT,
			lnk, lnk, lnk);
	judge(log, &in, &v);
	CHECK(has_violation(&v, false, lnk + strlen(root)));
	verdict_release(&v);
	free(log);
	free(lnk);
	free(cfg);
	judge_host_table_release(&host);
	free(old);
	free(tmp);
	free(app);
	free(ws);
}

/* The table host walks links as the kernel does. */
static void test_host_table(void)
{
	struct judge_host_table t;
	judge_host_table_init(&t);
	judge_host_table_put(&t, "/w/lib/x.js", JUDGE_FILE, NULL, 7);
	judge_host_table_put(&t, "/w/app/node_modules/lib", JUDGE_LINK, "../../lib", -1);
	judge_host_table_put(&t, "/w/abs", JUDGE_LINK, "/w/app/node_modules/lib/x.js", -1);
	judge_host_table_put(&t, "/w/loop", JUDGE_LINK, "loop", -1);
	const struct judge_host *h = &t.host;
	char *r = h->resolve(h, "/w/app/node_modules/lib/x.js");
	CHECK_STR(r ? r : "", "/w/lib/x.js");
	free(r);
	r = h->resolve(h, "/w/abs");
	CHECK_STR(r ? r : "", "/w/lib/x.js");
	free(r);
	judge_host_table_put(&t, "/w/x.js", JUDGE_FILE, NULL, -1);
	r = h->resolve(h, "/w/app/node_modules/lib/../x.js"); /* ".." after a link: its target's */
	CHECK_STR(r ? r : "", "/w/x.js");
	free(r);
	r = h->resolve(h, "/w/./lib//x.js");
	CHECK_STR(r ? r : "", "/w/lib/x.js");
	free(r);
	CHECK(h->resolve(h, "/w/loop") == NULL);
	CHECK(h->resolve(h, "/w/lib/x.js/y") == NULL);
	CHECK(h->resolve(h, "/w/none") == NULL);
	CHECK_INT(h->kind(h, "/w/app/node_modules/lib"), JUDGE_LINK);
	CHECK_INT(h->kind(h, "/w/app"), JUDGE_DIR);
	CHECK_INT(h->kind(h, "/w/none"), JUDGE_ABSENT);
	CHECK_INT((int)h->mtime(h, "/w/abs"), 7);
	CHECK_INT((int)h->mtime(h, "/w/app"), -1);
	judge_host_table_release(&t);
}

int main(void)
{
	strcpy(root, fixture_dir());
	judge_host_table_init(&host);
	snprintf(proj, sizeof proj, "%s/app", root);
	snprintf(logp, sizeof logp, "%s/trace.log", root);
	host_file("app/notes.txt");
	host_file("app/src/a.txt");
	host_file("lib/x.txt");
	test_shown_absence();
	test_walled();
	test_unkeyed();
	test_leftover();
	test_made_and_removed();
	test_exec_op();
	test_probe_write();
	test_unkeyed_beyond();
	test_two_feeds();
	test_stable_fix();
	test_fix_escaped();
	test_through_links();
	test_tool_caches();
	test_report_reason();
	test_control_bytes();
	test_from_request();
	test_fix_every_format();
	test_network_notes();
	struct judge_input in = input();
	struct verdict v;
	char log[4096];

	/* ENOENT of a file that exists on the host, inside the project: a violation */
	snprintf(
	    log, sizeof log,
	    "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
	    "2 openat(AT_FDCWD, \"missing.txt\", O_RDONLY) = -1 ENOENT (No such file or "
	    "directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 1);
	CHECK(has_violation(&v, false, "/app/notes.txt"));
	CHECK(!v.incomplete);
	CHECK_INT(v.fix_read.n, 1);
	CHECK_STR(v.fix_read.v[0], "notes.txt");
	CHECK_INT(v.fix_inputs.n, 0); /* default inputs key every project file already */
	struct strbuf out = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
	CHECK(strstr(out.buf, "app#build: violation: read app/notes.txt (openat ENOENT)\n") !=
	      NULL);
	CHECK(strstr(out.buf, "app#build: fix: add to app/vx.yaml tasks.build.sandbox.allow.read: "
			      "[\"notes.txt\"]\n") != NULL);
	strbuf_release(&out);
	verdict_release(&v);

	/* the same read twice is one violation; a directory's fix ends in '/' */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"%s/notes.txt\", O_RDONLY) = -1 ENOENT (No such file or "
		 "directory)\n"
		 "3 openat(AT_FDCWD, \"%s/notes.txt\", O_RDONLY) = -1 ENOENT (No such file or "
		 "directory)\n"
		 "2 chdir(\"%s/src\") = -1 ENOENT (No such file or directory)\n" EXIT,
		 proj, proj, proj);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	CHECK_INT(v.fix_read.n, 2);
	CHECK_STR(v.fix_read.v[1], "src/");
	verdict_release(&v);

	/* a write refused inside the project: a write violation, its dir as the fix */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"src/out.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS "
		 "(Read-only file system)\n" EXIT);
	judge(log, &in, &v);
	CHECK(has_violation(&v, true, "/app/src/out.txt"));
	CHECK_STR(v.fix_write.v[0], "src/");
	verdict_release(&v);

	/* outside the project: notes, never violations; /dev, /proc and TMPDIR are not judged */
	snprintf(
	    log, sizeof log,
	    "2 openat(AT_FDCWD, \"%s/lib/x.txt\", O_RDONLY) = -1 ENOENT (No such file or "
	    "directory)\n"
	    "2 openat(AT_FDCWD, \"/usr/out\", O_WRONLY|O_CREAT, 0666) = -1 EROFS (Read-only file "
	    "system)\n"
	    "2 openat(AT_FDCWD, \"/proc/1/environ\", O_RDONLY) = -1 EACCES (Permission denied)\n"
	    "2 openat(AT_FDCWD, \"/tmp/scratch\", O_WRONLY|O_CREAT, 0666) = -1 EACCES (Permission "
	    "denied)\n" EXIT,
	    root);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	CHECK_INT(v.notes.n, 2);
	verdict_release(&v);

	/* mkdir meeting EEXIST, and a timestamp refused on a readable path: not violations */
	snprintf(log, sizeof log,
		 "2 mkdir(\"src\", 0777) = -1 EEXIST (File exists)\n"
		 "2 utimensat(AT_FDCWD, \"src/a.txt\", NULL, 0) = -1 EROFS (Read-only file "
		 "system)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);

	/* touch of a readable path: its write-open and its utimensat both
	 * refused, no violation; the same open without the utimensat is one */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"src/a.txt\", O_WRONLY|O_CREAT|O_NOCTTY|O_NONBLOCK, 0666) = "
		 "-1 EROFS (Read-only file system)\n"
		 "2 utimensat(AT_FDCWD, \"src/a.txt\", NULL, 0) = -1 EROFS (Read-only file "
		 "system)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"src/a.txt\", O_WRONLY|O_CREAT|O_NOCTTY|O_NONBLOCK, 0666) = "
		 "-1 EROFS (Read-only file system)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 1);
	verdict_release(&v);

	/* a file write grant binds its directory: a write there that no entry
	 * names succeeds, and only the trace can tell */
	{
		char gen[192];
		snprintf(gen, sizeof gen, "%s/gen", proj);
		host_file("app/gen/out.txt");
		host_file("app/gen/old.txt");
		const char *widened[] = {gen}, *aw[] = {"gen/out.txt"};
		in.widened = widened;
		in.n_widened = 1;
		in.allow_write = aw;
		in.n_allow_write = 1;
		snprintf(
		    log, sizeof log,
		    "2 openat(AT_FDCWD, \"gen/out.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n"
		    "2 openat(AT_FDCWD, \"gen/.out.txt.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0666) = 4\n"
		    "2 rename(\"gen/.out.txt.tmp\", \"gen/out.txt\") = 0\n"
		    "2 openat(AT_FDCWD, \"gen\", O_RDWR|O_TMPFILE, 0600) = 5\n"
		    "2 openat(AT_FDCWD, \"gen/other.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 6\n"
		    "2 unlinkat(AT_FDCWD, \"gen/old.txt\", 0) = 0\n"
		    "2 openat(AT_FDCWD, \"gen/other.txt\", O_WRONLY|O_APPEND) = 7\n"
		    "2 openat(AT_FDCWD, \"src/a.txt\", O_WRONLY) = 8\n" EXIT);
		judge(log, &in, &v);
		CHECK_INT(v.violations.n, 2);
		CHECK(has_violation(&v, true, "/app/gen/other.txt"));
		CHECK(has_violation(&v, true, "/app/gen/old.txt"));
		CHECK_INT(v.fix_write.n, 2);
		if (v.fix_write.n == 2) {
			CHECK_STR(v.fix_write.v[0], "gen/old.txt");
			CHECK_STR(v.fix_write.v[1], "gen/other.txt");
		}
		struct strbuf out = STRBUF_INIT;
		report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
		CHECK(strstr(out.buf, "app#build: violation: write app/gen/other.txt (openat, let "
				      "through only because a "
				      "file grant binds its directory)\n") != NULL);
		strbuf_release(&out);
		verdict_release(&v);
		in = input();
	}

	/* a connection out is a network violation; loopback and ignore.network are not */
	snprintf(log, sizeof log,
		 "2 connect(3, {sa_family=AF_INET, sin_port=htons(443), "
		 "sin_addr=inet_addr(\"93.184.216.34\")}, 16) = -1 ENETUNREACH (Network is "
		 "unreachable)\n"
		 "2 connect(4, {sa_family=AF_INET, sin_port=htons(9), "
		 "sin_addr=inet_addr(\"127.0.0.1\")}, 16) = -1 ECONNREFUSED (Connection refused)\n"
		 "2 connect(5, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), "
		 "inet_pton(AF_INET6, \"::1\", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH "
		 "(Network is unreachable)\n"
		 "2 connect(6, {sa_family=AF_INET, sin_port=htons(53), "
		 "sin_addr=inet_addr(\"10.0.0.2\")}, 16) = -1 ENETUNREACH (Network is "
		 "unreachable)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	CHECK(v.needs_network);
	if (v.violations.n == 2) {
		CHECK(v.violations.v[0].op == VIOLATION_NETWORK &&
		      !strcmp(v.violations.v[0].path, "93.184.216.34:443"));
		CHECK(v.violations.v[1].op == VIOLATION_NETWORK &&
		      !strcmp(v.violations.v[1].path, "10.0.0.2:53"));
	}
	CHECK_INT(v.fix_read.n + v.fix_write.n, 0);
	{
		struct strbuf out = STRBUF_INIT;
		report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
		CHECK(strstr(out.buf, "app#build: violation: network 93.184.216.34:443 (connect "
				      "ENETUNREACH)\n") != NULL);
		CHECK(strstr(out.buf, "app#build: fix: the task connected past vx's proxy") !=
		      NULL);
		strbuf_release(&out);
	}
	verdict_release(&v);
	/* a UNIX socket relative to a cwd the trace never showed is no peer */
	judge("2 fchdir(99) = 0\n"
	      "2 connect(5, {sa_family=AF_UNIX, sun_path=\"run/x.sock\"}, 110) = -1 EACCES "
	      "(Permission denied)\n" EXIT,
	      &in, &v);
	CHECK_INT(v.violations.n, 0);
	CHECK(!v.needs_network);
	verdict_release(&v);
	const char *inet[] = {"10.0.0.2:53", "93.184.*"};
	in.ignore_network = inet;
	in.n_ignore_network = 2;
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	CHECK(!v.needs_network);
	verdict_release(&v);
	in = input();

	/* access() probes and readlink are reads */
	snprintf(log, sizeof log,
		 "2 faccessat2(AT_FDCWD, \"notes.txt\", X_OK, AT_EACCESS) = -1 ENOENT (No such "
		 "file or directory)\n"
		 "2 readlink(\"src/a.txt\", 0x7ffd, 4096) = -1 ENOENT (No such file or "
		 "directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	verdict_release(&v);

	/* ignore: a relative glob anchored at the project silences the report */
	const char *ign[] = {"*.txt"};
	in.ignore_read = ign;
	in.n_ignore_read = 1;
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = -1 ENOENT (No such file or "
		 "directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	in = input();

	/* explicit inputs not covering a newly granted read: key it too */
	const char *inputs[] = {"src/**"};
	in.cached = true;
	in.inputs_explicit = true;
	in.input_files = inputs;
	in.n_input_files = 1;
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = -1 ENOENT (No such file or "
		 "directory)\n" EXIT);
	judge(log, &in, &v);
	/* the task's whole list, what it has first (issue 40: one new entry,
	 * written over an inherited list, keyed that file alone) */
	CHECK_INT(v.fix_inputs.n, 2);
	CHECK_STR(v.fix_inputs.n > 1 ? v.fix_inputs.v[0] : "", "src/**");
	CHECK_STR(v.fix_inputs.n > 1 ? v.fix_inputs.v[1] : "", "notes.txt");
	verdict_release(&v);
	in = input();

	/* default inputs, with workspaceFiles inherited ($TURBO_ROOT$/ in a
	 * turbo.json): the workspaceFiles fix is their whole list too */
	const char *ws_inputs[] = {"tsconfig.base.json", "shared/**/*.json"};
	const char *keyed_now[] = {"app/src/a.c"};
	in.cached = true;
	in.keyed = keyed_now;
	in.n_keyed = 1;
	in.input_ws_files = ws_inputs;
	in.n_input_ws_files = 2;
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = -1 ENOENT (No such file or "
		 "directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.fix_workspace_inputs.n, 3);
	if (v.fix_workspace_inputs.n == 3) {
		CHECK_STR(v.fix_workspace_inputs.v[0], "tsconfig.base.json");
		CHECK_STR(v.fix_workspace_inputs.v[1], "shared/**/*.json");
		CHECK_STR(v.fix_workspace_inputs.v[2], "app/notes.txt");
	}
	verdict_release(&v);
	in = input();

	/* no exit record for the command: incomplete */
	judge("2 openat(AT_FDCWD, \"src/a.txt\", O_RDONLY) = 3\n", &in, &v);
	CHECK(v.incomplete);
	verdict_release(&v);

	/* a missing log is incomplete too */
	CHECK(judge_trace(&in, "/nonexistent/log", &v) == -1);
	CHECK(v.incomplete);
	verdict_release(&v);

	test_notes();
	test_pure_of_disk();
	test_host_table();

	fixture_remove(root);
	judge_host_table_release(&host);
	return check_finish("judge");
}
