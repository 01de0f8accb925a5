/* init.c - vx-sandbox-init, the first program inside a sandboxed task's
 * walls (issue 20): what the wrapper shell script and setsid(1) did, in one
 * small static process (a shell's start and setsid's exec cost ~1.9 ms a
 * task, bench/sandbox).
 *
 *   vx-sandbox-init SHELL COMMAND        (fd 3: signal names from vx)
 *   vx-sandbox-init --die-with-parent PROGRAM ARGS...
 *   vx-sandbox-init --reaper             (stdin: vx's task groups; below)
 *
 * The second form, outside the walls, runs the tracer: it asks the kernel
 * for SIGKILL when its parent (vx) dies, then execs PROGRAM (strace), so a
 * kill -9 of vx takes strace, which bwrap's --die-with-parent follows.
 *
 * A watcher is forked (from a child that exits at once, so it is bwrap's
 * pid 1's orphan, not the command's child: strace -f would otherwise wait
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

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

static void watch(pid_t task)
{
	for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
		signal(ignored[i], SIG_IGN);
	char line[64];
	size_t len = 0;
	for (;;) {
		char c;
		ssize_t n = read(SIGNAL_FD, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (c != '\n') {
			if (len < sizeof line - 1)
				line[len++] = c;
			continue;
		}
		line[len] = '\0';
		len = 0;
		for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
			if (!strcmp(line, signals[i].name))
				relay(task, signals[i].sig);
	}
	relay(task, SIGKILL);
}

/* The tracer's form: a parent-death SIGKILL, then PROGRAM in place. */
static int die_with_parent(char **argv)
{
#ifdef __linux__
	pid_t parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		perror("vx-sandbox-init: prctl(PR_SET_PDEATHSIG)");
		return 127;
	}
	if (getppid() != parent)
		return 127; /* vx died before the request took */
#endif
	execv(argv[0], argv);
	fprintf(stderr, "vx-sandbox-init: cannot run %s: %s\n", argv[0], strerror(errno));
	return 127;
}

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
	if (argc >= 3 && !strcmp(argv[1], "--die-with-parent"))
		return die_with_parent(argv + 2);
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
	close(SIGNAL_FD);
	setsid();
	char *const args[] = {argv[1], "-c", argv[2], "vx-task", NULL};
	execv(argv[1], args);
	fprintf(stderr, "vx-sandbox-init: cannot run %s: %s\n", argv[1], strerror(errno));
	return 127;
}
