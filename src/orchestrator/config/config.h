/* config.h - the parsed and validated vx.yaml files (SPEC §2.1-2.2). */
#ifndef VX_CONFIG_CONFIG_H
#define VX_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/taskcfg.h"
#include "util/strbuf.h"
#include "util/vec.h"

struct remote_cfg {
	char *url, *token, *team, *team_id; /* team: the slug (slug=); team_id: teamId= */
	bool read, write;		    /* default true */
	bool signature;			    /* sign uploads, verify downloads (x-artifact-tag) */
	long long timeout_ms;		    /* per request; 0: the client's default */
	struct loc loc;
};

/* One vx.yaml: a project's, or the workspace root's (which may also be a project). */
struct config {
	char *path;	   /* absolute path of the vx.yaml; every loc.file points here */
	char *turbo_path;  /* the root's turbo.json, when one was read (turbo.c): the
			    * locs of what came from it point here */
	bool is_workspace; /* has a workspace: key */

	/* workspace: (is_workspace only) */
	lstr_vec projects; /* project directory globs; none written: package.json workspaces */
	bool projects_set;
	char *cache_dir;	  /* relative to the workspace root; default ".vx/cache" */
	struct loc cache_dir_loc; /* where cache.dir was written; file NULL: not written */
	long long cache_max_size; /* bytes; default 5 GiB */
	int cache_compression;	  /* zstd level; default 3 */
	struct remote_cfg *remote;
	lstr_vec ws_input_files, ws_input_env;
	/* strict: an unsandboxed task sees only the variables its key names,
	 * the pass-through lists and a few every tool needs (taskenv.c), as in
	 * Turborepo 2; loose: the whole environment. turbo.json's envMode
	 * (strict when a turbo.json is read), `vx run --env-mode`. */
	bool env_strict;
	bool no_framework_inference; /* --framework-inference=false (framework.h) */
	lstr_vec ws_env_pass;	     /* turbo.json globalPassThroughEnv: passed, not keyed */

	/* project keys */
	struct lstr name;    /* s NULL: not written */
	lstr_vec depends_on; /* project names */
	task_vec tasks;	     /* for a workspace file: the defaults every project inherits,
			      * and "//#name" tasks of the root project alone */
};

/* Parses the vx.yaml at path (absolute). On any error prints one line
 * "vx: FILE:LINE:COL: MESSAGE" and returns NULL. */
struct config *config_load(const char *path);
/* Parses text as if read from path; the same contract as config_load.
 * Used by config_load, the unit tests and the fuzzer. */
struct config *config_parse(const char *path, const char *text, size_t len);
/* A config of path with nothing written: every default. */
struct config *config_new(const char *path);
void config_free(struct config *cfg);

/* Returns the project's own task with the workspace default of the same name
 * merged under it field by field; either may be NULL (not both). The result
 * is a new task the caller frees with task_cfg_free. */
struct task_cfg *config_task_merge(const struct task_cfg *project, const struct task_cfg *defaults);
/* Returns the task named name in cfg, or NULL. */
struct task_cfg *config_find_task(const struct config *cfg, const char *name);
void task_cfg_free(struct task_cfg *t);

/* Expands ${VAR} in a value from the environment, as the loader does; "$${"
 * is a literal "${". Returns 0 with *out (caller frees), or -1 with the
 * reason in why (an unset variable, a bad name, an unclosed "${"). */
int config_expand(const char *in, char **out, struct strbuf *why);

/* Prints "vx: FILE:LINE:COL: MESSAGE" for l and returns -1. */
int config_error(const struct loc *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The most a configuration file (vx.yaml, turbo.json[c], package.json,
 * pnpm-workspace.yaml) may hold (issue 57 item 4): a 50 MB turbo.json of
 * 3 000 000 globalDependencies was still loading at 30 s with 700 MB
 * resident; at this bound a load costs about a second at most
 * (docs/config.md "Known limits"). Lockfiles, which package managers
 * write, are not configurations: STRBUF_READ_MAX bounds them. */
#define CONFIG_MAX_MIB 4
/* Returns 0 when len bytes read from path are within CONFIG_MAX_MIB, else
 * -1 after the error line "PATH: N bytes, more than 4 MiB, the most a
 * configuration file may hold". */
int config_check_size(const char *path, size_t len);

/* Parses a duration ("90s", "10m", "1h", "1h30m", "250ms"). Returns 0 and
 * sets *ms, or -1 when the text is not a duration. */
int config_parse_duration(const char *s, long long *ms);
/* Parses a size ("5GiB", "500MB", "1024") of one byte or more. Returns 0
 * and sets *bytes, or -1. */
int config_parse_size(const char *s, long long *bytes);

#endif
