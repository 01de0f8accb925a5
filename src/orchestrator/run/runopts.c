/* runopts.c - the options of `vx run` and `vx graph`, one row each. */
#include "orchestrator/run/runopts.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/run/taskcache.h"
#include "orchestrator/run/tui.h"
#include "orchestrator/plan/shard.h"
#include "util/die.h"
#include "util/parseopt.h"

void run_opts_free(struct run_opts *o)
{
	strvec_clear(&o->tasks);
	strvec_clear(&o->filters);
	strvec_clear(&o->args);
	strvec_clear(&o->shard_timings);
	strvec_clear(&o->global_deps);
	free(o->affected_ref);
	free(o->summary_path);
}

static int affected_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	o->affected = true;
	free(o->affected_ref);
	o->affected_ref = arg ? xstrdup(arg) : NULL;
	return 0;
}

/* --dry-run[=json], and --dry[=text|json], Turborepo's spelling, whose
 * json is Turborepo's shape (dryrun_print_turbo); --dry-run=json is vx's. */
static int dry_run_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	bool turbo = !strcmp(row->long_name, "dry");
	if (arg && strcmp(arg, "text") && strcmp(arg, "json"))
		return error("--%s takes %s, not \"%s\"", row->long_name,
			     turbo ? "=text or =json" : "=json or nothing", arg);
	o->dry_run = !arg || !strcmp(arg, "text") ? DRY_RUN_TEXT
		     : turbo			  ? DRY_RUN_TURBO_JSON
						  : DRY_RUN_JSON;
	return 0;
}

/* --continue[=never|dependencies-successful|always], Turborepo's values;
 * bare, vx's meaning: dependencies-successful (Turborepo's bare is always). */
static int continue_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	if (!arg || !strcmp(arg, "dependencies-successful")) {
		o->keep_going = true;
		o->past_failure = false;
	} else if (!strcmp(arg, "always")) {
		o->keep_going = o->past_failure = true;
	} else if (!strcmp(arg, "never")) {
		o->keep_going = o->past_failure = false;
	} else {
		return error("--continue takes never, dependencies-successful or always, not "
			     "\"%s\"",
			     arg);
	}
	return 0;
}

static int graph_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	o->graph = true;
	o->graph_file = arg && *arg ? arg : NULL;
	return 0;
}

static int output_logs_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	if (output_logs_parse(arg) < 0)
		return error("--output-logs takes full, new-only, errors-only, hash-only or none, "
			     "not \"%s\"",
			     arg);
	o->logs = (enum output_logs)output_logs_parse(arg);
	o->logs_set = true;
	return 0;
}

static int summarize_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	o->summarize = true;
	free(o->summary_path);
	o->summary_path = arg ? xstrdup(arg) : NULL;
	return 0;
}

static int shard_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	if (shard_parse(arg, &o->shard_index, &o->shard_count))
		return -1;
	o->shard = arg;
	return 0;
}

/* -j N, or Turborepo's N% of the CPUs (at least 1). */
static int concurrency_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	char *end;
	long n = strtol(arg, &end, 10);
	if (end != arg && *end == '%' && !end[1] && n >= 1 && n <= 100) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		long j = (ncpu > 0 ? ncpu : 1) * n / 100;
		o->concurrency = j < 1 ? 1 : (int)j;
		return 0;
	}
	if (end == arg || *end || n < 1 || n > 4096)
		return error("--concurrency %s: write N (1 to 4096), or N%% of the CPUs (1%% to "
			     "100%%)",
			     arg);
	o->concurrency = (int)n;
	return 0;
}

/* --token, --team: the remote cache's, as Turborepo's flags (over the
 * environment; never printed, never passed to a task). */
static int remote_env_cb(const struct opt *row, const char *arg)
{
	setenv(!strcmp(row->long_name, "token") ? "VX_REMOTE_CACHE_TOKEN" : "VX_REMOTE_CACHE_TEAM",
	       arg, 1);
	return 0;
}

/* --cache=local:rw,remote:r (Turborepo's; ';' separates too): each side
 * named with what it does, r, w, both or nothing; a side not named is off. */
static int cache_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	o->cache_set = true;
	o->cache_local = o->cache_remote = 0;
	for (const char *s = arg; *s;) {
		size_t n = strcspn(s, ",;");
		const char *colon = memchr(s, ':', n);
		int *side = NULL, bits = 0;
		if (colon && colon - s == 5 && !memcmp(s, "local", 5))
			side = &o->cache_local;
		else if (colon && colon - s == 6 && !memcmp(s, "remote", 6))
			side = &o->cache_remote;
		for (const char *c = colon ? colon + 1 : s; side && c < s + n; c++)
			if (*c == 'r' && !(bits & CACHE_R))
				bits |= CACHE_R;
			else if (*c == 'w' && !(bits & CACHE_W))
				bits |= CACHE_W;
			else
				side = NULL;
		if (!side)
			return error("--cache: '%.*s' is not local:[r][w] or remote:[r][w] "
				     "(as --cache=local:rw,remote:r)",
				     (int)n, s);
		*side = bits;
		s += n + (s[n] != '\0');
	}
	return 0;
}

/* --remote-cache-read-only: --cache=local:rw,remote:r. */
static int remote_read_only_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	(void)arg;
	o->cache_set = true;
	o->cache_local = CACHE_R | CACHE_W;
	o->cache_remote = CACHE_R;
	return 0;
}

/* OPT_SET_INT writes an int (OPT_ENUM checks its own) */
_Static_assert(sizeof(enum remote_mode) == sizeof(int), "an option's enum is an int");
static const char *const report_modes[] = {
    [REPORT_TEXT] = "text",	[REPORT_JSON] = "json", [REPORT_SARIF] = "sarif",
    [REPORT_GITHUB] = "github", [REPORT_NONE] = NULL,
};
static const char *const log_orders[] = {
    [LOG_ORDER_STREAM] = "stream",
    [LOG_ORDER_GROUPED] = "grouped",
    [LOG_ORDER_AUTO] = "auto",
    NULL,
};
static const char *const log_prefixes[] = {
    [LOG_PREFIX_AUTO] = "auto",
    [LOG_PREFIX_NONE] = "none",
    [LOG_PREFIX_TASK] = "task",
    NULL,
};
static const char *const ui_modes[] = {
    [UI_STREAM] = "stream",
    [UI_TUI] = "tui",
    [UI_AUTO] = NULL,
};
static const char *const env_modes[] = {
    [ENV_MODE_STRICT] = "strict",
    [ENV_MODE_LOOSE] = "loose",
    [ENV_MODE_CONFIG] = NULL,
};
static const char *const graph_formats[] = {
    [GRAPH_DOT] = "dot",
    [GRAPH_JSON] = "json",
    [GRAPH_TEXT] = "text",
    NULL,
};

static const struct opt_usage run_usage = {
    "usage: vx run TASK... [options] [-- ARGS]\n"
    "\n"
    "Runs the tasks in every selected project, and the tasks they depend on.\n"
    "\n",
    "  -C DIR                 run as if started in DIR\n"
    "  -- ARGS                appended, shell-quoted, to the requested tasks' commands\n"
    "\n" RUN_EXIT_STATUS};

static const struct opt_usage graph_usage = {
    "usage: vx graph TASK... [options]\n"
    "\n"
    "Prints the task graph the same run would build, without running anything.\n"
    "\n",
    "  -C DIR                 as if started in DIR\n"};

#define FILTER_ROW(o)                                                                              \
	OPT_STRVEC('F', "filter", &(o)->filters, "PATTERN",                                        \
		   "only projects matching PATTERN (a name glob or ./dir);\n"                      \
		   "PATTERN... adds dependencies, ...PATTERN dependents,\n"                        \
		   "!PATTERN takes away; repeatable")
#define AFFECTED_ROW(o)                                                                            \
	OPT_CALLBACK(0, "affected", (o), "REF", true, affected_cb,                                 \
		     "only projects changed since REF (default: merge base with\n"                 \
		     "main) and their dependents")

struct opt *run_opts_rows(struct run_opts *o, bool graph)
{
	const struct opt run_rows[] = {
	    FILTER_ROW(o),
	    AFFECTED_ROW(o),
	    OPT_CALLBACK('j', "concurrency", o, "N", false, concurrency_cb,
			 "tasks at once, or N% of the CPUs (default: the number of CPUs)"),
	    OPT_BOOL(0, "force", &o->force, "ignore cache hits"),
	    OPT_BOOL(0, "no-cache", &o->no_cache, "neither read nor write the cache"),
	    OPT_CALLBACK(0, "continue", o, "WHEN", true, continue_cb,
			 "keep running tasks after a failure: those whose\n"
			 "dependencies succeeded (bare, =dependencies-successful),\n"
			 "every one (=always; never saved when built on a failure)"),
	    OPT_SET_INT(0, "no-remote", &o->remote, REMOTE_OFF,
			"neither read nor write the remote cache"),
	    OPT_SET_INT(0, "remote-only", &o->remote, REMOTE_ONLY,
			"hits come from the remote cache alone, not the local one"),
	    OPT_CALLBACK(0, "cache", o, "SPEC", false, cache_cb,
			 "what the run reads and writes, Turborepo's way:\n"
			 "local:[r][w],remote:[r][w]; a side not named is off\n"
			 "(default local:rw,remote:rw)"),
	    OPT_BOOL(0, "single-package", &o->single_package,
		     "the root package alone, its scripts and turbo.json's tasks\n"
		     "its own (Turborepo's; on by itself without workspaces)"),
	    OPT_CALLBACK(0, "remote-cache-read-only", o, NULL, false, remote_read_only_cb,
			 "read the remote cache, never write it\n"
			 "(--cache=local:rw,remote:r)"),
	    OPT_STRING(0, "explain-key", &o->explain_key, "PROJECT#TASK",
		       "print what that task's key folds, each\n"
		       "ingredient with its hash, and run nothing"),
	    OPT_ENUM(0, "env-mode", &o->env_mode, env_modes, "MODE",
		     "strict: an unsandboxed task sees only the variables\n"
		     "its key or a pass-through list names; loose: all\n"
		     "(default: turbo.json's envMode, strict with a\n"
		     "turbo.json, else loose)"),
	    OPT_ENUM(0, "framework-inference", &o->framework_inference, parseopt_bools, "BOOL",
		     "false: a package's framework (next, vite, ...) adds\n"
		     "no public variables (NEXT_PUBLIC_*, ...) to its keys\n"
		     "(default: true, as Turborepo)"),
	    OPT_CALLBACK(0, "shard", o, "I/N", false, shard_cb,
			 "run the part I of N of the tasks (a CI matrix job), and what\n"
			 "it needs that the remote cache does not hold yet"),
	    OPT_STRVEC(0, "shard-timings", &o->shard_timings, "PATH",
		       "run summaries (a file or a directory of them) whose\n"
		       "durations balance the split; every shard must get the same"),
	    OPT_INT(0, "shard-wait", &o->shard_wait_s, "SECONDS", 0, 86400,
		    "how long to wait for another shard's upload of a task\n"
		    "this one needs before building it here (default 600)"),
	    OPT_BOOL(0, "only", &o->only,
		     "run only the named tasks, not what they depend on (their\n"
		     "outputs are taken as they are on disk; not saved to the cache)"),
	    OPT_CALLBACK(0, "graph", o, "FILE", true, graph_cb,
			 "write the task graph and run nothing: dot on stdout, or\n"
			 "FILE by its extension (.dot .json .mermaid .html; .svg\n"
			 ".png .pdf through graphviz)"),
	    OPT_STRING(0, "profile", &o->profile, "FILE",
		       "write the run as a Chrome trace (open it in Perfetto)"),
	    OPT_BOOL(0, "parallel", &o->parallel,
		     "Turborepo's: the named tasks at once, ignoring the graph (--only)"),
	    OPT_CALLBACK(0, "dry", o, "json", true, dry_run_cb,
			 "Turborepo's spelling: =json prints its --dry=json document\n"
			 "(taskId, hash, inputs as a map, dependents, ...)"),
	    OPT_CALLBACK(0, "dry-run", o, "json", true, dry_run_cb,
			 "print what would run and hit, with keys; run nothing"),
	    OPT_CALLBACK(0, "summarize", o, "FILE", true, summarize_cb,
			 "write the run summary JSON (default .vx/runs/<id>.json)"),
	    OPT_CALLBACK(0, "output-logs", o, "MODE", false, output_logs_cb,
			 "full|new-only|errors-only|hash-only|none (over each\n"
			 "task's outputLogs)"),
	    OPT_ENUM(0, "report", &o->report, report_modes, "MODE",
		     "text|json|sarif|github: failures, violations and fixes\n"
		     "(json, sarif: one document on stdout; the run's lines go to stderr)"),
	    OPT_COUNT('v', "verbose", &o->verbose, "say more"),
	    OPT_STRING(0, "cache-dir", &o->cache_dir, "DIR",
		       "the local cache (relative: under the workspace root)"),
	    OPT_ENUM(0, "log-order", &o->log_order, log_orders, "ORDER",
		     "stream|grouped|auto: a task's lines as they come, or as\n"
		     "one block when it ends (auto: grouped when -j > 1 and\n"
		     "stdout is no terminal)"),
	    OPT_STRVEC(0, "global-deps", &o->global_deps, "GLOB",
		       "workspace files every task's key holds, beside the\n"
		       "config's (turbo.json globalDependencies); repeatable"),
	    OPT_ENUM(0, "log-prefix", &o->log_prefix, log_prefixes, "PREFIX",
		     "auto|task: a task's lines begin \"ID: \"; none: as the task\n"
		     "printed them (vx's own lines keep theirs)"),
	    OPT_CALLBACK(0, "token", o, "TOKEN", false, remote_env_cb,
			 "the remote cache's token (over VX_REMOTE_CACHE_TOKEN)"),
	    OPT_CALLBACK(0, "team", o, "SLUG", false, remote_env_cb,
			 "the remote cache's team (over VX_REMOTE_CACHE_TEAM)"),
	    OPT_ENUM(0, "ui", &o->ui, ui_modes, "MODE",
		     "tui: a task list beside the selected task's output (the\n"
		     "default on a terminal, outside CI); stream: each line as it\n"
		     "comes, under its task's prefix (the default otherwise)"),
	    OPT_BOOL(0, "daemon", &o->daemon, "accepted: vx has no daemon"),
	    OPT_BOOL(0, "no-daemon", &o->daemon, "accepted: vx has no daemon"),
	    /* vx watch's own: it runs each server as `vx run ID --only
	     * --served-by=ITS_PID` (watch/servers.c) */
	    OPT_INT(0, "served-by", &o->served_by, "PID", 1, INT_MAX, NULL),
	    OPT_HELP(),
	    OPT_END(),
	};
	const struct opt graph_rows[] = {
	    FILTER_ROW(o),
	    AFFECTED_ROW(o),
	    OPT_ENUM(0, "format", &o->format, graph_formats, "FORMAT",
		     "dot, json, or text: a tree a person reads (default json)"),
	    OPT_HELP(),
	    OPT_END(),
	};
	return parseopt_copy(graph ? graph_rows : run_rows);
}

/* What one option implies of others, said where it changes nothing. */
static void opts_settle(struct run_opts *o)
{
	if (o->explain_key)
		o->dry_run = DRY_RUN_TEXT; /* nothing runs, nothing is written */
	if (o->parallel && !o->only) {
		o->only = true;
		fprintf(stderr, "vx: --parallel runs the named tasks only, ignoring what they "
				"depend on, as --only\n");
	}
	if (o->daemon)
		fprintf(stderr, "vx: --daemon and --no-daemon change nothing: vx has no daemon\n");
	if (!o->tasks.n && o->explain_key)
		strvec_push(&o->tasks, o->explain_key);
}

bool run_opts_tui(const struct run_opts *o)
{
	bool asked = o->ui == UI_TUI;
	const char *term = getenv("TERM"), *ci = getenv("CI"), *why = NULL;
	if (o->ui == UI_STREAM)
		return false;
	if (o->served_by || o->dry_run || o->explain_key || o->report == REPORT_JSON ||
	    o->report == REPORT_SARIF)
		why = "this run's stdout is not a screen (a report, a dry run, a server of vx "
		      "watch's)";
	else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		why = "it needs a terminal on stdin and stdout";
	else if (ci && *ci && !asked)
		return false; /* CI's log is a file, whatever its runner's pty says */
	else if (!term || !strcmp(term, "dumb"))
		why = "TERM is dumb or not set";
	else if (!tui_usable(&why))
		asked = true; /* a terminal vx cannot draw on is said even unasked */
	if (!why)
		return true;
	if (asked)
		fprintf(stderr, "vx: no terminal UI: %s; streaming\n", why);
	return false;
}

int run_opts_parse(int argc, char **argv, bool graph, struct run_opts *o)
{
	struct opt *rows = run_opts_rows(o, graph);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o->concurrency = ncpu > 0 ? (int)ncpu : 1;
	o->format = GRAPH_JSON;
	o->env_mode = ENV_MODE_CONFIG;
	o->framework_inference = OPT_UNSET;
	o->ui = UI_AUTO;
	o->shard_wait_s = 600;
	o->report = REPORT_NONE;
	o->log_order = LOG_ORDER_AUTO;
	const struct opt_usage *usage = graph ? &graph_usage : &run_usage;
	int rc = parseopt(argc, argv, rows, usage, &o->tasks, &o->args);
	if (!rc)
		opts_settle(o);
	if (!rc && !o->tasks.n) {
		rc = error("name at least one task");
		parseopt_usage_hint(usage, stderr);
	}
	free(rows);
	return rc;
}
