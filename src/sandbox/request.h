/* request.h - what one sandboxed task may see and write, resolved from its
 * config at task start into a plan of mounts, an environment and a cwd.
 * sandbox_request_plan (plan.c, its mounts in mounts.c) only reads the
 * file system and decides; everything it would create or open is data in
 * the request, and sandbox_request_prepare (request.c) does it. A staged
 * project moves in stage.h; bwrap.c turns the request into argv. */
#ifndef VX_SANDBOX_REQUEST_H
#define VX_SANDBOX_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "sandbox/env.h"
#include "sandbox/walls.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* Where the host's sockets live: an empty read-only tmpfs in every sandbox
 * but a hermetic one (which has no /run), unixSockets bound back. */
#define SANDBOX_RUN_DIR "/run"

/* Filled by run/sandbox_job.c (request_input) from the workspace, the
 * task's config and its graph edges: for a run just before the task starts,
 * for `vx sandbox show` and the Seatbelt profile from the same code, so the
 * three cannot differ. Paths are absolute; they need not be canonical (the
 * request resolves links). Lists are borrowed. */
struct sandbox_input {
	const char *workspace_root; /* the deny anchor: all under it is hidden unless granted */
	const char *project_dir;    /* the task's project: grants are relative to it; the cwd */
	const char *home; /* the user's home: "~" in grants, the credential walls; may be NULL */
	const char *cache_dir; /* vx's cache dir (a wall wherever it is); may be NULL */
	const char *run_base;  /* where vx's run dirs live (rundir_private_base): a wall, since
				* they hold every task's proxy socket and trace log; may be NULL */
	const char *tmpdir;    /* TMPDIR inside (NULL: "/tmp"): a fresh tmpfs, mode 0700 */
	const char *bwrap;   /* bwrap found on vx's PATH at startup (probe_which); NULL: missing */
	const char *shell;   /* /bin/sh or the sh found at startup; NULL: "/bin/sh" */
	const char *setsid;  /* setsid(1) found at startup; NULL: looked up on vx's PATH now */
	const char *init;    /* vx-sandbox-init beside vx (src/sandbox/init.c), bound into TMPDIR
			      * and run first; NULL: a shell script and setsid do its work */
	const char *strace;  /* strace found and probed at startup; NULL: run untraced.
			      * Traced needs init: strace runs inside the walls and
			      * vx-sandbox-init --traced puts the task out of its reach */
	int trace_fd;	     /* with strace: the log, a host file of vx's (tracelog.h)
			      * open for writing, passed as SANDBOX_LOG_FD and never
			      * bound; -1 for `vx sandbox show` */
	const char *netd;    /* the vx binary (netd.h), bound into TMPDIR and run before the
			      * command, when the task has any network grant; else NULL */
	const char *net_ctl; /* with netd: the host socket its control connection reaches
			      * (bridge.h), bound into TMPDIR */
	bool proxy;	     /* a host grant: netd listens on 127.0.0.1:SANDBOX_PROXY_PORT for
			      * the task's proxy, and the proxy variables name it */
	const int *relay_ports; /* allow.network localhost:PORT: netd listens on each, on
				 * 127.0.0.1 and [::1] */
	size_t n_relays;
	const char *stage_dir;		/* an empty host dir on the project's file system, or NULL:
					 * where the project's top-level write grants live while
					 * the task runs (sandbox_request_stage), so it can
					 * delete and recreate them */
	const char *const *nested_dirs; /* every project dir in the workspace, canonical (walls; the
					 * task's own is skipped) */
	size_t n_nested;
	const char *const *input_ws_files; /* the task's own inputs.workspaceFiles as written
					    * (workspace-relative globs): a root .env* one
					    * matches is shown (sandbox_root_files) */
	size_t n_input_ws_files;
	const char *const *allow_read; /* sandbox.allow.read as written */
	size_t n_read;
	const char *const *allow_write; /* sandbox.allow.write as written */
	size_t n_write;
	const char *const *unix_sockets; /* sandbox.allow.unixSockets as written: each a
					  * socket bound read-only (a connect needs no
					  * write access to the mount); /run is masked */
	size_t n_sockets;
	const char *const *dep_outputs; /* files the task's dependencies produced: readable */
	size_t n_dep_outputs;
	/* directories of the project where another of its tasks, one this task
	 * does not wait for, writes its declared outputs (".next" of build, for
	 * typecheck): shown empty, unless a grant of this task holds them */
	const char *const *other_outputs;
	size_t n_other_outputs;
	const char *const *keyed_projects; /* project dirs of the tasks this one depends on
					    * (its key folds them when cached): the linked
					    * packages it may see */
	size_t n_keyed;
	const char *const *config_files; /* canonical: the files that decide what vx runs (each
					  * project's vx.yaml, package.json, turbo.json[c]; the
					  * root's pnpm-workspace.yaml and lockfiles), there or not:
					  * read-only in every write grant but one naming
					  * that very file */
	size_t n_config;
	const char *const *linked_projects; /* project dirs linked into the task's node_modules
					     * or the root's (workspace_linked_projects) */
	size_t n_linked;
	/* What only the macOS translation (seatbelt.h) reads: on Linux the
	 * proxy is SANDBOX_PROXY_PORT inside the task's namespace and netd
	 * bridges localBinding ports; Mach services and sysctl names are
	 * no Linux notion. */
	int proxy_port;		/* with proxy: the host loopback port the task's proxy listens on */
	const int *local_ports; /* localBinding: [PORT, ...] */
	size_t n_local;
	bool local_any;			/* localBinding: true */
	const char *const *mach_lookup; /* sandbox.allow.machLookup */
	size_t n_mach;
	const char *const *system_info; /* sandbox.allow.systemInfo */
	size_t n_system_info;
	bool pty;      /* sandbox.allow.pty */
	bool hermetic; /* sandbox.hermetic: nothing outside the workspace but the OS roots */
	struct env_input
	    env; /* the environment sources (env.h); env.home/tmpdir are set by the request */
};

enum sandbox_mount_kind {
	SANDBOX_TMPFS,	    /* an empty tmpfs at dst (a mask, or TMPDIR) */
	SANDBOX_RO,	    /* bind src read-only at dst */
	SANDBOX_RW,	    /* bind src read-write at dst */
	SANDBOX_SYMLINK,    /* a symlink at dst whose target is src (a link inside a punched dir) */
	SANDBOX_DIR,	    /* an empty directory at dst (a cwd no grant holds) */
	SANDBOX_REMOUNT_RO, /* make the mask at dst read-only, so writes there fail with EROFS */
	SANDBOX_DATA,	    /* a read-only file at dst holding the text src (vx's own:
			     * the sandbox's resolv.conf), from a memfd (--ro-bind-data) */
	SANDBOX_STUB,	    /* an empty file at dst that nobody may open (mode 0000, no
			     * capability overrides it): a hidden file's name, shown */
};

struct sandbox_mount {
	enum sandbox_mount_kind kind;
	char *src; /* bind source or symlink target; NULL for the rest */
	char *dst;
	int fd;	      /* a bind's src as an O_PATH|O_NOFOLLOW|O_CLOEXEC fd (--bind-fd,
			 --ro-bind-fd), opened by sandbox_request_prepare; -1 in a plan */
	bool by_path; /* an RO bind of a link (a deny mask over one): by its path, not by fd */
};

/* A file the request created so a FILE write grant has something to bind;
 * removed after the task when it is still empty and unchanged. */
struct sandbox_placeholder {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	/* Set by sandbox_request_ended, once the task has ended: still the
	 * empty file the request made (the judge's "unwritten-grant"). */
	bool untouched;
};

/* Filled by sandbox_request_plan, made real by sandbox_request_prepare
 * (which fills placeholders, seccomp_fd and each mount's fd); read by
 * bwrap.c. */

struct sandbox_request {
	char *bwrap, *shell, *setsid; /* copied from the input (setsid looked up when not given) */
	char *strace;	      /* where strace is inside: the command runs under it when set */
	int trace_fd;	      /* copied (not owned): the log strace writes */
	bool hermetic;	      /* copied: the base is the OS roots, not "/" */
	char *init;	      /* where vx-sandbox-init is inside, or NULL: the script */
	char *netd;	      /* where the vx binary is inside, or NULL: no netd */
	char *net_ctl;	      /* where netd's control socket is inside */
	bool proxy;	      /* netd listens on SANDBOX_PROXY_PORT */
	VEC(int) relay_ports; /* and on these, on 127.0.0.1 and [::1] */
	VEC(struct sandbox_mount)
	mounts;		   /* in bwrap order: parents before children, remounts last */
	struct strvec env; /* "K=V", the whole environment */
	char *cwd;	   /* the project dir, canonical */
	int seccomp_fd;	   /* the system call filter (sandbox/seccomp.h), O_CLOEXEC; bwrap
			    * reads it to its end: one spawn per request */
	bool cwd_denied;   /* no grant holds the project dir: it is an empty directory inside */
	struct strvec
	    notes; /* one line each: what the user should know (withheld links, empty globs) */
	struct strvec withheld; /* canonical dirs of linked packages hidden from a cached task */
	struct strvec configs;	/* the input's config_files in a writable place that no
				 * write grant names: bound read-only where they are, and
				 * the judge reports a write that made one (issue 36: a
				 * task rewrote the vx.yaml `vx watch` planned from next) */
	struct strvec widened;	/* canonical dirs bound writable only because a FILE write grant
				 * lies in them: a write there that no grant names succeeds,
				 * and the judge must catch it */
	VEC(struct sandbox_placeholder) placeholders;
	/* The canonical dirs the task may write: each RW bind's dst, a stage
	 * standing for its staged entries (cwd/NAME). Made by the plan, once,
	 * for the judge (judge_input.write_roots points here). */
	struct strvec write_roots;
	/* the walls no grant can open (.git, the cache, credential stores;
	 * not nested projects): a fix never offers them */
	wall_vec walls;
	/* Staging (issue 11: `rm -rf dist && mkdir dist` met EBUSY on a grant
	 * that is a mount point): the project is bound read-write from stage
	 * (canonical), its other entries bound read-only into it, and the
	 * names in staged (the top-level write grants) live in the stage as
	 * plain entries while the task runs. stage NULL: not staged. */
	char *stage;
	struct strvec staged;
	/* What prepare creates before anything is bound: the directories of
	 * write grants that do not exist yet (and the cache, vx's own, so the
	 * task cannot make it), and the placeholder files of FILE grants. The
	 * plan binds them as if they were there. */
	struct strvec mkdirs, files;
	/* the mkdirs prepare made (they were not there), in the order made:
	 * sandbox_request_sweep_dirs removes those still empty after the task */
	struct strvec made_dirs;
	/* directories prepare makes that stay, shared by every task that
	 * mounts its own tmpfs there (Vite's node_modules/.vite-temp) */
	struct strvec scratch;
};

/* Plans the request: resolves the grants, decides every mount, the stage
 * and what to create, and creates, opens and changes nothing (mounts carry
 * fd -1; `vx sandbox show` prints a plan). Returns 0, or -1 with ONE line
 * in err naming the path and the fix: bwrap missing,
 * a write grant whose path through links leaves the project,
 * a write grant whose bind would hold a nested project (other walls it holds
 * are masked in it), a grant into a credential store, a path bwrap cannot
 * take (characters outside [A-Za-z0-9._/+@-] are refused where a later layer
 * needs them: the cwd and TMPDIR), a bad pattern, a credential-looking
 * passThrough. */
int sandbox_request_plan(const struct sandbox_input *in, struct sandbox_request *req,
			 struct strbuf *err);
/* Makes a plan real: creates mkdirs and files (the placeholders), the
 * system call filter, and opens each bind source by fd, checking it is the
 * path planned (a read source gone since is dropped). Returns 0, or -1 with
 * one line in err and the request released, nothing left behind (no
 * placeholder, no fd). */
int sandbox_request_prepare(struct sandbox_request *req, struct strbuf *err);
/* sandbox_request_plan, then sandbox_request_prepare. */
int sandbox_request_build(const struct sandbox_input *in, struct sandbox_request *req,
			  struct strbuf *err);

/* Fills req->write_roots from its RW mounts and its stage (the plan's
 * last step; a test's hand-made request calls it itself). */
void sandbox_request_write_roots(struct sandbox_request *req);

/* True when p holds only [A-Za-z0-9._/+@-]: what a path must be where a
 * socket or a shell line later carries it unquoted. */
bool sandbox_path_safe(const char *p);

/* Whether the linked package at real (canonical) is one of in's keyed
 * projects: a cached task shows only those (the bwrap plan and the
 * Seatbelt profile alike). */
bool sandbox_input_keys(const struct sandbox_input *in, const char *real);

/* in's allow.unixSockets resolved as grants are ("~", relative to the
 * canonical project proj, globs) and checked against walls: each socket
 * that is there goes to out (its canonical path); each entry that names
 * nothing goes to missing as two strings, the entry and the path. Returns
 * 0, or -1 with one line in err: a path in a credential store or another
 * wall, or one that is no socket. The bwrap plan and the Seatbelt profile
 * both read the entries this way. */
int sandbox_socket_paths(const struct sandbox_input *in, const char *proj, const char *home,
			 const wall_vec *walls, struct strvec *out, struct strvec *missing,
			 struct strbuf *err);

/* Read-only tool caches under home a task sees (relative to home),
 * NULL-terminated; the rest of home is hidden. */
extern const char *const sandbox_home_caches[];

/* The roots of the OS and its toolchain: all a hermetic task sees outside
 * the workspace (read-only). NULL-terminated. */
extern const char *const sandbox_os_roots[];

/* Does the task see the host's file at path (absolute, canonical) at the
 * same place inside? Read off the planned mounts: a directory holding a
 * mount point is there (bwrap makes it, with only the mounts in it);
 * otherwise the deepest mount at or above path decides (a bind of the same
 * path shows it, a tmpfs or an empty directory hides what lies below, a
 * symlink leads on); under none, the base decides ("/" read-only, or the OS
 * roots when hermetic). tests/unsafe/test_sandbox.c checks it against a
 * real sandbox, path by path. */
bool sandbox_request_sees(const struct sandbox_request *req, const char *path);

/* True when the placeholder is still the empty file the request made: the
 * task never wrote its grant. */
bool sandbox_placeholder_untouched(const struct sandbox_placeholder *p);

/* Once the task has ended (its staged grants back): reads off the disk,
 * once, whether each placeholder is untouched, so the judge is told it
 * and asks the disk nothing. */
void sandbox_request_ended(struct sandbox_request *req);

/* Removes the placeholders the task left empty and untouched. Returns how
 * many were removed. */
size_t sandbox_request_sweep(struct sandbox_request *req);

/* Removes each directory prepare made for the task (a declared output's,
 * a write grant's, Vite's temp) that the task left empty, deepest first,
 * so a run leaves no empty dist/, .next/ or .output/ in every package a
 * generic outputs list names (issue 54); a directory with anything in it
 * stays. Call once the staged grants are back. Returns how many. */
size_t sandbox_request_sweep_dirs(struct sandbox_request *req);

/* Closes the request's fds and frees it (placeholders are not swept). */
void sandbox_request_release(struct sandbox_request *req);

#endif
