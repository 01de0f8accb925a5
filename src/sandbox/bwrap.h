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
/* The trace log a traced task's strace writes (-o /proc/self/fd/4);
 * vx-sandbox-init --traced closes it before the task runs. */
#define SANDBOX_LOG_FD 4

/* An fd the spawn must pass to bwrap: vx's fd `from` (O_CLOEXEC) as `to`. */
struct sandbox_fd {
	int from, to;
	bool lifted; /* from is sandbox_fds_lift's copy, closed by sandbox_fds_close */
};
typedef VEC(struct sandbox_fd) sandbox_fd_vec;
/* bwrap gets SANDBOX_SIGNAL_FD, this one for the system call filter, and
 * the RW bind sources from SANDBOX_BIND_FD up, one each, as --bind-fd:
 * bwrap reads and closes the filter, and closes each bind source once it
 * mounted it, so the task holds none of them (and there is no limit on
 * their number but the fd table). */
#define SANDBOX_SECCOMP_FD 10
#define SANDBOX_BIND_FD 11

/* The strace argv between the program and -o (the first element, "STRACE",
 * stands for the strace path), NULL-terminated: what a traced task runs under. */
const char *const *sandbox_trace_flags(void);

/* What a traced task's bwrap adds after --cap-drop ALL, NULL-terminated:
 * the capabilities vx-sandbox-init --traced needs for the task's pid
 * namespace and /proc, and drops (the probe gives its trial the same). */
const char *const *sandbox_traced_caps(void);

/* Appends to argv the whole command vx spawns: bwrap, its mounts, the
 * environment (--clearenv --setenv …), --chdir, and the shell that runs
 * command in its own session under the watcher. Appends to fds the filter
 * and the RW bind sources to pass, in the order the spawn must dup2 them.
 * The spawn must also give the read end of the signal pipe as
 * SANDBOX_SIGNAL_FD (sandbox_spawn_actions does both). */
void sandbox_argv(const struct sandbox_request *req, const char *command, struct strvec *argv,
		  sandbox_fd_vec *fds);

/* The highest fd number the spawn dup2s onto. */
int sandbox_fds_top(const sandbox_fd_vec *fds);
/* Moves each source at or below sandbox_fds_top above it (a dup2 onto a
 * target would otherwise clobber a source not yet passed): the one
 * renumbering, done once after sandbox_argv, before the spawn. Returns 0,
 * or -1 with errno (what was lifted stays for sandbox_fds_close). */
int sandbox_fds_lift(sandbox_fd_vec *fds);
/* Closes the copies sandbox_fds_lift made and empties fds. */
void sandbox_fds_close(sandbox_fd_vec *fds);

/* Appends argv to out, one element per line, for `vx sandbox show`. */
void sandbox_show(const struct sandbox_request *req, const char *command, struct strbuf *out);

/* Adds to fa the dup2s that hand bwrap the signal channel (signal_fd as fd 3)
 * and the fds sandbox_argv filled, clearing their FD_CLOEXEC in the child only.
 * Returns 0, or an errno value from posix_spawn_file_actions_adddup2. */
int sandbox_spawn_actions(const sandbox_fd_vec *fds, int signal_fd, posix_spawn_file_actions_t *fa);

#endif
