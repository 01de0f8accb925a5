/* seatbelt_reader.c - the macOS-only reader of Seatbelt's denials in the
 * unified log, and the probe of it. Kept thin and reviewed by reading (no
 * Mac builds vx's CI; tests/posix/check.sh compiles it with __APPLE__
 * defined): it moves bytes; seatbelt_log.c parses them, tested anywhere. */
#ifdef __APPLE__
#include "violations/seatbelt_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/seatbelt_darwin.h"

extern char **environ;

static char LOG_PREDICATE[] =
    "subsystem == \"com.apple.sandbox.reporting\" AND category == \"violation\"";

int seatbelt_log_start(struct seatbelt_log *l)
{
	int fds[2];
	if (pipe(fds) < 0)
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	char *argv[] = {"/usr/bin/log", "stream",      "--style", "ndjson",
			"--predicate",	LOG_PREDICATE, NULL};
	int rc = posix_spawn(&l->pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		errno = rc;
		return -1;
	}
	l->fd = fds[0];
	fcntl(l->fd, F_SETFD, FD_CLOEXEC);
	fcntl(l->fd, F_SETFL, O_NONBLOCK);
	strbuf_init(&l->pending);
	return 0;
}

size_t seatbelt_log_read(struct seatbelt_log *l, int wait_ms, seatbelt_record_vec *out)
{
	struct pollfd p = {.fd = l->fd, .events = POLLIN};
	char buf[8192];
	while (poll(&p, 1, wait_ms) > 0) {
		ssize_t n = read(l->fd, buf, sizeof buf);
		if (n <= 0)
			break;
		strbuf_add(&l->pending, buf, (size_t)n);
		wait_ms = 0;
	}
	size_t added = 0, used = 0;
	for (char *nl; (nl = memchr(l->pending.buf + used, '\n', l->pending.len - used));) {
		struct seatbelt_record r;
		const char *line = l->pending.buf + used;
		if (seatbelt_log_line(line, (size_t)(nl - line), &r) == 1) {
			vec_push(out, r);
			added++;
		}
		used = (size_t)(nl - l->pending.buf) + 1;
	}
	memmove(l->pending.buf, l->pending.buf + used, l->pending.len - used);
	strbuf_setlen(&l->pending, l->pending.len - used);
	return added;
}

void seatbelt_log_stop(struct seatbelt_log *l)
{
	kill(l->pid, SIGTERM);
	waitpid(l->pid, NULL, 0);
	close(l->fd);
	strbuf_release(&l->pending);
}

int seatbelt_probe(struct strbuf *why)
{
	static const char profile[] = "(version 1)(allow default)"
				      "(deny file-read-data (literal \"/private/etc/hosts\"))";
	struct seatbelt_log l;
	if (seatbelt_log_start(&l) < 0) {
		strbuf_addf(why, "cannot start log stream: %s", strerror(errno));
		return -1;
	}
	poll(NULL, 0, 500); /* the stream is listening before the probe runs */
	pid_t pid;
	int status = 0;
	char *const env[] = {"PATH=/usr/bin:/bin", NULL};
	if (seatbelt_spawn(profile, "/bin/sh", "exec /bin/cat /etc/hosts >/dev/null 2>&1", "/", env,
			   &pid) < 0 ||
	    waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 0) {
		strbuf_addstr(why, "sandbox-exec did not refuse the probe's read: no sandbox");
		seatbelt_log_stop(&l);
		return -1;
	}
	seatbelt_record_vec recs = {0};
	for (int waited = 0; waited < 3000 && !recs.n; waited += 500)
		seatbelt_log_read(&l, 500, &recs);
	int heard = 0;
	for (size_t i = 0; i < recs.n; i++) {
		heard |= recs.v[i].deny && strstr(recs.v[i].target, "/etc/hosts") != NULL;
		seatbelt_record_release(&recs.v[i]);
	}
	vec_free(&recs);
	seatbelt_log_stop(&l);
	strbuf_addstr(why, heard ? "the log reader heard the probe's deliberate denial"
				 : "the log reader heard nothing of the probe's deliberate denial: "
				   "a failed task's report may miss what macOS refused (its note "
				   "says so)");
	return heard;
}
#endif
