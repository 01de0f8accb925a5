/* Unit tests for util/rundir.c: every run of a user lives in one private
 * base a sandbox walls (issue 14: with TMPDIR outside /tmp a task could
 * dial another task's proxy socket in its run dir); a planted link or a
 * base of another user is never used; the base is made 0700 again. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/die.h"
#include "util/path.h"
#include "util/rundir.h"

int main(void)
{
	char tmpl[] = "/tmp/vx-rundir-XXXXXX";
	if (!mkdtemp(tmpl))
		die_errno("mkdtemp");
	setenv("TMPDIR", tmpl, 1);
	char *base = rundir_private_base();
	char *want = xasprintf("%s/vx-%lu", tmpl, (unsigned long)geteuid());
	CHECK_STR(base, want);

	/* a link planted at the base's name is refused, never followed */
	char *target = path_join(tmpl, "elsewhere");
	CHECK(mkdir(target, 0700) == 0);
	CHECK(symlink(target, base) == 0);
	struct rundir rd;
	errno = 0;
	CHECK(rundir_open(&rd, NULL) == -1);
	CHECK(errno == EPERM);
	CHECK(rd.path == NULL);
	CHECK(rmdir(target) == 0); /* nothing was made through the link */
	CHECK(unlink(base) == 0);

	/* a base left open to others is closed again; the run dir lies in it */
	CHECK(mkdir(base, 0777) == 0);
	CHECK(chmod(base, 0777) == 0);
	CHECK(rundir_open(&rd, NULL) == 0);
	struct stat st;
	CHECK(stat(base, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK_STR(rd.base, base);
	CHECK(rd.path && !strncmp(rd.path, base, strlen(base)) && rd.path[strlen(base)] == '/');
	char *run = xstrdup(rd.path);
	rundir_close(&rd);
	CHECK(access(run, F_OK) == -1 && errno == ENOENT);
	CHECK(rmdir(base) == 0);
	CHECK(rmdir(tmpl) == 0);
	free(run);
	free(target);
	free(want);
	free(base);
	return check_finish("rundir");
}
