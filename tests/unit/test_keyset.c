/* Unit tests for keys/keyset.c (issue 58 item 6: the key's folding was
 * tested only through shell runs): on a workspace made in /tmp, what each
 * key folds and what it leaves out — an input's bytes, a dependency's key,
 * a declared variable, the command; an output, an undeclared variable, a
 * file outside the inputs — and that vx watch's rekey changes exactly the
 * keys a full compute would. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "orchestrator/config/workspace.h"
#include "orchestrator/keys/keyset.h"
#include "orchestrator/plan/graph.h"

static const char *root;

/* lib <- app (package.json dependency), build keyed by the files under
 * src/ and the variable KEYSET_FLAVOR; app's build also by notes.txt. */
static void make_workspace(void)
{
	root = fixture_dir();
	fixture_write(root, "vx.yaml",
		      "workspace:\n  projects: [\"pkgs/*\"]\n"
		      "tasks:\n  build:\n    dependsOn: [\"^build\"]\n    outputs: [\"dist/**\"]\n"
		      "    inputs: {files: [\"src/**\"], env: [KEYSET_FLAVOR]}\n");
	fixture_write(root, "pkgs/lib/package.json",
		      "{\"name\": \"lib\", \"scripts\": {\"build\": \"cp src/a.txt dist/\"}}");
	fixture_write(root, "pkgs/lib/src/a.txt", "lib one\n");
	fixture_write(root, "pkgs/app/package.json",
		      "{\"name\": \"app\", \"dependencies\": {\"lib\": \"*\"}, "
		      "\"scripts\": {\"build\": \"cat src/b.txt\"}}");
	fixture_write(root, "pkgs/app/vx.yaml",
		      "tasks:\n  build:\n    inputs: {files: [\"src/**\", \"notes.txt\"], env: "
		      "[KEYSET_FLAVOR]}\n");
	fixture_write(root, "pkgs/app/src/b.txt", "app one\n");
	fixture_write(root, "pkgs/app/notes.txt", "notes\n");
	fixture_write(root, "pkgs/app/README.md", "not an input\n");
}

static long node(const struct graph *g, const char *id)
{
	for (size_t i = 0; i < g->nodes.n; i++)
		if (!strcmp(g->nodes.v[i]->id, id))
			return (long)i;
	return -1;
}

/* The keys of lib#build and app#build, computed from scratch. */
struct two_keys {
	char lib[KEY_HEX_SIZE], app[KEY_HEX_SIZE];
};

/* The workspace at root loaded, its build graph and every key computed:
 * what each test starts from. */
struct keyed {
	struct workspace *ws;
	struct graph g;
	struct keyset ks;
	char *cache;
};

static bool keyed_load(struct keyed *k)
{
	char *tasks[] = {"build"};
	k->ws = workspace_load(root);
	CHECK(k->ws != NULL);
	if (!k->ws)
		return false;
	CHECK(graph_build(&k->g, k->ws, tasks, 1, NULL) == 0);
	keyset_init(&k->ks, k->ws, &k->g, false);
	k->cache = xasprintf("%s/.vx/cache", root);
	CHECK(keyset_compute(&k->ks, k->cache, false) == 0);
	return true;
}

static void keyed_release(struct keyed *k)
{
	free(k->cache);
	keyset_release(&k->ks);
	graph_free(&k->g);
	workspace_free(k->ws);
}

static struct two_keys compute(void)
{
	struct two_keys out = {{0}, {0}};
	struct keyed k;
	if (!keyed_load(&k))
		return out;
	long lib = node(&k.g, "lib#build"), app = node(&k.g, "app#build");
	CHECK(lib >= 0 && app >= 0);
	if (lib >= 0 && app >= 0) {
		memcpy(out.lib, k.ks.keys[lib], KEY_HEX_SIZE);
		memcpy(out.app, k.ks.keys[app], KEY_HEX_SIZE);
	}
	keyed_release(&k);
	return out;
}

static bool facts_hold(const struct keyset *ks, size_t i, const char *name)
{
	for (size_t f = 0; f < ks->facts[i].paths.n; f++)
		if (!strcmp(ks->facts[i].paths.v[f], name))
			return true;
	return false;
}

static void test_what_a_key_folds(void)
{
	make_workspace();
	unsetenv("KEYSET_FLAVOR");
	struct two_keys a = compute(), b = compute();
	CHECK(strlen(a.lib) == KEY_HEX_SIZE - 1);
	CHECK(strcmp(a.lib, a.app) != 0);
	CHECK_STR(a.lib, b.lib); /* the same files, the same keys */
	CHECK_STR(a.app, b.app);

	/* app's own input: app's key alone */
	fixture_write(root, "pkgs/app/src/b.txt", "app two\n");
	struct two_keys c = compute();
	CHECK_STR(c.lib, a.lib);
	CHECK(strcmp(c.app, a.app) != 0);

	/* a file no input names, and an output: no key changes */
	fixture_write(root, "pkgs/app/README.md", "still not an input\n");
	fixture_write(root, "pkgs/lib/dist/a.txt", "an output\n");
	struct two_keys d = compute();
	CHECK_STR(d.lib, c.lib);
	CHECK_STR(d.app, c.app);

	/* lib's input: lib's key, and app's through its dependency's key */
	fixture_write(root, "pkgs/lib/src/a.txt", "lib two\n");
	struct two_keys e = compute();
	CHECK(strcmp(e.lib, d.lib) != 0);
	CHECK(strcmp(e.app, d.app) != 0);

	/* the declared variable: both; another one: neither */
	setenv("KEYSET_UNDECLARED", "x", 1);
	struct two_keys f = compute();
	CHECK_STR(f.lib, e.lib);
	CHECK_STR(f.app, e.app);
	setenv("KEYSET_FLAVOR", "spicy", 1);
	struct two_keys g = compute();
	CHECK(strcmp(g.lib, f.lib) != 0);
	CHECK(strcmp(g.app, f.app) != 0);
	unsetenv("KEYSET_FLAVOR");
	unsetenv("KEYSET_UNDECLARED");
	struct two_keys h = compute();
	CHECK_STR(h.lib, f.lib); /* back as it was: the same key again */
	CHECK_STR(h.app, f.app);

	/* the command */
	fixture_write(root, "pkgs/lib/package.json",
		      "{\"name\": \"lib\", \"scripts\": {\"build\": \"cp -p src/a.txt dist/\"}}");
	struct two_keys i = compute();
	CHECK(strcmp(i.lib, h.lib) != 0);
	CHECK(strcmp(i.app, h.app) != 0);
	fixture_remove(root);
}

/* The facts --explain-key prints are those the key folds: the inputs by
 * name, the command, the dependency. */
static void test_facts(void)
{
	make_workspace();
	struct keyed kd;
	if (!keyed_load(&kd))
		return;
	const struct keyset *ks = &kd.ks;
	const struct graph *g = &kd.g;
	size_t app = (size_t)node(g, "app#build");
	CHECK(facts_hold(ks, app, "pkgs/app/src/b.txt"));
	CHECK(facts_hold(ks, app, "pkgs/app/notes.txt"));
	CHECK(!facts_hold(ks, app, "pkgs/app/README.md"));
	CHECK(facts_hold(ks, app, "//command"));
	CHECK(facts_hold(ks, app, "//dep/lib#build"));
	CHECK(facts_hold(ks, app, "//env/KEYSET_FLAVOR"));
	/* the inputs list: sorted, workspace-relative, each with a hash */
	const struct task_inputs *in = &ks->inputs[app];
	CHECK_INT(in->paths.n, 2);
	for (size_t k = 0; k + 1 < in->paths.n; k++)
		CHECK(strcmp(in->paths.v[k], in->paths.v[k + 1]) < 0);
	for (size_t k = 0; k < in->paths.n; k++)
		CHECK(strlen(in->hashes[k]) == KEY_HEX_SIZE - 1);
	keyed_release(&kd);
	fixture_remove(root);
}

/* vx watch's rekey: after lib's input changes, the nodes marked touched are
 * hashed again; lib's key and app's downstream change, and each equals what
 * a full compute gives. */
static void test_rekey(void)
{
	make_workspace();
	struct keyed kd;
	if (!keyed_load(&kd))
		return;
	struct keyset *ks = &kd.ks;
	const struct graph *g = &kd.g;
	size_t lib = (size_t)node(g, "lib#build"), app = (size_t)node(g, "app#build");
	char before_app[KEY_HEX_SIZE];
	memcpy(before_app, ks->keys[app], KEY_HEX_SIZE);

	bool touched[2] = {false, false}, changed[2] = {true, true};
	CHECK_INT(g->nodes.n, 2);
	CHECK(keyset_rekey(ks, touched, changed) == 0); /* nothing touched */
	CHECK(!changed[0] && !changed[1]);

	fixture_write(root, "pkgs/lib/src/a.txt", "lib changed\n");
	touched[lib] = true;
	CHECK(keyset_rekey(ks, touched, changed) == 0);
	CHECK(changed[lib] && changed[app]);
	CHECK(strcmp(ks->keys[app], before_app) != 0);
	struct two_keys full = compute();
	CHECK_STR(ks->keys[lib], full.lib);
	CHECK_STR(ks->keys[app], full.app);
	keyed_release(&kd);
	fixture_remove(root);
}

int main(void)
{
	test_what_a_key_folds();
	test_facts();
	test_rekey();
	return check_finish("keyset");
}
