/* completion.h - `vx completion bash|zsh|fish`: a shell's completion script,
 * written from the verbs' table (cli/verbs.h) and each verb's option rows
 * (util/parseopt.h), the ones the parsers read; and `vx __complete`, which
 * the scripts ask for what only the workspace at hand knows. */
#ifndef VX_CLI_COMPLETION_H
#define VX_CLI_COMPLETION_H

/* `vx completion SHELL` (argv[0] is the verb): prints SHELL's script.
 * Returns the exit status: 0, or 2 for a shell it does not know. */
int completion_main(int argc, char **argv);

/* `vx __complete tasks|ids|packages` (argv[0] is the verb): prints, one a
 * line, sorted, the task names of the workspace here (ids: its
 * PROJECT#TASK ids; packages: its project names); nothing, and no error,
 * where no workspace loads (a completion must never print one). Returns
 * 0, or 2 for another word. */
int complete_main(int argc, char **argv);

#endif
