/* Unit tests for config/config_blob.c: every task key survives the
 * round trip with its place; a config the environment shaped, or a
 * workspace file, is never made a blob; a damaged or foreign blob is
 * refused at every length. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "orchestrator/config/config_blob.h"
#include "orchestrator/config/schema.h"

static const char every_key[] = "name: web\n"
				"dependsOn: [lib, \"ui\"]\n"
				"tasks:\n"
				"  build:\n"
				"    command: \"tsc -b && echo done\"\n"
				"    dependsOn: [\"^build\", \"lib#gen\"]\n"
				"    with: [watch]\n"
				"    inputs:\n"
				"      files: [\"src/**\", \"!src/**/*.test.ts\"]\n"
				"      workspaceFiles: [tsconfig.base.json]\n"
				"      env: [NODE_ENV, \"API_*\"]\n"
				"      toolchain: [node]\n"
				"    outputs: [\"dist/**\"]\n"
				"    cache: false\n"
				"    outputLogs: errors-only\n"
				"    timeout: 1h30m\n"
				"    env:\n"
				"      define: {MODE: prod, EMPTY: \"\"}\n"
				"      passThrough: [CI]\n"
				"      passThroughSecrets: [NPM_TOKEN]\n"
				"    sandbox:\n"
				"      allow:\n"
				"        read: [/opt/sdk]\n"
				"        write: [.cache]\n"
				"        network: [\"registry.npmjs.org:443\"]\n"
				"        localBinding: [5173, 9229]\n"
				"        unixSockets: true\n"
				"        pty: true\n"
				"        gitConfig: true\n"
				"        machLookup: [com.apple.system.logger]\n"
				"        systemInfo: [hw.memsize]\n"
				"      deny:\n"
				"        network: [\"evil.test\"]\n"
				"      ignore:\n"
				"        read: [/proc/**]\n"
				"        write: [/dev/null]\n"
				"        network: [\"*.local\"]\n"
				"      hermetic: true\n"
				"      weakerWhenNested: true\n"
				"      verifyKey: false\n"
				"  dev:\n"
				"    command: vite\n"
				"    persistent: true\n"
				"    restart: never\n"
				"  lint: {}\n";

static void roundtrip(const char *text)
{
	const char *path = "/w/packages/web/vx.yaml";
	struct config *cfg = config_parse(path, text, strlen(text));
	CHECK(cfg != NULL);
	if (!cfg)
		return;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	CHECK(config_blob_write(cfg, text, strlen(text), &a));
	struct config *back = config_blob_read("/w/packages/web/vx.yaml", a.buf, a.len);
	CHECK(back != NULL);
	if (back) {
		/* what the second blob says is what the first said */
		CHECK(config_blob_write(back, text, strlen(text), &b));
		CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));
		CHECK_INT(back->tasks.n, cfg->tasks.n);
		CHECK_STR(back->name.s ? back->name.s : "", cfg->name.s ? cfg->name.s : "");
		for (size_t i = 0; i < back->tasks.n && i < cfg->tasks.n; i++) {
			const struct task_cfg *x = cfg->tasks.v[i], *y = back->tasks.v[i];
			CHECK_STR(y->name, x->name);
			CHECK_INT(y->loc.line, x->loc.line);
			CHECK_INT(y->loc.col, x->loc.col);
			CHECK(y->loc.file == back->path); /* places point into the new config */
			CHECK_INT(y->set, x->set);
			CHECK_INT(y->cache, x->cache);
			CHECK_INT(y->timeout_ms, x->timeout_ms);
			CHECK_INT(y->outputs.n, x->outputs.n);
			CHECK((y->sandbox == NULL) == (x->sandbox == NULL));
			if (x->sandbox && y->sandbox) {
				struct strbuf fx = STRBUF_INIT, fy = STRBUF_INIT;
				schema_sandbox_fold(x->sandbox, &fx);
				schema_sandbox_fold(y->sandbox, &fy);
				CHECK_STR(fy.buf, fx.buf);
				CHECK_INT(y->sandbox->loc.line, x->sandbox->loc.line);
				CHECK_INT(y->sandbox->no_verify_key, x->sandbox->no_verify_key);
				CHECK_INT(y->sandbox->local_binding.list.n,
					  x->sandbox->local_binding.list.n);
				strbuf_release(&fx);
				strbuf_release(&fy);
			}
			if (x->env_define.n && y->env_define.n) {
				CHECK_STR(y->env_define.v[0].key, x->env_define.v[0].key);
				CHECK_STR(y->env_define.v[0].value, x->env_define.v[0].value);
			}
		}
		/* every truncation, and a foreign signature, is refused */
		for (size_t n = 0; n < a.len; n++) {
			struct config *c = config_blob_read(path, a.buf, n);
			CHECK(c == NULL);
			config_free(c);
		}
		a.buf[5] ^= 1;
		CHECK(config_blob_read(path, a.buf, a.len) == NULL);
		a.buf[5] ^= 1;
		strbuf_addch(&a, 'x'); /* trailing bytes */
		CHECK(config_blob_read(path, a.buf, a.len) == NULL);
	}
	config_free(back);
	config_free(cfg);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_refused(void)
{
	struct strbuf out = STRBUF_INIT;
	setenv("OUT", "o", 1);
	const char *env = "tasks:\n  build:\n    outputs: [\"${OUT}/**\"]\n";
	struct config *cfg = config_parse("/w/p/vx.yaml", env, strlen(env));
	CHECK(cfg && !config_blob_write(cfg, env, strlen(env), &out));
	CHECK_INT(out.len, 0);
	config_free(cfg);
	const char *esc = "tasks:\n  build:\n    outputs: [\"\\x24{OUT}/**\"]\n";
	cfg = config_parse("/w/p/vx.yaml", esc, strlen(esc));
	CHECK(cfg && cfg->tasks.n && cfg->tasks.v[0]->outputs.n &&
	      !strcmp(cfg->tasks.v[0]->outputs.v[0].s, "o/**")); /* it was expanded */
	CHECK(cfg && !config_blob_write(cfg, esc, strlen(esc), &out));
	config_free(cfg);
	const char *ws = "workspace:\n  projects: [\"*\"]\n";
	cfg = config_parse("/w/vx.yaml", ws, strlen(ws));
	CHECK(cfg && !config_blob_write(cfg, ws, strlen(ws), &out));
	config_free(cfg);
	CHECK(config_blob_read("/w/p/vx.yaml", "", 0) == NULL);
	CHECK(config_blob_read("/w/p/vx.yaml", "VXPB", 4) == NULL);
	strbuf_release(&out);
}

static void test_pkg(void)
{
	struct pkg_fields f = {0}, g;
	f.name = strdup("@scope/web");
	f.version = NULL;
	strvec_push(&f.deps, "react");
	strvec_push(&f.dep_specs, "^18.2.0");
	strvec_push(&f.deps, "lib");
	strvec_push(&f.dep_specs, "workspace:*");
	strvec_push(&f.script_names, "build");
	strvec_push(&f.scripts, "tsc -b");
	struct strbuf b = STRBUF_INIT;
	pkg_blob_write(&f, &b);
	CHECK(pkg_blob_read(b.buf, b.len, &g));
	CHECK_STR(g.name, "@scope/web");
	CHECK(g.version == NULL);
	CHECK_INT(g.deps.n, 2);
	CHECK_STR(g.dep_specs.n > 1 ? g.dep_specs.v[1] : "", "workspace:*");
	CHECK_STR(g.scripts.n ? g.scripts.v[0] : "", "tsc -b");
	pkg_fields_free(&g);
	for (size_t n = 0; n < b.len; n++)
		CHECK(!pkg_blob_read(b.buf, n, &g));
	/* a config's blob is not a package's */
	const char *t = "tasks: {}\n";
	struct config *cfg = config_parse("/w/p/vx.yaml", t, strlen(t));
	struct strbuf c = STRBUF_INIT;
	CHECK(cfg && config_blob_write(cfg, t, strlen(t), &c));
	CHECK(!pkg_blob_read(c.buf, c.len, &g));
	CHECK(config_blob_read("/w/p/vx.yaml", b.buf, b.len) == NULL);
	config_free(cfg);
	strbuf_release(&c);
	strbuf_release(&b);
	pkg_fields_free(&f);
}

int main(void)
{
	roundtrip(every_key);
	roundtrip("tasks:\n  build:\n    command: make\n");
	roundtrip("name: x\n");
	test_refused();
	test_pkg();
	return check_finish("config_blob");
}
