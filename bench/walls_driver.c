/* bench/walls: runs argv variants one invocation each in turn, ROUNDS
 * times, so every variant shares the machine's noise, and prints each
 * one's median and its cost against the first (the paired difference,
 * round by round). Not built by CMake; bench/walls builds it against
 * libvxcore.a (for vx's own seccomp filter).
 *
 *   walls_driver ROUNDS LOG FILE...
 *
 * A FILE is a variant: its first line its name, then lines "@N:PATH"
 * (PATH opened O_PATH as fd N, as vx opens a bind's source), "@N<PATH"
 * (opened to read, a --ro-bind-data), "@N=seccomp" (vx's filter, a fresh
 * memory file each run, as vx makes it a task), then one argument a line.
 * fd 3 is the read end of a pipe held open (vx's signal pipe) and fd 4 the
 * log LOG, truncated each run (the tracer's). */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/seccomp.h"

extern char **environ;

enum { MAX_ARGS = 512, MAX_FDS = 32 };

struct fdspec {
	int to;
	char how; /* ':' O_PATH, '<' read, '=' seccomp */
	char *path;
};

struct variant {
	char *name;
	char *argv[MAX_ARGS];
	struct fdspec fds[MAX_FDS];
	int nfds;
	double *t;   /* wall, ms */
	double *cpu; /* user + system of the whole tree, ms */
	bool failed;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void load(struct variant *v, const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "walls_driver: %s: %s\n", file, strerror(errno));
		exit(1);
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int na = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!v->name) {
			v->name = strdup(line);
		} else if (line[0] == '@' && v->nfds < MAX_FDS) {
			char *end;
			struct fdspec *s = &v->fds[v->nfds++];
			s->to = (int)strtol(line + 1, &end, 10);
			s->how = *end;
			s->path = strdup(end + 1);
		} else if (na < MAX_ARGS - 1) {
			v->argv[na++] = strdup(line);
		}
	}
	free(line);
	fclose(f);
	v->argv[na] = NULL;
}

static int open_high(int fd)
{
	if (fd < 0)
		return -1;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	close(fd);
	return hi;
}

/* One run: its wall time in ms, or -1 when it failed; *cpu its tree's
 * CPU time (bwrap's pid 1 reaps every process of the sandbox, so wait4's
 * usage holds them all). */
static double run(struct variant *v, int sig_rd, const char *log, int errfd, double *cpu)
{
	double t0 = now();
	int opened[MAX_FDS];
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	int logfd = open_high(open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
	posix_spawn_file_actions_adddup2(&fa, sig_rd, 3);
	posix_spawn_file_actions_adddup2(&fa, logfd, 4);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	for (int i = 0; i < v->nfds; i++) {
		struct fdspec *s = &v->fds[i];
		int fd = s->how == '='	 ? seccomp_program_fd()
			 : s->how == ':' ? open(s->path, O_PATH | O_NOFOLLOW | O_CLOEXEC)
					 : open(s->path, O_RDONLY | O_CLOEXEC);
		opened[i] = open_high(fd);
		if (opened[i] < 0) {
			fprintf(stderr, "walls_driver: %s: fd %d: %s\n", v->name, s->to,
				strerror(errno));
			exit(1);
		}
		posix_spawn_file_actions_adddup2(&fa, opened[i], s->to);
	}
	pid_t pid;
	int rc = posix_spawn(&pid, v->argv[0], &fa, NULL, v->argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < v->nfds; i++)
		close(opened[i]);
	close(logfd);
	if (rc)
		return -1;
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	double t = now() - t0;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *a, int n)
{
	qsort(a, (size_t)n, sizeof *a, cmp);
	return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fputs("usage: walls_driver ROUNDS LOG FILE...\n", stderr);
		return 2;
	}
	int rounds = atoi(argv[1]);
	const char *log = argv[2];
	int nv = argc - 3;
	struct variant *v = calloc((size_t)nv, sizeof *v);
	for (int i = 0; i < nv; i++) {
		load(&v[i], argv[3 + i]);
		v[i].t = calloc((size_t)rounds, sizeof(double));
		v[i].cpu = calloc((size_t)rounds, sizeof(double));
	}
	int sig[2];
	if (pipe2(sig, O_CLOEXEC) < 0)
		return 1;
	char errlog[4096];
	snprintf(errlog, sizeof errlog, "%s.err", log);
	int errfd = open_high(open(errlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < nv; i++) {
			if (v[i].failed)
				continue;
			double t = run(&v[i], sig[0], log, errfd, &v[i].cpu[r]);
			if (t < 0) {
				v[i].failed = true;
				fprintf(stderr, "walls_driver: %s failed (its stderr: %s)\n",
					v[i].name, errlog);
			}
			v[i].t[r] = t;
		}
	double *d = calloc((size_t)rounds, sizeof(double));
	printf("%-44s %8s %8s %8s %8s %8s\n", "variant (ms)", "wall", "min", "cost", "cpu",
	       "cpu cost");
	for (int i = 0; i < nv; i++) {
		if (v[i].failed) {
			printf("%-44s %8s\n", v[i].name, "failed");
			continue;
		}
		/* the cost of the part a variant leaves out: the full argv's
		 * time minus the variant's, in the same round */
		for (int r = 0; r < rounds; r++)
			d[r] = v[0].t[r] - v[i].t[r];
		double cost = median(d, rounds);
		for (int r = 0; r < rounds; r++)
			d[r] = v[0].cpu[r] - v[i].cpu[r];
		double cpucost = median(d, rounds);
		double mn = v[i].t[0];
		for (int r = 1; r < rounds; r++)
			mn = v[i].t[r] < mn ? v[i].t[r] : mn;
		double med = median(v[i].t, rounds);
		double cpu = median(v[i].cpu, rounds);
		printf("%-44.44s %8.2f %8.2f %8.2f %8.2f %8.2f\n", v[i].name, med, mn, cost, cpu,
		       cpucost);
	}
	free(d);
	return 0;
}
