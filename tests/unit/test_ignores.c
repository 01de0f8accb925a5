/* Unit tests for keys/ignores.c with a real git: answers asked are
 * kept across a save and a load; a changed .gitignore drops the answers
 * below its directory (not the directory's own, not a sibling's); a rule
 * file outside the tree that changed drops all; a rule file changed in the
 * second of the run keeps nothing (the racy rule); a repository named by
 * the environment keeps nothing. t0211 lists whole trees against git. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fstest.h"
#include "orchestrator/keys/ignores.h"
#include "util/io.h"
#include "util/spawn.h"

static char *root, *file;

/* Sets every time of path back ago seconds (so it is not racy). */
static void age(const char *rel, time_t ago)
{
	char *p = xasprintf("%s/%s", root, rel);
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= ago;
	t[1] = t[0];
	if (utimensat(AT_FDCWD, p, t, AT_SYMLINK_NOFOLLOW) < 0)
		die_errno("age %s", p);
	free(p);
}

static void git(const char *arg)
{
	char *argv[] = {"git", "init", "-q", (char *)arg, NULL};
	if (spawn_capture(argv, root, NULL, NULL) != 0)
		die("git init failed");
}

/* A repository: a.log and sub/x.tmp ignored by the rules below. */
static void setup(void)
{
	root = fs_tmpdir();
	file = xasprintf("%s/ignores", root);
	git(".");
	fs_write(root, ".gitignore", "*.log\n/ignores\n", 0644);
	fs_mkdir(root, "sub", 0755);
	fs_write(root, "sub/.gitignore", "*.tmp\n", 0644);
	const char *old[] = {".gitignore",	  "sub/.gitignore", ".git/config",
			     ".git/info/exclude", ".git",	    NULL};
	for (const char *const *o = old; *o; o++)
		age(*o, 100);
}

static char *paths[] = {"a.log", "a.txt", "sub/", "sub/x.tmp", "sub/x.txt", "other/"};

/* A run: enter the root and sub as the walk would, ask every path. */
static struct ignores *asked_run(void)
{
	struct ignores *ig = ignores_load(file, root);
	CHECK_INT(ignores_enter(ig, "", true), 0);
	CHECK_INT(ignores_enter(ig, "sub", true), 0);
	CHECK_INT(ignores_ask(ig, paths, sizeof paths / sizeof *paths), 0);
	return ig;
}

static void test_kept(void)
{
	setup();
	struct ignores *ig = asked_run();
	CHECK_INT(ignores_get(ig, "a.log"), 1);
	CHECK_INT(ignores_get(ig, "a.txt"), 0);
	CHECK_INT(ignores_get(ig, "sub/x.tmp"), 1);
	CHECK_INT(ignores_get(ig, "sub/x.txt"), 0);
	CHECK_INT(ignores_get(ig, "never/asked"), -1);
	CHECK_INT(ignores_save(ig), 0);
	ignores_free(ig);
	struct stat st;
	CHECK_INT(stat(file, &st), 0);

	/* loaded again: every answer kept, nothing asked */
	ig = ignores_load(file, root);
	CHECK_INT(ignores_enter(ig, "", true), 0);
	CHECK_INT(ignores_get(ig, "a.log"), 1);
	CHECK_INT(ignores_get(ig, "sub/"), 0);
	CHECK_INT(ignores_enter(ig, "sub", true), 0);
	CHECK_INT(ignores_get(ig, "sub/x.tmp"), 1);
	size_t kept, asked;
	ignores_counts(ig, &kept, &asked);
	CHECK_INT(kept, 3);
	CHECK_INT(asked, 0);

	/* sub's .gitignore changed: the answers below sub go, sub's own
	 * (the root's rules gave it) and the root's stay */
	fs_write(root, "sub/.gitignore", "*.txt\n", 0644);
	age("sub/.gitignore", 50);
	CHECK_INT(ignores_enter(ig, "sub", true), 0);
	CHECK_INT(ignores_get(ig, "sub/x.tmp"), -1);
	CHECK_INT(ignores_get(ig, "sub/x.txt"), -1);
	CHECK_INT(ignores_get(ig, "sub/"), 0);
	CHECK_INT(ignores_get(ig, "a.txt"), 0);
	/* removed: the same */
	char *rm_ = xasprintf("%s/sub/.gitignore", root);
	unlink(rm_);
	free(rm_);
	char *again[] = {"sub/x.tmp"};
	CHECK_INT(ignores_ask(ig, again, 1), 0);
	CHECK_INT(ignores_enter(ig, "sub", false), 0);
	CHECK_INT(ignores_get(ig, "sub/x.tmp"), -1);
	CHECK_INT(ignores_get(ig, "a.log"), 1);
	ignores_free(ig);
}

static void test_rule_outside_changed(void)
{
	struct ignores *ig = asked_run();
	CHECK_INT(ignores_save(ig), 0);
	ignores_free(ig);
	/* info/exclude edited: nothing kept is believed */
	fs_write(root, ".git/info/exclude", "*.txt\n", 0644);
	age(".git/info/exclude", 50);
	ig = ignores_load(file, root);
	CHECK_INT(ignores_enter(ig, "", true), 0);
	CHECK_INT(ignores_get(ig, "a.log"), -1);
	CHECK_INT(ignores_get(ig, "a.txt"), -1);
	char *one[] = {"a.txt"};
	CHECK_INT(ignores_ask(ig, one, 1), 0);
	CHECK_INT(ignores_get(ig, "a.txt"), 1);
	ignores_free(ig);
}

static void test_racy_and_env(void)
{
	unlink(file);
	/* a .gitignore changed in this second: the answers serve this run,
	 * and are not kept */
	fs_write(root, ".gitignore", "*.log\n/ignores\n#\n", 0644);
	struct ignores *ig = asked_run();
	CHECK_INT(ignores_get(ig, "a.log"), 1);
	CHECK_INT(ignores_save(ig), 0);
	ignores_free(ig);
	struct stat st;
	CHECK(stat(file, &st) != 0);
	age(".gitignore", 100);

	/* GIT_DIR names the repository: nothing is kept */
	char *gd = xasprintf("%s/.git", root);
	setenv("GIT_DIR", gd, 1);
	ig = asked_run();
	CHECK_INT(ignores_get(ig, "a.log"), 1);
	CHECK_INT(ignores_save(ig), 0);
	ignores_free(ig);
	CHECK(stat(file, &st) != 0);
	unsetenv("GIT_DIR");
	free(gd);

	/* git's environment changed since the save: nothing believed */
	ig = asked_run();
	CHECK_INT(ignores_save(ig), 0);
	ignores_free(ig);
	CHECK_INT(stat(file, &st), 0);
	setenv("GIT_CONFIG_PARAMETERS", "'core.excludesfile'='/x'", 1);
	ig = ignores_load(file, root);
	CHECK_INT(ignores_get(ig, "a.log"), -1);
	ignores_free(ig);
	unsetenv("GIT_CONFIG_PARAMETERS");
}

/* An excludes file named by the environment (GIT_CONFIG_*, as `git -c`
 * passes it on) is a rule file like any other: edited, it drops the kept
 * answers (its entries come from no config file). */
static void test_excludes_from_environment(void)
{
	unlink(file);
	fs_write(root, "excl", "*.txt\n", 0644);
	age("excl", 100);
	char *excl = xasprintf("%s/excl", root);
	setenv("GIT_CONFIG_COUNT", "1", 1);
	setenv("GIT_CONFIG_KEY_0", "core.excludesFile", 1);
	setenv("GIT_CONFIG_VALUE_0", excl, 1);
	struct ignores *ig = asked_run();
	CHECK_INT(ignores_get(ig, "a.txt"), 1);
	CHECK_INT(ignores_save(ig), 0);
	ignores_free(ig);
	ig = ignores_load(file, root);
	CHECK_INT(ignores_enter(ig, "", true), 0);
	CHECK_INT(ignores_get(ig, "a.txt"), 1); /* kept */
	ignores_free(ig);
	fs_write(root, "excl", "*.nothing\n", 0644);
	age("excl", 50);
	ig = ignores_load(file, root);
	CHECK_INT(ignores_enter(ig, "", true), 0);
	CHECK_INT(ignores_get(ig, "a.txt"), -1); /* the rule changed: asked again */
	ignores_free(ig);
	unsetenv("GIT_CONFIG_COUNT");
	unsetenv("GIT_CONFIG_KEY_0");
	unsetenv("GIT_CONFIG_VALUE_0");
	free(excl);
}

/* One ignores kept through many walks (vx watch keys again in the same
 * process): a rule file outside the tree changed between two walks drops
 * the answers at the next walk's root, as a load would. */
static void test_rules_checked_each_walk(void)
{
	unlink(file);
	fs_write(root, ".git/info/exclude", "", 0644);
	age(".git/info/exclude", 100);
	struct ignores *ig = asked_run();
	CHECK_INT(ignores_get(ig, "a.txt"), 0);
	fs_write(root, ".git/info/exclude", "*.txt\n", 0644);
	age(".git/info/exclude", 50);
	CHECK_INT(ignores_enter(ig, "", true), 0); /* the next walk */
	CHECK_INT(ignores_get(ig, "a.txt"), -1);
	char *one[] = {"a.txt"};
	CHECK_INT(ignores_ask(ig, one, 1), 0);
	CHECK_INT(ignores_get(ig, "a.txt"), 1);
	ignores_free(ig);
}

int main(void)
{
	test_kept();
	test_rule_outside_changed();
	test_racy_and_env();
	test_excludes_from_environment();
	test_rules_checked_each_walk();
	fs_rmtree(root);
	free(root);
	free(file);
	return check_finish("ignores");
}
