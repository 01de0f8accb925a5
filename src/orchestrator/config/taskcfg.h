/* taskcfg.h - what a task of a configuration holds: its fields and the
 * values they are made of (a string with its place, a list of grants, a
 * sandbox: block). Its own header so that schema.c, whose rows describe
 * these fields, and config.c, which reads a file through those rows, both
 * include it and neither the other's. */
#ifndef VX_CONFIG_TASKCFG_H
#define VX_CONFIG_TASKCFG_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
