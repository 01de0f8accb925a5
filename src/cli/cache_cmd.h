/* cache_cmd.h - the `vx cache stats|clean|prune` verb. */
#ifndef VX_CLI_CACHE_CMD_H
#define VX_CLI_CACHE_CMD_H

/* Returns the exit status: 0, or 2 for a usage or configuration error or a
 * store that cannot be read. */
int cache_main(int argc, char **argv);

#endif
