/* bwrap.h - the bubblewrap command line for a request, and how the task
 * runs inside it: its own session, and a watcher that relays vx's signals. */
#ifndef VX_SANDBOX_BWRAP_H
#define VX_SANDBOX_BWRAP_H

#include <spawn.h>
#include <stddef.h>

#include "sandbox/request.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* The fd the task's watcher reads signal names from ("TERM\n", "INT\n");
 * closing it SIGKILLs whatever is left of the task. */
#define SANDBOX_SIGNAL_FD 3

/* An fd the spawn must pass to bwrap: vx's fd `from` (O_CLOEXEC) as `to`. */
struct sandbox_fd {
	int from, to;
};
#define SANDBOX_MAX_FDS 7
/* The fds bwrap gets are SANDBOX_SIGNAL_FD, 4..9 for the RW bind sources
 * (the shell inside can close only one-digit fds), and this one for the
 * system call filter, which bwrap reads and closes itself. A source fd
 * must lie above it, so no dup2 at spawn clobbers a later one's source. */
#define SANDBOX_SECCOMP_FD 10

/* The strace argv between the program and -o (the first element, "STRACE",
 * stands for the strace path), NULL-terminated: what a traced task runs under. */
const char *const *sandbox_trace_flags(void);

/* Appends to argv the whole command vx spawns: bwrap, its mounts, the
 * environment (--clearenv --setenv …), --chdir, and the shell that runs
 * command in its own session under the watcher. Fills fds (room for
 * SANDBOX_MAX_FDS) with the RW bind sources and the filter to pass and sets
 * *n_fds. The
 * spawn must also give the read end of the signal pipe as SANDBOX_SIGNAL_FD
 * (sandbox_spawn_actions does both). */
void sandbox_argv(const struct sandbox_request *req, const char *command, struct strvec *argv,
		  struct sandbox_fd *fds, size_t *n_fds);

/* Appends argv to out, one element per line, for `vx sandbox show`. */
void sandbox_show(const struct sandbox_request *req, const char *command, struct strbuf *out);

/* Adds to fa the dup2s that hand bwrap the signal channel (signal_fd as fd 3)
 * and the fds sandbox_argv filled, clearing their FD_CLOEXEC in the child only.
 * Returns 0, or an errno value from posix_spawn_file_actions_adddup2. */
int sandbox_spawn_actions(const struct sandbox_fd *fds, size_t n_fds, int signal_fd,
			  posix_spawn_file_actions_t *fa);

#endif
