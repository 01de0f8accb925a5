/* spawn.h - run a helper program to completion and capture what it prints. */
#ifndef VX_UTIL_SPAWN_H
#define VX_UTIL_SPAWN_H

#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

#include "util/strbuf.h"

/* The one decoding of a wait(2) status: the exit status, or 128+N when
 * signal N ended the process (*signo set to N, else 0; signo may be NULL). */
int spawn_exit_code(int st, int *signo);

/* Runs argv (argv[0] looked up on PATH) in cwd (NULL: the current one), stdin
 * from /dev/null, stdout appended to out (NULL: discarded), stderr to err
 * (NULL: discarded). Returns the exit status (128+N for a signal), or -1 with
 * errno set when it could not be started. */
int spawn_capture(char *const argv[], const char *cwd, struct strbuf *out, struct strbuf *err);

/* Marks every descriptor above 2 that vx inherited close-on-exec, so none
 * reaches a task or a helper: a CI runner's or a shell's `exec 47<secret`
 * was passed through bwrap, and the task rewrote the file through
 * /proc/self/fd/47. close_range(2) where the kernel has it, else a walk of
 * /proc/self/fd. Returns 0, or -1 with errno when neither works (the caller
 * must not run tasks then). Call first thing, before vx opens anything. */
int spawn_seal_inherited(void);

/* Sets up a child of vx's event loop (a task, a server's run): stdin from
 * /dev/null (in fa), a process group of its own, the signal mask mask (the
 * loop's children get theirs: loop_child_sigmask), and SIGPIPE, SIGINT,
 * SIGTERM and SIGCHLD back to their defaults (an ignored SIGPIPE would
 * survive exec and break `producer | head` in the child). fa and attr are
 * initialized by the caller, who may add to them. Returns 0 or an errno. */
int spawn_child_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *attr,
		      const sigset_t *mask);

/* Makes the child spawn_child_setup set up the leader of a session of its
 * own rather than of a group in vx's: it has no controlling terminal, so
 * /dev/tty fails for it (ENXIO) and it can neither draw over a screen vx
 * owns nor read the keys meant for vx. Its process group is still its
 * pid, so a kill(-pid) reaches what it started. Returns 0 or an errno. */
int spawn_child_new_session(posix_spawnattr_t *attr);

/* A helper started now and collected later, its stdout going to a memory
 * file (no pipe to fill, so it never waits on vx). */
struct spawned {
	pid_t pid; /* 0: not running */
	int out_fd;
};

/* Starts argv as spawn_capture would, stderr discarded. Returns 0, or -1
 * with errno set (s is then not running). */
int spawn_start(char *const argv[], const char *cwd, struct spawned *s);
/* spawn_start with stdin reading the len bytes of in (from a memory file:
 * no pipe, so input and output of any size never wait on each other). */
int spawn_start_input(char *const argv[], const char *cwd, const char *in, size_t len,
		      struct spawned *s);
/* Waits for s and appends what it printed to out. Returns its exit status
 * as spawn_capture does, or -1 with errno set. */
int spawn_finish(struct spawned *s, struct strbuf *out);
/* Kills s (if running) and reaps it. */
void spawn_abandon(struct spawned *s);

#endif
