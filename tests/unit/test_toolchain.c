/* Unit tests for keys/toolchain.c: the program a shell command
 * starts with, and a program found on PATH with its "#!" interpreter. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "orchestrator/keys/toolchain.h"
#include "util/die.h"

static void first(const char *cmd, const char *want)
{
	struct strbuf w = STRBUF_INIT;
	toolchain_first_word(cmd, &w);
	if (strcmp(w.buf, want))
		fprintf(stderr, "command: %s\n", cmd);
	CHECK_STR(w.buf, want);
	strbuf_release(&w);
}

static void test_first_word(void)
{
	first("tsc -p .", "tsc");
	first("  node build.js && echo done", "node");
	first("NODE_ENV=production FOO='a b' next build", "next");
	first("'my tool' --x", "my tool");
	first("./scripts/build.sh", "./scripts/build.sh");
	first("(make all)", "make");
	first("cd web && npm run build", "");
	first("echo hi", "");
	first("$TOOL run", "");
	first("> log make", "");
	first("", "");
	first("vitest;", "vitest");
}

static void put(const char *dir, const char *name, const char *text, int mode)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	fixture_write(dir, name, text);
	chmod(p, (mode_t)mode);
}

static void test_resolve(void)
{
	const char *d = fixture_dir();
	char bin[256], path[600];
	snprintf(bin, sizeof bin, "%s/bin", d);
	put(d, "bin/fakenode", "#!/bin/sh\necho\n", 0755);
	put(d, "bin/tool", "#!/usr/bin/env -S fakenode --x\n", 0755);
	put(d, "bin/noexec", "#!/bin/sh\n", 0644);
	snprintf(path, sizeof path, "/nonexistent:%s:/usr/bin:/bin", bin);
	struct strvec out = STRVEC_INIT;
	toolchain_resolve("tool", path, d, &out);
	CHECK_INT(out.n, 3);
	char *sh = realpath("/bin/sh", NULL);
	if (out.n == 3) {
		CHECK(strstr(out.v[0], "/bin/tool") != NULL);
		CHECK(strstr(out.v[1], "/bin/fakenode") != NULL);
		CHECK_STR(out.v[2], sh);
	}
	strvec_clear(&out);
	toolchain_resolve("noexec", path, d, &out); /* not executable: not the program */
	CHECK_INT(out.n, 0);
	toolchain_resolve("bin/tool", "", d, &out); /* a path, from the directory */
	CHECK(out.n == 1 && strstr(out.v[0], "/bin/tool"));
	strvec_clear(&out);
	toolchain_resolve("cd", path, d, &out);
	CHECK_INT(out.n, 0);
	free(sh);
}

int main(void)
{
	test_first_word();
	test_resolve();
	return check_finish("test_toolchain");
}
