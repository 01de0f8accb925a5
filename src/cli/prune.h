/* prune.h - `vx prune`. */
#ifndef VX_CLI_PRUNE_H
#define VX_CLI_PRUNE_H

/* `vx prune PACKAGE... [--docker] [--out-dir DIR] [--use-gitignore=BOOL]`
 * (argv[0] is "prune"). Returns the exit status. */
int prune_main(int argc, char **argv);

#endif
