/* Unit tests for sandbox/seccomp.c: the filter installed in a child
 * process (no sandbox needed). io_uring, openat2 and fchmodat2 fail with
 * ENOSYS (in the x32 numbering too), the kernel keyring with ENOSYS, a
 * set-user-ID or set-group-ID mode with EPERM on every call that sets one,
 * a filter with a listener with EPERM; everything else still works (the
 * same calls without those bits); the fd holds exactly the program. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "sandbox/seccomp.h"

#define NCALLS 31

static const char *const names[NCALLS] = {
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "io_uring_setup x32",
    "openat2",
    "keyctl",
    "add_key",
    "request_key",
    "chmod 4755",
    "fchmod 2755",
    "fchmodat 6755",
    "open O_CREAT 4755",
    "openat O_CREAT 2755",
    "creat 4755",
    "mknod S_IFREG|4755",
    "seccomp NEW_LISTENER",
    "chmod 0755",
    "fchmod 0644",
    "open O_CREAT 0644",
    "openat 0 with setid bits, no create",
    "mknod S_IFREG|0644",
    "getpid",
    "open /dev/null",
    "seccomp GET_ACTION_AVAIL",
    "clone CLONE_UNTRACED",
    "clone3",
    "fork",
    "pthread_create",
    "unshare CLONE_NEWUSER",
    "clone CLONE_NEWUSER",
    "unshare CLONE_NEWUTS",
};

static void *thread_main(void *arg)
{
	return arg;
}

/* In a child: installs the filter and reports each call's errno (0 when it
 * worked) through a pipe, in the order of names. */
static void run_child(int out, const char *dir)
{
	size_t n;
	const struct sock_filter *f = seccomp_program(&n);
	struct sock_fprog prog = {(unsigned short)n, (struct sock_filter *)f};
	int res[NCALLS] = {0};
	char a[4096], b[4096];
	snprintf(a, sizeof a, "%s/a", dir);
	int fd = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(3);
	int k = 0;
#define SAY(expr)                                                                                  \
	do {                                                                                       \
		errno = 0;                                                                         \
		long r_ = (long)(expr);                                                            \
		res[k++] = r_ < 0 ? errno : 0;                                                     \
	} while (0)
	SAY(syscall(425, 0, 0, 0, 0, 0, 0));
	SAY(syscall(426, 0, 0, 0, 0, 0, 0));
	SAY(syscall(427, 0, 0, 0, 0, 0, 0));
	SAY(syscall(425 | 0x40000000L, 0, 0, 0, 0, 0, 0));
	SAY(syscall(437, AT_FDCWD, a, NULL, 0));
	SAY(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* @s */, 0));
	SAY(syscall(SYS_add_key, "user", "vx", "x", 1, -3));
	SAY(syscall(SYS_request_key, "user", "vx", NULL, 0));
	SAY(chmod(a, 04755));
	SAY(fchmod(fd, 02755));
	SAY(fchmodat(AT_FDCWD, a, 06755, 0));
	snprintf(b, sizeof b, "%s/b", dir);
	SAY(syscall(SYS_open, b, O_WRONLY | O_CREAT, 04755));
	SAY(syscall(SYS_openat, AT_FDCWD, b, O_WRONLY | O_CREAT, 02755));
	SAY(syscall(SYS_creat, b, 04755));
	SAY(mknod(b, S_IFREG | 04755, 0));
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog one = {1, &allow};
	SAY(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &one));
	SAY(chmod(a, 0755));
	SAY(fchmod(fd, 0644));
	int c = (int)syscall(SYS_open, b, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	res[k++] = c < 0 ? errno : 0;
	if (c >= 0)
		close(c);
	SAY(syscall(SYS_openat, AT_FDCWD, a, O_RDONLY | O_CLOEXEC, 06777));
	snprintf(b, sizeof b, "%s/c", dir);
	SAY(mknod(b, S_IFREG | 0644, 0));
	SAY(getpid());
	SAY(open("/dev/null", O_RDONLY | O_CLOEXEC));
	unsigned action = SECCOMP_RET_ALLOW;
	SAY(syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action));
	long pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	res[k++] = pid < 0 ? errno : 0;
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	SAY(syscall(SYS_clone3, NULL, 0));
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	res[k++] = child < 0 ? errno : 0;
	if (child > 0)
		waitpid(child, NULL, 0);
	pthread_t th;
	res[k++] = pthread_create(&th, NULL, thread_main, NULL);
	if (!res[k - 1])
		pthread_join(th, NULL);
	/* a user namespace of the task's own (a review, session 30): every
	 * capability in it, and a bind over a keyed path that strace -y then
	 * names for another file's bytes; refused whether it could be made
	 * here or not (EPERM is the filter's; this process may lack the
	 * right, which is EPERM too, so the third call, which the filter
	 * lets through, shows the filter is what answered the first two:
	 * it must fail otherwise, or succeed) */
	long upid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (upid == 0)
		_exit(0);
	int cloned = upid < 0 ? errno : 0;
	if (upid > 0)
		waitpid((pid_t)upid, NULL, 0);
	SAY(syscall(SYS_unshare, CLONE_NEWUSER));
	res[k++] = cloned;
	res[k++] = syscall(SYS_unshare, CLONE_NEWUTS) < 0 && errno == EPERM ? EPERM : 0;
#undef SAY
	if (write(out, res, sizeof res) != (ssize_t)sizeof res)
		_exit(4);
	_exit(0);
}

int main(void)
{
	char dir[] = "/tmp/vx-seccomp-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int p[2];
	CHECK(pipe(p) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		run_child(p[1], dir);
	}
	close(p[1]);
	int res[NCALLS];
	CHECK(read(p[0], res, sizeof res) == (ssize_t)sizeof res);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	int want[NCALLS] = {ENOSYS, ENOSYS, ENOSYS, ENOSYS, ENOSYS, ENOSYS, ENOSYS, ENOSYS,
			    EPERM,  EPERM,  EPERM,  EPERM,  EPERM,  EPERM,  EPERM,  EPERM,
			    0,	    0,	    0,	    0,	    0,	    0,	    0,	    0,
			    EPERM,  ENOSYS, 0,	    0,	    EPERM,  EPERM,  -1};
	/* unshare CLONE_NEWUTS: the filter's no-op; what it says is this
	 * process's right (root: allowed; else EPERM), not the filter's */
	want[NCALLS - 1] = geteuid() == 0 ? 0 : EPERM;
	for (int i = 0; i < NCALLS; i++) {
		if (res[i] != want[i])
			fprintf(stderr, "%s: got %s, want %s\n", names[i], strerror(res[i]),
				strerror(want[i]));
		CHECK_INT(res[i], want[i]);
	}
	/* nothing set-ID was made: the refused calls changed nothing */
	char a[4096];
	struct stat sa;
	snprintf(a, sizeof a, "%s/a", dir);
	CHECK(stat(a, &sa) == 0 && !(sa.st_mode & 06000));
	snprintf(a, sizeof a, "%s/b", dir);
	CHECK(stat(a, &sa) == 0 && !(sa.st_mode & 06000));

	size_t n;
	const struct sock_filter *f = seccomp_program(&n);
	CHECK(n > 10 && n < 256); /* each arch's jumps to its returns are within 255 */
	int fd = seccomp_program_fd();
	CHECK(fd > 2);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	struct sock_filter back[256];
	CHECK(read(fd, back, sizeof back) == (ssize_t)(n * sizeof *f));
	CHECK(memcmp(back, f, n * sizeof *f) == 0);
	close(fd);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return check_finish("seccomp");
}
