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
 * for SIGKILL when its parent (vx) dies, then starts PROGRAM (strace) as
 * the init of a pid namespace of its own, and waits for it, so a kill -9
 * of vx takes strace, which bwrap's --die-with-parent follows.
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
#include <sched.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

#ifdef __linux__
static bool write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t len = strlen(text);
	bool ok = write(fd, text, len) == (ssize_t)len;
	return close(fd) == 0 && ok;
}

/* PROGRAM started as the init of a new pid namespace with a /proc of its
 * own (a mount namespace too; a user namespace mapping only this user's
 * ids when not root, as bwrap makes for itself). Returns its pid once it
 * exec'd, or 0 when the namespace cannot be made: nothing was started. */
static pid_t tracer_namespace(char **argv)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	unsigned long flags = CLONE_NEWPID | CLONE_NEWNS | SIGCHLD;
	if (uid != 0)
		flags |= CLONE_NEWUSER;
	int go[2], told[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return 0;
	if (pipe2(told, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return 0;
	}
	/* the raw call: a fork into the new namespaces, its child pid 1 */
	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		close(go[1]);
		close(told[0]);
		char c = 0;
		/* "g" once the maps are written; EOF if this process's
		 * parent died before the death signal was asked for */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || read(go[0], &c, 1) != 1 || c != 'g')
			_exit(127);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
			execv(argv[0], argv);
		/* the parent runs PROGRAM itself, or says why it cannot */
		ssize_t w = write(told[1], "x", 1);
		_exit(w == 1 ? 127 : 126);
	}
	close(go[0]);
	close(told[1]);
	if (pid < 0) {
		close(go[1]);
		close(told[0]);
		return 0;
	}
	bool mapped = true;
	if (uid != 0) {
		char path[64], map[64];
		snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
		write_text(path, "deny"); /* absent before Linux 3.19 */
		snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		mapped = write_text(path, map);
		snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		mapped = mapped && write_text(path, map);
	}
	ssize_t n = write(go[1], mapped ? "g" : "n", 1);
	close(go[1]);
	char c;
	ssize_t said = 1;
	if (n == 1)
		while ((said = read(told[0], &c, 1)) < 0 && errno == EINTR)
			;
	close(told[0]);
	if (n == 1 && mapped && said == 0)
		return pid; /* the exec closed the pipe unwritten */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* This process's exit is the tracer's: vx reads strace's status (the
 * task's) from it. The signals strace's -I3 blocks are ignored here, as
 * they were in strace in this process's place: a group signal meant for
 * the tracer must not end it from under the trace. */
static int wait_relay(pid_t tracer)
{
	static const int fatal[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM};
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		signal(fatal[i], SIG_IGN);
	int st = 0;
	while (waitpid(tracer, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	int sig = WTERMSIG(st);
	signal(sig, SIG_DFL);
	kill(getpid(), sig);
	return 128 + sig;
}
#endif

/* The tracer's form. A parent-death SIGKILL first, so a kill -9 of vx
 * takes the tracer. Then PROGRAM (strace) runs as the init of a pid
 * namespace of its own, with that namespace's /proc: strace's
 * --decode-pids=pidns translates each clone's pid by reading /proc, and
 * the host's holds every process of the machine (issue 43: ~7.5 ms per
 * process a task started with 72 processes here, 1 ms with the namespace's
 * handful). No wall moves: the tracer stays outside the task's walls, the
 * task's pid namespace is a child of this one and sees none of it, and the
 * tracer's death takes every process in it, by the kernel. When the
 * namespace cannot be made (no user namespaces for a non-root user, a
 * /proc that will not mount), PROGRAM runs here as before: slower, the
 * same walls. */
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
	pid_t tracer = tracer_namespace(argv);
	if (tracer > 0)
		return wait_relay(tracer);
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
