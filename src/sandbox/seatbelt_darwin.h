/* seatbelt_darwin.h - what only macOS can run of its sandbox's walls: a
 * task spawned under sandbox-exec (docs/seatbelt.md). Declared on macOS
 * alone; the reader of the denials is violations/seatbelt_reader.h. */
#ifndef VX_SANDBOX_SEATBELT_DARWIN_H
#define VX_SANDBOX_SEATBELT_DARWIN_H
#ifdef __APPLE__

#include <sys/types.h>

/* Spawns `sandbox-exec -p PROFILE SHELL -c COMMAND` in cwd, a session of
 * its own, with envp. Returns 0 and the pid, or -1 with errno. */
int seatbelt_spawn(const char *profile, const char *shell, const char *command, const char *cwd,
		   char *const envp[], pid_t *pid);

#endif
#endif
