/* Unit tests for workspace.c, graph.c and filter.c on small workspaces made
 * in /tmp: discovery, names and edges, the three dependency spellings,
 * cycles, persistent edges and project selection. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "fixture.h"
#include "graphtest.h"
#include "orchestrator/plan/filter.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/config/workspace.h"

static const char *root;

/* A workspace: root package.json workspaces (object form), a root project,
 * lib <- ui <- app through package.json dependencies, a tool edge through
 * vx.yaml dependsOn, and ui/icons nested in ui. */
static void make_workspace(void)
{
	root = fixture_dir();
	fixture_write(
	    root, "vx.yaml",
	    "workspace:\n  inputs: {workspaceFiles: [package.json]}\n"
	    "tasks:\n  build:\n    dependsOn: [\"^build\"]\n    outputs: [\"dist/**\"]\n"
	    "  test:\n    dependsOn: [build, lint]\n"
	    "  \"//#check\":\n    command: \"echo root\"\n    dependsOn: [\"@x/app#build\"]\n");
	fixture_write(root, "package.json",
		      "{\"name\": \"@x/root\", \"workspaces\": {\"packages\": [\"pkgs/*\", "
		      "\"pkgs/ui/icons\", \"!pkgs/ignored\"]}}");
	fixture_write(root, "pkgs/lib/package.json",
		      "{\"name\": \"@x/lib\", \"scripts\": {\"build\": \"echo lib\"}}");
	fixture_write(root, "pkgs/ui/package.json",
		      "{\"name\": \"@x/ui\", \"dependencies\": {\"@x/lib\": \"workspace:*\", "
		      "\"react\": \"18\"}}");
	fixture_write(root, "pkgs/ui/vx.yaml", "tasks:\n  build:\n    command: \"echo ui\"\n");
	fixture_write(root, "pkgs/ui/icons/package.json", "{\"name\": \"@x/icons\"}");
	fixture_write(root, "pkgs/ui/icons/vx.yaml",
		      "tasks:\n  build: {command: \"echo icons\"}\n");
	fixture_write(root, "pkgs/app/package.json",
		      "{\"name\": \"@x/app\", \"devDependencies\": {\"@x/ui\": \"*\"}}");
	fixture_write(root, "pkgs/app/vx.yaml",
		      "dependsOn: [\"@x/tool\"]\ntasks:\n  build: {command: \"echo app\"}\n  dev: "
		      "{command: \"serve\", persistent: true}\n");
	fixture_write(root, "pkgs/tool/vx.yaml",
		      "name: \"@x/tool\"\ntasks:\n  gen: {command: \"echo gen\"}\n");
	fixture_write(root, "pkgs/ignored/package.json", "{\"name\": \"@x/ignored\"}");
	fixture_write(root, "pkgs/notaproject/README", "no project files here\n");
}

static void test_workspace(void)
{
	char sub[4200];
	snprintf(sub, sizeof sub, "%s/pkgs/ui/icons", root);
	struct workspace *ws = workspace_load(sub); /* found from a nested directory */
	CHECK(ws != NULL);
	if (!ws)
		return;
	CHECK_INT(ws->projects.n, 6); /* root, app, lib, tool, ui, icons; not ignored/notaproject */
	CHECK(workspace_find(ws, "@x/ignored") < 0);
	long ui = workspace_find(ws, "@x/ui"), lib = workspace_find(ws, "@x/lib"),
	     app = workspace_find(ws, "@x/app");
	long tool = workspace_find(ws, "@x/tool"), icons = workspace_find(ws, "@x/icons");
	long r = workspace_find(ws, "@x/root");
	CHECK(ui >= 0 && lib >= 0 && app >= 0 && tool >= 0 && icons >= 0 && r >= 0);
	CHECK(ws->projects.v[r]->is_root);
	CHECK_INT(ws->projects.v[ui]->deps.n, 1); /* react is no workspace project */
	CHECK_INT(ws->projects.v[ui]->deps.v[0], lib);
	CHECK_INT(ws->projects.v[app]->deps.n, 2); /* ui (devDependencies) and tool (vx.yaml) */
	CHECK_INT(ws->projects.v[ui]->nested.n, 1);
	CHECK_INT(ws->projects.v[ui]->nested.v[0], icons);
	CHECK_INT(ws->projects.v[r]->nested.n, 5);
	CHECK_STR(project_script(ws->projects.v[lib], "build"), "echo lib");
	char path[4200];
	snprintf(path, sizeof path, "%s/pkgs/ui/icons/x.svg", root);
	CHECK_INT(workspace_project_of(ws, path), icons);
	CHECK_INT(workspace_project_of(ws, "pkgs/ui/src/a.ts"), ui);
	CHECK_INT(workspace_project_of(ws, "README.md"), r);
	workspace_free(ws);
}

static void test_graph(void)
{
	struct workspace *ws = workspace_load(root);
	struct graph g;
	char *tasks[] = {"build"};
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == 0);
	/* every project inherits build; tool has neither command nor script: a no-op node */
	CHECK(has_edge(&g, "@x/app#build", "@x/ui#build"));
	CHECK(has_edge(&g, "@x/app#build", "@x/tool#build"));
	CHECK(has_edge(&g, "@x/ui#build", "@x/lib#build"));
	CHECK(node(&g, "@x/tool#build") >= 0 &&
	      g.nodes.v[node(&g, "@x/tool#build")]->command == NULL);
	CHECK(g.nodes.v[node(&g, "@x/lib#build")]->from_script);
	CHECK(node(&g, "@x/root#build") < 0); /* the root takes only its "//#" tasks */
	/* dependencies come before dependents */
	CHECK(node(&g, "@x/lib#build") < node(&g, "@x/ui#build"));
	CHECK(node(&g, "@x/ui#build") < node(&g, "@x/app#build"));
	graph_free(&g);

	/* test: depends on own build (exists) and lint (exists nowhere, inherited: skipped) */
	char *t2[] = {"test", "check"};
	CHECK(graph_build(&g, ws, t2, 2, NULL) == 0);
	CHECK(has_edge(&g, "@x/app#test", "@x/app#build"));
	CHECK(has_edge(&g, "@x/root#check", "@x/app#build"));
	CHECK(node(&g, "@x/lib#check") < 0); /* a task only the root has */
	graph_free(&g);

	/* explicit project#task */
	char *t3[] = {"@x/tool#gen"};
	CHECK(graph_build(&g, ws, t3, 1, NULL) == 0);
	CHECK_INT(g.nodes.n, 1);
	CHECK(g.nodes.v[0]->requested);
	graph_free(&g);
	char *t4[] = {"@x/tool#nope"};
	capture_begin();
	CHECK(graph_build(&g, ws, t4, 1, NULL) == -1);
	CHECK(strstr(capture_end(), "project \"@x/tool\" has no task \"nope\"") != NULL);
	graph_free(&g);

	/* graph_keep (--shard): ui and what it needs stay, app goes, the edges
	 * point at the renumbered nodes */
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == 0);
	bool keep[16] = {0};
	keep[node(&g, "@x/ui#build")] = keep[node(&g, "@x/lib#build")] = true;
	keep[node(&g, "@x/tool#build")] = true;
	graph_keep(&g, keep);
	CHECK_INT(g.nodes.n, 3);
	CHECK(node(&g, "@x/app#build") < 0);
	CHECK(has_edge(&g, "@x/ui#build", "@x/lib#build"));
	for (size_t i = 0; i < g.nodes.n; i++)
		CHECK_INT(g.nodes.v[i]->index, i);
	graph_free(&g);

	/* selection: only ui selected still pulls lib#build as a dependency */
	bool sel[16] = {0};
	sel[workspace_find(ws, "@x/ui")] = true;
	CHECK(graph_build(&g, ws, tasks, 1, sel) == 0);
	CHECK_INT(g.nodes.n, 2);
	CHECK(node(&g, "@x/lib#build") >= 0 && !g.nodes.v[node(&g, "@x/lib#build")]->requested);
	graph_free(&g);
	workspace_free(ws);
}

static void test_graph_errors(void)
{
	struct graph g;
	char *tasks[] = {"build"};
	/* a cycle through three tasks, named in order */
	fixture_write(root, "pkgs/tool/vx.yaml",
		      "name: \"@x/tool\"\ntasks:\n  build: {command: x, dependsOn: [gen]}\n  gen: "
		      "{command: y, dependsOn: [pre]}\n"
		      "  pre: {command: z, dependsOn: [build]}\n");
	struct workspace *ws = workspace_load(root);
	capture_begin();
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == -1);
	const char *err = capture_end();
	CHECK(strstr(err, "pkgs/tool/vx.yaml:5:") != NULL);
	CHECK(
	    strstr(
		err,
		"dependency cycle: @x/tool#build -> @x/tool#gen -> @x/tool#pre -> @x/tool#build") !=
	    NULL);
	graph_free(&g);
	workspace_free(ws);

	/* a task the project's own file names but nobody has */
	fixture_write(root, "pkgs/tool/vx.yaml",
		      "name: \"@x/tool\"\ntasks:\n  build: {command: x, dependsOn: [codegen]}\n");
	ws = workspace_load(root);
	capture_begin();
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == -1);
	CHECK(strstr(capture_end(), "vx.yaml:3:35: dependsOn \"codegen\": project \"@x/tool\" has "
				    "no task \"codegen\"") != NULL);
	graph_free(&g);
	workspace_free(ws);

	/* an unknown project */
	fixture_write(
	    root, "pkgs/tool/vx.yaml",
	    "name: \"@x/tool\"\ntasks:\n  build: {command: x, dependsOn: [\"@x/nope#build\"]}\n");
	ws = workspace_load(root);
	capture_begin();
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == -1);
	CHECK(strstr(capture_end(),
		     "dependsOn \"@x/nope#build\": no project is named \"@x/nope\"") != NULL);
	graph_free(&g);
	workspace_free(ws);

	/* depending on a persistent task */
	fixture_write(
	    root, "pkgs/tool/vx.yaml",
	    "name: \"@x/tool\"\ntasks:\n  build: {command: x, dependsOn: [\"@x/app#dev\"]}\n");
	ws = workspace_load(root);
	capture_begin();
	CHECK(graph_build(&g, ws, tasks, 1, NULL) == -1);
	CHECK(strstr(capture_end(), "@x/tool#build depends on @x/app#dev, which is persistent") !=
	      NULL);
	graph_free(&g);
	workspace_free(ws);

	/* a project-level dependsOn naming nothing */
	fixture_write(root, "pkgs/tool/vx.yaml", "name: \"@x/tool\"\ndependsOn: [\"@x/ghost\"]\n");
	capture_begin();
	CHECK(workspace_load(root) == NULL);
	CHECK(strstr(capture_end(),
		     "pkgs/tool/vx.yaml:2:13: dependsOn names \"@x/ghost\", which is no project") !=
	      NULL);

	/* two projects of one name */
	fixture_write(root, "pkgs/tool/vx.yaml", "name: \"@x/lib\"\n");
	capture_begin();
	CHECK(workspace_load(root) == NULL);
	CHECK(strstr(capture_end(), "duplicate project name \"@x/lib\"") != NULL);

	/* broken package.json: the place of the error */
	fixture_write(root, "pkgs/tool/vx.yaml", "name: \"@x/tool\"\n");
	fixture_write(root, "pkgs/lib/package.json", "{\"name\": \"@x/lib\",\n  \"scripts\": {,}}");
	capture_begin();
	CHECK(workspace_load(root) == NULL);
	CHECK(strstr(capture_end(), "pkgs/lib/package.json:2:16: invalid JSON") != NULL);
	fixture_write(root, "pkgs/lib/package.json",
		      "{\"name\": \"@x/lib\", \"scripts\": {\"build\": \"echo lib\"}}");
}

/* Removes root's .vx: no run has kept anything there. */
static void remove_dotvx(void)
{
	char dir[4200];
	snprintf(dir, sizeof dir, "%s/.vx", root);
	fixture_remove(dir);
}

/* What start and stop saw, for test_loader. */
static struct {
	int started, stopped;
	char root[4200], kept[4200]; /* kept: "" when start was given NULL */
} seen;
static struct listing *fake_start(const char *ws_root, const char *kept_dir)
{
	seen.started++;
	snprintf(seen.root, sizeof seen.root, "%s", ws_root);
	snprintf(seen.kept, sizeof seen.kept, "%s", kept_dir ? kept_dir : "");
	return (struct listing *)&seen; /* never dereferenced: config/ only passes it on */
}
static void fake_stop(struct listing *l)
{
	CHECK(l == (struct listing *)&seen);
	seen.stopped++;
}

/* The load's reads and its started listing are the loader's, not the
 * workspace's (issue 58 item 4): workspace_free leaves them, the caller
 * releases them once, after a failed load too. */
static void test_loader(void)
{
	struct workspace_loader ld = {.start = fake_start, .stop = fake_stop};
	memset(&seen, 0, sizeof seen);
	remove_dotvx();
	struct workspace *ws = workspace_load_with(root, &ld);
	CHECK(ws != NULL);
	CHECK_INT(seen.started, 1);
	CHECK_STR(seen.root, ws ? ws->root : "");
	CHECK_STR(seen.kept, ""); /* no run kept its listings yet */
	CHECK(ld.listing == (struct listing *)&seen);
	CHECK(ld.reads == NULL); /* no cache directory: nothing kept, nothing made */
	workspace_free(ws);
	CHECK_INT(seen.stopped, 0);
	workspace_loader_release(&ld);
	CHECK_INT(seen.stopped, 1);
	CHECK(ld.listing == NULL);
	workspace_loader_release(&ld); /* a second release drops nothing */
	CHECK_INT(seen.stopped, 1);

	/* a run kept its stat cache: the walk goes by what it kept there,
	 * and the kept reads are loaded */
	fixture_write(root, ".vx/cache/statcache", "");
	ld = (struct workspace_loader){.start = fake_start, .stop = fake_stop};
	ws = workspace_load_with(root, &ld);
	CHECK(ws != NULL);
	char *cache = ws ? workspace_cache_dir(ws) : NULL;
	CHECK_STR(seen.kept, cache ? cache : "?");
	CHECK(ld.reads != NULL);
	free(cache);
	workspace_free(ws);
	workspace_loader_release(&ld);
	CHECK_INT(seen.stopped, 2);
	CHECK(ld.reads == NULL);

	/* a load that fails after the walk started leaves it to the caller */
	fixture_write(root, "pkgs/tool/vx.yaml", "name: \"@x/lib\"\n");
	ld = (struct workspace_loader){.start = fake_start, .stop = fake_stop};
	capture_begin();
	CHECK(workspace_load_with(root, &ld) == NULL);
	CHECK(strstr(capture_end(), "duplicate project name \"@x/lib\"") != NULL);
	CHECK_INT(seen.started, 3);
	CHECK_INT(seen.stopped, 2);
	workspace_loader_release(&ld);
	CHECK_INT(seen.stopped, 3);
	fixture_write(root, "pkgs/tool/vx.yaml",
		      "name: \"@x/tool\"\ntasks:\n  gen: {command: \"echo gen\"}\n");
	remove_dotvx();
}

static void test_filters(void)
{
	struct workspace *ws = workspace_load(root);
	size_t np = ws->projects.n;
	bool sel[16];
	struct filter f[3];
#define SELECT(...)                                                                                \
	do {                                                                                       \
		const char *args[] = {__VA_ARGS__};                                                \
		size_t n = sizeof args / sizeof *args;                                             \
		for (size_t i = 0; i < n; i++)                                                     \
			CHECK(filter_parse(args[i], ws, root, &f[i]) == 0);                        \
		CHECK(filter_select(ws, f, n, sel) == 0);                                          \
		for (size_t i = 0; i < n; i++)                                                     \
			filter_free(&f[i]);                                                        \
	} while (0)
#define IS(name) sel[workspace_find(ws, name)]
	SELECT("@x/ui");
	CHECK(IS("@x/ui") && !IS("@x/lib") && !IS("@x/app"));
	SELECT("@x/ui...");
	CHECK(IS("@x/ui") && IS("@x/lib") && !IS("@x/app"));
	SELECT("...@x/lib");
	CHECK(IS("@x/lib") && IS("@x/ui") && IS("@x/app") && !IS("@x/tool"));
	SELECT("...^@x/lib");
	CHECK(!IS("@x/lib") && IS("@x/ui") && IS("@x/app"));
	SELECT("@x/app^...");
	CHECK(!IS("@x/app") && IS("@x/ui") && IS("@x/lib") && IS("@x/tool"));
	SELECT("@x/*", "!@x/ui");
	CHECK(IS("@x/app") && !IS("@x/ui") && IS("@x/icons"));
	SELECT("!@x/app");
	CHECK(!IS("@x/app") && IS("@x/lib"));
	SELECT("./pkgs/ui");
	CHECK(IS("@x/ui") && !IS("@x/icons"));
	SELECT("./pkgs/ui/**");
	CHECK(IS("@x/icons"));
	SELECT("{./pkgs/lib}...");
	CHECK(IS("@x/lib") && !IS("@x/ui"));
	CHECK(filter_parse("@x/nothing", ws, root, &f[0]) == 0);
	capture_begin();
	CHECK(filter_select(ws, f, 1, sel) == -1);
	CHECK(strstr(capture_end(), "matches no project") != NULL);
	filter_free(&f[0]);
	capture_begin();
	CHECK(filter_parse("../../elsewhere", ws, root, &f[0]) == -1);
	CHECK(strstr(capture_end(), "lies outside the workspace") != NULL);
	(void)np;
	workspace_free(ws);
}

static bool has_project(const struct workspace *ws, const char *rel)
{
	for (size_t i = 0; i < ws->projects.n; i++)
		if (!strcmp(ws->projects.v[i]->rel, rel))
			return true;
	return false;
}

/* pnpm-workspace.yaml: its packages: are the projects (not package.json's
 * workspaces, which pnpm ignores); "!" takes away wherever it is written;
 * "./" is allowed; other keys are pnpm's. Then the package manager. */
/* Loads the workspace at root and copies its package manager to *pm.
 * Returns whether it loaded. */
static bool load_pm(const char *root, struct package_manager *pm)
{
	struct workspace *ws = workspace_load(root);
	if (ws)
		*pm = ws->pm;
	workspace_free(ws);
	return ws != NULL;
}

static void test_pnpm(void)
{
	const char *r = fixture_dir();
	fixture_write(r, "vx.yaml", "workspace: {}\n");
	fixture_write(r, "package.json",
		      "{\"name\": \"root\", \"workspaces\": [\"nope/*\"], \"packageManager\": "
		      "\"pnpm@9.12.1+sha512.abc\"}");
	fixture_write(
	    r, "pnpm-workspace.yaml",
	    "# pnpm's own\npackages:\n  - '!apps/legacy'\n  - ./apps/*\n  - \"packages/**\"\n"
	    "  - '!**/test/**'\ncatalog:\n  react: ^18\nonlyBuiltDependencies: [esbuild]\n");
	fixture_write(r, "apps/web/package.json", "{\"name\": \"web\", \"version\": \"1.2.3\"}");
	fixture_write(r, "apps/legacy/package.json", "{\"name\": \"legacy\"}");
	fixture_write(r, "packages/ui/package.json", "{\"name\": \"ui\"}");
	fixture_write(r, "packages/ui/test/fixture/package.json", "{\"name\": \"fx\"}");
	fixture_write(r, "nope/x/package.json", "{\"name\": \"x\"}");
	struct workspace *ws = workspace_load(r);
	CHECK(ws != NULL);
	if (ws) {
		CHECK_INT(ws->projects.n, 2);
		CHECK(has_project(ws, "apps/web"));
		CHECK(has_project(ws, "packages/ui"));
		CHECK(!has_project(ws, "apps/legacy"));
		CHECK(!has_project(ws, "nope/x"));
		CHECK_STR(ws->projects_from, "pnpm-workspace.yaml packages");
		CHECK_STR(ws->pm.name, "pnpm");
		CHECK_STR(ws->pm.version, "9.12.1");
		CHECK_STR(ws->pm.source, "packageManager in package.json");
		long web = workspace_find(ws, "web");
		CHECK(web >= 0 && ws->projects.v[web]->pkg_version &&
		      !strcmp(ws->projects.v[web]->pkg_version, "1.2.3"));
		workspace_free(ws);
	}
	/* a vx.yaml projects: list wins over both */
	fixture_write(r, "vx.yaml", "workspace:\n  projects: [\"nope/*\"]\n");
	ws = workspace_load(r);
	CHECK(ws && ws->projects.n == 1 && has_project(ws, "nope/x"));
	workspace_free(ws);
	/* a bad pnpm-workspace.yaml is an error at its place */
	fixture_write(r, "vx.yaml", "workspace: {}\n");
	/* packages: given twice: pnpm (js-yaml) refuses the file; so does vx,
	 * rather than take one of the two lists silently */
	fixture_write(r, "pnpm-workspace.yaml",
		      "packages: [apps/*]\ncatalog: {}\npackages: [packages/*]\n");
	capture_begin();
	CHECK(workspace_load(r) == NULL);
	CHECK(strstr(capture_end(),
		     "pnpm-workspace.yaml:3:1: duplicate key \"packages\" (first at line 1)") !=
	      NULL);
	fixture_write(r, "pnpm-workspace.yaml", "packages: apps/*\n");
	capture_begin();
	CHECK(workspace_load(r) == NULL);
	CHECK(strstr(capture_end(),
		     "pnpm-workspace.yaml:1:11: pnpm-workspace.yaml packages: must be a list") !=
	      NULL);
	fixture_write(r, "pnpm-workspace.yaml", "packages:\n  - [x]\n");
	capture_begin();
	CHECK(workspace_load(r) == NULL);
	CHECK(strstr(
		  capture_end(),
		  "pnpm-workspace.yaml:2:5: pnpm-workspace.yaml packages: entries must be globs") !=
	      NULL);
	fixture_write(r, "pnpm-workspace.yaml", "packages: [\n");
	capture_begin();
	CHECK(workspace_load(r) == NULL);
	CHECK(strstr(capture_end(), "pnpm-workspace.yaml:2:1: ") != NULL);
	/* no packages: key: package.json's workspaces, as before */
	fixture_write(r, "pnpm-workspace.yaml", "catalog: {}\n");
	ws = workspace_load(r);
	CHECK(ws && ws->projects.n == 1 && has_project(ws, "nope/x"));
	if (ws)
		CHECK_STR(ws->projects_from, "package.json workspaces");
	workspace_free(ws);

	/* the package manager: packageManager, else the lockfile, else npm;
	 * read from the root package.json the load parsed once */
	struct package_manager pm;
	fixture_write(r, "package.json", "{\"packageManager\": \"yarn@4.1.0\"}");
	CHECK(load_pm(r, &pm));
	CHECK_STR(pm.name, "yarn");
	CHECK_STR(pm.version, "4.1.0");
	fixture_write(r, "package.json", "{\"packageManager\": \"cargo@1\"}");
	fixture_write(r, "yarn.lock", "# yarn lockfile v1\n");
	CHECK(load_pm(r, &pm));
	CHECK_STR(pm.name, "yarn");
	CHECK_STR(pm.version, "");
	CHECK_STR(pm.source, "yarn.lock");
	CHECK(pm.pre_post);
	fixture_write(r, "package.json", "{}");
	fixture_write(r, "pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
	CHECK(load_pm(r, &pm));
	CHECK_STR(pm.name, "pnpm");
	CHECK_STR(pm.source, "pnpm-lock.yaml");
	/* not JSON: no packageManager, and no error where no workspaces are asked */
	fixture_write(r, "package.json", "{\"packageManager\": ");
	fixture_write(r, "vx.yaml", "workspace:\n  projects: []\n");
	capture_begin();
	CHECK(load_pm(r, &pm));
	CHECK_STR(capture_end(), "");
	CHECK_STR(pm.name, "pnpm");
	fixture_remove(r);
	const char *r2 = fixture_dir();
	fixture_write(r2, "vx.yaml", "workspace: {}\n");
	CHECK(load_pm(r2, &pm));
	CHECK_STR(pm.name, "npm");
	CHECK_STR(pm.source, "none found (npm assumed)");
	CHECK(pm.pre_post);
	fixture_remove(r2);
}

int main(void)
{
	test_pnpm();
	make_workspace();
	test_workspace();
	test_graph();
	test_graph_errors();
	test_filters();
	test_loader();
	fixture_remove(root);
	return check_finish("graph");
}
