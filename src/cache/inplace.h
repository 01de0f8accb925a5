/* inplace.h - what each task's outputs were when vx last left them in place.
 *
 * A fully cached run should read no cache entry: when a task's key equals
 * the key its outputs were last restored or built for, and every one of
 * those outputs is on disk exactly as recorded (lstat: type, mode, size,
 * mtime and ctime in ns, inode), the hit is answered from this record alone
 * and the captured log is replayed from it. One file per cache directory,
 * loaded once per run and written atomically at its end. */
#ifndef VX_CACHE_INPLACE_H
#define VX_CACHE_INPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "cache/key.h"
#include "util/vec.h"

/* Logs longer than this are not kept in the record; such a hit opens its
 * entry to replay them. */
#define INPLACE_MAX_LOG (64 * 1024)

struct inplace_output {
	char *path; /* project-relative */
	uint64_t size, ino;
	int64_t mtime_ns, ctime_ns;
	uint32_t mode; /* st_mode: type and permissions */
};

/* Outputs as a save saw them: each path's lstat, taken before its bytes
 * were read, in path (strcmp) order; from_ns: the file system's clock
 * (fs_clock_sec, whole seconds) before the first. A record made from it needs no second lstat of
 * each output (issue 43), and vouches for exactly what the entry holds. */
struct inplace_seen {
	VEC(struct inplace_output) v;
	int64_t from_ns;
};
/* Sets from_ns to now: called before the first lstat it will hold. */
void inplace_seen_begin(struct inplace_seen *s);
void inplace_seen_release(struct inplace_seen *s);
/* Appends path as st (an lstat) has it. */
void inplace_seen_add(struct inplace_seen *s, const char *path, const struct stat *st);

struct inplace_record {
	char *id;	   /* "project#task" */
	char *project_dir; /* absolute: a record is only good for the tree it was made in */
	char key[KEY_HEX_SIZE];
	int64_t recorded_ns; /* the file system's clock when the outputs were lstat'ed */
	bool has_log;	     /* log holds the whole captured output */
	char *log;
	size_t log_len;
	char *tools; /* "PATH\tHASH\n" for each program the outputs' run exec'd
		      * from outside the workspace (never NULL) */
	VEC(struct inplace_output) outputs;
};

struct inplace;

/* Reads the record file (which need not exist; a damaged one reads as empty
 * with one warning). Never returns NULL. */
struct inplace *inplace_load(const char *file);
/* Returns the record of task id, or NULL. */
const struct inplace_record *inplace_get(const struct inplace *ip, const char *id);
/* True when rec was made in project_dir and every output it lists is on disk
 * as recorded. An output modified in the same second the record was made, or
 * later (by the file system's clock, util/fsclock.h), is not trusted (git's
 * racy-timestamp rule): the coarse file clock
 * could hide a write that came just after the lstat. With trusted, the check
 * goes on past a failure and adds each regular file that is on disk as
 * recorded and old enough to trust, sorted (nothing when the check
 * passes): the slow path hashes only the rest (issue 43: a restore's last second made all 100 000
 * outputs racy, and every one was hashed). */
bool inplace_check(const struct inplace_record *rec, const char *project_dir,
		   struct strvec *trusted);
/* Records that task id's outputs (project-relative paths under project_dir)
 * and the directories they lie in are in place for key, with the captured
 * log: each as seen lists it, else lstat'ed now (seen may be NULL). An
 * output that cannot be lstat'ed leaves the task without a record. */
void inplace_put(struct inplace *ip, const char *id, const char *key, const char *project_dir,
		 char *const *outputs, size_t n, const char *log, size_t log_len, const char *tools,
		 const struct inplace_seen *seen);
/* Forgets task id (its outputs are about to change). */
void inplace_drop(struct inplace *ip, const char *id);
/* Writes the records through a temporary file renamed into place, when any
 * changed. Returns 0, or -1 after an error line. */
int inplace_save(struct inplace *ip);
void inplace_free(struct inplace *ip);

#endif
