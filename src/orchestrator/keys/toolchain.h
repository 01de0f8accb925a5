/* toolchain.h - the programs a task runs, as its key sees them (SPEC §6;
 * docs/cache.md "The toolchain"): `node` upgraded from 20 to 22 must not
 * replay a build node 20 made. A program is found as the task's shell
 * finds it (PATH, node_modules/.bin first), links resolved, and a script's
 * interpreter follows its "#!" line (`#!/usr/bin/env node` is node on
 * PATH), so `tsc` keys node too. */
#ifndef VX_KEYS_TOOLCHAIN_H
#define VX_KEYS_TOOLCHAIN_H

#include "util/strbuf.h"
#include "util/vec.h"

/* The program a shell command starts with: its first word after any
 * NAME=VALUE assignments, unquoted, into out ("" when it starts with
 * something no PATH lookup finds: a builtin such as cd, a subshell, a
 * redirection). */
void toolchain_first_word(const char *command, struct strbuf *out);

/* Appends to out the canonical path of the program name (a name looked up
 * on path, a colon list; or a path, relative to cwd) and of its
 * interpreter, and the interpreter's, at most 4 deep. Nothing when it is
 * not found or is a shell builtin. */
void toolchain_resolve(const char *name, const char *path, const char *cwd, struct strvec *out);

#endif
