/* Unit tests for util/fswatch.c on a real tree: 2000 files written at once
 * are one batch; a directory made with files in it at once is watched and
 * its files listed; a skipped tree (node_modules) is not watched and its
 * writes make no batch; a removed directory gives its watch back; over the
 * watch limit (a test seam below the kernel's) the error names the sysctl
 * and the count needed. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "util/fswatch.h"
#include "util/io.h"
#include "util/path.h"

static int batches;
static struct strvec last;
static bool last_overflow;

static void on_batch(const struct strvec *paths, bool overflow, void *ctx)
{
	batches++;
	strvec_clear(&last);
	for (size_t i = 0; i < paths->n; i++)
		strvec_push(&last, paths->v[i]);
	last_overflow = overflow;
}

static bool skip_node_modules(const char *dir, void *ctx)
{
	return !strcmp(path_basename(dir), "node_modules");
}

/* Runs the loop until a batch came (at most 5 s; none: returns false). */
static bool wait_batch(struct loop *l, int before)
{
	long long end = loop_now() + 5000;
	while (batches == before && loop_now() < end)
		loop_once(l, 100);
	return batches > before;
}

static void write_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, "x\n", 2) != 2)
			abort();
		close(fd);
	}
}

static bool listed(const char *path)
{
	return strvec_find(&last, path) >= 0;
}

int main(void)
{
	char root[64];
	strcpy(root, fixture_dir());
	char p[512];
	fixture_write(root, "src/a.ts", "a\n");
	fixture_write(root, "src/deep/b.ts", "b\n");
	fixture_write(root, "node_modules/x/index.js", "x\n");
	struct loop *l = loop_new();
	struct strbuf err = STRBUF_INIT;
	struct fswatch *w = fswatch_new(l, on_batch, skip_node_modules, NULL, &err);
	CHECK(w != NULL);
	CHECK_INT(fswatch_add_tree(w, root, &err), 0);
	CHECK_INT(fswatch_count(w), 3); /* root, src, src/deep: node_modules is skipped */

	/* 2000 files at once: one batch, every file in it */
	for (int i = 0; i < 2000; i++) {
		snprintf(p, sizeof p, "%s/src/f%04d.ts", root, i);
		write_file(p);
	}
	CHECK(wait_batch(l, 0));
	CHECK_INT(batches, 1);
	CHECK_INT(last.n, 2000);
	CHECK(!last_overflow);
	snprintf(p, sizeof p, "%s/src/f1999.ts", root);
	CHECK(listed(p));
	for (int k = 0; k < 5; k++) /* nothing more comes */
		loop_once(l, 20);
	CHECK_INT(batches, 1);

	/* a directory made with a file in it before its watch existed */
	snprintf(p, sizeof p, "%s/src/new", root);
	CHECK_INT(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/src/new/inner", root);
	CHECK_INT(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/src/new/inner/c.ts", root);
	write_file(p);
	CHECK(wait_batch(l, 1));
	CHECK(listed(p));
	snprintf(p, sizeof p, "%s/src/new", root);
	CHECK(listed(p));
	CHECK_INT(fswatch_count(w), 5);
	/* and a later write in it is seen through its own watch */
	snprintf(p, sizeof p, "%s/src/new/inner/d.ts", root);
	write_file(p);
	CHECK(wait_batch(l, 2));
	CHECK(listed(p));

	/* node_modules: no watch, no batch */
	snprintf(p, sizeof p, "%s/node_modules/x/index.js", root);
	write_file(p);
	for (int k = 0; k < 10; k++)
		loop_once(l, 20);
	CHECK_INT(batches, 3);

	/* a removed directory gives its watch back */
	snprintf(p, sizeof p, "%s/src/new", root);
	CHECK_INT(remove_tree_at(AT_FDCWD, p), 0);
	CHECK(wait_batch(l, 3));
	CHECK(listed(p));
	CHECK_INT(fswatch_count(w), 3);
	fswatch_free(w);

	/* over the limit: the sysctl, its value and the count needed */
	setenv("VX_TEST_MAX_WATCHES", "2", 1);
	w = fswatch_new(l, on_batch, skip_node_modules, NULL, &err);
	CHECK_INT(fswatch_add_tree(w, root, &err), -1);
	CHECK(strstr(err.buf, "fs.inotify.max_user_watches is 2, and the inputs need 3 "
			      "directories watched") != NULL);
	CHECK(strstr(err.buf, "sysctl -w fs.inotify.max_user_watches=") != NULL);
	fswatch_free(w);
	unsetenv("VX_TEST_MAX_WATCHES");

	strvec_clear(&last);
	strbuf_release(&err);
	loop_free(l);
	CHECK_INT(remove_tree_at(AT_FDCWD, root), 0);
	return check_finish("fswatch");
}
