/* shellwords.h - a task's command as the words of one program, when
 * `sh -c COMMAND` would do nothing with it but split it on blanks and run
 * that program (issue 43). vx-sandbox-init then execs the program itself,
 * as make does for such a recipe line: under the tracer that saves the
 * shell's exec and its vfork (dash 0.5.12 forks even for the last
 * command). Pure, libc only: linked into the static init as well as vx. */
#ifndef VX_SANDBOX_SHELLWORDS_H
#define VX_SANDBOX_SHELLWORDS_H

/* Returns the words of command, NULL-terminated, in one malloc'd block (one
 * free), or NULL when the shell must run it: a character the shell reads
 * as more than a letter of a word (quotes, $, `, \, ;, &, |, <, >, (, ),
 * globs, ~, #, {, }, !, a newline), an empty command, an assignment for
 * its first word, or a first word that is a reserved word or a builtin of
 * dash or bash (their programs, where they exist, may differ: /bin/echo -e,
 * /bin/pwd, true --help), or when memory runs out. */
char **shellwords(const char *command);

/* The program a shell would run for name: name itself when it holds a
 * '/', else the first PATH entry (dash's default PATH when unset; an empty
 * entry is ".") where name is a regular file, by stat as dash's search
 * does. Returns it malloc'd, or NULL when there is none (the shell would
 * say "not found") or memory runs out. */
char *shellwords_path(const char *name);

/* The shell's PWD for its programs, as dash sets it at its start: pwd
 * when it names the working directory (same device and inode), else the
 * working directory's physical path. Returns 0 after setenv, -1 when
 * neither can be had (the shell would then leave PWD unset). */
int shellwords_pwd(void);

/* Removes from environ each entry whose name is not a shell name
 * ([A-Za-z_][A-Za-z0-9_]*, or no "="): dash drops them before it runs a
 * program, so the program never saw them. */
void shellwords_env(void);

#endif
