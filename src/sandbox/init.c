/* init.c - vx-sandbox-init, the first program inside a sandboxed task's
 * walls (issue 20): what the wrapper shell script and setsid(1) did, in one
 * small static process (a shell's start and setsid's exec cost ~1.9 ms a
 * task, bench/sandbox).
 *
 *   vx-sandbox-init SHELL COMMAND        (fd 3: signal names from vx)
 *   vx-sandbox-init --traced PROGRAM ARGS...
 *   vx-sandbox-init --reaper             (stdin: vx's task groups; below)
 *
 * The second form runs under strace, inside the walls, and puts PROGRAM
 * (the first form, or netd before it) in a pid namespace of its own, out
 * of the tracer's reach (traced(), below).
 *
 * A watcher is forked (from a child that exits at once, so it is pid 1's
 * orphan, not the command's child: strace -f would otherwise wait
 * for it) that relays each signal name read from fd 3 to the task's process
 * group, ignoring those signals itself, and SIGKILLs the group when fd 3
 * closes (vx is gone). Then this process closes fd 3, becomes a session of
 * its own and execs SHELL -c COMMAND vx-task in place of itself: the
 * command keeps this pid (bwrap's exit status is the command's), and its
 * signal dispositions are the ones bwrap gave it, so its own `trap ... INT`
 * works. A signal relayed before setsid reaches the pid itself.
 *
 * Built by CMake as its own static binary (libc only, no sanitizer), never
 * part of vxcore; sandbox/bwrap.c runs it when vx found it beside itself,
 * else the same steps as a shell script. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <linux/capability.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#endif
#include <unistd.h>

#include "sandbox/shellwords.h"

#define SIGNAL_FD 3

static const struct {
	const char *name;
	int sig;
} signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},	  {"QUIT", SIGQUIT},   {"TERM", SIGTERM}, {"USR1", SIGUSR1},
    {"USR2", SIGUSR2}, {"KILL", SIGKILL}, {"CONT", SIGCONT},   {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
    {"ALRM", SIGALRM}, {"PIPE", SIGPIPE}, {"WINCH", SIGWINCH},
};

static const int ignored[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

/* The group, or the pid before it leads one. */
static void relay(pid_t task, int sig)
{
	if (kill(-task, sig) < 0)
		kill(task, sig);
}

/* One signal name a line, as vx writes them to fd 3. */
struct names {
	char line[64];
	size_t len;
};

static void names_feed(struct names *nm, const char *buf, size_t n, pid_t task)
{
	for (size_t k = 0; k < n; k++) {
		if (buf[k] != '\n') {
			if (nm->len < sizeof nm->line - 1)
				nm->line[nm->len++] = buf[k];
			continue;
		}
		nm->line[nm->len] = '\0';
		nm->len = 0;
		for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
			if (!strcmp(nm->line, signals[i].name))
				relay(task, signals[i].sig);
	}
}

static void watch(pid_t task)
{
	for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
		signal(ignored[i], SIG_IGN);
	struct names nm = {.len = 0};
	for (;;) {
		char buf[64];
		ssize_t n = read(SIGNAL_FD, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		names_feed(&nm, buf, (size_t)n, task);
	}
	relay(task, SIGKILL);
}

/* The command in a session of its own, in place of this process: it keeps
 * this pid, and fd 3 is the watcher's alone. A command the shell would
 * only split is its program's exec, with the environment the shell would
 * have given it (sandbox/shellwords.h); when that exec fails the shell
 * runs it, and says why as it would have. */
static int run_session(char **argv)
{
	close(SIGNAL_FD);
	setsid();
	char **words = shellwords(argv[1]);
	char *program = words ? shellwords_path(words[0]) : NULL;
	if (program) {
		shellwords_env();
		shellwords_pwd();
		execv(program, words);
	}
	char *const args[] = {argv[0], "-c", argv[1], "vx-task", NULL};
	execv(argv[0], args);
	fprintf(stderr, "vx-sandbox-init: cannot run %s: %s\n", argv[0], strerror(errno));
	return 127;
}

#ifdef __linux__
/* The exit status a shell would give for st. */
static int status_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int fail(const char *what)
{
	fprintf(stderr, "vx-sandbox-init: %s: %s\n", what, strerror(errno));
	return 127;
}

/* Every capability gone, for good: the bounding set (what an exec could
 * give back), the ambient set, then the process's own sets, and
 * no_new_privs (bwrap set it already; it cannot be unset). */
static int drop_caps(void)
{
	for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1 &&
		    prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct none[2];
	memset(none, 0, sizeof none);
	if (syscall(SYS_capset, &head, none) < 0)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* pid 1 of the task's namespace, after its /proc is mounted: the task's
 * watcher (a separate process in the untraced form) and the reaper of
 * every orphan, until the task ends: its status is this process's. The
 * poll's signalfd takes SIGCHLD, blocked once the task is forked (an exit
 * before that leaves a zombie the first reap finds). */
static int watch_and_reap(pid_t task)
{
	/* vx's pipes are the task's: this process must not keep them open */
	for (int fd = 0; fd < 3; fd++)
		close(fd);
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	int sfd = -1;
	if (sigprocmask(SIG_BLOCK, &chld, NULL) == 0)
		sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		relay(task, SIGKILL); /* unwatched, it could not be stopped */
		return 127;
	}
	struct names nm = {.len = 0};
	/* vx always passes fd 3; a caller that does not (the probe) asks
	 * for no relay, and nothing is watched */
	int sig_fd = fcntl(SIGNAL_FD, F_GETFD) < 0 ? -1 : SIGNAL_FD;
	for (;;) {
		int st;
		pid_t pid;
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			if (pid == task)
				return status_code(st);
		struct pollfd fds[2] = {{sfd, POLLIN, 0}, {sig_fd, POLLIN, 0}};
		if (poll(fds, sig_fd >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			return 127;
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof si) > 0)
			;
		if (sig_fd >= 0 && fds[1].revents) {
			char buf[64];
			ssize_t n = read(sig_fd, buf, sizeof buf);
			if (n > 0) {
				names_feed(&nm, buf, (size_t)n, task);
			} else if (n == 0 || errno != EINTR) {
				/* vx is gone */
				relay(task, SIGKILL);
				close(sig_fd);
				sig_fd = -1;
			}
		}
	}
}

/* A traced process's forked child is stopped by strace at each of its
 * system calls, entry and exit, until the first one the filter traces:
 * strace cannot tell before that the child carries its seccomp filter (it
 * learns so at the child's first seccomp stop). This traced no-op, the
 * child's first call, makes the calls after it free: the task's
 * drop_caps alone is ~85 calls, and they cost 2.5-4.6 ms a task
 * (bench/fixed). Untraced, it is one refused set_robust_list. */
static void first_traced_call(void)
{
	/* a zero length is refused (EINVAL) before anything is set */
	(void)syscall(SYS_set_robust_list, NULL, 0);
}

/* pid 1 of the task's namespace: its /proc, then the task (the command
 * in its session, or with --exec a PROGRAM that ends in the untraced form:
 * netd), then the watch. */
static int task_namespace_init(char **argv, bool exec)
{
	first_traced_call();
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return fail("cannot mount the task's /proc");
	/* covered read-only as bwrap covers its own /proc: sysrq-trigger and
	 * the sysctls a root task could otherwise write */
	static const char *const covered[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
					      "/proc/bus"};
	for (size_t i = 0; i < sizeof covered / sizeof *covered; i++) {
		if (mount(covered[i], covered[i], NULL, MS_BIND | MS_REC, NULL) < 0) {
			if (errno == ENOENT)
				continue;
			return fail("cannot cover the task's /proc");
		}
		if (mount(NULL, covered[i], NULL,
			  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  NULL) < 0)
			return fail("cannot cover the task's /proc");
	}
	pid_t task = fork();
	if (task < 0)
		return fail("fork");
	if (task == 0) {
		first_traced_call();
		if (drop_caps() < 0)
			_exit(fail("cannot drop the task's capabilities"));
		if (!exec)
			_exit(run_session(argv));
		execv(argv[0], argv);
		_exit(fail(argv[0]));
	}
	/* not dumpable either: the task, of the same user, cannot write its
	 * memory through /proc/1/mem */
	if (drop_caps() < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		relay(task, SIGKILL);
		return fail("cannot drop capabilities");
	}
	return watch_and_reap(task);
}

/* The traced form (issue 43): vx-sandbox-init --traced SHELL COMMAND, or
 * --traced --exec PROGRAM ARGS... strace runs inside the walls, bwrap's
 * own setup untraced (262 of the 280 lines a traced `true` logged were
 * bwrap's, each a ptrace stop), and runs this: the task goes into a pid
 * namespace of its own, a child of the tracer's, with a /proc of that
 * namespace, so it can neither see, signal, ptrace nor reach through
 * /proc/PID/fd the tracer or its log. The fds from 4 up (the log strace
 * opened through /proc/self/fd/4) are closed first. bwrap gave this
 * process CAP_SYS_ADMIN and CAP_SETPCAP in the sandbox's user namespace
 * for the namespace and its mounts; every process it starts drops them,
 * and the task never holds one. Fails closed: no namespace, no task. */
static int traced(char **argv)
{
	bool exec = !strcmp(argv[0], "--exec");
	if (exec ? !argv[1] : !argv[1] || argv[2]) {
		fputs("usage: vx-sandbox-init --traced SHELL COMMAND | --traced --exec PROGRAM "
		      "ARGS...\n",
		      stderr);
		return 127;
	}
	if (close_range(4, ~0U, 0) < 0) {
		if (errno != ENOSYS) /* before Linux 5.9: one by one */
			return fail("cannot close the tracer's descriptors");
		for (long fd = 4, n = sysconf(_SC_OPEN_MAX); fd < n; fd++)
			close((int)fd);
	}
	if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
		return fail("cannot make the task's pid namespace");
	pid_t init = fork();
	if (init < 0)
		return fail("fork");
	if (init == 0)
		_exit(task_namespace_init(argv + exec, exec));
	if (drop_caps() < 0)
		return fail("cannot drop capabilities");
	int st;
	while (waitpid(init, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return status_code(st);
}
#endif

/* The reaper's form (issue 39: after a kill -9 of vx its unsandboxed tasks
 * ran on, 2-6 processes each, and wrote dist/ after the next run hit):
 * one per run, in a group of its own, its stdin a pipe only vx holds the
 * other end of. vx writes "+PGID\n" when a task's group starts and
 * "-PGID\n" when its leader is reaped; when the pipe closes (vx ended,
 * or died by any signal: the kernel closes it), every group still listed
 * gets SIGKILL. One process per run, not per task: an exec costs ~2.5 ms
 * of CPU on a paravirtualized machine, and a task runs at least one. */
static int reaper(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
			signal(sig, SIG_IGN); /* vx's end of the pipe decides, nothing else */
	pid_t *groups = NULL;
	size_t n = 0, cap = 0;
	char line[32];
	size_t len = 0;
	for (;;) {
		char buf[512];
		ssize_t k = read(0, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (ssize_t i = 0; i < k; i++) {
			if (buf[i] != '\n') {
				if (len < sizeof line - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			long pg = strtol(line + 1, NULL, 10);
			if (pg <= 1)
				continue;
			if (line[0] == '+') {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					pid_t *grown = realloc(groups, cap * sizeof *groups);
					if (!grown)
						break;
					groups = grown;
				}
				groups[n++] = (pid_t)pg;
			} else if (line[0] == '-') {
				for (size_t g = 0; g < n; g++)
					if (groups[g] == (pid_t)pg) {
						groups[g] = groups[--n];
						break;
					}
			}
		}
	}
	for (size_t g = 0; g < n; g++)
		kill(-groups[g], SIGKILL);
	free(groups);
	return 0;
}

int main(int argc, char **argv)
{
#ifdef __linux__
	if (argc >= 3 && !strcmp(argv[1], "--traced"))
		return traced(argv + 2);
#endif
	if (argc == 2 && !strcmp(argv[1], "--reaper"))
		return reaper();
	if (argc != 3) {
		fputs("usage: vx-sandbox-init SHELL COMMAND (run by vx inside a sandbox)\n",
		      stderr);
		return 127;
	}
	pid_t task = getpid();
	pid_t child = fork();
	if (child < 0) {
		perror("vx-sandbox-init: fork");
		return 127;
	}
	if (child == 0) {
		pid_t w = fork();
		if (w == 0) {
			/* stdout and stderr are vx's pipes: a watcher holding
			 * them would keep the task's output open */
			int null = open("/dev/null", O_RDWR);
			for (int fd = 0; null >= 0 && fd < 3; fd++)
				dup2(null, fd);
			if (null > 2)
				close(null);
			watch(task);
			_exit(0);
		}
		_exit(w < 0 ? 1 : 0);
	}
	int st = 0;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		/* no watcher: vx's signals would not reach the task */
		fputs("vx-sandbox-init: cannot start the signal watcher\n", stderr);
		return 127;
	}
	return run_session(argv + 1);
}
