/* Unit tests for keys/listing.c (issue 58 item 6: tested only through
 * shell runs until now), with git as the oracle: the files listing_finish
 * gives are `git ls-files --cached --others --exclude-standard`'s (below
 * .git, node_modules and .vx nothing is entered), the first time, when
 * git walks, and on every later run, when vx walks through the listings
 * and ignore answers it kept — after a file is added, one is ignored by a
 * new rule, a directory goes, and a tracked file is deleted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "orchestrator/keys/ignores.h"
#include "orchestrator/keys/listing.h"
#include "util/io.h"
#include "util/listcache.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/vec.h"

static const char *root;

static void sh(const char *fmt, const char *arg)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, fmt, arg);
	if (system(cmd) != 0) {
		fprintf(stderr, "failed: %s\n", cmd);
		exit(1);
	}
}

/* What git lists, sorted, leaving out what lies below a directory the
 * walk never enters (an untracked node_modules, .vx). */
static void git_lists(struct strvec *out)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && git ls-files --cached --others --exclude-standard | LC_ALL=C sort -u",
		 root);
	FILE *p = popen(cmd, "r");
	char line[4096];
	while (p && fgets(line, sizeof line, p)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "node_modules/", 13) || strstr(line, "/node_modules/") ||
		    !strncmp(line, ".vx/", 4))
			continue;
		strvec_push(out, line);
	}
	if (p)
		pclose(p);
}

static bool same_lists(const struct strvec *got, const struct strvec *want)
{
	bool same = got->n == want->n;
	for (size_t i = 0; same && i < got->n; i++)
		same = !strcmp(got->v[i], want->v[i]);
	if (!same) {
		fprintf(stderr, "listing gave %zu files, git %zu:\n", got->n, want->n);
		for (size_t i = 0; i < got->n; i++)
			fprintf(stderr, "  vx:  %s\n", got->v[i]);
		for (size_t i = 0; i < want->n; i++)
			fprintf(stderr, "  git: %s\n", want->v[i]);
	}
	return same;
}

/* One run's listing: through kept listings in cache_dir (NULL: none, git
 * walks), saved after, as a run saves them. */
static void run_listing(const char *cache_dir, struct strvec *files)
{
	fs_anchor(root);
	struct listing *l = listing_start(root, cache_dir);
	struct listcache *lc = NULL;
	struct ignores *ig = NULL;
	if (cache_dir)
		listing_take_kept(l, cache_dir, &lc, &ig);
	struct ignores *asked = ig ? ig : ignores_load(NULL, root);
	CHECK(listing_finish(l, root, lc, NULL, asked, files) == 0);
	if (lc)
		listcache_save(lc);
	if (ig)
		ignores_save(ig);
	listcache_free(lc);
	ignores_free(asked);
	listing_abandon(l);
}

static void check_against_git(const char *cache_dir, const char *what)
{
	struct strvec got = STRVEC_INIT, want = STRVEC_INIT;
	run_listing(cache_dir, &got);
	git_lists(&want);
	if (!same_lists(&got, &want))
		fprintf(stderr, "  (%s)\n", what);
	CHECK(same_lists(&got, &want));
	CHECK(want.n > 3);
	strvec_clear(&got);
	strvec_clear(&want);
}

static void make_repo(void)
{
	root = fixture_dir();
	fixture_write(root, ".gitignore", "*.log\nbuild/\n");
	fixture_write(root, "a.txt", "a\n");
	fixture_write(root, "pkg/src/b.txt", "b\n");
	fixture_write(root, "pkg/.gitignore", "gen/\n");
	fixture_write(root, "pkg/tracked.txt", "t\n");
	sh("cd '%s' && git init -q && git add -A && git -c user.name=t -c user.email=t@t "
	   "commit -qm init",
	   root);
	fixture_write(root, "new.txt", "untracked\n");
	fixture_write(root, "pkg/src/c.txt", "untracked too\n");
	fixture_write(root, "pkg/gen/out.js", "ignored by pkg/.gitignore\n");
	fixture_write(root, "debug.log", "ignored\n");
	fixture_write(root, "build/x", "ignored dir\n");
	fixture_write(root, "pkg/node_modules/dep/index.js", "never entered\n");
	fixture_write(root, ".vx/cache/junk", "never entered\n");
}

static void test_listing(void)
{
	make_repo();
	char *cache = path_join(root, ".vx/cache");
	check_against_git(NULL, "git walks");
	check_against_git(cache, "vx walks, nothing kept yet");
	check_against_git(cache, "vx walks through what it kept");

	/* a file added deep down, a directory made */
	fixture_write(root, "pkg/src/deep/d.txt", "new\n");
	fixture_write(root, "docs/e.md", "new dir\n");
	check_against_git(cache, "after files were added");

	/* a new rule ignores what was listed, and an ignored name becomes
	 * listed again */
	fixture_write(root, "pkg/.gitignore", "deep/\n");
	check_against_git(cache, "after pkg/.gitignore changed");
	fixture_write(root, ".gitignore", "build/\n");
	check_against_git(cache, "after the root .gitignore changed");

	/* a directory goes, and a tracked file is deleted from the tree (git
	 * still lists it: the index holds it) */
	sh("rm -rf '%s/docs'", root);
	sh("rm -f '%s/pkg/tracked.txt'", root);
	check_against_git(cache, "after a directory and a tracked file went");
	free(cache);
	fixture_remove(root);
}

int main(void)
{
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", "/nonexistent", 1);
	test_listing();
	return check_finish("listing");
}
