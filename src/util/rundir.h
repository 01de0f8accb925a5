/* rundir.h - one directory for everything a run makes outside the
 * workspace (trace logs, spilled output), locked while the run lives and
 * swept by the next run once its owner is dead: kill -9 of vx left
 * /tmp/vx-trace-* behind (issue 12). */
#ifndef VX_UTIL_RUNDIR_H
#define VX_UTIL_RUNDIR_H

struct rundir {
	char *base;  /* the directory holding every run dir of this kind (rundir_open) */
	char *path;  /* BASE/vx-run-XXXXXX, mode 0700; NULL when not open */
	int lock_fd; /* the directory itself, exclusively flocked (O_CLOEXEC:
		      * no child inherits it, so the lock dies with vx) */
};

/* Removes every BASE/vx-run-* directory of this uid older than a minute
 * whose flock nobody holds (its vx is dead), then makes rd's own. base
 * NULL: rundir_private_base(), so every run of this user lives in one
 * directory a sandbox can wall (a task must not dial another task's proxy
 * socket or read its trace). Returns 0, or -1 with errno (rd is then not
 * open). */
int rundir_open(struct rundir *rd, const char *base);

/* $TMPDIR (else /tmp)/vx-UID, malloc'd: where this user's runs live
 * (rundir_open makes it, mode 0700). Pure: `vx sandbox show` walls it too. */
char *rundir_private_base(void);

/* rundir_open, calling reap(fd of the dead directory) before each dead
 * directory is removed: what it holds may have to be put back first. */
int rundir_open_reaping(struct rundir *rd, const char *base, void (*reap)(int dirfd));

/* Removes rd's directory with all it holds and releases the lock. */
void rundir_close(struct rundir *rd);

#endif
