/* judge_host.h - what the judge may know of the host's files, and from
 * where: one interface, two answers.
 *
 * The judge is a function of the task's facts and its trace (issue 58
 * item 3). Where a read landed comes from the trace (strace -y: an
 * event's real path, at the moment of the call). What is left (is a
 * refused path there, and is it a file or a directory; where a refused
 * path or a program run leads; when a dependency's file was written) is
 * asked here, never of the disk directly: the orchestrator passes the
 * disk's answers (judge_host_disk), the unit tests a table
 * (judge_host_table) and no file. docs/architecture.md ("What the judge
 * asks the host") says which questions remain and why each cannot be
 * moved by the task. */
#ifndef VX_VIOLATIONS_JUDGE_HOST_H
#define VX_VIOLATIONS_JUDGE_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strmap.h"
#include "util/vec.h"

enum judge_kind {
	JUDGE_ABSENT, /* not there (or not known to be) */
	JUDGE_FILE,   /* a regular file */
	JUDGE_DIR,
	JUDGE_LINK,  /* a symbolic link, as itself */
	JUDGE_OTHER, /* a device, a socket, a fifo */
};

struct judge_host {
	/* path's kind, a link as itself (lstat's) */
	enum judge_kind (*kind)(const struct judge_host *h, const char *path);
	/* where path leads, every link followed (realpath's): a new string,
	 * or NULL when it leads nowhere */
	char *(*resolve)(const struct judge_host *h, const char *path);
	/* the modification time (seconds) of the file path leads to; -1 when
	 * none */
	long long (*mtime)(const struct judge_host *h, const char *path);
};

/* The disk as it is when asked. */
const struct judge_host *judge_host_disk(void);

/* A host made of entries: each path put, and the directories above it.
 * Nothing else is there. */
struct judge_host_table {
	struct judge_host host; /* first: &t->host is the table */
	struct strmap at;	/* path -> index into the vectors below */
	struct strvec paths, targets;
	VEC(enum judge_kind) kinds;
	VEC(long long) mtimes;
};

void judge_host_table_init(struct judge_host_table *t);
/* Puts path (absolute) of kind, with its target when a link (absolute, or
 * relative to the link's directory) and its mtime (-1: none), and the
 * directories above it. A path put twice keeps the last. */
void judge_host_table_put(struct judge_host_table *t, const char *path, enum judge_kind kind,
			  const char *target, long long mtime);
void judge_host_table_release(struct judge_host_table *t);

#endif
