/* ls.h - `vx ls`. */
#ifndef VX_CLI_LS_H
#define VX_CLI_LS_H

#include <stdbool.h>

#include "util/vec.h"

struct opt;

/* vx ls's options, as its rows set them. */
struct ls_opts {
	struct strvec filters; /* --filter, as written */
	bool affected;
	char *affected_ref; /* --affected=REF; NULL: the merge base with main */
	enum ls_output { LS_TEXT, LS_JSON } output; /* --output, LS_TEXT when not given */
};

/* Returns the rows of vx ls's options, bound to o's fields, malloc'd: the
 * table its parser reads and `vx completion` completes from. */
struct opt *ls_opts_rows(struct ls_opts *o);

/* `vx ls [PACKAGE...] [--filter P] [--affected[=REF]] [--output text|json]`
 * (argv[0] is "ls"). Returns the exit status. */
int ls_main(int argc, char **argv);

#endif
