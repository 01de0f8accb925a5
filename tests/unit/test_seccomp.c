/* Unit tests for sandbox/seccomp.c: the filter installed in a child
 * process (no sandbox needed): the io_uring calls fail with ENOSYS, in the
 * x32 numbering too, and everything else still works; the fd holds exactly
 * the program. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "sandbox/seccomp.h"

/* In a child: installs the filter and reports each call's errno through a
 * pipe: io_uring_setup, enter, register, x32 setup, then getpid and open. */
static void run_child(int out)
{
	size_t n;
	const struct sock_filter *f = seccomp_program(&n);
	struct sock_fprog prog = {(unsigned short)n, (struct sock_filter *)f};
	int res[6] = {0};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(3);
	long nrs[] = {425, 426, 427, 425 | 0x40000000L};
	for (int i = 0; i < 4; i++) {
		errno = 0;
		long r = syscall(nrs[i], 0, 0, 0, 0, 0, 0);
		res[i] = r < 0 ? errno : 0;
	}
	res[4] = getpid() > 0 ? 0 : -1;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	res[5] = fd >= 0 ? 0 : errno;
	if (write(out, res, sizeof res) != (ssize_t)sizeof res)
		_exit(4);
	_exit(0);
}

int main(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		run_child(p[1]);
	}
	close(p[1]);
	int res[6];
	CHECK(read(p[0], res, sizeof res) == (ssize_t)sizeof res);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (int i = 0; i < 4; i++)
		CHECK_INT(res[i], ENOSYS);
	CHECK_INT(res[4], 0);
	CHECK_INT(res[5], 0);

	size_t n;
	const struct sock_filter *f = seccomp_program(&n);
	int fd = seccomp_program_fd();
	CHECK(fd > 2);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	struct sock_filter back[64];
	CHECK(read(fd, back, sizeof back) == (ssize_t)(n * sizeof *f));
	CHECK(memcmp(back, f, n * sizeof *f) == 0);
	close(fd);
	return check_finish("seccomp");
}
