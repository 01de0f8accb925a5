/* judge.h - from a sandboxed task's trace to its verdict: the violations
 * that fail it, the notes that explain, and the fix (SPEC §4, §5). */
#ifndef VX_VIOLATIONS_JUDGE_H
#define VX_VIOLATIONS_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/request.h"
#include "sandbox/walls.h"
#include "violations/strace.h"
#include "util/vec.h"

/* A dependency of the judged task: its project and how its config names it. */
struct judge_dep {
	const char *dir;    /* the project, absolute */
	const char *config; /* its config file, workspace-relative ("lib/vx.yaml") */
	const char *task;   /* "build" */
	const char *id;	    /* "lib#build" */
};

/* An outputs glob of another task of the judged task's project, one it
 * does not depend on (project-relative, as written). */
struct judge_other_output {
	const char *task; /* "lint" */
	const char *glob; /* ".cache/.eslintcache" */
	bool cycle;	  /* that task depends on the judged one: an edge to it is a cycle */
};

/* Filled by the orchestrator after the task ran. Paths absolute and
 * canonical (as the sandbox bound them: binds keep host paths). */
struct judge_input {
	const char *project_dir;    /* violations are refusals inside it */
	const char *workspace_root; /* report paths are relative to it */
	const char *home;	    /* "~" in ignore globs and in notes; may be NULL */
	const char *tmpdir;	    /* the task's TMPDIR inside: never judged */
	bool wrapped;		    /* the trace is of a wrapper around the task (init
				     * --traced): its own steps are not judged */
	const char *const *ignore_read, *const *ignore_write,
					    *const *ignore_network; /* sandbox.ignore */
	size_t n_ignore_read, n_ignore_write, n_ignore_network;
	const char *const
	    *withheld; /* linked packages hidden from a cached task: refusals there count */
	size_t n_withheld;
	bool cached; /* a fix that grants a read also keys it (inputs.files) */
	bool failed; /* the task failed: a refusal outside the project is then taken as
		      * why, a violation with its fix, not a note (issue 40) */
	const char *const *input_files; /* inputs.files as written, when the task sets them:
					 * a granted read they do not cover needs keying */
	size_t n_input_files;
	bool inputs_explicit; /* inputs.files was written (else every project file is keyed) */
	const char *const *input_ws_files; /* the task's own inputs.workspaceFiles, from
					    * whichever layer (turbo.json's $TURBO_ROOT$/) */
	size_t n_input_ws_files;
	/* Dirs bound writable only because a file write grant lies in them
	 * (canonical), and sandbox.allow.write as written: a write there
	 * that succeeded and no entry names is a violation. */
	const char *const *widened;
	size_t n_widened;
	const char *const *configs; /* files that decide what vx runs and no grant names
				     * (sandbox_request.configs): a write there is a
				     * violation even where a bind let it through */
	size_t n_configs;
	const char *const *allow_write;
	size_t n_allow_write;
	/* What the task saw and printed, for the notes; each may be empty. */
	bool (*sees)(const char *path,
		     void *ctx); /* the sandbox shows the host's path; NULL: unknown */
	void *sees_ctx;
	const char *const *write_roots; /* canonical dirs bound writable: the grant roots */
	size_t n_write_roots;
	const char *const *unwritten; /* files vx made for write grants that named nothing,
				       * still empty and untouched after the task */
	size_t n_unwritten;
	/* Every file vx made for a write grant that named nothing (empty
	 * when the task began): reading one is no read of an earlier run. */
	const struct sandbox_placeholder *placeholders;
	size_t n_placeholders;
	/* A cached task's key, workspace-relative and sorted (NULL: not
	 * cached, nothing to check): a project file read that it does not
	 * hold is a violation (SPEC §4 read-unkeyed). What the task wrote
	 * in this run before it read it is exempt; a file left in a write
	 * root before the run is judged (issue 37). node_modules is the
	 * lockfile's. */
	const char *const *keyed;
	size_t n_keyed;
	/* Beyond the project (issue 18): what the key holds through its
	 * dependencies, whose keys it folds: their keyed files
	 * (workspace-relative, sorted) and the files their outputs matched
	 * (absolute, sorted); and each one's project and task, to name the
	 * outputs entry a file it wrote needs. A read elsewhere in the
	 * workspace that none of these holds is read-unkeyed too. */
	const char *const *dep_keyed;
	size_t n_dep_keyed;
	const char *const *dep_outputs;
	size_t n_dep_outputs;
	const struct judge_dep *deps;
	size_t n_deps;
	/* The projects the task's project depends on (package.json or a
	 * project-level dependsOn; canonical dirs) and the task's name: a
	 * withheld package among them needs a task-level edge, not another
	 * dependency (issue 40 item 3). */
	const char *const *project_deps;
	size_t n_project_deps;
	const char *task;
	/* What the project's other tasks make, which this one does not wait
	 * for: a read of it is never keyed by the fix (another task's result
	 * would be in the key), its note names the dependsOn. */
	const struct judge_other_output *other_outputs;
	size_t n_other_outputs;
	/* The task's own outputs globs (project-relative): a tsbuildinfo is a
	 * tool cache of its own only where they save and restore it with the
	 * outputs it describes (self_validating_cache). */
	const char *const *own_outputs;
	size_t n_own_outputs;
	bool externals_keyed;  /* the lockfile keys node_modules (lockfiles.md); when not,
				* the first read there is one violation */
	long long run_started; /* wall-clock seconds: a dependency's file newer than
				* this was written by it in this run */
	/* Read grants outside the workspace (canonical roots) and the
	 * programs the key holds (toolchain.h: canonical, sorted): a file
	 * read under such a grant must be one of them (issue 18). */
	const char *const *outside_grants;
	size_t n_outside_grants;
	const char *const *toolchain;
	size_t n_toolchain;
	const struct wall *walls; /* the walls no grant opens (request.h): a refusal
				   * there gets no fix, and a note saying why */
	size_t n_walls;
	const char *output; /* all the task printed */
	size_t output_len;
	/* The task's network, for the notes on what a failed task's output
	 * says (a name that did not resolve, a loopback port that refused). */
	bool (*net_allowed)(const char *host, void *ctx); /* allow.network lets host through
							   * its proxy; NULL: no proxy */
	void *net_ctx;
	bool (*host_listens)(int port); /* the host listens on this TCP port; NULL: unknown */
	const int *net_ports;		/* ports relayed in or bridged out */
	size_t n_net_ports;
};

/* A violation's op, as reports spell it (SPEC §5; the SARIF rules are in
 * this order). Issue 38: three booleans could not say exec. */
enum violation_op {
	VIOLATION_READ,		/* a read refused (open, probe, readlink, chdir) */
	VIOLATION_WRITE,	/* a write refused, or one that succeeded only
				 * through a widened grant (err 0) */
	VIOLATION_EXEC,		/* an execve refused, or a program run that the
				 * task's key does not hold (err 0) */
	VIOLATION_NETWORK,	/* a connection refused: path is "ADDR:PORT",
				 * "[ADDR6]:PORT", or the proxy's "HOST:PORT" */
	VIOLATION_READ_UNKEYED, /* a read that succeeded of a file the task's key
				 * does not hold (err 0) */
	VIOLATION_OPS
};

struct violation {
	enum violation_op op;
	char *path;	     /* absolute, but for network */
	const char *syscall; /* static */
	int err;	     /* the errno of a refusal; 0: it succeeded (widened, unkeyed) */
	char *reason;	     /* a refusal vx made, not a system call: the proxy's
			      * word ("not in allow.network"; syscall "proxy"), a
			      * key file the sandbox hides (syscall "key"; the
			      * task never ran); err 0. Else NULL */
};

/* "read", "write", "exec", "network", "read-unkeyed". */
const char *violation_op_name(enum violation_op op);
/* A read or a run that succeeded of what the key does not hold. */
bool violation_unkeyed(const struct violation *v);

/* A note explains a failure without counting as a violation. kind is one of
 *   refused-write-outside  a write outside the project met the wall
 *   hidden-read-outside    a read outside the project met the wall
 *   unwritten-grant        a write grant that named nothing was never written
 *   grant-root-busy        the task tried to remove or rename a grant's root
 *   not-a-git-repository   git found no repository (its output says so)
 *   hidden-path-in-output  the task's last line names a path the sandbox hides
 *   walled                 a refusal in a wall no grant opens (.git, the cache)
 *   withheld-package       the task reached for a linked workspace package its key
 *                          does not fold
 *   tool-state             the task wrote tsc's build info where its outputs do not
 *                          hold it (path: the file; learn declares it an output)
 *   unresolved-name        the output says a host name did not resolve (path: the
 *                          name, or "" when the output names none)
 *   leftover               a file an earlier run left in a write grant was read
 *   refused-loopback-port  the output says a loopback port refused, and the host
 *                          listens there (path: "127.0.0.1:PORT")
 *   other-task-output      a read of what another task of the project makes (its
 *                          outputs name it), which the task does not wait for:
 *                          not keyed by the fix, the note names the dependsOn */
struct judge_note {
	const char *kind;
	char *path; /* absolute; for the network kinds, a host name, "ADDR:PORT"
		     * or "" (unresolved-name naming no host) */
	char *text; /* one sentence, paths as reports show them, with the grant
		     * to add or the change to make */
};

struct verdict {
	VEC(struct violation) violations;
	VEC(struct judge_note) notes;
	struct strvec fix_read, fix_write;  /* allow.read / allow.write entries, project-relative */
	struct strvec fix_inputs;	    /* inputs.files entries (cached tasks) */
	struct strvec fix_workspace_inputs; /* inputs.workspaceFiles entries: a read the
					     * default inputs leave out (gitignored) */
	struct strvec fix_network;	    /* allow.network entries (the proxy's refusals) */
	struct strvec fix_toolchain;	    /* inputs.toolchain entries: a file read under a
					     * read grant outside the workspace */
	struct strvec fix_ignore_read;	    /* sandbox.ignore.read entries: a tool cache an
					     * earlier run left in a write grant, if the
					     * user vouches for it (project-relative) */
	bool needs_network;		    /* a connection past the proxy: no grant reaches it */
	bool incomplete;		    /* the trace ends before the command did: never cache */
	struct strvec execs;		    /* the programs it exec'd from outside the workspace,
					     * canonical, in order, once each: its toolchain */
	struct strvec reads; /* each path it read (opened to read, or exec'd) once, as
			      * "K PATH" (in the workspace, held by the key), "U PATH"
			      * (read-unkeyed) or "O PATH" (outside the workspace: the
			      * toolchain's or a grant's); a cached task's only */
	size_t lines;	     /* trace lines read */
};

/* Fills the part of in that the task's sandbox request decides: the
 * project dir (req->cwd), the withheld packages, the widened dirs, the
 * walls, what the sandbox sees, the write roots (each RW bind, the stage
 * standing for its staged entries) into roots, and the placeholders the
 * task left untouched into unwritten. in borrows from req, roots and
 * unwritten: keep them until the verdict is made, then clear them. */
void judge_input_from_request(struct judge_input *in, const struct sandbox_request *req,
			      struct strvec *roots, struct strvec *unwritten);

/* Reads the strace log at log_path and judges it. Returns 0, or -1 with
 * errno when the log cannot be read (a task whose trace is missing is as
 * incomplete as one whose tracer died: the caller fails it). */
int judge_trace(const struct judge_input *in, const char *log_path, struct verdict *out);
/* Judges access events of any feed (the strace parser's, Seatbelt's
 * records: seatbelt_log.h) into out, which the caller zeroed: one judge,
 * two feeds. */
void judge_events(const struct judge_input *in, const struct access_event *ev, size_t nev,
		  struct verdict *out);
/* The notes a failed task's output alone gives (no trace: a persistent
 * task runs untraced): a git repository missing, a hidden path its last
 * line names, a host name or loopback port its output says failed. */
void judge_output(const struct judge_input *in, struct verdict *out);

/* A package a tool fetches from the npm registry as the task runs (npx,
 * pnpm dlx, yarn dlx, bunx): the registry is taken out of the fix's
 * allow.network, and a note ("installs-at-build", path: the package, or
 * "") says to add the package to the project. Call after the proxy's
 * refusals are in out. */
void judge_installs(const struct judge_input *in, struct verdict *out);

/* Is rel (a path in a project) in a tool's own cache that validates
 * itself by content (.next/cache, node_modules/.cache, node_modules/.vite,
 * .parcel-cache, .angular/cache, .swc, .eslintcache, .stylelintcache):
 * what an earlier run left there never changes what the task makes? */
bool judge_tool_cache(const char *rel);
void verdict_release(struct verdict *v);

/* Does an ignore.network glob of in match target ("HOST:PORT", "ADDR:PORT",
 * "[ADDR6]:PORT") or its host alone? */
bool judge_network_ignored(const struct judge_input *in, const char *target);

/* Returns path as reports show it: workspace-relative inside the
 * workspace, "~/..." under home, else absolute. Caller frees. */
char *judge_display_path(const struct judge_input *in, const char *path);

#endif
