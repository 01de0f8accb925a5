/* judge.h - from a sandboxed task's trace to its verdict: the violations
 * that fail it, the notes that explain, and the fix (SPEC §4, §5). */
#ifndef VX_VIOLATIONS_JUDGE_H
#define VX_VIOLATIONS_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/request.h"
#include "violations/judge_input.h"
#include "violations/strace.h"
#include "util/vec.h"

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

/* Points the part of in that the task's sandbox request decides at req's
 * own lists, copying nothing: the project dir (req->cwd), the withheld
 * packages, the widened dirs, the configs, the walls, what the sandbox
 * sees, the write roots (req->write_roots, made by its plan) and the
 * placeholders (each one's untouched set by sandbox_request_ended). in
 * borrows from req: keep it until the verdict is made. */
void judge_input_from_request(struct judge_input *in, const struct sandbox_request *req);

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

#endif
