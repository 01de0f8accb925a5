/* runopts.h - `vx run`'s and `vx graph`'s command line, parsed: one table
 * row per option (util/parseopt.h), the usage printed from the rows. */
#ifndef VX_RUN_RUNOPTS_H
#define VX_RUN_RUNOPTS_H

#include <stdbool.h>

#include "orchestrator/run/output.h"
#include "orchestrator/run/taskcache.h"
#include "util/parseopt.h"
#include "util/vec.h"

/* What a run's exit status means (SPEC §3), the end of `vx run --help`
 * and `vx --help` (issue 56 item 6). */
#define RUN_EXIT_STATUS                                                                            \
	"exit status: 0 every task succeeded or hit the cache\n"                                   \
	"             1 a task failed, timed out or had a sandbox violation\n"                     \
	"             2 a usage or configuration error, or a sandbox this platform\n"              \
	"               cannot give a task that asks for one\n"                                    \
	"             130 interrupted (Ctrl-C, SIGTERM)\n"

/* --cache's bits of a side. */
enum { CACHE_R = 1, CACHE_W = 2 };

/* The words of the options below, each parsed once into its enum by the
 * option's row (parseopt's OPT_ENUM: the enum's order is the order an
 * error lists the words in). */
enum dry_run {
	DRY_RUN_OFF,
	DRY_RUN_TEXT,	    /* --dry-run, --dry, --dry=text */
	DRY_RUN_JSON,	    /* --dry-run=json: vx's document */
	DRY_RUN_TURBO_JSON, /* --dry=json: Turborepo's (dryrun_print_turbo) */
};
enum run_report { REPORT_TEXT, REPORT_JSON, REPORT_SARIF, REPORT_GITHUB, REPORT_NONE };
enum log_order { LOG_ORDER_STREAM, LOG_ORDER_GROUPED, LOG_ORDER_AUTO };
enum log_prefix { LOG_PREFIX_AUTO, LOG_PREFIX_NONE, LOG_PREFIX_TASK };
enum run_ui { UI_STREAM, UI_TUI, UI_AUTO /* not given: by the terminal */ };
enum env_mode { ENV_MODE_STRICT, ENV_MODE_LOOSE, ENV_MODE_CONFIG /* not given */ };
enum graph_format { GRAPH_DOT, GRAPH_JSON, GRAPH_TEXT };

struct run_opts {
	struct strvec tasks;   /* TASK... */
	struct strvec filters; /* --filter, as written */
	bool affected;
	char *affected_ref; /* NULL: the merge base with main */
	int concurrency;
	bool force, no_cache, keep_going;
	bool past_failure; /* --continue=always: a failed task's dependents run too
			    * (never saved: built on what failed) */
	enum dry_run dry_run;
	bool summarize;
	char *summary_path; /* --summarize=FILE; NULL: .vx/runs/<id>.json */
	enum output_logs logs;
	bool logs_set; /* --output-logs given: it wins over each task's outputLogs */
	int verbose;
	enum run_report report;	  /* --report; REPORT_NONE: not given */
	struct strvec args;	  /* after "--" */
	enum graph_format format; /* graph: --format, GRAPH_JSON when not given */
	bool only;		  /* --only: the named tasks, not what they depend on */
	bool parallel;		  /* --parallel, Turborepo's: --only */
	const char *profile;	  /* --profile FILE: the run as a Chrome trace */
	enum remote_mode remote;  /* --no-remote, --remote-only */
	/* --cache=local:[r][w],remote:[r][w] (Turborepo's), and
	 * --remote-cache-read-only: each side's CACHE_R|CACHE_W; a side
	 * not named is off. Only when cache_set; --force, --no-cache,
	 * --no-remote and --remote-only still take away what they say. */
	bool cache_set;
	bool single_package; /* --single-package: the root package alone (Turborepo's) */
	int cache_local, cache_remote;
	const char *shard;		       /* --shard I/N, as written; NULL: none */
	unsigned shard_index, shard_count;     /* its part (0-based) and count, parsed */
	struct strvec shard_timings;	       /* --shard-timings PATH... */
	int shard_wait_s;		       /* --shard-wait SECONDS */
	int served_by;			       /* --served-by PID (vx watch's server runs): 0 no */
	enum env_mode env_mode;		       /* --env-mode; ENV_MODE_CONFIG: the config's */
	enum opt_tristate framework_inference; /* --framework-inference; OPT_UNSET: true */
	const char *explain_key; /* --explain-key PROJECT#TASK: its key's ingredients */
	/* Turborepo's spellings (issue 42): */
	const char *cache_dir;	    /* --cache-dir DIR: the local cache, under the workspace root
				     * when relative (as turbo.json's cacheDir); NULL: the config's */
	enum log_order log_order;   /* --log-order; LOG_ORDER_AUTO when not given */
	enum run_ui ui;		    /* --ui; UI_AUTO when not given: by the terminal */
	bool tui;		    /* set by run_main (run_opts_tui): the run is drawn as a
				     * terminal UI; vx watch's runs stream */
	enum log_prefix log_prefix; /* --log-prefix; LOG_PREFIX_AUTO ("ID: ") when not given */
	struct strvec global_deps;  /* --global-deps GLOB...: more of turbo.json's
				     * globalDependencies (workspace.inputs.workspaceFiles) */
	bool graph;		    /* --graph[=FILE]: write the task graph, run nothing */
	const char *graph_file; /* its FILE (the format by its extension); NULL: dot on stdout */
	bool daemon;		/* --daemon or --no-daemon: vx has none */
};

/* Returns the rows of `vx run`'s options (graph: `vx graph`'s), each
 * bound to its field of o, malloc'd (parseopt_copy): the table the parser
 * reads and `vx completion` completes from. */
struct opt *run_opts_rows(struct run_opts *o, bool graph);
/* Parses argv (argv[0] the verb) into o, as `vx run` or, graph, as `vx
 * graph`. Returns 0; 1 after --help; -1 after an error line. */
int run_opts_parse(int argc, char **argv, bool graph, struct run_opts *o);
void run_opts_free(struct run_opts *o);
/* Whether --report asks for a document (json, sarif, github) after the
 * run, beside the run's own text. */
static inline bool run_opts_report_doc(const struct run_opts *o)
{
	return o->report != REPORT_NONE && o->report != REPORT_TEXT;
}
/* Whether `vx run` draws the terminal UI: --ui=tui, or no --ui on a
 * terminal (stdin and stdout), outside CI ($CI set), with a TERM that is
 * not dumb and that terminfo knows; never for a report on stdout, a dry
 * run or a server of vx watch's. Says on stderr why not when tui was
 * asked for, or when the terminal has no terminfo entry. */
bool run_opts_tui(const struct run_opts *o);

#endif
