/* cache_cmd.h - the `vx cache stats|clean|prune` verb. */
#ifndef VX_CLI_CACHE_CMD_H
#define VX_CLI_CACHE_CMD_H

#include <stdbool.h>

struct opt;

/* vx cache's options, as its rows set them. */
struct cache_opts {
	const char *max_size; /* prune's --max-size SIZE, as written; NULL: cache.maxSize */
};

/* Returns the rows of `vx cache prune`'s options (!prune: stats's and
 * clean's, --help alone), bound to o's fields, malloc'd: the table its
 * parser reads and `vx completion` completes from. */
struct opt *cache_opts_rows(struct cache_opts *o, bool prune);

/* `vx cache stats|clean|prune` (argv[0] is stats, clean or prune).
 * Returns the exit status: 0, or 2 for a usage or configuration error or a
 * store that cannot be read. */
int cache_main(int argc, char **argv);

#endif
