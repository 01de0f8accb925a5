/* guard.c - the records of the configs a sandboxed task could make. */
#include "sandbox/guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/die.h"
#include "util/io.h"
#include "util/path.h"

/* A record is "task ID\n" and then one absolute path a line. It is written
 * as .rec-XXXXXX, locked, then renamed to rec-XXXXXX: guard_check never
 * sees a record before its owner holds it (it would take it for a dead
 * one's and remove it). */
int guard_begin(struct guard *g, const char *dir, const char *task, const char *const *missing,
		size_t n)
{
	g->path = NULL;
	g->fd = -1;
	if (!n)
		return 0;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	char *tmp = path_join(dir, ".rec-XXXXXX");
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "task %s\n", task);
	for (size_t k = 0; k < n; k++)
		strbuf_addf(&sb, "%s\n", missing[k]);
	char *name = path_join(dir, path_basename(tmp) + 1);
	int rc =
	    flock(fd, LOCK_EX) < 0 || write_all(fd, sb.buf, sb.len) < 0 || rename(tmp, name) < 0
		? -1
		: 0;
	strbuf_release(&sb);
	if (rc) {
		int e = errno;
		unlink(tmp);
		close(fd);
		free(name);
		errno = e;
	} else {
		g->path = name;
		g->fd = fd;
	}
	free(tmp);
	return rc;
}

/* The task's id (after "task ") and its paths, from a record's text, which
 * is cut in place. Returns the id, or NULL when the text is no record. */
static const char *record_parse(char *text, struct strvec *paths)
{
	char *save = NULL, *first = strtok_r(text, "\n", &save);
	if (!first || strncmp(first, "task ", 5))
		return NULL;
	for (char *p = strtok_r(NULL, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
		if (p[0] == '/')
			strvec_push(paths, p);
	return first + 5;
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

void guard_end(struct guard *g, struct strvec *appeared)
{
	if (!g->path)
		return;
	struct strbuf sb = STRBUF_INIT;
	struct strvec paths = STRVEC_INIT;
	size_t before = appeared->n;
	/* an unreadable record is taken as naming what appeared: it stays,
	 * and the next plan says so */
	bool read = lseek(g->fd, 0, SEEK_SET) == 0 && strbuf_read_fd(&sb, g->fd) == 0 &&
		    record_parse(sb.buf, &paths);
	for (size_t k = 0; k < paths.n; k++)
		if (exists(paths.v[k]))
			strvec_push(appeared, paths.v[k]);
	if (read && appeared->n == before)
		unlink(g->path);
	close(g->fd);
	strvec_clear(&paths);
	strbuf_release(&sb);
	free(g->path);
	g->path = NULL;
	g->fd = -1;
}

int guard_check(const char *dir, const char *ws, struct strbuf *err)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	struct strvec names = STRVEC_INIT;
	dir_names_at(dfd, &names);
	strvec_sort(&names);
	int rc = 0;
	for (size_t i = 0; i < names.n && !rc; i++) {
		const char *name = names.v[i];
		bool tmp = !strncmp(name, ".rec-", 5);
		if (!tmp && strncmp(name, "rec-", 4))
			continue;
		int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* held: the task may still run, in this vx or another */
		bool held = flock(fd, LOCK_EX | LOCK_NB) < 0;
		if (tmp) {
			/* a vx that died before its record was whole: its
			 * task never started */
			if (!held)
				unlinkat(dfd, name, 0);
			close(fd);
			continue;
		}
		struct strbuf sb = STRBUF_INIT;
		struct strvec paths = STRVEC_INIT;
		const char *task =
		    strbuf_read_fd(&sb, fd) == 0 ? record_parse(sb.buf, &paths) : NULL;
		for (size_t k = 0; task && k < paths.n && !rc; k++) {
			if (!exists(paths.v[k]))
				continue;
			char *shown = path_relative(ws, paths.v[k]);
			char *rec = path_join(dir, name), *rec_shown = path_relative(ws, rec);
			strbuf_reset(err);
			strbuf_addf(err,
				    "%s: appeared while %s could write there, a sandboxed task "
				    "that no mount keeps from making a missing config, so vx does "
				    "not plan from it: remove it, or if you made it yourself, "
				    "remove %s",
				    shown, task, rec_shown);
			free(shown);
			free(rec);
			free(rec_shown);
			rc = -1;
		}
		if (!rc && task && !held)
			unlinkat(dfd, name, 0); /* its vx is gone, and nothing appeared */
		strvec_clear(&paths);
		strbuf_release(&sb);
		close(fd);
	}
	strvec_clear(&names);
	close(dfd);
	return rc;
}
