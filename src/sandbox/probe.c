/* probe.c - availability of bwrap and strace, each with its reason. */
#include "sandbox/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/bwrap.h"
#include "util/spawn.h"
#include "util/strbuf.h"

char *probe_which(const char *tool)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = xstrdup(path), *save = NULL;
	char *found = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/' || strstr(dir, "node_modules"))
			continue;
		char *cand = xasprintf("%s/%s", dir, tool);
		if (access(cand, X_OK) == 0)
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}

static char *first_line(const struct strbuf *sb)
{
	size_t n = strcspn(sb->buf, "\n");
	return n ? xstrndup(sb->buf, n) : NULL;
}

static char *read_sysctl(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return NULL;
	}
	char *v = first_line(&sb);
	strbuf_release(&sb);
	return v;
}

static void start(struct probe *p, const char *tool, const char *version_flag)
{
	memset(p, 0, sizeof *p);
	p->tool = tool;
	p->path = probe_which(tool);
	if (!p->path) {
		p->reason = xasprintf("%s is not installed (apt-get install %s)", tool,
				      !strcmp(tool, "bwrap") ? "bubblewrap" : tool);
		return;
	}
	struct strbuf out = STRBUF_INIT;
	char *argv[] = {p->path, (char *)version_flag, NULL};
	if (spawn_capture(argv, NULL, &out, &out) >= 0)
		p->version = first_line(&out);
	strbuf_release(&out);
}

/* The walls of a trial, as a task gets them (no capabilities, its own
 * namespaces, / read-only), up to the "--" before the program. */
static void trial_wall(const char *bwrap, struct strvec *argv)
{
	static const char *const wall[] = {"--unshare-all",
					   "--die-with-parent",
					   "--new-session",
					   "--cap-drop",
					   "ALL",
					   "--ro-bind",
					   "/",
					   "/",
					   "--dev",
					   "/dev",
					   "--proc",
					   "/proc",
					   "--",
					   NULL};
	strvec_push(argv, bwrap);
	for (const char *const *a = wall; *a; a++)
		strvec_push(argv, *a);
}

/* Runs argv (then cleared), its stderr in err without trailing newlines;
 * returns its exit status as spawn_capture does. */
static int trial_run(struct strvec *argv, struct strbuf *err)
{
	int rc = spawn_capture(argv->v, NULL, NULL, err);
	strvec_clear(argv);
	while (err->len && err->buf[err->len - 1] == '\n')
		strbuf_setlen(err, err->len - 1);
	return rc;
}

void probe_bwrap(struct probe *p)
{
	start(p, "bwrap", "--version");
	if (!p->path)
		return;
	struct strvec argv = STRVEC_INIT;
	trial_wall(p->path, &argv);
	strvec_push(&argv, "/bin/true");
	struct strbuf err = STRBUF_INIT;
	int rc = trial_run(&argv, &err);
	if (rc == 0) {
		p->works = true;
	} else {
		char *userns = read_sysctl("/proc/sys/kernel/unprivileged_userns_clone");
		char *maxns = read_sysctl("/proc/sys/user/max_user_namespaces");
		if (geteuid() != 0 && userns && !strcmp(userns, "0"))
			p->reason = xasprintf("unprivileged user namespaces are disabled "
					      "(sysctl -w kernel.unprivileged_userns_clone=1): %s",
					      err.buf);
		else if (maxns && !strcmp(maxns, "0"))
			p->reason = xasprintf("user namespaces are disabled "
					      "(sysctl -w user.max_user_namespaces=15000): %s",
					      err.buf);
		else
			p->reason = xasprintf(
			    "a trial sandbox failed (exit %d): %s%s", rc,
			    err.len ? err.buf : "(no message)",
			    geteuid() == 0 ? "; inside a container, its seccomp profile may forbid "
					     "namespaces (run it with --privileged or a profile "
					     "allowing unshare)"
					   : "");
		free(userns);
		free(maxns);
	}
	strbuf_release(&err);
}

void probe_strace(struct probe *p, const char *bwrap)
{
	start(p, "strace", "-V");
	if (!p->path)
		return;
	/* A task's tracer runs outside the walls, around bwrap, with the
	 * task's own flags: a kernel or strace without --seccomp-bpf fails only
	 * with that flag, and tracing bwrap (its namespaces, a user namespace
	 * when not root) is what must work. So the trial is a task's trace of
	 * `true`, walls and all. */
	struct strvec argv = STRVEC_INIT;
	for (const char *const *f = sandbox_trace_flags(); *f; f++)
		strvec_push(&argv, strcmp(*f, "STRACE") ? *f : p->path);
	strvec_push(&argv, "-o");
	strvec_push(&argv, "/dev/null");
	if (bwrap)
		trial_wall(bwrap, &argv);
	strvec_push(&argv, "/bin/true");
	struct strbuf err = STRBUF_INIT;
	int rc = trial_run(&argv, &err);
	/* strace's own warnings on a trace of `true` would land in every
	 * task's output and make it retry: a probe that prints is a failure. */
	if (rc == 0 && err.len == 0) {
		p->works = true;
	} else {
		char *yama = read_sysctl("/proc/sys/kernel/yama/ptrace_scope");
		if (yama && (!strcmp(yama, "2") || !strcmp(yama, "3")))
			p->reason = xasprintf(
			    "ptrace is restricted (kernel.yama.ptrace_scope=%s; 3 cannot be undone "
			    "without a reboot): %s",
			    yama, err.buf);
		else
			p->reason = xasprintf("a trial trace of `true`%s failed (exit %d): %s",
					      bwrap ? " inside the sandbox" : "", rc,
					      err.len ? err.buf : "(no message)");
		free(yama);
	}
	strbuf_release(&err);
}

void probe_free(struct probe *p)
{
	free(p->path);
	free(p->version);
	free(p->reason);
}
