/* stage.c - a staged project: its entries moved into the stage before the
 * task (with the record beside it), back or away after it, and what a dead
 * run's stages hold put back by the reaper. */
#include "sandbox/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
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

int sandbox_stage_record(const char *stage_dir, const struct sandbox_request *req)
{
	char *rec = xasprintf("%s.project", stage_dir);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s\n", req->cwd);
	for (size_t k = 0; k < req->staged.n; k++)
		strbuf_addf(&sb, "%s\n", req->staged.v[k]);
	int fd = open(rec, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = fd < 0 || write_all(fd, sb.buf, sb.len) < 0 ? -1 : 0;
	if (fd >= 0)
		close(fd);
	strbuf_release(&sb);
	free(rec);
	return rc ? rc : sandbox_request_stage(req);
}

int sandbox_stage_drop(const char *stage_dir)
{
	if (rmdir(stage_dir))
		return -1;
	char *rec = xasprintf("%s.project", stage_dir);
	unlink(rec);
	free(rec);
	return 0;
}

void sandbox_stage_reap(int dirfd)
{
	struct strvec entries = STRVEC_INIT;
	dir_names_at(dirfd, &entries);
	for (size_t k = 0; k < entries.n; k++) {
		const char *rec = entries.v[k];
		size_t n = strlen(rec);
		if (n < 9 || strcmp(rec + n - 8, ".project"))
			continue;
		struct strbuf sb = STRBUF_INIT;
		int fd = openat(dirfd, rec, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || strbuf_read_fd(&sb, fd) < 0) {
			if (fd >= 0)
				close(fd);
			strbuf_release(&sb);
			continue;
		}
		close(fd);
		char *stage = xstrndup(rec, n - 8);
		int sfd = openat(dirfd, stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		char *save = NULL, *project = strtok_r(sb.buf, "\n", &save);
		int pfd = project ? open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		for (char *name = strtok_r(NULL, "\n", &save); name && sfd >= 0 && pfd >= 0;
		     name = strtok_r(NULL, "\n", &save)) {
			struct stat st;
			if (!strchr(name, '/') && strcmp(name, "..") &&
			    fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
				renameat(sfd, name, pfd, name);
		}
		if (sfd >= 0)
			close(sfd);
		if (pfd >= 0)
			close(pfd);
		free(stage);
		strbuf_release(&sb);
	}
	strvec_clear(&entries);
}
