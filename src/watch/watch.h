/* watch.h - the `vx watch` verb (docs/watch.md). */
#ifndef VX_WATCH_WATCH_H
#define VX_WATCH_WATCH_H

/* Returns the process exit status: 130 after Ctrl-C, 2 when the first
 * plan fails or the tree cannot be watched. argv[0] is the verb. */
int watch_main(int argc, char **argv);

#endif
