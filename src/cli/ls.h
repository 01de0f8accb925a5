/* ls.h - `vx ls`. */
#ifndef VX_CLI_LS_H
#define VX_CLI_LS_H

/* `vx ls [PACKAGE...] [--filter P] [--affected[=REF]] [--output text|json]`
 * (argv[0] is "ls"). Returns the exit status. */
int ls_main(int argc, char **argv);

#endif
