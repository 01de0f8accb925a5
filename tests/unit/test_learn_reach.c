/* Unit tests for cli/learn_reach.c: the line `vx sandbox learn` keeps
 * between what it writes and what it leaves to a person (issue 53). Pure:
 * the paths need not exist. */
#include <string.h>

#include "check.h"
#include "orchestrator/cli/learn_reach.h"

#define WS "/w"
#define APP "/w/app"

static const char *const nested[] = {"/w/app/inner"};
static const char *const dep_outputs[] = {"/w/lib/dist/**", "/w/lib/types.d.ts"};
static const char *const keyed[] = {"/w/include/shared.h", "/w/config/**"};

static struct learn_scope scope(void)
{
	struct learn_scope s = {
	    .workspace_root = WS,
	    .project_dir = APP,
	    .home = "/home/u",
	    .nested = nested,
	    .n_nested = 1,
	    .dep_outputs = dep_outputs,
	    .n_dep_outputs = 2,
	    .keyed = keyed,
	    .n_keyed = 2,
	};
	return s;
}

static bool learned(enum learn_field f, const char *abs)
{
	struct learn_scope s = scope();
	return learn_reach_asks(&s, f, abs) == NULL;
}

static const char *why(enum learn_field f, const char *abs)
{
	struct learn_scope s = scope();
	const char *w = learn_reach_asks(&s, f, abs);
	return w ? w : "";
}

/* Item 1, 2, 5: writes inside its own project only, never over what
 * decides what vx runs, a mandatory deny, a nested project or a wall. */
static void test_writes(void)
{
	CHECK(learned(LEARN_WRITE, APP "/dist"));
	CHECK(learned(LEARN_WRITE, APP "/.eslintcache"));
	CHECK(learned(LEARN_WRITE, APP "/tsup.config.bundled_*.mjs"));
	CHECK(learned(LEARN_WRITE, APP "/node_modules/.vite/vitest"));
	CHECK(learned(LEARN_WRITE, APP "/$\\{HOME\\}")); /* a file of that name */
	CHECK(strstr(why(LEARN_WRITE, "/w/lib/src"), "outside its own project"));
	CHECK(strstr(why(LEARN_WRITE, WS), "outside its own project"));
	CHECK(strstr(why(LEARN_WRITE, "/home/u/.cache/tool"), "outside its own project"));
	CHECK(strstr(why(LEARN_WRITE, "/tmp/x"), "outside its own project"));
	CHECK(strstr(why(LEARN_WRITE, APP), "all of its own project"));
	CHECK(strstr(why(LEARN_WRITE, APP "/inner/dist"), "nested"));
	CHECK(strstr(why(LEARN_WRITE, APP "/.git/hooks"), "wall"));
	CHECK(strstr(why(LEARN_WRITE, APP "/.vx/probe"), "wall"));
	CHECK(strstr(why(LEARN_WRITE, APP "/vx.yaml"), "decides what vx runs"));
	CHECK(strstr(why(LEARN_WRITE, APP "/package.json"), "decides what vx runs"));
	CHECK(strstr(why(LEARN_WRITE, APP "/pnpm-lock.yaml"), "decides what vx runs"));
	/* a pattern that could name one at its head */
	CHECK(strstr(why(LEARN_WRITE, APP "/*.json"), "decides what vx runs"));
	CHECK(strstr(why(LEARN_WRITE, APP "/*.yaml"), "decides what vx runs"));
	CHECK(strstr(why(LEARN_WRITE, APP "/.vscode"), "mandatory deny"));
	CHECK(strstr(why(LEARN_WRITE, APP "/.vscode/tasks.json"), "mandatory deny"));
	CHECK(strstr(why(LEARN_WRITE, APP "/.npmrc"), "mandatory deny"));
	CHECK(strstr(why(LEARN_WRITE, APP "/.bash*"), "mandatory deny"));
	/* a directory grant's config files stay walled by the mandatory
	 * denies the sandbox binds; the grant itself is learned */
	CHECK(learned(LEARN_WRITE, APP "/build/*.o"));
}

/* Item 5: reads of its own project, its dependencies' outputs, what its
 * key holds, the toolchain under home; never a secret, nothing else. */
static void test_reads(void)
{
	CHECK(learned(LEARN_READ, APP "/src/a.ts"));
	CHECK(learned(LEARN_READ, "/w/lib/dist/index.js"));
	CHECK(learned(LEARN_READ, "/w/lib/dist"));
	CHECK(learned(LEARN_READ, "/w/lib/types.d.ts"));
	CHECK(learned(LEARN_READ, "/w/include/shared.h"));
	CHECK(learned(LEARN_READ, "/w/config"));
	CHECK(learned(LEARN_READ, "/w/config/base.json"));
	CHECK(strstr(why(LEARN_READ, "/w/lib/src/index.ts"), "key does not hold"));
	CHECK(strstr(why(LEARN_READ, "/w/notes.txt"), "key does not hold"));
	CHECK(strstr(why(LEARN_READ, APP "/inner/src"), "key does not hold"));
	CHECK(strstr(why(LEARN_READ, "/w/.git/HEAD"), "wall"));
	CHECK(learned(LEARN_READ, "/home/u/.nvm/versions/node"));
	CHECK(learned(LEARN_READ, "/home/u/.cache/ms-playwright/chromium-1140"));
	CHECK(learned(LEARN_READ, "/home/u/.local/share/fnm/node-versions"));
	CHECK(learned(LEARN_READ, "/home/u/.npm/_cacache/index-v5")); /* the sandbox's caches */
	CHECK(strstr(why(LEARN_READ, "/home/u/notes.txt"), "under home"));
	CHECK(strstr(why(LEARN_READ, "/home/u/.nvmrc-evil"), "under home"));
	CHECK(strstr(why(LEARN_READ, "/home/u"), "under home"));
	CHECK(strstr(why(LEARN_READ, "/run/secrets/db"), "outside the workspace"));
	CHECK(strstr(why(LEARN_READ, "/w/.env"), "secret"));
	CHECK(strstr(why(LEARN_READ, APP "/.env.local"), "secret"));
	CHECK(strstr(why(LEARN_READ, "/w/certs/server.pem"), "secret"));
	CHECK(strstr(why(LEARN_READ, "/w/.npmrc"), "secret"));
	CHECK(strstr(why(LEARN_READ, "/w/*"), "secret")); /* could name /w/.env */
}

/* Keys: learned, but a secret is not keyed on learn's word either (a
 * keyed root .env is shown to the task); network: always a person. */
static void test_keys_and_network(void)
{
	CHECK(learned(LEARN_WS_FILES, "/w/shared/cfg.json"));
	CHECK(learned(LEARN_FILES, APP "/src/**"));
	CHECK(learned(LEARN_TOOLCHAIN, "/home/u/.local/bin/tool"));
	CHECK(strstr(why(LEARN_WS_FILES, "/w/.env"), "secret"));
	CHECK(strstr(why(LEARN_FILES, APP "/.env.production"), "secret"));
	CHECK(strstr(why(LEARN_WS_FILES, "/w/*"), "secret")); /* names the root .env */
	CHECK(learned(LEARN_WS_FILES, "/w/shared/**"));	      /* no root .env */
	CHECK(strstr(why(LEARN_NETWORK, "registry.npmjs.org"), "network"));
	CHECK(learn_reach_secret_name(".env.example")); /* a person says it is a template */
	CHECK(!learn_reach_secret_name("env.ts"));
	CHECK(!learn_reach_secret_name("keyboard.ts"));
}

int main(void)
{
	test_writes();
	test_reads();
	test_keys_and_network();
	return check_finish("learn_reach");
}
