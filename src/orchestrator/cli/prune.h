/* prune.h - `vx prune`. */
#ifndef VX_CLI_PRUNE_H
#define VX_CLI_PRUNE_H

#include <stdbool.h>

#include "util/parseopt.h"

/* vx prune's options, as its rows set them. */
struct prune_opts {
	bool docker;			 /* --docker */
	const char *out_dir;		 /* --out-dir DIR */
	enum opt_tristate use_gitignore; /* --use-gitignore, OPT_TRUE when not given */
};

/* Returns the rows of vx prune's options, bound to o's fields, malloc'd:
 * the table its parser reads and `vx completion` completes from. */
struct opt *prune_opts_rows(struct prune_opts *o);

/* `vx prune PACKAGE... [--docker] [--out-dir DIR] [--use-gitignore=BOOL]`
 * (argv[0] is "prune"). Returns the exit status. */
int prune_main(int argc, char **argv);

#endif
