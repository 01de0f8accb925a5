/* test_sandbox_guard.c - the records of the configs a sandboxed task could
 * make (sandbox/guard.h, issue 53 item 11): what a record holds back, when
 * it goes, and what the plan-time check says. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "sandbox/guard.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/vec.h"

static size_t records(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	char *ws = realpath(fixture_dir(), NULL);
	char *dir = path_join(ws, ".vx/guard");
	char *pkg = path_join(ws, "app/package.json"), *turbo = path_join(ws, "app/turbo.json");
	fixture_write(ws, ".vx/.gitignore", "*\n");
	fixture_write(ws, "app/vx.yaml", "name: app\n");
	struct strbuf err = STRBUF_INIT;
	struct strvec appeared = STRVEC_INIT;

	/* nothing missing: no record, and no directory made */
	struct guard g;
	CHECK_INT(guard_begin(&g, dir, "app#dev", NULL, 0), 0);
	CHECK(g.path == NULL);
	CHECK_INT(guard_check(dir, ws, &err), 0);
	guard_end(&g, &appeared);
	CHECK_INT(appeared.n, 0);

	/* held, nothing there yet: a plan goes ahead, the record stays */
	const char *missing[] = {pkg, turbo};
	CHECK_INT(guard_begin(&g, dir, "app#dev", missing, 2), 0);
	CHECK(g.path != NULL);
	CHECK_INT(records(dir), 1);
	CHECK_INT(guard_check(dir, ws, &err), 0);
	CHECK_INT(records(dir), 1);

	/* one appears while it runs: refused, named, with its task */
	fixture_write(ws, "app/package.json", "{\"scripts\": {\"lint\": \"evil\"}}");
	CHECK_INT(guard_check(dir, ws, &err), -1);
	CHECK(!strncmp(err.buf, "app/package.json: appeared while app#dev could write there", 58));
	CHECK(strstr(err.buf, "remove .vx/guard/rec-") != NULL);

	/* after the task: it is named, and the record stays, unheld */
	guard_end(&g, &appeared);
	CHECK(g.path == NULL);
	CHECK_INT(appeared.n, 1);
	CHECK(appeared.n == 1 && !strcmp(appeared.v[0], pkg));
	CHECK_INT(records(dir), 1);
	CHECK_INT(guard_check(dir, ws, &err), -1);

	/* removed by the user: the next plan goes ahead and the record goes */
	unlink(pkg);
	CHECK_INT(guard_check(dir, ws, &err), 0);
	CHECK_INT(records(dir), 0);

	/* a task that made nothing: its record goes at its end */
	strvec_clear(&appeared);
	CHECK_INT(guard_begin(&g, dir, "app#build", missing, 2), 0);
	guard_end(&g, &appeared);
	CHECK_INT(appeared.n, 0);
	CHECK_INT(records(dir), 0);

	/* a record half written by a vx that died (no lock), and one that
	 * is no record: the first is removed, the second left alone */
	fixture_write(ws, ".vx/guard/.rec-dead01", "task x#y\n");
	fixture_write(ws, ".vx/guard/notes", "task x#y\n/etc/passwd\n");
	CHECK_INT(guard_check(dir, ws, &err), 0);
	CHECK_INT(records(dir), 1);

	strbuf_release(&err);
	strvec_clear(&appeared);
	free(pkg);
	free(turbo);
	free(dir);
	fixture_remove(ws);
	free(ws);
	return check_finish("sandbox_guard");
}
