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

/* Appends every path below dir (relative to rootfd, "dir/a", "dir/a/b"),
 * depth first, never entering a symlink; a dir that is not a directory
 * (or is a link, or is missing) adds nothing. Returns 0, or -1 after
 * error() naming the directory that could not be read. */
int fsafe_tree(int rootfd, const char *dir, struct strvec *out);

#endif
