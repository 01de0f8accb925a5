/* Unit tests for run/taskfacts.c (issue 58 items 2 and 6: a sandboxed
 * task's facts were built twice, in two shapes, and tested only through
 * sandboxed runs): on a workspace made in /tmp, no sandbox, the one record
 * of app#build — its closure through a chain (base <- lib <- app), its
 * dependencies' projects, configs and outputs, the files their keys hold,
 * its read and write grants (declared ones included, walled ones left
 * out), the other tasks' outputs, its environment. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/run/taskcache.h"
#include "orchestrator/run/taskfacts.h"

static const char *root;

/* base <- lib <- app (project dependsOn), build depending on ^build;
 * app's build sandboxed, with a lint beside it in its project. */
static void make_workspace(void)
{
	root = strdup(fixture_dir()); /* test_cycle makes another */
	fixture_write(root, "vx.yaml",
		      "workspace:\n  projects: [\"pkgs/*\"]\n"
		      "tasks:\n  build:\n    dependsOn: [\"^build\"]\n    outputs: [\"dist/**\"]\n"
		      "    inputs: {files: [\"src/**\"]}\n");
	fixture_write(root, "pkgs/base/vx.yaml",
		      "name: base\ntasks:\n  build:\n    command: \"true\"\n");
	fixture_write(root, "pkgs/base/src/c.txt", "base\n");
	fixture_write(root, "pkgs/base/dist/c.js", "c\n");
	fixture_write(
	    root, "pkgs/lib/vx.yaml",
	    "name: lib\ndependsOn: [\"base\"]\ntasks:\n  build:\n    command: \"true\"\n");
	fixture_write(root, "pkgs/lib/src/a.txt", "lib\n");
	fixture_write(root, "pkgs/lib/dist/a.js", "a\n");
	fixture_write(root, "pkgs/lib/dist/sub/b.js", "b\n");
	fixture_write(
	    root, "pkgs/app/vx.yaml",
	    "name: app\ndependsOn: [\"lib\"]\ntasks:\n"
	    "  build:\n    command: \"true\"\n"
	    "    outputs: [\"dist/**\", \"./out/**\", \"!dist/x\", "
	    "\"vx.yaml\"]\n"
	    "    inputs: {workspaceFiles: [\"shared/cfg.txt\"]}\n"
	    "    env: {define: {MODE: fast}, passThrough: [FACTS_PASS]}\n"
	    "    sandbox:\n      allow: {read: [\"src/\"], write: [\"tmp/\", \"dist/esm/\"]}\n"
	    "      ignore: {read: [\"~/.npmrc\"]}\n"
	    "  lint:\n    command: \"true\"\n    outputs: [\".cache/**\"]\n");
	fixture_write(root, "pkgs/app/src/b.txt", "app\n");
	fixture_write(root, "shared/cfg.txt", "cfg\n");
}

static long node(const struct graph *g, const char *id)
{
	for (size_t i = 0; i < g->nodes.n; i++)
		if (!strcmp(g->nodes.v[i]->id, id))
			return (long)i;
	return -1;
}

static bool has(const struct strvec *sv, const char *s)
{
	return strvec_find(sv, s) >= 0;
}

static char *at(const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

static void test_facts(void)
{
	struct workspace *ws = workspace_load(root);
	CHECK(ws != NULL);
	if (!ws)
		return;
	struct graph g;
	char *tasks[] = {"app#build"};
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == 0);
	long app = node(&g, "app#build"), lib = node(&g, "lib#build"),
	     base = node(&g, "base#build");
	CHECK(app >= 0 && lib >= 0 && base >= 0);
	if (app < 0 || lib < 0 || base < 0)
		return;
	struct taskfacts *facts = xcalloc(g.nodes.n + 1, sizeof *facts);
	for (size_t i = 0; i < g.nodes.n; i++)
		taskfacts_plan(facts, ws, &g, i);
	const struct taskfacts *f = &facts[app];
	CHECK(f->planned);
	CHECK(!facts[lib].planned); /* no sandbox: nothing of it is planned */

	/* the closure, through the chain, in graph order */
	CHECK(f->closure[lib] && f->closure[base] && !f->closure[app]);
	CHECK_INT(f->deps.n, 2);
	if (f->deps.n == 2) {
		CHECK_INT(f->deps.v[0], base);
		CHECK_INT(f->deps.v[1], lib);
	}
	char *lib_dir = at("pkgs/lib"), *base_dir = at("pkgs/base");
	CHECK_INT(f->dep_dirs.n, 2);
	CHECK(has(&f->dep_dirs, lib_dir) && has(&f->dep_dirs, base_dir));
	CHECK_INT(f->judge_deps.n, 2);
	if (f->judge_deps.n == 2) {
		CHECK_STR(f->judge_deps.v[1].id, "lib#build");
		CHECK_STR(f->judge_deps.v[1].config, "pkgs/lib/vx.yaml");
		CHECK_STR(f->judge_deps.v[1].dir, lib_dir);
	}
	CHECK_STR(f->yaml, "pkgs/app/vx.yaml");
	CHECK_STR(facts[lib].yaml, "pkgs/lib/vx.yaml"); /* made for the judge_dep, unplanned */

	/* grants: allow.read and the declared workspace file outside the
	 * project; allow.write and the declared outputs that stay in the
	 * project, dist/esm/ dropped under dist/, a config not
	 * granted */
	CHECK(has(&f->reads, "src/") && has(&f->reads, "../../shared/cfg.txt"));
	CHECK_INT(f->reads.n, 2);
	CHECK(has(&f->writes, "tmp/") && has(&f->writes, "dist/") && has(&f->writes, "out/"));
	CHECK(!has(&f->writes, "dist/esm/"));
	CHECK(!has(&f->writes, "vx.yaml"));
	CHECK_INT(f->writes.n, 3);
	CHECK(has(&f->ignore_read, "~/.npmrc"));
	CHECK(has(&f->ws_inputs, "shared/cfg.txt"));

	/* the other task of the project: its output dir shown empty, its glob
	 * named to the judge, no cycle (lint does not depend on build) */
	char *cache_dir = at("pkgs/app/.cache");
	CHECK_INT(f->other_dirs.n, 1);
	CHECK(has(&f->other_dirs, cache_dir));
	CHECK_INT(f->others.n, 1);
	if (f->others.n) {
		CHECK_STR(f->others.v[0].task, "lint");
		CHECK_STR(f->others.v[0].glob, ".cache/**");
		CHECK(!f->others.v[0].cycle);
	}

	/* the environment */
	CHECK(has(&f->define, "MODE=fast"));
	CHECK(has(&f->pass, "FACTS_PASS"));
	bool task_var = false;
	for (size_t k = 0; k < f->vxenv.n; k++)
		task_var = task_var || !strcmp(f->vxenv.v[k], "VX_TASK=app#build");
	CHECK(task_var);

	/* at its start: the dependencies' outputs, each walked once, and
	 * what their keys hold */
	struct taskcache tc;
	char *store = at(".vx/cache");
	struct taskcache_opts o = {.dir = store, .read = true, .write = true};
	CHECK(taskcache_open(&tc, ws, &g, &o) == 0);
	CHECK(taskcache_keys(&tc) == 0);
	taskfacts_start(facts, ws, &g, &tc, (size_t)app);
	char *a_js = at("pkgs/lib/dist/a.js"), *b_js = at("pkgs/lib/dist/sub/b.js"),
	     *c_js = at("pkgs/base/dist/c.js");
	CHECK_INT(f->dep_outputs.n, 3);
	CHECK(has(&f->dep_outputs, a_js) && has(&f->dep_outputs, b_js) &&
	      has(&f->dep_outputs, c_js));
	CHECK(facts[lib].outputs_walked && facts[lib].outputs_ok);
	CHECK(has(&f->dep_keyed, "pkgs/lib/src/a.txt"));
	CHECK(has(&f->dep_keyed, "pkgs/base/src/c.txt"));
	CHECK(!has(&f->dep_keyed, "pkgs/app/src/b.txt")); /* its own, not a dependency's */
	CHECK(f->outside.n == 0);			  /* no read grant leaves the workspace */
	/* a second start makes the same record, not a longer one */
	taskfacts_start(facts, ws, &g, &tc, (size_t)app);
	CHECK_INT(f->dep_outputs.n, 3);

	taskcache_close(&tc);
	for (size_t i = 0; i < g.nodes.n; i++)
		taskfacts_release(&facts[i]);
	free(facts);
	free(store);
	free(a_js);
	free(b_js);
	free(c_js);
	free(cache_dir);
	free(lib_dir);
	free(base_dir);
	graph_free(&g);
	workspace_free(ws);
}

/* A task of the project that depends on the judged one: an edge to it
 * would be a cycle, and the judge is told so. */
static void test_cycle(void)
{
	const char *r = fixture_dir();
	fixture_write(r, "vx.yaml", "workspace:\n  projects: [\"app\"]\n");
	fixture_write(r, "app/vx.yaml",
		      "name: app\ntasks:\n"
		      "  build:\n    command: \"true\"\n    sandbox: {}\n"
		      "  test:\n    command: \"true\"\n    dependsOn: [\"build\"]\n"
		      "    outputs: [\"coverage/**\"]\n");
	struct workspace *ws = workspace_load(r);
	CHECK(ws != NULL);
	if (!ws)
		return;
	struct graph g;
	char *tasks[] = {"test"};
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == 0);
	long build = node(&g, "app#build");
	CHECK(build >= 0);
	struct taskfacts *facts = xcalloc(g.nodes.n + 1, sizeof *facts);
	if (build >= 0) {
		taskfacts_plan(facts, ws, &g, (size_t)build);
		const struct taskfacts *f = &facts[build];
		CHECK_INT(f->deps.n, 0);
		CHECK_INT(f->others.n, 1);
		if (f->others.n) {
			CHECK_STR(f->others.v[0].task, "test");
			CHECK(f->others.v[0].cycle);
		}
	}
	for (size_t i = 0; i < g.nodes.n; i++)
		taskfacts_release(&facts[i]);
	free(facts);
	graph_free(&g);
	workspace_free(ws);
	fixture_remove(r);
}

int main(void)
{
	make_workspace();
	test_facts();
	test_cycle();
	fixture_remove(root);
	return check_finish("test_taskfacts");
}
