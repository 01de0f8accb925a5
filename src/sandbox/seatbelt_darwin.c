/* seatbelt_darwin.c - the macOS-only spawn of the Seatbelt sandbox. Kept
 * thin and reviewed by reading (no Mac builds vx's CI; tests/posix/check.sh
 * compiles it with __APPLE__ defined): the profile it applies is text
 * seatbelt.c makes, tested on any host. */
#ifdef __APPLE__
#include "sandbox/seatbelt_darwin.h"

#include <errno.h>
#include <spawn.h>

#include "sandbox/seatbelt.h"
#include "util/vec.h"

int seatbelt_spawn(const char *profile, const char *shell, const char *command, const char *cwd,
		   char *const envp[], pid_t *pid)
{
	struct strvec argv = STRVEC_INIT;
	seatbelt_argv(profile, shell, command, &argv);
	posix_spawnattr_t at;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, cwd);
	int rc = posix_spawn(pid, argv.v[0], &fa, &at, argv.v, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	strvec_clear(&argv);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

#endif
