/* version.h - `vx version`. */
#ifndef VX_CLI_VERSION_H
#define VX_CLI_VERSION_H

/* `vx version` and `vx --version` (argv[0] is the verb): the version, the
 * commit built, how it was built and what was built in. Returns the exit
 * status. */
int version_main(int argc, char **argv);

#endif
