/* config.h - the parsed and validated vx.yaml files (SPEC §2.1-2.2). */
#ifndef VX_CONFIG_CONFIG_H
#define VX_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/vec.h"

/* Where a value stood: file, 1-based line and column. file is shared, not owned. */
struct loc {
	const char *file;
	int line, col;
};

/* A string with the place it was written. */
struct lstr {
	char *s;
	struct loc loc;
};
typedef VEC(struct lstr) lstr_vec;
/* Frees each string and the vector. */
void lstr_vec_free(lstr_vec *v);
/* Appends each string of v (copied) to out. */
void lstr_vec_strings(const lstr_vec *v, struct strvec *out);

/* How a task's output is shown (outputLogs, --output-logs). */
enum output_logs { LOGS_FULL, LOGS_ERRORS_ONLY, LOGS_HASH_ONLY, LOGS_NONE, LOGS_NEW_ONLY };
/* "full", "errors-only", "hash-only", "none", "new-only" (Turborepo's
 * words): the mode, or -1. */
int output_logs_parse(const char *s);

/* A "list or true" value: `network: true` or `network: [hosts]`. */
struct grant_list {
	bool any;	/* true was written */
	struct loc loc; /* where the value stood (a `true` has no entry to point at) */
	lstr_vec list;
};

struct sandbox_cfg {
	struct loc loc; /* the `sandbox:` key: where reports point */
	lstr_vec allow_read, allow_write;
	struct grant_list allow_network;
	struct grant_list local_binding; /* list holds port numbers as text */
	struct grant_list unix_sockets;
	bool pty, git_config;
	lstr_vec mach_lookup; /* macOS: the Mach services it may look up (allow.machLookup) */
	lstr_vec system_info; /* macOS: the sysctl names it may read (allow.systemInfo) */
	lstr_vec deny_network;
	lstr_vec ignore_read, ignore_write, ignore_network;
	bool hermetic, weaker_when_nested;
	bool no_verify_key; /* verifyKey: false: reads are not checked against the key */
};

struct kv {
	char *key, *value;
	struct loc loc;
};
typedef VEC(struct kv) kv_vec;

/* Which fields of a task were written, so workspace defaults merge field by
 * field under a project's own task (config_task_merge). */
enum task_field {
	TF_COMMAND = 1u << 0,
	TF_DEPENDS_ON = 1u << 1,
	TF_INPUT_FILES = 1u << 2,
	TF_INPUT_WS_FILES = 1u << 3,
	TF_INPUT_ENV = 1u << 4,
	TF_OUTPUTS = 1u << 5,
	TF_CACHE = 1u << 6,
	TF_PERSISTENT = 1u << 7,
	TF_TIMEOUT = 1u << 8,
	TF_ENV_DEFINE = 1u << 9,
	TF_ENV_PASS = 1u << 10,
	TF_ENV_PASS_SECRETS = 1u << 11,
	TF_SANDBOX = 1u << 12,
	TF_RESTART = 1u << 13,
	TF_WITH = 1u << 14,
	TF_OUTPUT_LOGS = 1u << 15,
	TF_TOOLCHAIN = 1u << 16,
};

struct task_cfg {
	char *name;
	struct loc loc;	     /* the task's key in its tasks: mapping */
	unsigned set;	     /* enum task_field bits written in this file */
	unsigned inherited;  /* bits that came from the workspace defaults */
	struct lstr command; /* s NULL: none written */
	lstr_vec depends_on; /* "^build", "build", "proj#build" as written */
	lstr_vec with;	     /* "task", "proj#task": run alongside (turbo.json's with):
			      * in the graph when this task is, with no edge */
	lstr_vec input_files, input_ws_files, input_env;
	lstr_vec toolchain; /* inputs.toolchain: programs keyed by content (names on the
			     * task's PATH, or paths); not written: the command's first */
	lstr_vec outputs;   /* "!" prefixed entries take matches back */
	bool cache;
	bool persistent;
	bool replaces;		 /* turbo.json's "pkg#task": replaces "task" for that package;
				  * a root vx.yaml's "pkg#task" overlays it field by field */
	struct lstr output_logs; /* full, new-only, errors-only, hash-only, none; s NULL:
				  * the run's (--output-logs) */
	struct lstr restart;	 /* "auto", "on-input-change" or "never" (vx watch, a
				  * persistent task; docs/watch.md); s NULL: not
				  * written, auto */
	long long timeout_ms;	 /* 0: none */
	kv_vec env_define;
	lstr_vec env_pass, env_pass_secrets;
	struct sandbox_cfg *sandbox; /* NULL: no sandbox: block */
};
typedef VEC(struct task_cfg *) task_vec;

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
