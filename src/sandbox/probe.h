/* probe.h - is a sandbox tool here, and does it work on this machine? */
#ifndef VX_SANDBOX_PROBE_H
#define VX_SANDBOX_PROBE_H

#include <stdbool.h>

struct probe {
	const char *tool; /* "bwrap", "strace" */
	char *path;	  /* absolute, found on PATH; NULL: not installed */
	char *version;	  /* its own first version line, or NULL */
	bool works;	  /* a real trial run succeeded */
	char *reason;	  /* when !works: why, plainly, with the fix */
};

/* Returns the absolute path of an executable tool on PATH, skipping relative
 * entries and node_modules/.bin (a package must not be able to stand in for
 * bwrap), or NULL. Caller frees. */
char *probe_which(const char *tool);

/* The command that installs package (its name is the same on the four:
 * "bubblewrap", "strace", "util-linux") on the system os_release (the
 * text of /etc/os-release) says this is, by its ID and ID_LIKE: Debian and
 * Ubuntu (apt-get install), Fedora and RHEL (dnf install), Arch (pacman
 * -S), Alpine (apk add); on another, or with os_release NULL, all four,
 * each named. Caller frees. */
char *probe_install_command(const char *os_release, const char *package);

/* "bwrap is not installed (apt-get install bubblewrap)": tool missing,
 * with this machine's install command (/etc/os-release). Caller frees. */
char *probe_missing(const char *tool, const char *package);

/* Fill p: probe_bwrap runs `true` in the namespaces a sandboxed task gets;
 * probe_strace traces `true` with a task's strace flags, inside those
 * namespaces under init --traced (vx-sandbox-init; missing: strace does
 * not work) when bwrap (a working one) is given, and fails when strace
 * prints anything. */
void probe_bwrap(struct probe *p);
void probe_strace(struct probe *p, const char *bwrap, const char *init);
void probe_free(struct probe *p);

/* probe_bwrap and probe_strace for a run, their answer kept in state_file
 * (WS/.vx/probe; NULL: always probe): a run whose vx, kernel, euid, bwrap,
 * strace and init binaries (path, inode, size, mtime, ctime) and
 * namespace and ptrace sysctls are those of the last probe where both
 * worked takes that answer without spawning either (four spawns, ~15 ms,
 * on every run with a sandboxed task). A failure is never kept. */
void probe_sandbox(const char *state_file, const char *init, struct probe *bwrap,
		   struct probe *strace);

#endif
