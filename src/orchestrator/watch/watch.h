/* watch.h - the `vx watch` verb (docs/watch.md). */
#ifndef VX_WATCH_WATCH_H
#define VX_WATCH_WATCH_H

#include <stdbool.h>

struct opt;

/* Returns the rows of vx watch's own options (the rest are vx run's:
 * run_opts_rows), bound to interrupt, malloc'd: the table its parser
 * reads and `vx completion` completes from. */
struct opt *watch_opts_rows(bool *interrupt);

/* Returns the process exit status: 130 after Ctrl-C, 2 when the first
 * plan fails or the tree cannot be watched. argv[0] is the verb. */
int watch_main(int argc, char **argv);

#endif
