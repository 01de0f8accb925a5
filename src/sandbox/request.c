/* request.c - a request's lifecycle: sandbox_request_prepare makes a plan
 * (plan.c, mounts.c) real, creating what it names and opening each bind
 * source by fd; after the task, the sweeps; then the release. */
#include "sandbox/request.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/plan.h"
#include "sandbox/seccomp.h"
#include "util/io.h"
#include "util/path.h"

bool sandbox_path_safe(const char *p)
{
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._/+@-", *p)))
			return false;
	return true;
}

static int create_missing(struct sandbox_request *req, struct strbuf *err)
{
	/* never removed by a task's end: another task's tmpfs may be about
	 * to be mounted there (a sweep made bwrap's mkdir meet EROFS) */
	for (size_t i = 0; i < req->scratch.n; i++)
		if (mkdir(req->scratch.v[i], 0755) && errno != EEXIST)
			return plan_refuse(err, "cannot create %s: %s", req->scratch.v[i],
					   strerror(errno));
	for (size_t i = 0; i < req->mkdirs.n; i++) {
		struct stat st;
		bool was = lstat(req->mkdirs.v[i], &st) == 0;
		if (fs_mkdirs(req->mkdirs.v[i], 0777))
			return plan_refuse(err, "cannot create %s for a write grant: %s",
					   req->mkdirs.v[i], strerror(errno));
		if (!was)
			strvec_push(&req->made_dirs, req->mkdirs.v[i]);
	}
	for (size_t i = 0; i < req->files.n; i++) {
		struct stat st;
		/* lstat first: a dangling link must not be followed into a file elsewhere. */
		if (lstat(req->files.v[i], &st) == 0)
			continue;
		int fd = open(req->files.v[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      0644);
		if (fd < 0)
			return plan_refuse(err, "cannot create %s for a write grant: %s",
					   req->files.v[i], strerror(errno));
		if (fstat(fd, &st)) {
			close(fd);
			return plan_refuse(err, "cannot stat %s: %s", req->files.v[i],
					   strerror(errno));
		}
		close(fd);
		struct sandbox_placeholder p = {xstrdup(req->files.v[i]), st.st_dev, st.st_ino,
						st.st_mtim, false};
		vec_push(&req->placeholders, p);
	}
	return 0;
}

/* Opens a bind source O_PATH|O_NOFOLLOW and checks that the fd is the
 * path vx judged: bwrap then mounts the fd, so a component swapped for a
 * link after this point binds nothing new. */
static int open_source(const char *path, bool dir, int *out, struct strbuf *err)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | (dir ? O_DIRECTORY : 0) | O_CLOEXEC);
	if (fd < 0)
		return plan_refuse(err, "cannot open %s to bind it: %s", path, strerror(errno));
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	char *real = realpath(proc, NULL);
	bool same = real && !strcmp(real, path);
	free(real);
	if (!same) {
		close(fd);
		return plan_refuse(
		    err, "%s changed while vx checked it (a link appeared); run again", path);
	}
	*out = fd; /* where it lands for bwrap is sandbox_fds_lift's business */
	return 0;
}

/* Every bind source by fd, checked: the write grants, and the read-only
 * ones too (--ro-bind-fd): a concurrent task with a write grant over one
 * could swap a component for a link between the plan and bwrap's mount,
 * and bind a file elsewhere read-only (~/.ssh/id_rsa). A link itself (a
 * deny mask over one) stays by path, and a read source gone since the plan
 * is dropped: there is nothing left to show. */
static int open_sources(struct sandbox_request *req, struct strbuf *err)
{
	size_t keep = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		struct stat st;
		int rc = 0;
		if (m->kind == SANDBOX_RW && m->fd < 0) {
			/* a directory, or a file bound alone (untraced) */
			rc = open_source(m->src, lstat(m->src, &st) || S_ISDIR(st.st_mode), &m->fd,
					 err);
		} else if ((m->kind == SANDBOX_DATA || m->kind == SANDBOX_STUB) && m->fd < 0) {
			m->fd = memfd_create("vx-data", MFD_CLOEXEC);
			if (m->fd < 0 || (m->src && write_all(m->fd, m->src, strlen(m->src)) < 0) ||
			    lseek(m->fd, 0, SEEK_SET) != 0)
				rc = plan_refuse(err, "cannot make the sandbox's %s: %s", m->dst,
						 strerror(errno));
		} else if (m->kind == SANDBOX_RO && m->fd < 0 && !m->by_path) {
			if (lstat(m->src, &st) != 0) {
				free(m->src);
				free(m->dst);
				continue;
			}
			rc = open_source(m->src, S_ISDIR(st.st_mode), &m->fd, err);
		}
		if (rc) {
			/* keep every mount not yet freed, for the release */
			size_t rest = req->mounts.n - i;
			memmove(&req->mounts.v[keep], m, rest * sizeof *m);
			req->mounts.n = keep + rest;
			return -1;
		}
		req->mounts.v[keep++] = *m;
	}
	req->mounts.n = keep;
	return 0;
}

int sandbox_request_prepare(struct sandbox_request *req, struct strbuf *err)
{
	struct stat st;
	int rc = 0;
	if (req->stage && (stat(req->stage, &st) || !S_ISDIR(st.st_mode)))
		rc = plan_refuse(err, "cannot stage the project in %s: it is not a directory",
				 req->stage);
	if (!rc)
		rc = create_missing(req, err);
	if (!rc) {
		req->seccomp_fd = seccomp_program_fd();
		if (req->seccomp_fd < 0)
			rc = plan_refuse(err, "cannot make the sandbox's system call filter: %s",
					 strerror(errno));
	}
	if (!rc)
		rc = open_sources(req, err);
	if (rc) {
		sandbox_request_sweep(req);
		sandbox_request_release(req);
		memset(req, 0, sizeof *req);
		req->seccomp_fd = -1;
		req->trace_fd = -1;
	}
	return rc;
}

int sandbox_request_build(const struct sandbox_input *in, struct sandbox_request *req,
			  struct strbuf *err)
{
	return sandbox_request_plan(in, req, err) ? -1 : sandbox_request_prepare(req, err);
}

bool sandbox_placeholder_untouched(const struct sandbox_placeholder *p)
{
	struct stat st;
	return lstat(p->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 &&
	       st.st_dev == p->dev && st.st_ino == p->ino && st.st_mtim.tv_sec == p->mtime.tv_sec &&
	       st.st_mtim.tv_nsec == p->mtime.tv_nsec;
}

void sandbox_request_write_roots(struct sandbox_request *req)
{
	strvec_clear(&req->write_roots);
	for (size_t k = 0; k < req->mounts.n; k++) {
		const struct sandbox_mount *m = &req->mounts.v[k];
		if (m->kind != SANDBOX_RW)
			continue;
		if (req->stage && !strcmp(m->src, req->stage)) {
			/* the stage: its grants are the staged entries */
			for (size_t s = 0; s < req->staged.n; s++)
				strvec_push_nodup(&req->write_roots,
						  path_join(req->cwd, req->staged.v[s]));
			continue;
		}
		strvec_push(&req->write_roots, m->dst);
	}
}

void sandbox_request_ended(struct sandbox_request *req)
{
	for (size_t i = 0; i < req->placeholders.n; i++)
		req->placeholders.v[i].untouched =
		    sandbox_placeholder_untouched(&req->placeholders.v[i]);
}

size_t sandbox_request_sweep(struct sandbox_request *req)
{
	size_t removed = 0;
	for (size_t i = 0; i < req->placeholders.n; i++) {
		struct sandbox_placeholder *p = &req->placeholders.v[i];
		if (sandbox_placeholder_untouched(p) && unlink(p->path) == 0)
			removed++;
		free(p->path);
	}
	vec_free(&req->placeholders);
	return removed;
}

size_t sandbox_request_sweep_dirs(struct sandbox_request *req)
{
	size_t removed = 0;
	for (size_t i = req->made_dirs.n; i-- > 0;)
		removed += rmdir(req->made_dirs.v[i]) == 0;
	strvec_clear(&req->made_dirs);
	return removed;
}

void sandbox_request_release(struct sandbox_request *req)
{
	free(req->bwrap);
	free(req->shell);
	free(req->setsid);
	free(req->strace);
	free(req->init);
	free(req->netd);
	free(req->net_ctl);
	vec_free(&req->relay_ports);
	if (req->seccomp_fd >= 0)
		close(req->seccomp_fd);
	req->seccomp_fd = -1;
	for (size_t i = 0; i < req->mounts.n; i++) {
		free(req->mounts.v[i].src);
		free(req->mounts.v[i].dst);
		if (req->mounts.v[i].fd >= 0)
			close(req->mounts.v[i].fd);
	}
	vec_free(&req->mounts);
	strvec_clear(&req->env);
	free(req->cwd);
	strvec_clear(&req->notes);
	strvec_clear(&req->withheld);
	strvec_clear(&req->widened);
	strvec_clear(&req->configs);
	walls_clear(&req->walls);
	free(req->stage);
	strvec_clear(&req->staged);
	strvec_clear(&req->write_roots);
	strvec_clear(&req->mkdirs);
	strvec_clear(&req->made_dirs);
	strvec_clear(&req->scratch);
	strvec_clear(&req->files);
	for (size_t i = 0; i < req->placeholders.n; i++)
		free(req->placeholders.v[i].path);
	vec_free(&req->placeholders);
}
