/* Unit tests for config/config.c: the schema, each kind of error with
 * its FILE:LINE:COL, ${VAR} expansion and the field-by-field merge. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "orchestrator/config/config.h"
#include "orchestrator/config/schema.h"

static struct config *parse(const char *text)
{
	return config_parse("/w/vx.yaml", text, strlen(text));
}

/* Parses text, expects failure, and checks the one error line. */
static void expect_error(const char *text, const char *want)
{
	capture_begin();
	struct config *cfg = parse(text);
	const char *got = capture_end();
	CHECK(cfg == NULL);
	config_free(cfg);
	if (!strstr(got, want)) {
		check_failures++;
		fprintf(stderr, "want error containing: %s\n  got: %s\n", want, got);
	}
	/* one line, nothing more */
	CHECK(strchr(got, '\n') == got + strlen(got) - 1);
}

static void test_full_schema(void)
{
	setenv("VX_TEST_TOKEN", "s3cret", 1);
	struct config *cfg = parse(
	    "workspace:\n"
	    "  projects: [\"packages/*\", \"apps/*\"]\n"
	    "  cache:\n"
	    "    dir: .cache/vx\n"
	    "    maxSize: 2GiB\n"
	    "    remote: {url: \"http://127.0.0.1:3000\", token: \"${VX_TEST_TOKEN}\", team: t}\n"
	    "  inputs: {workspaceFiles: [package-lock.json], env: [CI]}\n"
	    "tasks:\n"
	    "  build:\n"
	    "    command: \"tsc -b ${HOME}\"\n"
	    "    dependsOn: [\"^build\", codegen, \"@acme/tools#gen\"]\n"
	    "    inputs: {files: [\"src/**\"], workspaceFiles: [tsconfig.base.json], env: "
	    "[NODE_ENV]}\n"
	    "    outputs: [\"dist/**\", \"!dist/**/*.map\"]\n"
	    "    cache: true\n"
	    "    persistent: false\n"
	    "    timeout: 1h30m\n"
	    "    env:\n"
	    "      define: {NODE_ENV: production, LEVEL: 3}\n"
	    "      passThrough: [HOME]\n"
	    "    sandbox:\n"
	    "      allow:\n"
	    "        read: [\"src/\", \"~/.cache/tool\"]\n"
	    "        write: [\"dist/\"]\n"
	    "        network: true\n"
	    "        localBinding: [5173]\n"
	    "        unixSockets: false\n"
	    "        pty: false\n"
	    "        gitConfig: true\n"
	    "      deny: {network: [evil.example.com]}\n"
	    "      ignore: {read: [\"~/.npmrc\"], write: [], network: []}\n"
	    "      hermetic: true\n"
	    "      weakerWhenNested: false\n");
	CHECK(cfg != NULL);
	if (!cfg)
		return;
	CHECK(cfg->is_workspace);
	CHECK_INT(cfg->projects.n, 2);
	CHECK_STR(cfg->projects.v[1].s, "apps/*");
	CHECK_INT(cfg->projects.v[1].loc.line, 2);
	CHECK_STR(cfg->cache_dir, ".cache/vx");
	CHECK_INT(cfg->cache_max_size, 2LL << 30);
	CHECK_STR(cfg->remote->token, "s3cret");
	CHECK_STR(cfg->ws_input_env.v[0].s, "CI");
	struct task_cfg *t = config_find_task(cfg, "build");
	CHECK(t != NULL);
	/* the command is shell text: ${HOME} is left for /bin/sh */
	CHECK_STR(t->command.s, "tsc -b ${HOME}");
	CHECK_INT(t->depends_on.n, 3);
	CHECK_STR(t->depends_on.v[2].s, "@acme/tools#gen");
	CHECK_INT(t->timeout_ms, 90LL * 60 * 1000);
	CHECK_STR(t->env_define.v[1].value, "3");
	CHECK(t->sandbox != NULL);
	CHECK_INT(t->sandbox->loc.line, 20);
	CHECK_INT(t->sandbox->loc.col, 5);
	CHECK(t->sandbox->allow_network.any);
	CHECK_STR(t->sandbox->local_binding.list.v[0].s, "5173");
	CHECK(t->sandbox->git_config);
	CHECK(t->sandbox->hermetic);
	CHECK_STR(t->sandbox->deny_network.v[0].s, "evil.example.com");
	config_free(cfg);
}

static void test_errors(void)
{
	expect_error(
	    "tasks:\n  build:\n    comand: x\n",
	    "/w/vx.yaml:3:5: unknown key \"comand\" in task \"build\" (did you mean \"command\"?)");
	expect_error(
	    "workspace:\n  projets: [a]\n",
	    "/w/vx.yaml:2:3: unknown key \"projets\" in workspace (did you mean \"projects\"?)");
	expect_error("tasks:\n  build:\n    zzzzzzzz: 1\n",
		     "3:5: unknown key \"zzzzzzzz\" in task \"build\" (valid keys: command,");
	expect_error("tasks:\n  build:\n    outputs: dist\n",
		     "3:14: outputs must be a list of strings, not a scalar");
	expect_error("tasks:\n  build:\n    cache: yes please\n",
		     "3:12: cache must be true or false, not \"yes please\"");
	expect_error("tasks:\n  build:\n    timeout: 10x\n", "3:14: \"10x\" is not a duration");
	expect_error("tasks:\n  build:\n    timeout: 10\n", "3:14: \"10\" is not a duration");
	expect_error("workspace:\n  cache:\n    maxSize: 5XB\n", "3:14: \"5XB\" is not a size");
	expect_error("tasks:\n  build: [\n", "/w/vx.yaml:3:1:");
	expect_error("name: x\nname: y\n",
		     "2:1: duplicate key \"name\" in vx.yaml (first at line 1)");
	unsetenv("VX_TEST_UNSET");
	expect_error(
	    "workspace:\n  cache:\n    dir: \"${VX_TEST_UNSET}/c\"\n",
	    "3:10: environment variable VX_TEST_UNSET is not set (used as ${VX_TEST_UNSET})");
	/* "a#b" parses (PROJECT#TASK); workspace_load checks where it is */
	expect_error("tasks:\n  \"a#b#c\": {}\n", "2:3: \"a#b#c\" is not a task name");
	expect_error("tasks:\n  \"#b\": {}\n", "2:3: \"#b\" is not a task name");
	expect_error("tasks:\n  \"a#\": {}\n", "2:3: \"a#\" is not a task name");
	expect_error("tasks:\n  \"a#^b\": {}\n", "2:3: \"a#^b\" is not a task name");
	expect_error("tasks:\n  b:\n    dependsOn: [\"x#\"]\n", "3:17: \"x#\" is not a dependency");
	expect_error("tasks:\n  b:\n    sandbox:\n      allow:\n        localBinding: [99999]\n",
		     "5:24: a localBinding port must be a number from 1 to 65535");
	expect_error("tasks:\n  b:\n    sandbox: {allow: {raed: [x]}}\n", "did you mean \"read\"?");
	expect_error("- a\n- b\n", "1:1: vx.yaml must be a mapping, not a list");
	expect_error("name: a\n---\nname: b\n",
		     "3:1: a vx.yaml holds one YAML document; this is a second");
	expect_error("tasks:\n  b:\n    env: {define: {\"A=B\": x}}\n",
		     "is not an environment variable name");
}

static void test_empty_and_nulls(void)
{
	struct config *cfg = parse("");
	CHECK(cfg && !cfg->is_workspace && cfg->tasks.n == 0);
	config_free(cfg);
	cfg = parse("tasks:\n  build:\n    outputs:\n");
	CHECK(cfg && cfg->tasks.n == 1 && cfg->tasks.v[0]->outputs.n == 0);
	CHECK(cfg && (cfg->tasks.v[0]->set & TF_OUTPUTS));
	config_free(cfg);
	/* "$${" is a literal "${" */
	cfg = parse("workspace:\n  cache:\n    dir: \"a$${B}\"\n");
	CHECK(cfg && !strcmp(cfg->cache_dir, "a${B}"));
	config_free(cfg);
}

static void test_merge(void)
{
	struct config *ws = parse("workspace: {}\ntasks:\n  build:\n    dependsOn: [\"^build\"]\n"
				  "    outputs: [\"dist/**\"]\n    timeout: 5m\n");
	struct config *pr =
	    parse("tasks:\n  build:\n    command: make\n    outputs: [\"out/**\"]\n");
	CHECK(ws && pr);
	if (!ws || !pr)
		return;
	struct task_cfg *m =
	    config_task_merge(config_find_task(pr, "build"), config_find_task(ws, "build"));
	CHECK_STR(m->command.s, "make");
	CHECK_INT(m->outputs.n, 1);
	CHECK_STR(m->outputs.v[0].s, "out/**"); /* the project's own wins, not appended */
	CHECK_INT(m->depends_on.n, 1);		/* inherited */
	CHECK_STR(m->depends_on.v[0].s, "^build");
	CHECK(m->inherited & TF_DEPENDS_ON);
	CHECK(!(m->inherited & TF_OUTPUTS));
	CHECK_INT(m->timeout_ms, 5 * 60 * 1000);
	CHECK(m->cache);
	task_cfg_free(m);
	struct config *dev = parse("tasks:\n  dev:\n    persistent: true\n");
	m = config_task_merge(config_find_task(dev, "dev"), NULL);
	CHECK(m->persistent && !m->cache); /* persistent tasks are never cached by default */
	task_cfg_free(m);
	config_free(dev);
	config_free(ws);
	config_free(pr);
}

/* The text a sandbox block folds into the cache key, exactly: a row moved
 * or renamed in schema.c would change every sandboxed task's key (every
 * cache entry missed once), so it is a test that must be changed on
 * purpose. A sandbox block merged from the defaults folds the same. */
static void test_sandbox_fold(void)
{
	struct config *ws =
	    parse("workspace: {}\ntasks:\n  b:\n    sandbox:\n      allow: {read: [z, a, a], "
		  "write: [d/], "
		  "network: true, localBinding: [3000], pty: true}\n      deny: {network: [h]}\n"
		  "      ignore: {read: [\"~/.npm\"]}\n      verifyKey: false\n");
	struct config *pr = parse("tasks:\n  b:\n    command: make\n");
	CHECK(ws && pr);
	if (!ws || !pr)
		return;
	struct task_cfg *m =
	    config_task_merge(config_find_task(pr, "b"), config_find_task(ws, "b"));
	CHECK(m->sandbox != NULL && m->sandbox != config_find_task(ws, "b")->sandbox);
	CHECK(m->inherited & TF_SANDBOX);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	schema_sandbox_fold(config_find_task(ws, "b")->sandbox, &a);
	schema_sandbox_fold(m->sandbox, &b);
	CHECK_STR(a.buf, "allow.read:1:a1:z\nallow.write:2:d/\nallow.network:\n"
			 "allow.localBinding:4:3000\nallow.unixSockets:\nallow.machLookup:\n"
			 "allow.systemInfo:\ndeny.network:1:h\n"
			 "ignore.read:6:~/.npm\nignore.write:\nignore.network:\n"
			 "network.any=1 localBinding.any=0 unixSockets.any=0 pty=1 gitConfig=0 "
			 "hermetic=0 weaker=0 verifyKey=0\n");
	CHECK_STR(b.buf, a.buf);
	strbuf_release(&a);
	strbuf_release(&b);
	task_cfg_free(m);
	config_free(ws);
	config_free(pr);
}

static void test_units(void)
{
	long long v;
	CHECK(config_parse_duration("90s", &v) == 0 && v == 90000);
	CHECK(config_parse_duration("250ms", &v) == 0 && v == 250);
	CHECK(config_parse_duration("1h30m", &v) == 0 && v == 5400000);
	CHECK(config_parse_duration("1.5s", &v) == 0 && v == 1500);
	CHECK(config_parse_duration("", &v) == -1);
	CHECK(config_parse_duration("s", &v) == -1);
	CHECK(config_parse_duration("10", &v) == -1);
	CHECK(config_parse_duration("-1s", &v) == -1);
	CHECK(config_parse_size("5GiB", &v) == 0 && v == 5LL << 30);
	CHECK(config_parse_size("500MB", &v) == 0 && v == 500000000);
	CHECK(config_parse_size("1024", &v) == 0 && v == 1024);
	CHECK(config_parse_size("1.5KiB", &v) == 0 && v == 1536);
	CHECK(config_parse_size("GiB", &v) == -1);
	/* a review: maxSize 0 bounded nothing (0 is "any" to the remote's
	 * body bound), and "0.1" was 0 bytes */
	CHECK(config_parse_size("0", &v) == -1);
	CHECK(config_parse_size("0.1", &v) == -1);
	CHECK(config_parse_size("1", &v) == 0 && v == 1);
	CHECK(config_parse_size("5 PiB", &v) == -1);
}

int main(void)
{
	test_full_schema();
	test_errors();
	test_empty_and_nulls();
	test_merge();
	test_sandbox_fold();
	test_units();
	return check_finish("config");
}
