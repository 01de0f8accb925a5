/* wslock.h - one run at a time in a workspace (issue 37: two `vx run` at
 * once saved a dependent's copy of its dependency's half-rewritten output
 * under a correct key). CACHE/locks/<XXH3-64 of the workspace root>.lock
 * (in the cache, so a workspace whose cache lies elsewhere gets no file of
 * vx's, and workspaces sharing a cache do not wait for each other) is
 * flocked for the whole of a
 * `vx run` and for each cycle of `vx watch`; a second run waits, saying
 * who holds the workspace, as git's index.lock and Bazel's "Another command
 * is running" do. The kernel drops the lock with its holder (kill -9 too). */
#ifndef VX_RUN_WSLOCK_H
#define VX_RUN_WSLOCK_H

/* Takes the workspace's lock for `what` ("vx run build"), waiting while
 * another process holds it (one line on stderr naming the holder, its pid
 * and since when). Returns the lock's fd (O_CLOEXEC), -2 when a SIGINT or
 * SIGTERM came while waiting (blocked or not), or -1: the lock cannot be
 * made (a warning: the run goes on unlocked, so a read-only workspace still
 * runs its hits), or its holder is an ancestor of this process (a task of
 * that run started this vx: waiting would be forever; it runs as that
 * run's own work). */
int wslock_take(const char *cache_dir, const char *ws_root, const char *what);

/* Releases it (fd < 0: nothing). */
void wslock_release(int fd);

#endif
