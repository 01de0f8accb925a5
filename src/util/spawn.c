#include "util/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/compat.h"
#include "util/io.h"

extern char **environ;

static int drain(int fd, struct strbuf *sb, bool *open_)
{
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0)
		*open_ = false;
	else if (sb)
		strbuf_add(sb, buf, (size_t)n);
	return 0;
}

int spawn_child_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *attr, const sigset_t *mask)
{
	sigset_t dfl;
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGCHLD);
	int err = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	if (!err)
		err = posix_spawnattr_setflags(
		    attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (!err)
		err = posix_spawnattr_setpgroup(attr, 0);
	if (!err)
		err = posix_spawnattr_setsigmask(attr, mask);
	if (!err)
		err = posix_spawnattr_setsigdefault(attr, &dfl);
	return err;
}

int spawn_child_new_session(posix_spawnattr_t *attr)
{
	short flags;
	int err = posix_spawnattr_getflags(attr, &flags);
	if (err)
		return err;
	/* setsid() makes the child its group's leader already; a setpgid(0, 0)
	 * after it fails with EPERM on a session leader (glibc does both, in
	 * that order, when both flags are set). */
	flags = (short)((flags & ~POSIX_SPAWN_SETPGROUP) | POSIX_SPAWN_SETSID);
	return posix_spawnattr_setflags(attr, flags);
}

int spawn_exit_code(int st, int *signo)
{
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (signo)
		*signo = sig;
	return sig ? 128 + sig : WEXITSTATUS(st);
}

static int wait_status(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return spawn_exit_code(status, NULL);
}

int spawn_capture(char *const argv[], const char *cwd, struct strbuf *out, struct strbuf *err)
{
	int po[2], pe[2];
	if (compat_pipe(po, O_CLOEXEC))
		return -1;
	if (compat_pipe(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (rc) {
		close(po[0]);
		close(pe[0]);
		errno = rc;
		return -1;
	}
	bool oo = true, eo = true;
	while (oo || eo) {
		struct pollfd pf[2] = {{oo ? po[0] : -1, POLLIN, 0}, {eo ? pe[0] : -1, POLLIN, 0}};
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents && drain(po[0], out, &oo))
			oo = false;
		if (pf[1].revents && drain(pe[0], err, &eo))
			eo = false;
	}
	close(po[0]);
	close(pe[0]);
	return wait_status(pid);
}

/* spawn_start with stdin from in_fd (closed here), or /dev/null when -1. */
static int start(char *const argv[], const char *cwd, int in_fd, struct spawned *s)
{
	s->pid = 0;
	s->out_fd = compat_anon_file("vx-spawn");
	if (s->out_fd < 0) {
		if (in_fd >= 0)
			close(in_fd);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (in_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, s->out_fd, 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	int rc = posix_spawnp(&s->pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (in_fd >= 0)
		close(in_fd);
	if (rc) {
		close(s->out_fd);
		s->out_fd = -1;
		s->pid = 0;
		errno = rc;
		return -1;
	}
	return 0;
}

int spawn_start(char *const argv[], const char *cwd, struct spawned *s)
{
	return start(argv, cwd, -1, s);
}

int spawn_start_input(char *const argv[], const char *cwd, const char *in, size_t len,
		      struct spawned *s)
{
	s->pid = 0;
	int fd = compat_anon_file("vx-spawn-in");
	if (fd < 0)
		return -1;
	if (write_all(fd, in, len) < 0 || lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return start(argv, cwd, fd, s);
}

int spawn_finish(struct spawned *s, struct strbuf *out)
{
	if (!s->pid) {
		errno = ECHILD;
		return -1;
	}
	int rc = wait_status(s->pid);
	s->pid = 0;
	if (rc >= 0 && lseek(s->out_fd, 0, SEEK_SET) == 0) {
		bool open_ = true;
		while (open_)
			if (drain(s->out_fd, out, &open_)) {
				rc = -1;
				break;
			}
	}
	close(s->out_fd);
	s->out_fd = -1;
	return rc;
}

void spawn_abandon(struct spawned *s)
{
	if (!s->pid)
		return;
	kill(s->pid, SIGTERM);
	wait_status(s->pid);
	s->pid = 0;
	close(s->out_fd);
	s->out_fd = -1;
}

int spawn_seal_inherited(void)
{
	return compat_cloexec_from(3);
}
