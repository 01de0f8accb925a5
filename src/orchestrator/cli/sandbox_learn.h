/* sandbox_learn.h - `vx sandbox learn`. */
#ifndef VX_CLI_SANDBOX_LEARN_H
#define VX_CLI_SANDBOX_LEARN_H

/* `vx sandbox learn TASK... [run options]` (argv[0] is "learn"): turns the
 * sandbox on for the selected tasks and writes the grants and inputs they
 * need into their vx.yaml files. Returns the exit status. */
int sandbox_learn_main(int argc, char **argv);

#endif
