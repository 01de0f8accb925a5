/* judge_input.h - what the judge is told of a task: its facts (the
 * project, its grants and walls, its key, its dependencies, what it
 * printed), filled by the orchestrator after the task ran, and the
 * questions the judge's rooms (judge.c, unkeyed.c, notes.c, fix.c) ask of
 * them. */
#ifndef VX_VIOLATIONS_JUDGE_INPUT_H
#define VX_VIOLATIONS_JUDGE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "sandbox/request.h"
#include "sandbox/walls.h"
#include "util/path.h"
#include "violations/judge_host.h"
#include "violations/strace.h"

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
	/* Every file vx made for a write grant that named nothing (empty
	 * when the task began): reading one is no read of an earlier run;
	 * one still untouched after it (its untouched, set once the task
	 * ended) is a grant it never wrote. */
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
	/* What the judge may ask of the host's files (judge_host.h), which
	 * the trace does not answer: the orchestrator's is the disk's
	 * (judge_host_disk), a unit test's a table. NULL: nothing is there. */
	const struct judge_host *host;
	/* The ports relayed in (allow.network localhost:PORT) and bridged
	 * out (localBinding). */
	const int *relay_ports, *bound_ports;
	size_t n_relay_ports, n_bound_ports;
};

/* path lies in dir (dir NULL or "": no). */
static inline bool judge_under(const char *dir, const char *path)
{
	return dir && *dir && path_is_within(dir, path);
}

/* path's kind on the host, a link as itself (in->host's answer). */
enum judge_kind judge_host_kind(const struct judge_input *in, const char *path);
/* Where path leads on the host, links followed: a new string, or NULL. */
char *judge_host_resolve(const struct judge_input *in, const char *path);
/* Is path there on the host (a link counts as itself)? */
bool judge_on_host(const struct judge_input *in, const char *path);
/* Does path lead to a directory on the host? */
bool judge_host_is_dir(const struct judge_input *in, const char *path);
/* What a successful read or exec of e reached, as the task met it: a
 * directory when the open demanded one (O_DIRECTORY), else the host's
 * kind of where it leads, and a file when that is gone since (the kernel
 * opened something, and not as a directory: a leftover read and removed
 * is still read). */
enum judge_kind judge_read_kind(const struct judge_input *in, const struct access_event *e,
				const char *path);

/* Does one of the n ignore globs match path? Relative ones are anchored at
 * the project, "~/" at home; a trailing '/' names a directory and all
 * below it; a path macOS spells under /private matches as written too. */
bool judge_ignored(const struct judge_input *in, const char *const *globs, size_t n,
		   const char *path);
/* The credential store under home that holds path ("~/.ssh"'s ".ssh"), or
 * NULL. */
const char *judge_credential_store(const struct judge_input *in, const char *path);
/* The dependency whose project holds path (the deepest), or NULL. */
const struct judge_dep *judge_dep_of(const struct judge_input *in, const char *path);
/* path is a regular file a dependency wrote in this run (newer than the
 * run's start): one its outputs should name. */
bool judge_dep_written(const struct judge_input *in, const char *path);
/* path is the root of a write grant (a mount point in the sandbox). */
bool judge_is_write_root(const struct judge_input *in, const char *path);
/* path is one of the files that decide what vx runs. */
bool judge_is_config(const struct judge_input *in, const char *path);
/* Does an ignore.network glob of in match target ("HOST:PORT",
 * "ADDR:PORT", "[ADDR6]:PORT") or its host alone? */
bool judge_network_ignored(const struct judge_input *in, const char *target);
/* path as reports show it: workspace-relative, "~/..." under home, else
 * absolute. Returns a new string. */
char *judge_display_path(const struct judge_input *in, const char *path);

#endif
