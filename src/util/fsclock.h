/* fsclock.h - "now" as the file system sees it: the racy rule of every kept
 * record (the stat cache, listings, kept reads, ignores, outputs in place).
 * A file written after a reading of this clock has an mtime and ctime no
 * earlier than the reading's second, whatever vx's own clock says: vx's
 * clock ahead of the files' (NFS, a VM's shared folder, a skewed
 * container) made a file rewritten in the second it was hashed look old,
 * and its old hash was trusted for good (issue 57 item 5). docs/cache.md. */
#ifndef VX_UTIL_FSCLOCK_H
#define VX_UTIL_FSCLOCK_H

#include <stdint.h>

/* The stamp's name in the anchored directory. */
#define FS_CLOCK_FILE "clock"

/* Takes the file system's time from dir (absolute): fs_clock_sec writes a
 * byte into dir/FS_CLOCK_FILE (made when missing, never dir itself) and
 * reads the mtime the file system gave it. NULL: vx's own clock again.
 * Anchoring the same dir again keeps what was read. Thread-safe. */
void fs_clock_anchor(const char *dir);

/* A second no later than the file system's now: a file or directory
 * changed after this call has an mtime and ctime second no earlier than
 * it. From the anchored stamp (read again once 50 ms have passed on the
 * monotonic clock, else the last reading, which is older and so still no
 * later than now), or vx's own clock (the coarse one, which file times
 * are stamped from) when nothing is anchored or the stamp cannot be
 * written (a read-only or missing directory: then tried again 50 ms
 * later). Thread-safe. */
int64_t fs_clock_sec(void);

#endif
