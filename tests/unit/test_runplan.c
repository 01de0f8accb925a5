/* Unit tests for run/runplan.c: the plan a run makes from a workspace made
 * in /tmp, its options (tasks, --filter, --global-deps, --env-mode, --only,
 * --cache-dir, "--" args) and the directory it is started in. What is
 * checked is the plan itself: which tasks it holds and which it was asked
 * for, its edges (^build across packages, build within one), the jobs made
 * from it, every key computed, and the refusals (a missing task, a task
 * waiting on a persistent one, a bad --global-deps glob, a cache directory
 * that holds the workspace). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "fixture.h"
#include "graphtest.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/runplan.h"
#include "util/die.h"
#include "util/path.h"

static char root[64];
static char *home_dir; /* the directory the test was started in */

/* A workspace: lib <- app through package.json dependencies, other on its
 * own; build waits for its dependencies' builds (^build), test for its own
 * build, e2e for dev, a server. */
static void make_workspace(void)
{
	strcpy(root, fixture_dir());
	fixture_write(root, "package.json", "{\"name\": \"root\", \"workspaces\": [\"pkgs/*\"]}");
	fixture_write(root, "vx.yaml",
		      "tasks:\n"
		      "  build:\n    dependsOn: [\"^build\"]\n    outputs: [\"dist/**\"]\n"
		      "  test:\n    dependsOn: [build]\n"
		      "  dev:\n    persistent: true\n"
		      "  e2e:\n    dependsOn: [dev]\n");
	fixture_write(root, "pkgs/lib/package.json",
		      "{\"name\": \"lib\", \"scripts\": {\"build\": \"echo lib\", \"test\": "
		      "\"echo lib-test\"}}");
	fixture_write(root, "pkgs/app/package.json",
		      "{\"name\": \"app\", \"dependencies\": {\"lib\": \"*\"}, \"scripts\": "
		      "{\"build\": \"echo app\", \"test\": \"echo app-test\", \"dev\": \"serve\", "
		      "\"e2e\": \"echo e2e\"}}");
	fixture_write(root, "pkgs/other/package.json",
		      "{\"name\": \"other\", \"scripts\": {\"build\": \"echo other\"}}");
	fixture_write(root, "pkgs/lib/src/a.js", "a\n");
	fixture_write(root, "global.json", "{\"v\": 1}\n");
}

/* Parses `vx run ARGS...` (NULL-terminated) into o. */
static void opts(struct run_opts *o, const char *const *args)
{
	char *argv[32] = {"run"};
	int argc = 1;
	while (args[argc - 1])
		argv[argc] = (char *)args[argc - 1], argc++;
	memset(o, 0, sizeof *o);
	if (run_opts_parse(argc, argv, false, o))
		fprintf(stderr, "run_opts_parse failed\n"), exit(1);
}

/* Changes into the workspace directory rel ("" its root). */
static void cd(const char *rel)
{
	char *d = *rel ? path_join(root, rel) : strdup(root);
	if (chdir(d))
		perror(d), exit(1);
	free(d);
}

static bool requested(const struct graph *g, const char *id)
{
	long i = node(g, id);
	return i >= 0 && g->nodes.v[i]->requested;
}

/* runplan_graph of `vx run ARGS` from directory rel; the error lines it
 * printed in *err (capture.h's buffer). Returns its return. */
static int graph_of(const char *rel, const char *const *args, struct workspace **ws,
		    struct graph *g, const char **err)
{
	struct run_opts o;
	opts(&o, args);
	cd(rel);
	capture_begin();
	int rc = runplan_graph(&o, NULL, ws, g);
	*err = capture_end();
	run_opts_free(&o);
	return rc;
}

static void test_build_from_root(void)
{
	struct workspace *ws;
	struct graph g;
	const char *err;
	CHECK_INT(graph_of("", (const char *[]){"build", NULL}, &ws, &g, &err), 0);
	if (err[0])
		fprintf(stderr, "%s", err);
	CHECK_INT(g.nodes.n, 3);
	CHECK(requested(&g, "app#build") && requested(&g, "lib#build") &&
	      requested(&g, "other#build"));
	/* ^build: a package's build waits for its dependencies' builds */
	CHECK(has_edge(&g, "app#build", "lib#build"));
	CHECK(!has_edge(&g, "lib#build", "app#build"));
	CHECK_INT(g.nodes.v[node(&g, "other#build")]->deps.n, 0);
	/* the graph is in dependency order: lib before app */
	CHECK(node(&g, "lib#build") < node(&g, "app#build"));
	CHECK_STR(g.nodes.v[node(&g, "app#build")]->command, "echo app");
	graph_free(&g);
	workspace_free(ws);
}

static void test_same_package_dep(void)
{
	struct workspace *ws;
	struct graph g;
	const char *err;
	CHECK_INT(graph_of("", (const char *[]){"test", "--filter=app", NULL}, &ws, &g, &err), 0);
	/* test waits for its own build, which waits for lib's: both planned,
	 * neither asked for; lib's test is not (the filter) */
	CHECK(requested(&g, "app#test"));
	CHECK(has_edge(&g, "app#test", "app#build"));
	CHECK(has_edge(&g, "app#build", "lib#build"));
	CHECK(node(&g, "app#build") >= 0 && !requested(&g, "app#build"));
	CHECK(node(&g, "lib#build") >= 0 && !requested(&g, "lib#build"));
	CHECK(node(&g, "lib#test") < 0);
	CHECK(node(&g, "other#build") < 0);
	CHECK_INT(g.nodes.n, 3);
	graph_free(&g);
	workspace_free(ws);
}

static void test_filters(void)
{
	struct workspace *ws;
	struct graph g;
	const char *err;
	/* a negated filter takes a project back */
	CHECK_INT(graph_of("", (const char *[]){"build", "--filter=!app", NULL}, &ws, &g, &err), 0);
	CHECK(node(&g, "app#build") < 0);
	CHECK(requested(&g, "lib#build") && requested(&g, "other#build"));
	graph_free(&g);
	workspace_free(ws);
	/* "...lib": lib and what depends on it */
	CHECK_INT(graph_of("", (const char *[]){"build", "--filter=...lib", NULL}, &ws, &g, &err),
		  0);
	CHECK(requested(&g, "lib#build") && requested(&g, "app#build"));
	CHECK(node(&g, "other#build") < 0);
	graph_free(&g);
	workspace_free(ws);
	/* a filter no project matches is refused, said */
	CHECK_INT(graph_of("", (const char *[]){"build", "--filter=nosuch", NULL}, &ws, &g, &err),
		  -1);
	CHECK(strstr(err, "--filter: \"nosuch\" matches no project") != NULL);
}

static void test_package_inferred(void)
{
	struct workspace *ws;
	struct graph g;
	const char *err;
	/* started in pkgs/other: that package alone, as turbo infers it */
	CHECK_INT(graph_of("pkgs/other", (const char *[]){"build", NULL}, &ws, &g, &err), 0);
	CHECK_INT(g.nodes.n, 1);
	CHECK(requested(&g, "other#build"));
	graph_free(&g);
	workspace_free(ws);
	/* from pkgs/app: app's build, and lib's it waits for (not asked for) */
	CHECK_INT(graph_of("pkgs/app/", (const char *[]){"build", NULL}, &ws, &g, &err), 0);
	CHECK(requested(&g, "app#build"));
	CHECK(node(&g, "lib#build") >= 0 && !requested(&g, "lib#build"));
	CHECK(node(&g, "other#build") < 0);
	graph_free(&g);
	workspace_free(ws);
	/* a PROJECT#TASK, or a --filter, names what runs: nothing inferred */
	CHECK_INT(graph_of("pkgs/other", (const char *[]){"lib#build", NULL}, &ws, &g, &err), 0);
	CHECK(requested(&g, "lib#build"));
	CHECK(node(&g, "other#build") < 0);
	graph_free(&g);
	workspace_free(ws);
	CHECK_INT(
	    graph_of("pkgs/other", (const char *[]){"build", "--filter=lib", NULL}, &ws, &g, &err),
	    0);
	CHECK(requested(&g, "lib#build"));
	CHECK(node(&g, "other#build") < 0);
	graph_free(&g);
	workspace_free(ws);
}

static void test_refused(void)
{
	struct workspace *ws = NULL;
	struct graph g;
	const char *err;
	CHECK_INT(graph_of("", (const char *[]){"nope", NULL}, &ws, &g, &err), -1);
	CHECK(strstr(err, "no project of the workspace has a task \"nope\"") != NULL);
	CHECK_INT(graph_of("", (const char *[]){"other#nope", NULL}, &ws, &g, &err), -1);
	CHECK(strstr(err, "project \"other\" has no task \"nope\"") != NULL);
	/* a task of the root's vx.yaml that a package has no script for is
	 * planned, with nothing to run */
	CHECK_INT(graph_of("", (const char *[]){"other#test", NULL}, &ws, &g, &err), 0);
	CHECK(requested(&g, "other#test"));
	CHECK(node(&g, "other#test") >= 0 && !g.nodes.v[node(&g, "other#test")]->command);
	CHECK(has_edge(&g, "other#test", "other#build"));
	graph_free(&g);
	workspace_free(ws);
	/* nothing waits for a server: it never ends */
	CHECK_INT(graph_of("", (const char *[]){"e2e", NULL}, &ws, &g, &err), -1);
	CHECK(strstr(err, "app#e2e depends on app#dev, which is persistent") != NULL);
	CHECK(strstr(err, "vx.yaml:") != NULL); /* at the dependsOn entry */
	/* the server itself is planned */
	CHECK_INT(graph_of("", (const char *[]){"dev", NULL}, &ws, &g, &err), 0);
	CHECK(requested(&g, "app#dev"));
	CHECK(g.nodes.v[node(&g, "app#dev")]->cfg->persistent);
	graph_free(&g);
	workspace_free(ws);
	/* --global-deps is a glob, checked before anything is planned */
	CHECK_INT(
	    graph_of("", (const char *[]){"build", "--global-deps=[z-a]", NULL}, &ws, &g, &err),
	    -1);
	CHECK(strstr(err, "--global-deps [z-a]: ") != NULL);
}

static void test_options_into_workspace(void)
{
	struct workspace *ws;
	struct graph g;
	const char *err;
	CHECK_INT(
	    graph_of("",
		     (const char *[]){"build", "--global-deps=global.json", "--env-mode=strict",
				      "--filter=lib", "--", "--watch", "it's", NULL},
		     &ws, &g, &err),
	    0);
	/* --global-deps joins the workspace's inputs, at its place */
	size_t n = ws->cfg->ws_input_files.n;
	CHECK(n >= 1);
	CHECK_STR(n ? ws->cfg->ws_input_files.v[n - 1].s : NULL, "global.json");
	CHECK_STR(n ? ws->cfg->ws_input_files.v[n - 1].loc.file : NULL, "--global-deps");
	CHECK(ws->cfg->env_strict);
	/* the args go to what was asked for, shell-quoted */
	CHECK_STR(g.nodes.v[node(&g, "lib#build")]->command, "echo lib '--watch' 'it'\\''s'");
	graph_free(&g);
	workspace_free(ws);
	CHECK_INT(graph_of("", (const char *[]){"build", "--env-mode=loose", NULL}, &ws, &g, &err),
		  0);
	CHECK(!ws->cfg->env_strict);
	/* args go to requested tasks only: app's build waits for lib's, which
	 * runs as written */
	graph_free(&g);
	workspace_free(ws);
	CHECK_INT(graph_of("", (const char *[]){"build", "--filter=app", "--", "-x", NULL}, &ws, &g,
			   &err),
		  0);
	CHECK_STR(g.nodes.v[node(&g, "app#build")]->command, "echo app '-x'");
	CHECK_STR(g.nodes.v[node(&g, "lib#build")]->command, "echo lib");
	graph_free(&g);
	workspace_free(ws);
}

/* runplan_make of `vx run ARGS` from the root; rc its return. */
static int make_plan(const char *const *args, struct plan *p, const char **err)
{
	struct run_opts o;
	opts(&o, args);
	cd("");
	capture_begin();
	int rc = runplan_make(&o, p);
	*err = capture_end();
	run_opts_free(&o);
	return rc;
}

static void test_make(void)
{
	struct plan p;
	const char *err;
	int rc = make_plan((const char *[]){"test", "--dry-run", NULL}, &p, &err);
	CHECK_INT(rc, 0);
	if (rc) {
		fprintf(stderr, "%s", err);
		return;
	}
	size_t n = p.g.nodes.n;
	CHECK_INT(n, 6); /* build and test of lib, app and other (its test: nothing to run) */
	/* a dry run takes no lock; the cache is the workspace's own */
	CHECK_INT(p.lock_fd, -1);
	char *want = path_join(root, ".vx/cache");
	CHECK_STR(p.cache_dir, want);
	free(want);
	/* a job per node: its command under sh -c, its edges as the graph's */
	for (size_t i = 0; i < n; i++) {
		const struct task_node *t = p.g.nodes.v[i];
		const struct job *j = &p.jobs[i];
		CHECK_STR(j->id, t->id);
		char *dir = path_join(root, "pkgs");
		char *pdir = xasprintf("%s/%.*s", dir, (int)strcspn(t->id, "#"), t->id);
		CHECK_STR(j->cwd, pdir);
		free(pdir);
		free(dir);
		/* every key computed, each task's its own */
		CHECK_INT(strlen(p.tc.ks.keys[i]), KEY_HEX_SIZE - 1);
		for (size_t k = 0; k < i; k++)
			CHECK(strcmp(p.tc.ks.keys[i], p.tc.ks.keys[k]));
		CHECK((j->argv != NULL) == (t->command != NULL));
		if (!j->argv)
			continue;
		CHECK_STR(j->argv[0], "/bin/sh");
		CHECK_STR(j->argv[1], "-c");
		CHECK_STR(j->argv[2], t->command);
		CHECK(j->argv[3] == NULL);
		CHECK_INT(j->ndeps, t->deps.n);
		for (size_t k = 0; k < t->deps.n; k++)
			CHECK_INT(j->deps[k], t->deps.v[k].to);
	}
	CHECK(node(&p.g, "other#test") >= 0 && !p.jobs[node(&p.g, "other#test")].argv);
	long ab = node(&p.g, "app#build");
	CHECK(ab >= 0 && p.jobs[ab].ndeps == 1);
	char key[KEY_HEX_SIZE];
	memcpy(key, p.tc.ks.keys[node(&p.g, "lib#build")], sizeof key);
	plan_free(&p);
	plan_free(&p); /* a second free frees nothing */
	CHECK_INT(p.lock_fd, -1);

	/* --global-deps: its file is in every key */
	rc = make_plan((const char *[]){"build", "--dry-run", "--global-deps=global.json", NULL},
		       &p, &err);
	CHECK_INT(rc, 0);
	if (!rc)
		CHECK(strcmp(key, p.tc.ks.keys[node(&p.g, "lib#build")]));
	plan_free(&p);
	rc = make_plan((const char *[]){"build", "--dry-run", NULL}, &p, &err);
	CHECK_INT(rc, 0);
	if (!rc) /* and without it, the key it had */
		CHECK_STR(p.tc.ks.keys[node(&p.g, "lib#build")], key);
	plan_free(&p);

	/* --only: what the named tasks wait for is planned, not run */
	rc = make_plan((const char *[]){"test", "--dry-run", "--only", "--filter=app", NULL}, &p,
		       &err);
	CHECK_INT(rc, 0);
	if (!rc) {
		long at = node(&p.g, "app#test"), b = node(&p.g, "app#build");
		CHECK(at >= 0 && p.jobs[at].argv != NULL);
		CHECK(b >= 0 && p.jobs[b].argv == NULL);
	}
	plan_free(&p);

	/* a server's job says so */
	rc = make_plan((const char *[]){"dev", "--dry-run", NULL}, &p, &err);
	CHECK_INT(rc, 0);
	if (!rc)
		CHECK(p.jobs[node(&p.g, "app#dev")].persistent);
	plan_free(&p);
}

static void test_make_refused(void)
{
	struct plan p;
	const char *err;
	/* a cache directory holding the workspace: `vx cache clean` would empty it */
	CHECK_INT(
	    make_plan((const char *[]){"build", "--dry-run", "--cache-dir=..", NULL}, &p, &err), 2);
	CHECK(strstr(err, "--cache-dir .. cannot be the cache directory: ") != NULL);
	CHECK(p.ws == NULL); /* freed */
	CHECK_INT(p.lock_fd, -1);
	CHECK_INT(make_plan((const char *[]){"nope", "--dry-run", NULL}, &p, &err), 2);
	CHECK(strstr(err, "has a task \"nope\"") != NULL);
	/* --cache-dir, relative, is under the workspace root */
	CHECK_INT(
	    make_plan((const char *[]){"build", "--dry-run", "--cache-dir=c/d", NULL}, &p, &err),
	    0);
	char *want = path_join(root, "c/d");
	CHECK_STR(p.cache_dir, want);
	free(want);
	plan_free(&p);
}

int main(void)
{
	unsetenv("VX_CACHE_DIR");
	unsetenv("VX_REMOTE_CACHE_URL");
	unsetenv("TURBO_API");
	home_dir = path_absolute(".");
	make_workspace();
	test_build_from_root();
	test_same_package_dep();
	test_filters();
	test_package_inferred();
	test_refused();
	test_options_into_workspace();
	test_make();
	test_make_refused();
	if (chdir(home_dir))
		perror(home_dir);
	free(home_dir);
	fixture_remove(root);
	return check_finish("runplan");
}
