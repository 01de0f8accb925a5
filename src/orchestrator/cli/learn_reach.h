/* learn_reach.h - the line `vx sandbox learn` keeps (issue 53): what it
 * writes by itself, because it cannot widen what a task reaches beyond its
 * own project, and what only a person may add. A task that fails on purpose
 * must not write its own grants: everything past the line is printed for a
 * person, never written. Pure: no I/O. */
#ifndef VX_CLI_LEARN_REACH_H
#define VX_CLI_LEARN_REACH_H

#include <stdbool.h>
#include <stddef.h>

/* The fix field an entry is for. */
enum learn_field {
	LEARN_READ,	 /* sandbox.allow.read */
	LEARN_WRITE,	 /* sandbox.allow.write */
	LEARN_NETWORK,	 /* sandbox.allow.network */
	LEARN_FILES,	 /* inputs.files */
	LEARN_WS_FILES,	 /* inputs.workspaceFiles */
	LEARN_TOOLCHAIN, /* inputs.toolchain */
};

/* What the line knows of one task. Every path absolute and normalized, in
 * the same spelling (the workspace's, not resolved through links); the
 * patterns are globs with their escapes. Filled by sandbox_learn.c from
 * the plan and the round's report. */
struct learn_scope {
	const char *workspace_root, *project_dir;
	const char *home; /* NULL or "" when unset */
	/* the projects nested in project_dir, which it does not own */
	const char *const *nested;
	size_t n_nested;
	/* the outputs of the tasks it depends on, directly or not */
	const char *const *dep_outputs;
	size_t n_dep_outputs;
	/* what its key holds once this round's fix is written: its
	 * inputs.files (under project_dir), inputs.workspaceFiles and the
	 * workspace's (under workspace_root) */
	const char *const *keyed;
	size_t n_keyed;
};

/* Whether learn may write entry, loaded back to abs (the absolute path or
 * pattern the config will make of it), for task scope in field f. NULL
 * when it may; else the one-line reason a person must decide (a static
 * string). The line: a write inside its own project (not all of it, not a
 * nested project, not .git or .vx, no file that decides what vx runs, no
 * mandatory deny); a read in its own project, of its dependencies'
 * outputs, of a workspace file its key holds, of the toolchain under home
 * and its read-only caches; any key entry; never a secret-class file,
 * network, or anything else. */
const char *learn_reach_asks(const struct learn_scope *scope, enum learn_field f, const char *abs);

/* Whether a file name (a path's last component) is of a class that holds
 * secrets: .env files, npm's and the other package managers' credential
 * files, private keys and certificates. */
bool learn_reach_secret_name(const char *name);

/* The toolchain under home, relative to it (".nvm", ".volta", ...),
 * NULL-terminated: reads there and in the read-only caches the sandbox
 * shows (sandbox_home_caches) are learned; everything else under home
 * needs a person. */
extern const char *const learn_reach_home_toolchain[];

#endif
