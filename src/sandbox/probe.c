/* probe.c - availability of bwrap and strace, each with its reason. */
#include "sandbox/probe.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sandbox/bwrap.h"
#include "sandbox/initpath.h"
#include "util/io.h"
#include "util/path.h"
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

/* Does the os-release field key (ID, ID_LIKE) hold word, as one of its
 * space-separated, maybe quoted, words? */
static bool os_is(const char *text, const char *key, const char *word)
{
	size_t kl = strlen(key), wl = strlen(word);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		if (strncmp(line, key, kl) || line[kl] != '=')
			continue;
		const char *v = line + kl + 1, *end = v + strcspn(v, "\n");
		for (const char *w = v; w < end;) {
			w += strspn(w, "\"' ");
			size_t n = strcspn(w, "\"' \n");
			if (n == wl && !strncmp(w, word, n))
				return true;
			if (!n)
				break;
			w += n;
		}
	}
	return false;
}

char *probe_install_command(const char *os_release, const char *package)
{
	static const struct {
		const char *ids[4];
		const char *name, *command;
	} systems[] = {
	    {{"debian", "ubuntu", NULL}, "Debian/Ubuntu", "apt-get install"},
	    {{"fedora", "rhel", "centos", NULL}, "Fedora", "dnf install"},
	    {{"arch", NULL}, "Arch", "pacman -S"},
	    {{"alpine", NULL}, "Alpine", "apk add"},
	};
	size_t n = sizeof systems / sizeof *systems;
	for (size_t i = 0; os_release && i < n; i++)
		for (const char *const *id = systems[i].ids; *id; id++)
			if (os_is(os_release, "ID", *id) || os_is(os_release, "ID_LIKE", *id))
				return xasprintf("%s %s", systems[i].command, package);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s: %s %s", i ? "; " : "", systems[i].name, systems[i].command,
			    package);
	return strbuf_detach(&sb, NULL);
}

char *probe_missing(const char *tool, const char *package)
{
	struct strbuf os = STRBUF_INIT;
	bool known = strbuf_read_file(&os, "/etc/os-release") == 0;
	char *how = probe_install_command(known ? os.buf : NULL, package);
	strbuf_release(&os);
	char *line = xasprintf("%s is not installed (%s)", tool, how);
	free(how);
	return line;
}

static void start(struct probe *p, const char *tool, const char *version_flag)
{
	memset(p, 0, sizeof *p);
	p->tool = tool;
	p->path = probe_which(tool);
	if (!p->path) {
		p->reason = probe_missing(tool, !strcmp(tool, "bwrap") ? "bubblewrap" : tool);
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
static void trial_wall(const char *bwrap, struct strvec *argv, bool traced)
{
	static const char *const wall[] = {"--unshare-all", "--die-with-parent", "--new-session",
					   "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev",
					   "/dev", "--proc", "/proc",
					   /* an option a task's argv has that an old bwrap
					    * lacks (0.4.1's "Unknown option --perms") */
					   "--perms", "0700", "--tmpfs", "/dev/shm", "--", NULL};
	strvec_push(argv, bwrap);
	for (const char *const *a = wall; *a; a++) {
		/* what a traced task's bwrap gives init --traced */
		for (const char *const *c = sandbox_traced_caps();
		     traced && !strcmp(*a, "--") && *c; c++)
			strvec_push(argv, *c);
		strvec_push(argv, *a);
	}
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
	trial_wall(p->path, &argv, false);
	strvec_push(&argv, "/bin/true");
	struct strbuf err = STRBUF_INIT;
	int rc = trial_run(&argv, &err);
	if (rc == 0) {
		p->works = true;
	} else {
		char *userns = read_sysctl("/proc/sys/kernel/unprivileged_userns_clone");
		char *maxns = read_sysctl("/proc/sys/user/max_user_namespaces");
		char *apparmor =
		    read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
		if (strstr(err.buf, "Unknown option"))
			/* Debian 11's 0.4.1: no --perms; upstream before 0.10: no
			 * --bind-fd (Debian backports it) */
			p->reason = xasprintf(
			    "%s is too old for a task's sandbox: vx needs bubblewrap 0.10.0 or "
			    "later, or a build with --perms and --bind-fd (Debian 12's 0.8.0; "
			    "bullseye-backports' 0.8.0 for Debian 11)",
			    p->version ? p->version : "this bwrap");
		else if (geteuid() != 0 && apparmor && !strcmp(apparmor, "1"))
			/* Ubuntu 23.10 and later: a program without an AppArmor
			 * profile that grants userns gets one it cannot use */
			p->reason = xasprintf(
			    "AppArmor restricts unprivileged user namespaces "
			    "(kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 23.10 and "
			    "later) "
			    "and no profile grants them to bwrap: load Ubuntu's bwrap profile "
			    "(sudo "
			    "apt-get install apparmor-profiles && sudo install -m 0644 "
			    "/usr/share/apparmor/extra-profiles/bwrap-userns-restrict "
			    "/etc/apparmor.d/ && sudo apparmor_parser -r "
			    "/etc/apparmor.d/bwrap-userns-restrict; Ubuntu 25.04 ships it loaded), "
			    "or lift the restriction (sudo sysctl -w "
			    "kernel.apparmor_restrict_unprivileged_userns=0): %s",
			    err.buf);
		else if (geteuid() != 0 && userns && !strcmp(userns, "0"))
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
		free(apparmor);
	}
	strbuf_release(&err);
}

void probe_strace(struct probe *p, const char *bwrap, const char *init)
{
	start(p, "strace", "-V");
	if (!p->path)
		return;
	if (bwrap && !init) {
		struct strbuf looked = STRBUF_INIT;
		free(initpath_find(&looked));
		p->reason =
		    xasprintf("vx-sandbox-init is neither %s: a traced task runs under "
			      "it (install vx with it: cmake --install puts it in "
			      "libexec/vx/)",
			      looked.len ? looked.buf : "beside vx nor in its ../libexec/vx/");
		strbuf_release(&looked);
		return;
	}
	/* A task's tracer runs inside the walls with the task's own flags,
	 * tracing vx-sandbox-init --traced, which makes the task's pid
	 * namespace and /proc: a kernel or strace without --seccomp-bpf fails
	 * only with that flag, and a namespace that cannot be made inside
	 * (a container's /proc) only there. So the trial is a task's trace of
	 * `true`, walls, init and all. */
	struct strvec argv = STRVEC_INIT;
	if (bwrap)
		trial_wall(bwrap, &argv, true);
	for (const char *const *f = sandbox_trace_flags(); *f; f++)
		strvec_push(&argv, strcmp(*f, "STRACE") ? *f : p->path);
	strvec_push(&argv, "-o");
	strvec_push(&argv, "/dev/null");
	if (bwrap) {
		strvec_push(&argv, "--");
		strvec_push(&argv, init);
		strvec_push(&argv, "--traced");
		strvec_push(&argv, "--exec");
	}
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

/* What a probe's answer depends on, as text: vx itself (its walls and
 * trace flags), the kernel, who runs, each binary's identity (a package
 * upgrade replaces the file: a new inode, size or ctime), and the
 * sysctls that turn namespaces and ptrace off without a reboot. NULL
 * when a binary cannot be stat'ed (no answer can be kept then). */
static char *probe_identity(const char *bwrap, const char *strace, const char *init)
{
	struct utsname u;
	if (uname(&u) < 0)
		return NULL;
	struct strbuf id = STRBUF_INIT;
	strbuf_addf(&id, "vx-probe 2 %s\nkernel %s %s\neuid %u\n", VX_VERSION, u.release, u.version,
		    (unsigned)geteuid());
	/* vx itself too: its version does not change with every build, and
	 * a build may change the walls or the trace flags a trial uses */
	const char *bins[] = {"/proc/self/exe", bwrap, strace, init};
	for (size_t i = 0; i < 4; i++) {
		struct stat st;
		if (!bins[i] || stat(bins[i], &st) < 0) {
			strbuf_release(&id);
			return NULL;
		}
		strbuf_addf(&id, "%s %llu %llu %lld %lld.%09ld %lld.%09ld\n", bins[i],
			    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			    (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			    (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	}
	static const char *const sysctls[] = {
	    "/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces",
	    "/proc/sys/kernel/yama/ptrace_scope",
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"};
	for (size_t i = 0; i < sizeof sysctls / sizeof *sysctls; i++) {
		char *v = read_sysctl(sysctls[i]);
		strbuf_addf(&id, "%s=%s\n", path_basename(sysctls[i]), v ? v : "-");
		free(v);
	}
	return strbuf_detach(&id, NULL);
}

void probe_sandbox(const char *state_file, const char *init, struct probe *bwrap,
		   struct probe *strace)
{
	char *bpath = probe_which("bwrap"), *spath = probe_which("strace");
	char *id = state_file && init ? probe_identity(bpath, spath, init) : NULL;
	struct strbuf kept = STRBUF_INIT;
	size_t idlen = id ? strlen(id) : 0;
	if (id && strbuf_read_file(&kept, state_file) == 0 && kept.len > idlen &&
	    !memcmp(kept.buf, id, idlen)) {
		/* the two version lines follow the identity */
		const char *v1 = kept.buf + idlen, *nl = strchr(v1, '\n');
		const char *v2 = nl ? nl + 1 : NULL, *nl2 = v2 ? strchr(v2, '\n') : NULL;
		if (nl && nl2) {
			memset(bwrap, 0, sizeof *bwrap);
			memset(strace, 0, sizeof *strace);
			bwrap->tool = "bwrap";
			strace->tool = "strace";
			bwrap->path = bpath;
			strace->path = spath;
			bwrap->version = nl > v1 ? xstrndup(v1, (size_t)(nl - v1)) : NULL;
			strace->version = nl2 > v2 ? xstrndup(v2, (size_t)(nl2 - v2)) : NULL;
			bwrap->works = strace->works = true;
			strbuf_release(&kept);
			free(id);
			return;
		}
	}
	strbuf_release(&kept);
	free(bpath);
	free(spath);
	probe_bwrap(bwrap);
	probe_strace(strace, bwrap->works ? bwrap->path : NULL, init);
	/* Only an answer that both work is kept: a failure is asked again
	 * every run, since its fix (a container flag, a profile) may change
	 * nothing the identity holds. A kept answer that stopped being true
	 * fails the task's own bwrap or strace: closed, never open. */
	if (id && bwrap->works && strace->works) {
		struct strbuf out = STRBUF_INIT;
		strbuf_addf(&out, "%s%s\n%s\n", id, bwrap->version ? bwrap->version : "",
			    strace->version ? strace->version : "");
		write_file_atomic(state_file, out.buf, out.len);
		strbuf_release(&out);
	}
	free(id);
}
