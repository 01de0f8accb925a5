/* Unit tests for util/path.c: lexical normalization and relative paths. */
#include <stdlib.h>

#include "check.h"
#include "util/path.h"

static void norm(const char *in, const char *want)
{
	char *got = path_normalize(in);
	CHECK_STR(got, want);
	free(got);
}

static void rel(const char *from, const char *to, const char *want)
{
	char *got = path_relative(from, to);
	CHECK_STR(got, want);
	free(got);
}

int main(void)
{
	norm("a/b/../c", "a/c");
	norm("/a//b/./c/", "/a/b/c");
	norm("../a/../../b", "../../b");
	norm("/..", "/");
	norm("/../a", "/a");
	norm("", ".");
	norm("./", ".");
	norm("a/..", ".");
	norm("/a/..", "/");
	/* already normal: returned as they are */
	norm("/", "/");
	norm("a", "a");
	norm("/a/b.c/.d/..e", "/a/b.c/.d/..e");
	norm("..", "..");
	norm(".", ".");
	norm("a/.", "a");
	norm("//a", "/a");

	rel("/w/a", "/w/b/c", "../b/c");
	rel("/w", "/w/b", "b");
	rel("/w/b", "/w", "..");
	rel("/w", "/w", ".");
	rel("/w/ab", "/w/a", "../a");
	rel("/", "/x/y", "x/y");

	CHECK(path_is_within("/w", "/w/x"));
	CHECK(path_is_within("/w", "/w"));
	CHECK(!path_is_within("/w", "/wx"));
	CHECK(path_is_within("/", "/anything"));

	char *j = path_join("/w/p", "../q/./r");
	CHECK_STR(j, "/w/q/r");
	free(j);
	j = path_join("/w/p", "/abs");
	CHECK_STR(j, "/abs");
	free(j);
	static const char *const joins[][3] = {
	    {"/w/p", "src/a.txt", "/w/p/src/a.txt"},
	    {"/", "x", "/x"},
	    {"a", "./b", "a/b"},
	    {"a/", "b", "a/b"},
	    {".", "b", "b"},
	    {"a", "..", "."},
	    {"/w", "b/", "/w/b"},
	    {"w", ".x", "w/.x"},
	    {"", "b/../c", "c"},
	};
	for (size_t i = 0; i < sizeof joins / sizeof *joins; i++) {
		j = path_join(joins[i][0], joins[i][1]);
		CHECK_STR(j, joins[i][2]);
		free(j);
	}
	CHECK(path_same_dir("dist/a.js", "dist/b.js"));
	CHECK(path_same_dir("a", "b"));
	CHECK(!path_same_dir("dist", "dist/a"));
	CHECK(!path_same_dir("dist/a", "dist-x/a"));
	CHECK(!path_same_dir("d/a", "dd/a"));
	CHECK(!path_same_dir("a/b/c", "a/b"));
	char *d = path_dirname("/a/b");
	CHECK_STR(d, "/a");
	free(d);
	d = path_dirname("/a");
	CHECK_STR(d, "/");
	free(d);
	CHECK_STR(path_basename("a/b/c.txt"), "c.txt");
	return check_finish("path");
}
