/* io.h - whole writes on file descriptors. */
#ifndef VX_UTIL_IO_H
#define VX_UTIL_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Writes all n bytes of buf to fd, retrying on EINTR and short writes.
 * Returns 0, or -1 with errno set. */
int write_all(int fd, const void *buf, size_t n);
/* Writes n bytes of buf to path through "PATH.tmp-PID" renamed over it, so
 * a reader sees the old file or the new one, never a torn one. Returns 0,
 * or -1 with errno (the temporary removed). */
int write_file_atomic(const char *path, const void *buf, size_t n);

/* Appends to out the names in the directory open at dirfd (not "." or
 * ".."), in the order readdir gives them; dirfd is not moved or closed.
 * Returns 0, or -1 with errno. */
struct strvec;
int dir_names_at(int dirfd, struct strvec *out);

/* Removes leaf of the directory dfd with all it holds, never following a
 * link (a 0555 directory is made writable first so it can be emptied).
 * Returns 0 (also when leaf is not there), or -1 with errno set. */
int remove_tree_at(int dfd, const char *leaf);

/* Lookups under one directory from an fd of it (issue 20). The kernel walks
 * a path one component at a time, so a no-op run's ~10,000 stats of
 * "/home/u/src/repo/packages/p1/src/a.txt" cost twice those of
 * "packages/p1/src/a.txt" from an fd of the workspace root. fs_anchor opens
 * dir (absolute, links resolved) for the rest of the process (close-on-exec;
 * a second call replaces it); fs_at returns the fd and sets *rel for abs
 * when abs lies strictly under it, else AT_FDCWD and abs itself. Set before
 * any thread starts; anchoring the same dir again keeps the same fd. */
void fs_anchor(const char *dir);
int fs_at(const char *abs, const char **rel);
/* fstatat(2) of abs looked up from the anchor (fs_at); flags as fstatat's. */
struct stat;
int fs_stat(const char *abs, struct stat *st, int flags);

/* Makes dir and every missing parent with mode (less the umask), as
 * `mkdir -p`. Returns 0, or -1 with errno (ENOTDIR: one is something
 * else). */
int fs_mkdirs(const char *dir, mode_t mode);

/* Whether path names a directory (a link to one too). */
bool fs_is_dir(const char *path);

/* A file time in ns since the epoch, and the second an ns time falls in
 * (floor division: a time before 1970 falls in the right one). The racy
 * rule of the kept files compares the two. */
int64_t fs_ns(struct timespec t);
int64_t fs_sec_of(int64_t ns);

#endif
