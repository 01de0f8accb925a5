/* info.h - the `vx info` verb. */
#ifndef VX_CLI_INFO_H
#define VX_CLI_INFO_H

/* Prints the platform and, for bwrap and strace, where each is, its
 * version and whether it works here, with the reason when not. Returns 0. */
int info_main(int argc, char **argv);

#endif
