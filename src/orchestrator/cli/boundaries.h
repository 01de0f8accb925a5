/* boundaries.h - `vx boundaries`: what each package imports, and what its
 * traced tasks read, of the packages its package.json does not declare
 * (docs/boundaries.md). */
#ifndef VX_CLI_BOUNDARIES_H
#define VX_CLI_BOUNDARIES_H

#include "util/vec.h"

struct opt;

/* vx boundaries' options, as its rows set them. */
struct boundaries_opts {
	struct strvec filters; /* --filter, as written */
	enum boundaries_report {
		BOUNDARIES_TEXT,
		BOUNDARIES_JSON,
		BOUNDARIES_SARIF,
		BOUNDARIES_GITHUB,
	} report; /* --report, BOUNDARIES_TEXT when not given */
};

/* Returns the rows of vx boundaries' options, bound to o's fields,
 * malloc'd. */
struct opt *boundaries_opts_rows(struct boundaries_opts *o);

/* `vx boundaries [--filter P] [--report text|json|sarif|github]` (argv[0]
 * is "boundaries"). Returns 1 when it found something, 0 when not, 2 on
 * bad input (a config, a filter, a file it could not read). */
int boundaries_main(int argc, char **argv);

#endif
