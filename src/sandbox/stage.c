/* stage.c - moving a project's staged entries into the stage before the
 * task, and back (or away) after it. */
#include "sandbox/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/glob.h"
#include "util/io.h"

int sandbox_request_stage(const struct sandbox_request *req)
{
	if (!req->stage)
		return 0;
	int pfd = open(req->cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int sfd = pfd < 0 ? -1 : open(req->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0) {
		int e = errno;
		if (pfd >= 0)
			close(pfd);
		errno = e;
		return -1;
	}
	size_t moved = 0;
	int rc = 0;
	for (; moved < req->staged.n; moved++) {
		const char *name = req->staged.v[moved];
		if (renameat(pfd, name, sfd, name) < 0 && errno != ENOENT) {
			rc = -1;
			break;
		}
	}
	if (rc) {
		int e = errno;
		while (moved--)
			renameat(sfd, req->staged.v[moved], pfd, req->staged.v[moved]);
		errno = e;
	}
	close(sfd);
	close(pfd);
	return rc;
}

/* Does a write grant (as written in allow.write, relative to the project)
 * name the top-level entry name, or something below it? (A glob of logs
 * anywhere takes a new x.log; its first component alone, a globstar,
 * would take any name.) */
static bool granted_top(const char *name, const char *const *allow, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *g = allow[i];
		if (g[0] == '.' && g[1] == '/')
			g += 2;
		if (glob_match(g, name) || glob_match_below(g, name))
			return true;
	}
	return false;
}

size_t sandbox_request_unstage(const struct sandbox_request *req, const char *const *allow_write,
			       size_t n_allow_write)
{
	if (!req->stage)
		return 0;
	int pfd = open(req->cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int sfd = pfd < 0 ? -1 : open(req->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t discarded = 0;
	struct strvec names = STRVEC_INIT;
	if (sfd >= 0)
		dir_names_at(sfd, &names);
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		struct stat st;
		/* bwrap's mount points for the project's own entries: they stand
		 * for what is still in the project, and go */
		bool stub = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		bool back = !stub && (strvec_find(&req->staged, name) >= 0 ||
				      granted_top(name, allow_write, n_allow_write));
		if (back) {
			/* one that cannot go back stays in the stage, never
			 * removed: the next run's sweep tries again */
			renameat(sfd, name, pfd, name);
			continue;
		}
		if (!stub)
			discarded++;
		remove_tree_at(sfd, name);
	}
	strvec_clear(&names);
	if (sfd >= 0)
		close(sfd);
	if (pfd >= 0)
		close(pfd);
	return discarded;
}
