/* glob_walk.h - the directory walk under glob_walk and glob_walk_list
 * (util/glob.h), shared by its two drivers: glob_walk.c walks one glob,
 * glob_list.c a list of them at once. Which paths are reported, and where
 * the walk descends, is the driver's (the hooks below); reading, sorting,
 * skipping and telling kinds apart is the walk's. Only those two files
 * include this header. */
#ifndef VX_UTIL_GLOB_WALK_H
#define VX_UTIL_GLOB_WALK_H

#include <stdbool.h>

#include "util/glob.h"
#include "util/strbuf.h"

struct globset; /* glob_list.c's: the list walked at once */
struct readcache;

/* One walk. walk_open sets root, rootfd, base, rel and full; the driver
 * sets the rest before walk_open. */
struct walk {
	const char *root;
	int rootfd;	    /* root's own fd, or the anchor's (util/io.h fs_at) */
	const char *base;   /* with the anchor's: root relative to it; else NULL */
	struct strbuf full; /* base/rel, as anchored lookups name it (walk_at()) */
	const char *pat;    /* trimmed of its leading "./" (glob_walk's; the list's unused) */
	int flags;
	const char *const *skip;
	bool (*prune)(const char *reldir, void *ctx); /* NULL: enter every directory */
	int (*cb)(const char *relpath, void *ctx);
	void *ctx;
	struct strbuf rel;	       /* the directory being read, then each entry in turn */
	struct listcache *lc;	       /* NULL: read every directory */
	const struct readcache *reads; /* its stat of the root, if any, is taken */
	/* The driver's hooks, each asked about w->rel. found: a path of a
	 * kind asked for (dir: a directory) met by the walk; literal: the
	 * path a glob with no magic names, of a kind asked for; each returns
	 * non-zero to stop the walk. enters: true to read the directory. */
	int (*found)(struct walk *w, bool dir);
	int (*literal)(struct walk *w);
	bool (*enters)(struct walk *w);
	/* glob_walk_list's: the list and its hits, kept until the walk ends;
	 * NULL for glob_walk */
	struct globset *set;
};

/* rel (root-relative; "" the root) as it is looked up from w->rootfd: a
 * path in w->full, or rel itself. */
const char *walk_at(struct walk *w, const char *rel);

/* Opens the walk of root: its fd (or the anchor's). Returns 0, or -1 with
 * errno. */
int walk_open(struct walk *w, const char *root);

/* Closes what walk_open opened; errno kept. */
void walk_close(struct walk *w);

/* Reads the directory w->rel and, depth first in strcmp order, hands each
 * entry of a kind asked for to w->found, descending where w->enters (and
 * w->prune does not refuse). Returns 0, a hook's non-zero return, or -1
 * with errno. */
int walk_dir(struct walk *w);

/* Walks w->pat from its literal prefix, which is in w->rel
 * (walk_literal_prefix), as glob_walk describes. Returns as walk_dir. */
int walk_one(struct walk *w);

/* Hands w->rel (a literal path) to w->literal when it is of a kind asked
 * for. Returns 0, the hook's return, or -1 with errno. */
int walk_report_literal(struct walk *w);

/* Sets out to pat's literal prefix (pat trimmed of its leading "./"),
 * unescaped and without trailing '/'. True when pat has no magic: the
 * prefix is all of it. */
bool walk_literal_prefix(const char *pat, struct strbuf *out);

/* pat past its leading "./"s. */
const char *walk_trim_dots(const char *pat);

#endif
