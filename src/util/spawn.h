/* spawn.h - run a helper program to completion and capture what it prints. */
#ifndef VX_UTIL_SPAWN_H
#define VX_UTIL_SPAWN_H

#include "util/strbuf.h"

/* Runs argv (argv[0] looked up on PATH) in cwd (NULL: the current one), stdin
 * from /dev/null, stdout appended to out (NULL: discarded), stderr to err
 * (NULL: discarded). Returns the exit status (128+N for a signal), or -1 with
 * errno set when it could not be started. */
int spawn_capture(char *const argv[], const char *cwd, struct strbuf *out, struct strbuf *err);

#endif
