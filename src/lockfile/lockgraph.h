/* lockgraph.h - the graph every lockfile parser fills (lockfile.h's parsers
 * only; callers use lockfile.h). A node is a resolved package or an
 * importer; an edge is "loads". Parsers name nodes by their own ids (pnpm's
 * "react@18.2.0", npm's "node_modules/react", yarn's descriptors) and say
 * which importer a node is. */
#ifndef VX_LOCKFILE_LOCKGRAPH_H
#define VX_LOCKFILE_LOCKGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "lockfile/lockfile.h"
#include "util/strmap.h"
#include "util/vec.h"

/* A list of indices (VEC's shape, with a name to pass it by). */
struct idxvec {
	size_t *v;
	size_t n, alloc;
};

struct lock_node {
	char *id;	     /* the parser's name for it (owned) */
	char *line;	     /* "NAME VERSION IDENTITY" once resolved, else NULL
			      * (an importer, or a name nothing defined) */
	long importer;	     /* the importer it is, or -1 */
	struct idxvec edges; /* the nodes it loads */
};

struct lockset {
	VEC(struct lock_node) nodes;
	struct strmap by_id; /* node id -> index; keys are the nodes' ids */
	const struct lock_importer *imp;
	size_t n_imp;
	size_t *imp_node;	  /* each importer's node; SIZE_MAX: not in the file */
	struct strmap imp_by_rel; /* normalized rel ("" the root) -> importer */
	char **imp_rel;		  /* those keys, owned */
	char (*hash)[33];	  /* each importer's closure hash (lockset_read) */
	size_t n_pkgs;		  /* nodes with a line */
	/* distinct lines: each resolved node's line index, so a package met
	 * twice (npm's nested copies, pnpm's peer variants) counts once */
	size_t *line_of;
	size_t n_lines;
};

/* Returns the node named id, creating it (unresolved, no edges) if new. */
size_t lg_node(struct lockset *ls, const char *id);
/* The same for the first len bytes of id. */
size_t lg_noden(struct lockset *ls, const char *id, size_t len);
/* Returns the node named id, or -1. */
long lg_find(const struct lockset *ls, const char *id);
long lg_findn(const struct lockset *ls, const char *id, size_t len);
/* Resolves node i as the package name at version, identified by ident
 * (integrity, else resolution; NULL or "" is "-"). */
void lg_resolve(struct lockset *ls, size_t i, const char *name, const char *version,
		const char *ident);
void lg_edge(struct lockset *ls, size_t from, size_t to);
/* Makes node i importer k's node. */
void lg_importer(struct lockset *ls, size_t k, size_t i);
/* The NAME of a descriptor "NAME@RANGE" ("@scope/name@^1.0.0"): the
 * length up to the '@' after its first character. */
size_t lg_name_len(const char *desc);
/* Gives each importer a node of its own (an id no package can have). */
void lg_importer_nodes(struct lockset *ls);
/* Returns the importer whose rel (root-relative, "." for the root; "" and
 * "./x" spelled as pnpm and npm do are the same) or name is s, or -1. */
long lg_importer_rel(const struct lockset *ls, const char *rel);
long lg_importer_name(const struct lockset *ls, const char *name);

/* Marks in out (a bool per node) every node reachable from the nodes of
 * the importers marked in from, those nodes included (lockfile.c's walk,
 * the closures' own: lockset_prune's kept part). */
void lg_reach(const struct lockset *ls, const bool *from, bool *out);

/* yarn.lock v1: reads one token at *p (a "quoted string" with \ escapes,
 * or a run of characters up to a space, ',' or ':' ending the line) into
 * tok. Returns 0, or -1 on an unterminated string. */
int lg_yarn_token(const char **p, const char *end, struct strbuf *tok);

/* The parsers: 0, or -1 with the reason in err. */
/* Says in err why a JSON lockfile's text was refused: "LINE:COL: what
 * json_parse said" (je), or that it holds no object (je NULL). */
struct json_error;
void lock_json_error(struct strbuf *err, const char *text, const struct json_error *je);

int lock_parse_npm(struct lockset *ls, const char *text, size_t len, struct strbuf *err);
int lock_parse_pnpm(struct lockset *ls, const char *text, size_t len, struct strbuf *err);
/* The size from which pnpm's file is read on two threads (the unit test
 * lowers it to test that path on a small file). */
extern size_t lock_pnpm_split_min;
int lock_parse_yarn(struct lockset *ls, const char *text, size_t len, struct strbuf *err);
int lock_parse_berry(struct lockset *ls, const char *text, size_t len, struct strbuf *err);
int lock_parse_bun(struct lockset *ls, const char *text, size_t len, struct strbuf *err);

#endif
