/* Unit tests for violations/judge.c and report.c: each rule of the judge on
 * a hand-written strace log against a real temporary tree (ENOENT counts
 * only for a path that exists on the host), ignore matching, fix spelling. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "util/strbuf.h"
#include "violations/judge.h"
#include "violations/report.h"

static char root[64], proj[128], logp[160];

static void judge(const char *log, const struct judge_input *in, struct verdict *v)
{
	FILE *f = fopen(logp, "w");
	fputs(log, f);
	fclose(f);
	CHECK(judge_trace(in, logp, v) == 0);
}

static struct judge_input input(void)
{
	struct judge_input in = {.project_dir = proj, .workspace_root = root, .home = "/home/u", .tmpdir = "/tmp"};
	return in;
}

#define EXIT "2 +++ exited with 0 +++\n"

static bool has_violation(const struct verdict *v, bool write, const char *suffix)
{
	for (size_t i = 0; i < v->violations.n; i++) {
		const char *p = v->violations.v[i].path;
		size_t n = strlen(p), m = strlen(suffix);
		if (v->violations.v[i].write == write && n >= m && !strcmp(p + n - m, suffix))
			return true;
	}
	return false;
}

int main(void)
{
	strcpy(root, fixture_dir());
	snprintf(proj, sizeof proj, "%s/app", root);
	snprintf(logp, sizeof logp, "%s/trace.log", root);
	fixture_write(root, "app/notes.txt", "n\n");
	fixture_write(root, "app/src/a.txt", "a\n");
	fixture_write(root, "lib/x.txt", "x\n");
	struct judge_input in = input();
	struct verdict v;
	char log[4096];

	/* ENOENT of a file that exists on the host, inside the project: a violation */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
		 "2 openat(AT_FDCWD, \"missing.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 1);
	CHECK(has_violation(&v, false, "/app/notes.txt"));
	CHECK(!v.incomplete);
	CHECK_INT(v.fix_read.n, 1);
	CHECK_STR(v.fix_read.v[0], "notes.txt");
	CHECK_INT(v.fix_inputs.n, 0); /* default inputs key every project file already */
	struct strbuf out = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &out);
	CHECK(strstr(out.buf, "app#build: violation: read app/notes.txt (openat ENOENT)\n") != NULL);
	CHECK(strstr(out.buf, "app#build: fix: add to app/vx.yaml tasks.build.sandbox.allow.read: [\"notes.txt\"]\n") != NULL);
	strbuf_release(&out);
	verdict_release(&v);

	/* the same read twice is one violation; a directory's fix ends in '/' */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"%s/notes.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
		 "3 openat(AT_FDCWD, \"%s/notes.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
		 "2 chdir(\"%s/src\") = -1 ENOENT (No such file or directory)\n" EXIT,
		 proj, proj, proj);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	CHECK_INT(v.fix_read.n, 2);
	CHECK_STR(v.fix_read.v[1], "src/");
	verdict_release(&v);

	/* a write refused inside the project: a write violation, its dir as the fix */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"src/out.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS (Read-only file system)\n" EXIT);
	judge(log, &in, &v);
	CHECK(has_violation(&v, true, "/app/src/out.txt"));
	CHECK_STR(v.fix_write.v[0], "src/");
	verdict_release(&v);

	/* outside the project: notes, never violations; /dev, /proc and TMPDIR are not judged */
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"%s/lib/x.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
		 "2 openat(AT_FDCWD, \"/usr/out\", O_WRONLY|O_CREAT, 0666) = -1 EROFS (Read-only file system)\n"
		 "2 openat(AT_FDCWD, \"/proc/1/environ\", O_RDONLY) = -1 EACCES (Permission denied)\n"
		 "2 openat(AT_FDCWD, \"/tmp/scratch\", O_WRONLY|O_CREAT, 0666) = -1 EACCES (Permission denied)\n" EXIT,
		 root);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	CHECK_INT(v.notes.n, 2);
	verdict_release(&v);

	/* mkdir meeting EEXIST, and a timestamp refused on a readable path: not violations */
	snprintf(log, sizeof log,
		 "2 mkdir(\"src\", 0777) = -1 EEXIST (File exists)\n"
		 "2 utimensat(AT_FDCWD, \"src/a.txt\", NULL, 0) = -1 EROFS (Read-only file system)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);

	/* access() probes and readlink are reads */
	snprintf(log, sizeof log,
		 "2 faccessat2(AT_FDCWD, \"notes.txt\", X_OK, AT_EACCESS) = -1 ENOENT (No such file or directory)\n"
		 "2 readlink(\"src/a.txt\", 0x7ffd, 4096) = -1 ENOENT (No such file or directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 2);
	verdict_release(&v);

	/* ignore: a relative glob anchored at the project silences the report */
	const char *ign[] = {"*.txt"};
	in.ignore_read = ign;
	in.n_ignore_read = 1;
	snprintf(log, sizeof log, "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.violations.n, 0);
	verdict_release(&v);
	in = input();

	/* explicit inputs not covering a newly granted read: key it too */
	const char *inputs[] = {"src/**"};
	in.cached = true;
	in.inputs_explicit = true;
	in.input_files = inputs;
	in.n_input_files = 1;
	snprintf(log, sizeof log,
		 "2 openat(AT_FDCWD, \"notes.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" EXIT);
	judge(log, &in, &v);
	CHECK_INT(v.fix_inputs.n, 1);
	CHECK_STR(v.fix_inputs.v[0], "notes.txt");
	verdict_release(&v);
	in = input();

	/* no exit record for the command: incomplete */
	judge("2 openat(AT_FDCWD, \"src/a.txt\", O_RDONLY) = 3\n", &in, &v);
	CHECK(v.incomplete);
	verdict_release(&v);

	/* a missing log is incomplete too */
	CHECK(judge_trace(&in, "/nonexistent/log", &v) == -1);
	CHECK(v.incomplete);
	verdict_release(&v);

	fixture_remove(root);
	return check_finish("judge");
}
