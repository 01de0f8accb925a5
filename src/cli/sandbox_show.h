/* sandbox_show.h - `vx sandbox show`. */
#ifndef VX_CLI_SANDBOX_SHOW_H
#define VX_CLI_SANDBOX_SHOW_H

/* `vx sandbox show TASK`: prints the exact argv of each selected project's
 * TASK, one element per line. Returns the exit status. */
int sandbox_show_main(int argc, char **argv);

#endif
