/* fsafe.h - walking a tree below a directory fd without following a link:
 * the one way the cache reaches into a project (saving outputs, restoring
 * them, checking them in place), so a symlink a task planted cannot lead
 * a read or a write out of it. */
#ifndef VX_CACHE_FSAFE_H
#define VX_CACHE_FSAFE_H

#include <stdbool.h>

#include "util/vec.h"

/* Opens the directory holding path's last component by walking from rootfd
 * one segment at a time with O_NOFOLLOW, so no symlink inside rootfd can
 * redirect the walk; with create, missing directories are made 0755.
 * path must be relative with no "", "." or ".." segment
 * (archive_path_ok). Returns an O_CLOEXEC fd and sets *leaf to
 * the last component within path; or -1 with errno set (ELOOP or ENOTDIR when
 * a segment is a symlink or not a directory). */
int fsafe_open_parent(int rootfd, const char *path, bool create, const char **leaf);

/* The parent fsafe_parent_open opened last, kept for the next path in
 * the same directory: a save or a restore goes through its paths sorted,
 * so a directory's files come one after the other, and its walk (an
 * openat and a close per segment) is paid once per directory, not per
 * file (issue 43: 100 000 output files). Zero it to start. */
struct fsafe_parent {
	int rootfd;
	char *dir; /* path's directory part, relative to rootfd; NULL: none kept */
	size_t len;
	int fd;
	bool create;
};

/* fsafe_open_parent through c: the descriptor is c's (the caller does not
 * close it), valid until the next call with c or fsafe_parent_release.
 * The directory kept is the one the walk opened: held by its fd, a link
 * planted later at its path does not redirect it. */
int fsafe_parent_open(struct fsafe_parent *c, int rootfd, const char *path, bool create,
		      const char **leaf);
void fsafe_parent_release(struct fsafe_parent *c);

/* Appends every path below dir (relative to rootfd, "dir/a", "dir/a/b"),
 * depth first, never entering a symlink; a dir that is not a directory
 * (or is a link, or is missing) adds nothing. Its parent is opened through
 * pc (a caller asking for every file of a tree pays one call each).
 * Returns 0, or -1 after error() naming the directory that could not be
 * read. */
int fsafe_tree(struct fsafe_parent *pc, int rootfd, const char *dir, struct strvec *out);

#endif
