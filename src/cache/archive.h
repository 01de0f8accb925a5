/* archive.h - a task's outputs and captured log as one ustar (pax) stream
 * inside one zstd frame, written and read in fixed-size buffers
 * (docs/cache-store.md: why tar, what a member holds). */
#ifndef VX_CACHE_ARCHIVE_H
#define VX_CACHE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <xxhash.h>

#include "util/strbuf.h"

/* The member that holds the log; never a restored path. */
#define ARCHIVE_LOG_PATH ".vx/log"
/* 32 lowercase hex digits and a NUL. */
#define ARCHIVE_HASH_HEX 33
#define ARCHIVE_LEVEL_DEFAULT 3
/* 128 KiB: zstd's own recommended stream sizes are of this order, and a
 * larger buffer measured no faster (docs/cache-store.md). Readers of an
 * archive use it too. */
#define ARCHIVE_IOBUF (128 * 1024)

enum archive_type {
	ARCHIVE_FILE,
	ARCHIVE_SYMLINK,
	ARCHIVE_DIR,
	ARCHIVE_LOG, /* the captured stdout/stderr, as printed */
};

/* One member. The writer fills it in archive_writer_add*; the reader in
 * archive_reader_next (hash stays "" there: the reader does not hash). */
struct archive_member {
	enum archive_type type;
	char *path;		     /* project-relative, canonical (no "", ".", ".." segment) */
	char *target;		     /* symlink text as stored, NULL for other types */
	unsigned mode;		     /* permission bits, & 0777 */
	uint64_t size;		     /* data bytes: file or log content, 0 otherwise */
	char hash[ARCHIVE_HASH_HEX]; /* file/log content or link text, xxh128sum style */
	struct stat lstat;	     /* archive_writer_add: what the path was as it was read */
};

/* Frees m's strings and zeroes it. */
void archive_member_release(struct archive_member *m);

/* Writes h as xxh128sum prints it: high64 then low64, 32 lowercase hex. */
void archive_hash_hex(XXH128_hash_t h, char out[ARCHIVE_HASH_HEX]);

/* True when path is relative, non-empty and has no "", "." or ".." segment:
 * the only form a member path may take. */
bool archive_path_ok(const char *path);

struct archive_writer;

/* Starts an archive written to fd (not closed by the writer), the file
 * name (borrowed) in its error lines, at zstd level
 * (ARCHIVE_LEVEL_DEFAULT when 0). Never returns NULL. */
struct archive_writer *archive_writer_new(int fd, const char *name, int level);
/* Adds the log member from len bytes at buf. Returns 0, or -1 after error(). */
int archive_writer_add_log(struct archive_writer *w, const void *buf, size_t len);
/* Adds the log member from fd's current offset to its end (fd is a regular
 * file, e.g. the capture file). Returns 0, or -1 after error(). */
int archive_writer_add_log_fd(struct archive_writer *w, int fd);
/* Adds path (relative to rootfd, never following a symlink) as a file,
 * symlink or directory member (a directory's contents are not recursed) and
 * fills *m when m is not NULL. Returns 0, or -1 after error(): an unsafe path,
 * a fifo/socket/device, a file that changed size while read, an I/O error. */
int archive_writer_add(struct archive_writer *w, int rootfd, const char *path,
		       struct archive_member *m);
/* Ends the tar stream and the zstd frame. Returns 0 and the compressed size
 * and XXH3-128 of the bytes written to fd, or -1 after error() (also when
 * any earlier add failed). */
int archive_writer_finish(struct archive_writer *w, uint64_t *size, char hash[ARCHIVE_HASH_HEX]);
void archive_writer_free(struct archive_writer *w);

struct archive_reader;

/* Starts reading the archive at fd's current offset (fd not closed). */
struct archive_reader *archive_reader_new(int fd);
/* Moves to the next member, skipping what is left of the current one.
 * Returns 1 with *m filled (m owns its strings), 0 at the end of a complete
 * archive, or -1 after error(): corrupt or truncated stream, a bad header
 * checksum, a member type vx never writes (hard link, device...), a path that
 * fails archive_path_ok. */
int archive_reader_next(struct archive_reader *r, struct archive_member *m);
/* Reads up to n bytes of the current member's data. Returns the count, 0 at
 * the member's end, -1 after error(). */
ssize_t archive_reader_read(struct archive_reader *r, void *buf, size_t n);
void archive_reader_free(struct archive_reader *r);

#endif
