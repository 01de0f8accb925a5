/* run.c - `vx run` and `vx graph`: parses the options, loads the workspace,
 * selects projects, builds the task graph and hands the scheduler one job per
 * task. Nothing runs until the whole configuration has been checked. */
#include "run/run.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keys/externals.h"
#include "plan/filter.h"
#include "plan/graph.h"
#include "run/output.h"
#include "run/runlog.h"
#include "run/sandbox_job.h"
#include "plan/shard.h"
#include "run/scheduler.h"
#include "run/summary.h"
#include "keys/taskenv.h"
#include "run/taskcache.h"
#include "config/workspace.h"
#include "keys/listing.h"
#include "run/wslock.h"
#include "util/die.h"
#include "util/glob.h"
#include "util/loop.h"
#include "util/parseopt.h"
#include "util/path.h"
#include "util/rundir.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "violations/report.h"

extern char **environ;

struct run_opts {
	struct strvec tasks;   /* TASK... */
	struct strvec filters; /* --filter, as written */
	bool affected;
	char *affected_ref; /* NULL: the merge base with main */
	int concurrency;
	bool force, no_cache, keep_going;
	int dry_run; /* 0 no, 1 text, 2 json */
	bool summarize;
	char *summary_path; /* --summarize=FILE; NULL: .vx/runs/<id>.json */
	enum output_logs logs;
	bool logs_set;      /* --output-logs given: it wins over each task's outputLogs */
	int verbose;
	const char *report; /* text, json, sarif, github */
	struct strvec args; /* after "--" */
	const char *format; /* graph: dot or json */
	bool only;          /* --only: the named tasks, not what they depend on */
	int remote;         /* enum remote_mode: --no-remote, --remote-only */
	const char *shard;  /* --shard I/N, as written; NULL: none */
	unsigned shard_index, shard_count; /* its part (0-based) and count, parsed */
	struct strvec shard_timings; /* --shard-timings PATH... */
	int shard_wait_s;   /* --shard-wait SECONDS */
	int served_by;      /* --served-by PID (vx watch's server runs): 0 no */
	const char *env_mode; /* --env-mode strict|loose; NULL: the config's */
	const char *explain_key; /* --explain-key PROJECT#TASK: its key's ingredients */
};

static void run_opts_free(struct run_opts *o)
{
	strvec_clear(&o->tasks);
	strvec_clear(&o->filters);
	strvec_clear(&o->args);
	strvec_clear(&o->shard_timings);
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

static int dry_run_cb(const struct opt *row, const char *arg)
{
	struct run_opts *o = row->value;
	if (arg && strcmp(arg, "text") && strcmp(arg, "json"))
		return error("--dry-run takes =json or nothing, not \"%s\"", arg);
	o->dry_run = arg && !strcmp(arg, "json") ? 2 : 1;
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

static const char *const report_modes[] = {"text", "json", "sarif", "github", NULL};
static const char *const env_modes[] = {"strict", "loose", NULL};
static const char *const graph_formats[] = {"dot", "json", NULL};

static const struct opt_usage run_usage = {
    "usage: vx run TASK... [options] [-- ARGS]\n"
    "\n"
    "Runs the tasks in every selected project, and the tasks they depend on.\n"
    "\n",
    "  -C DIR                 run as if started in DIR\n"
    "  -- ARGS                appended, shell-quoted, to the requested tasks' commands\n"};

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

/* Parses argv (argv[0] the verb) into o, as `vx run` or, graph, as `vx
 * graph`. Returns 0; 1 after --help; -1 after an error line. */
static int parse_opts(int argc, char **argv, bool graph, struct run_opts *o)
{
	const struct opt run_rows[] = {
	    FILTER_ROW(o),
	    AFFECTED_ROW(o),
	    OPT_INT('j', "concurrency", &o->concurrency, "N", 1, 4096,
		    "tasks at once (default: the number of CPUs)"),
	    OPT_BOOL(0, "force", &o->force, "ignore cache hits"),
	    OPT_BOOL(0, "no-cache", &o->no_cache, "neither read nor write the cache"),
	    OPT_BOOL(0, "continue", &o->keep_going, "keep running independent tasks after a failure"),
	    OPT_SET_INT(0, "no-remote", &o->remote, REMOTE_OFF,
			"neither read nor write the remote cache"),
	    OPT_SET_INT(0, "remote-only", &o->remote, REMOTE_ONLY,
			"hits come from the remote cache alone, not the local one"),
	    OPT_STRING(0, "explain-key", &o->explain_key, "PROJECT#TASK",
		       "print what that task's key folds, each\n"
		       "ingredient with its hash, and run nothing"),
	    OPT_CHOICE(0, "env-mode", &o->env_mode, env_modes, "MODE",
		       "strict: an unsandboxed task sees only the variables\n"
		       "its key or a pass-through list names; loose: all\n"
		       "(default: turbo.json's envMode, strict with a\n"
		       "turbo.json, else loose)"),
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
	    OPT_CALLBACK(0, "dry-run", o, "json", true, dry_run_cb,
			 "print what would run and hit, with keys; run nothing"),
	    OPT_CALLBACK(0, "summarize", o, "FILE", true, summarize_cb,
			 "write the run summary JSON (default .vx/runs/<id>.json)"),
	    OPT_CALLBACK(0, "output-logs", o, "MODE", false, output_logs_cb,
			 "full|new-only|errors-only|hash-only|none (over each\n"
			 "task's outputLogs)"),
	    OPT_CHOICE(0, "report", &o->report, report_modes, "MODE",
		       "text|json|sarif|github: failures, violations and fixes\n"
		       "(json, sarif: one document on stdout; the run's lines go to stderr)"),
	    OPT_COUNT('v', "verbose", &o->verbose, "say more"),
	    /* vx watch's own: it runs each server as `vx run ID --only
	     * --served-by=ITS_PID` (watch/servers.c) */
	    OPT_INT(0, "served-by", &o->served_by, "PID", 1, INT_MAX, NULL),
	    OPT_HELP(),
	    OPT_END(),
	};
	const struct opt graph_rows[] = {
	    FILTER_ROW(o),
	    AFFECTED_ROW(o),
	    OPT_CHOICE(0, "format", &o->format, graph_formats, "FORMAT", "dot or json (default json)"),
	    OPT_HELP(),
	    OPT_END(),
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o->concurrency = ncpu > 0 ? (int)ncpu : 1;
	o->format = "json";
	o->shard_wait_s = 600;
	const struct opt_usage *usage = graph ? &graph_usage : &run_usage;
	int rc = parseopt(argc, argv, graph ? graph_rows : run_rows, usage, &o->tasks, &o->args);
	if (rc)
		return rc;
	if (o->explain_key)
		o->dry_run = 1; /* nothing runs, nothing is written */
	if (!o->tasks.n && o->explain_key)
		strvec_push(&o->tasks, o->explain_key);
	if (!o->tasks.n) {
		parseopt_usage(graph ? graph_rows : run_rows, usage, stderr);
		return error("name at least one task");
	}
	return 0;
}

/* Loads the workspace and builds the graph the options ask for. Returns 0,
 * or -1 after an error line. */
static int plan(const struct run_opts *o, struct workspace **wsp, struct graph *g, bool listing)
{
	char *cwd = path_absolute(".");
	struct workspace *ws = listing ? workspace_load_listing(cwd, listing_start, listing_abandon)
				       : workspace_load(cwd);
	if (!ws) {
		free(cwd);
		return -1;
	}
	if (o->env_mode)
		ws->cfg->env_strict = !strcmp(o->env_mode, "strict");
	size_t np = ws->projects.n;
	bool *selected = xcalloc(np + 1, 1);
	struct filter *filters = xcalloc(o->filters.n + 1, sizeof *filters);
	size_t nf = 0;
	int rc = 0;
	for (size_t i = 0; i < o->filters.n && !rc; i++, nf++)
		rc = filter_parse(o->filters.v[i], ws, cwd, &filters[i]);
	if (!rc)
		rc = filter_select(ws, filters, nf, selected);
	if (!rc && o->affected)
		rc = filter_affected(ws, o->affected_ref, selected);
	if (!rc)
		rc = graph_build(g, ws, o->tasks.v, o->tasks.n, selected);
	if (!rc)
		graph_append_args(g, o->args.v, o->args.n);
	for (size_t i = 0; i < nf; i++)
		filter_free(&filters[i]);
	free(filters);
	free(selected);
	free(cwd);
	if (rc) {
		graph_free(g);
		workspace_free(ws);
		return -1;
	}
	*wsp = ws;
	return 0;
}

/* Appends "name":[...strings...], */
static void json_list(struct strbuf *sb, const char *name, const char *const *v, size_t n)
{
	strbuf_addf(sb, "\"%s\":[", name);
	for (size_t k = 0; k < n; k++) {
		if (k)
			strbuf_addch(sb, ',');
		strbuf_add_json_string(sb, v[k]);
	}
	strbuf_addstr(sb, "],");
}

/* --explain-key: the task's key and each ingredient folded into it, in
 * the order folded, with its hash (a file's content hash, an env value's,
 * a dependency's key). Returns 0, or 2 when no task of the run has id. */
static int print_explain_key(const struct graph *g, const struct taskcache *tc, const char *id)
{
	static const struct {
		const char *prefix, *say;
	} kinds[] = {
	    {"//command", "command"},	  {"//platform", "platform"}, {"//env/", "env "},
	    {"//define/", "env.define "}, {"//sandbox", "sandbox"},   {"//outputs", "outputs"},
	    {"//dep/", "dependency "},	  {"//toolchain", "toolchain "},
	    {"//externals", "external dependencies (lockfile closure)"},
	    {"//lockfile", "lockfile it came from (not in the key)"},
	};
	for (size_t i = 0; i < g->nodes.n; i++) {
		if (strcmp(g->nodes.v[i]->id, id))
			continue;
		const struct task_inputs *f = &tc->facts[i];
		printf("%s: key %s\n", id, tc->keys[i]);
		for (size_t k = 0; k < f->paths.n; k++) {
			const char *name = f->paths.v[k];
			size_t j;
			for (j = 0; j < sizeof kinds / sizeof *kinds; j++)
				if (!strncmp(name, kinds[j].prefix, strlen(kinds[j].prefix)))
					break;
			struct strbuf what = STRBUF_INIT;
			if (j < sizeof kinds / sizeof *kinds)
				strbuf_addf(&what, "%s%s", kinds[j].say, name + strlen(kinds[j].prefix));
			else
				strbuf_addf(&what, "file %s", name);
			printf("  %-60s %s\n", what.buf, f->hashes[k][0] ? f->hashes[k] : "(unreadable)");
			strbuf_release(&what);
		}
		/* what its last traced run read, against its key */
		struct strvec reads = STRVEC_INIT;
		if (!taskcache_get_reads(tc, i, &reads)) {
			printf("%s: no traced run of it is recorded (a sandboxed, cached task's "
			       "run records what it read)\n",
			       id);
			return 0;
		}
		size_t count[3] = {0};
		for (size_t r = 0; r < reads.n; r++)
			count[reads.v[r][0] == 'U' ? 0 : reads.v[r][0] == 'K' ? 1 : 2]++;
		printf("%s: its last traced run read %zu files of the workspace its key held, %zu it "
		       "did not, and %zu outside the workspace (the toolchain's, or a grant's)\n",
		       id, count[1], count[0], count[2]);
		for (int pass = 0; pass < 2; pass++)
			for (size_t r = 0; r < reads.n; r++)
				if (reads.v[r][0] == (pass ? 'K' : 'U')) {
					const char *abs = reads.v[r] + 2;
					char *rel = path_is_within(g->ws->root, abs)
							? path_relative(g->ws->root, abs)
							: xstrdup(abs);
					printf("  %s %s\n", pass ? "in the key    " : "NOT in the key", rel);
					free(rel);
				}
		strvec_clear(&reads);
		return 0;
	}
	return error("--explain-key %s: no such task in this run (write PROJECT#TASK)", id), 2;
}

/* --dry-run (text or json, mode): each task, its key and whether it would
 * hit. owner: --shard's owner per node, with this run's part and the
 * count, or NULL. */
static void print_dry_run(const struct graph *g, const struct job *jobs, struct taskcache *tc,
			  int mode, const unsigned *owner, unsigned part, unsigned count)
{
	struct strbuf sb = STRBUF_INIT;
	if (mode == 2) {
		strbuf_addstr(&sb, "{\"version\":1,");
		if (owner)
			strbuf_addf(&sb, "\"shard\":{\"index\":%u,\"count\":%u},", part + 1, count);
		strbuf_addstr(&sb, "\"tasks\":[");
	}
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		enum cache_status st = taskcache_probe(tc, i);
		const char *cmd = jobs[i].command;
		/* A local miss the remote holds would be a remote hit. */
		bool remote = cmd && st != CACHE_HIT && st != CACHE_DISABLED && taskcache_remote_has(tc, i);
		if (remote)
			st = CACHE_HIT;
		if (mode != 2) {
			strbuf_addf(&sb, "%s: %s  key %s  cache %s%s%s", t->id,
				    !cmd	      ? "nothing to run"
				    : st == CACHE_HIT ? "would replay"
						      : "would run",
				    tc->keys[i], cache_status_name(st), remote ? " (remote)" : "",
				    st == CACHE_BAD ? " (damaged entry)" : "");
			if (owner && owner[i] != part)
				strbuf_addf(&sb, "  (shard %u/%u's: needed here)", owner[i] + 1, count);
			strbuf_addch(&sb, '\n');
			continue;
		}
		strbuf_addstr(&sb, i ? ",{" : "{");
		graph_node_json(g, t, cmd, &sb);
		strbuf_addf(&sb,
			    ",\"key\":\"%s\",\"cache\":\"%s\",\"inputs\":%zu,",
			    tc->keys[i], cache_status_name(st), tc->inputs[i].paths.n);
		if (st == CACHE_HIT)
			strbuf_addf(&sb, "\"cacheSource\":\"%s\",", remote ? "remote" : "local");
		if (owner)
			strbuf_addf(&sb, "\"shard\":%u,\"owned\":%s,", owner[i] + 1,
				    owner[i] == part ? "true" : "false");
		/* what `turbo run --dry=json` says of a task, to compare with it
		 * (docs/turborepo.md) */
		strbuf_addf(&sb, "\"cacheEnabled\":%s,\"persistent\":%s,",
			    taskcache_cacheable(t) ? "true" : "false",
			    t->cfg->persistent ? "true" : "false");
		json_list(&sb, "inputFiles", (const char *const *)tc->inputs[i].paths.v,
			  tc->inputs[i].paths.n);
		/* its closure in the lockfile (turbo's hashOfExternalDependencies,
		 * computed vx's way), or null without a lockfile */
		if (tc->ext.path)
			strbuf_addf(&sb, "\"externals\":\"%s\",", tc->ext.hash[t->project]);
		else
			strbuf_addstr(&sb, "\"externals\":null,");
		struct strvec v = STRVEC_INIT;
		lstr_vec_strings(&t->cfg->outputs, &v);
		json_list(&sb, "outputs", (const char *const *)v.v, v.n);
		strvec_clear(&v);
		lstr_vec_strings(&t->cfg->input_env, &v);
		lstr_vec_strings(&g->ws->cfg->ws_input_env, &v);
		strvec_sort_unique(&v);
		json_list(&sb, "env", (const char *const *)v.v, v.n);
		strvec_clear(&v);
		strbuf_addstr(&sb, "\"dependencies\":[");
		for (size_t k = 0; k < t->deps.n; k++) {
			if (k)
				strbuf_addch(&sb, ',');
			strbuf_add_json_string(&sb, g->nodes.v[t->deps.v[k].to]->id);
		}
		strbuf_addstr(&sb, "]}");
	}
	if (mode == 2)
		strbuf_addstr(&sb, "]}\n");
	else
		strbuf_addf(&sb, "%zu tasks\n", g->nodes.n);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

/* The run's hooks: the cache first; a task that will really run gets its
 * environment only then, so a fully cached run of 1000 tasks never copies
 * the environment 1000 times. */
struct run_hooks {
	struct taskcache *tc;
	struct sandbox_jobs *sj;
	const struct workspace *ws;
	struct strvec *envs; /* per job, parallel to the graph's nodes */
	bool only;	     /* --only: a task whose dependencies did not run is not saved */
	const struct run_watch_hooks *wh; /* vx watch's, or NULL */
	/* --shard: whose each node is (NULL: not sharded), this run's part,
	 * the count, how long to wait for another part's upload, and per node
	 * when that wait began (0: not yet) and the next poll's delay */
	const unsigned *owner;
	unsigned shard_index, shard_count;
	long long shard_wait_ms;
	long long *wait_since, *poll_ms;
};

/* --shard: node i is another shard's and missed both caches. While that
 * shard may still upload it (the remote readable, the task cacheable,
 * within --shard-wait), the job is asked again later, polling the remote
 * from 250 ms up to every 2 s; then it is built here: never a failed shard
 * because another was slower (docs/ci.md). */
static bool shard_wait(struct run_hooks *rh, size_t i, struct job *job)
{
	if (!rh->owner || rh->owner[i] == rh->shard_index)
		return false;
	const struct task_node *t = job->data;
	if (!taskcache_cacheable(t) || !taskcache_remote_readable(rh->tc))
		return false;
	long long now = loop_now();
	if (!rh->wait_since[i]) {
		rh->wait_since[i] = now;
		rh->poll_ms[i] = 250;
		fprintf(stderr, "vx: %s: shard %u/%u builds it; waiting for its upload\n", t->id,
			rh->owner[i] + 1, rh->shard_count);
	} else if (now - rh->wait_since[i] >= rh->shard_wait_ms) {
		warning("%s: shard %u/%u did not upload it within %llds; building it here", t->id,
			rh->owner[i] + 1, rh->shard_count, rh->shard_wait_ms / 1000);
		return false;
	}
	job->later_ms = rh->poll_ms[i];
	rh->poll_ms[i] = rh->poll_ms[i] * 3 / 2 > 2000 ? 2000 : rh->poll_ms[i] * 3 / 2;
	return true;
}

/* A server's fingerprint: what it would see if it started now. Its own key
 * but for its dependencies' keys, and, in their place, the content of every
 * upstream task's outputs: a rebuild upstream that hits, or that writes
 * byte-identical outputs, leaves it unchanged (docs/watch.md). */
static void server_fingerprint(const struct run_hooks *rh, size_t i, char out[KEY_HEX_SIZE])
{
	const struct graph *g = rh->tc->g;
	struct key k;
	key_init(&k);
	const struct task_inputs *facts = &rh->tc->facts[i];
	for (size_t f = 0; f < facts->paths.n; f++) {
		if (!strncmp(facts->paths.v[f], "//dep/", 6) || !strcmp(facts->paths.v[f], "//lockfile") ||
		    !strncmp(facts->paths.v[f], "//exec/", 7))
			continue;
		key_add_str(&k, "fact", facts->paths.v[f]);
		key_add_str(&k, "hash", facts->hashes[f]);
	}
	/* Upstream, in the graph's (topological) order: deterministic. */
	bool *up = xcalloc(g->nodes.n + 1, 1);
	up[i] = true;
	for (size_t j = i + 1; j-- > 0;) {
		if (!up[j])
			continue;
		const struct task_node *t = g->nodes.v[j];
		for (size_t d = 0; d < t->deps.n; d++)
			up[t->deps.v[d].to] = true;
	}
	for (size_t j = 0; j < i; j++) {
		if (!up[j])
			continue;
		const struct task_node *t = g->nodes.v[j];
		const struct project *pr = rh->ws->projects.v[t->project];
		struct strvec rel = STRVEC_INIT, abs = STRVEC_INIT;
		if (t->cfg->outputs.n && outputs_collect(pr->dir, &t->cfg->outputs, &rel))
			key_add_str(&k, "unlistable", t->id); /* an error line said why */
		for (size_t f = 0; f < rel.n; f++)
			strvec_push_nodup(&abs, path_join(pr->dir, rel.v[f]));
		char(*hashes)[KEY_HEX_SIZE] = xcalloc(abs.n + 1, sizeof *hashes);
		int *errs = xcalloc(abs.n + 1, sizeof *errs);
		taskcache_hash(rh->tc, (const char *const *)abs.v, abs.n, hashes, errs);
		key_add_str(&k, "upstream", t->id);
		for (size_t f = 0; f < rel.n; f++) {
			key_add_str(&k, "file", rel.v[f]);
			key_add_str(&k, "hash", hashes[f][0] ? hashes[f] : NULL);
		}
		free(hashes);
		free(errs);
		strvec_clear(&rel);
		strvec_clear(&abs);
	}
	free(up);
	key_finish(&k, out);
}

/* The one place the cache's, the shard's and the sandbox's answers become
 * the scheduler's. */
static enum before_result run_before(struct job *job, void *ctx)
{
	struct run_hooks *rh = ctx;
	const struct task_node *t = job->data;
	size_t i = taskcache_node_of(rh->tc, job);
	if (t->cfg->persistent && rh->wh && rh->wh->serve) {
		/* Its dependencies ran and succeeded (turborepo#8673): vx watch
		 * runs it from here, across cycles. */
		char fp[KEY_HEX_SIZE];
		server_fingerprint(rh, i, fp);
		bool never = t->cfg->restart.s && !strcmp(t->cfg->restart.s, "never");
		job->reason = rh->wh->serve(t->id, fp, never, rh->wh->ctx);
		return BEFORE_HANDED_OFF;
	}
	enum taskcache_answer r = taskcache_before(job, rh->tc);
	if (r == TASKCACHE_WAIT) {
		job->later_ms = 2; /* the remote lookup of its key is in flight */
		return BEFORE_LATER;
	}
	if (r == TASKCACHE_HIT)
		return BEFORE_DONE;
	if (shard_wait(rh, i, job))
		return BEFORE_LATER;
	if (t->cfg->sandbox)
		return sandbox_jobs_wrap(rh->sj, i, job, taskcache_keyed_files(rh->tc, i)) < 0
			   ? BEFORE_FAIL
			   : BEFORE_RUN;
	task_env(rh->ws, t, &rh->envs[i]);
	job->envp = rh->envs[i].v;
	return BEFORE_RUN;
}

/* --only: did a task upstream of t stay unrun (its outputs taken as found)? */
static bool upstream_unrun(const struct task_node *t, const struct graph *g)
{
	for (size_t d = 0; d < t->deps.n; d++)
		if (!g->nodes.v[t->deps.v[d].to]->requested)
			return true;
	return false;
}

static enum after_result run_after(struct job *job, void *ctx)
{
	struct run_hooks *rh = ctx;
	size_t i = taskcache_node_of(rh->tc, job);
	const struct task_node *t = job->data;
	if (t->cfg->sandbox) {
		/* The staged grants go back before anything looks at the
		 * project: the judge, the retry, the cache. */
		sandbox_jobs_unstage(rh->sj, i);
		/* Two failures that are the setup's, not the task's: run it once
		 * more (the scheduler decides whether there is time). This
		 * attempt fails and is not saved either way: fail closed. */
		const char *log = job->log.buf;
		if (job->state == JOB_FAILED && !job->timed_out && strstr(log, "bwrap: Can't ") &&
		    strstr(log, "No such file or directory"))
			job->retry = "bwrap met a mount race while it set the sandbox up";
		else if (rh->sj->strace &&
			 (!strncmp(log, "strace: ", 8) || strstr(log, "\nstrace: ")))
			job->retry = "strace printed an error of its own, so the trace is broken";
		if (job->retry) {
			sandbox_jobs_done(rh->sj, i);
			return AFTER_FAIL;
		}
	}
	/* A violation fails a task that exited 0, and such a task is never
	 * saved: judged before the cache sees it. */
	int verdict = sandbox_jobs_judge(rh->sj, i, job);
	if (rh->sj->jobs && rh->sj->jobs[i].judged)
		taskcache_set_reads(rh->tc, i, &rh->sj->jobs[i].verdict.reads);
	if (verdict == 0 && rh->sj->jobs && rh->sj->jobs[i].judged)
		taskcache_set_execs(rh->tc, i, &rh->sj->jobs[i].verdict.execs);
	sandbox_jobs_done(rh->sj, i);
	if (verdict < 0)
		return AFTER_FAIL;
	/* Its key says what its dependencies were built from; under --only
	 * they were not built, so what it made is not that key's to keep. */
	if (!rh->only || !upstream_unrun(t, rh->tc->g))
		taskcache_after(job, rh->tc);
	return AFTER_KEEP;
}

static const char *job_state_name(enum job_state st)
{
	switch (st) {
	case JOB_SUCCEEDED:
		return "succeeded";
	case JOB_CACHED:
		return "cached";
	case JOB_FAILED:
		return "failed";
	case JOB_NOOP:
		return "noop";
	default:
		return "skipped";
	}
}

/* Prints the --report json|sarif|github document of a finished run. */
static void print_report(const char *mode, const struct graph *g, const struct job *jobs,
			 const struct taskcache *tc, const struct sandbox_jobs *sj, FILE *out)
{
	size_t n = g->nodes.n;
	struct task_report *tr = xcalloc(n + 1, sizeof *tr);
	struct judge_input *ins = xcalloc(n + 1, sizeof *ins);
	char **yamls = xcalloc(n + 1, sizeof *yamls);
	for (size_t i = 0; i < n; i++) {
		const struct task_node *t = g->nodes.v[i];
		const struct project *p = g->ws->projects.v[t->project];
		const struct job *j = &jobs[i];
		const struct loc *l = t->cfg->sandbox ? &t->cfg->sandbox->loc : &t->cfg->loc;
		yamls[i] =
		    l->file ? path_relative(g->ws->root, l->file) : xasprintf("%s/vx.yaml", p->rel);
		bool ran = j->state == JOB_SUCCEEDED || j->state == JOB_FAILED;
		tr[i] = (struct task_report){
		    .id = t->id,
		    .project = p->rel,
		    .name = p->name,
		    .task = t->task,
		    .status = job_state_name(j->state),
		    .cache = cache_status_name(tc->status[i]),
		    .cache_source = tc->status[i] != CACHE_HIT ? NULL
				    : tc->from_remote[i]       ? "remote"
							       : "local",
		    .key = tc->keys[i],
		    .yaml = yamls[i],
		    .line = l->line,
		    .col = l->col,
		    .ran = ran,
		    .exit_code = j->state == JOB_FAILED && !j->exit_code ? 1 : j->exit_code,
		    .command_exit_code = j->exit_code,
		    .duration_ms = j->duration_ms,
		};
		if (sj->jobs && sj->jobs[i].judged) {
			ins[i] = sandbox_jobs_report_input(sj, i);
			tr[i].in = &ins[i];
			tr[i].v = &sj->jobs[i].verdict;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	if (!strcmp(mode, "json"))
		report_json(tr, n, &sb);
	else if (!strcmp(mode, "sarif"))
		report_sarif(tr, n, &sb);
	else
		report_github(tr, n, &sb);
	fwrite(sb.buf, 1, sb.len, out);
	fflush(out);
	strbuf_release(&sb);
	for (size_t i = 0; i < n; i++)
		free(yamls[i]);
	free(yamls);
	free(ins);
	free(tr);
}

/* A planned run: the workspace, the selected graph and every task's key,
 * then its run part (the sandbox's per-task state, a job per task), each
 * filled once, in that order. run_once runs it; `vx watch` runs one plan
 * again and again, with its run part made afresh and the keys of what
 * changed folded again, until a config changes. */
struct plan {
	struct workspace *ws;
	struct graph g;
	int lock_fd; /* the workspace's lock (wslock.h) while this plan runs, or -1 */
	char *cache_dir;
	char *reaper; /* vx-sandbox-init, the run's reaper (--reaper), or NULL */
	struct taskcache tc;
	bool tc_open;
	/* --shard: the split's owner of each node (indexed like g.nodes), this
	 * run's part and the count; owner NULL: not sharded */
	unsigned *owner;
	unsigned shard_index, shard_count;
	/* the run part */
	struct sandbox_jobs sj;
	bool sj_init;
	struct job *jobs;
	struct strvec *envs, *argvs; /* per job: its environment (made when it runs), its argv */
	size_t **deps;
};

static void plan_run_part_free(struct plan *p)
{
	size_t n = p->jobs ? p->g.nodes.n : 0;
	if (p->sj_init)
		sandbox_jobs_release(&p->sj);
	p->sj_init = false;
	for (size_t i = 0; i < n; i++) {
		scheduler_job_release(&p->jobs[i]);
		strvec_clear(&p->envs[i]);
		strvec_clear(&p->argvs[i]);
		free(p->deps[i]);
	}
	free(p->deps);
	free(p->envs);
	free(p->argvs);
	free(p->jobs);
	p->deps = NULL;
	p->envs = p->argvs = NULL;
	p->jobs = NULL;
}

static void plan_free(struct plan *p)
{
	wslock_release(p->lock_fd);
	p->lock_fd = -1;
	if (p->tc_open)
		taskcache_close(&p->tc);
	plan_run_part_free(p);
	free(p->cache_dir);
	free(p->reaper);
	p->reaper = NULL;
	free(p->owner);
	if (p->ws) {
		graph_free(&p->g);
		workspace_free(p->ws);
	}
	memset(p, 0, sizeof *p);
	p->lock_fd = -1; /* a second free closes nothing */
}

/* sandbox_jobs' view of the key: node's keyed files. */
static const struct strvec *keyed_of(const void *ctx, size_t node)
{
	return taskcache_keyed_files(ctx, node);
}

/* sandbox_jobs' view of the key's toolchain: node's programs. */
static const struct strvec *tools_of(const void *ctx, size_t node)
{
	return taskcache_tools(ctx, node);
}

/* One job per node: its command under /bin/sh -c, its place and its edges.
 * only: a node not named on the command line runs nothing. */
static void plan_jobs(struct plan *p, bool only)
{
	size_t n = p->g.nodes.n;
	/* No task outlives vx (issue 39): the run's reaper SIGKILLs every
	 * task group still running when vx dies, kill -9 included
	 * (scheduler.h). Without the helper beside vx, none runs. */
	free(p->reaper);
	p->reaper = sandbox_jobs_helper();
	p->jobs = xcalloc(n + 1, sizeof *p->jobs);
	p->envs = xcalloc(n + 1, sizeof *p->envs);
	p->argvs = xcalloc(n + 1, sizeof *p->argvs);
	p->deps = xcalloc(n + 1, sizeof *p->deps);
	for (size_t i = 0; i < n; i++) {
		struct task_node *t = p->g.nodes.v[i];
		struct job *j = &p->jobs[i];
		/* no descriptor yet: a dry run never starts the scheduler, and
		 * its release closed fd 0 of a zeroed job */
		j->log_fd = -1;
		j->signal_fd = -1;
		j->id = t->id;
		j->cwd = p->ws->projects.v[t->project]->dir;
		j->timeout_ms = t->cfg->timeout_ms;
		j->persistent = t->cfg->persistent;
		if (t->cfg->sandbox && t->cfg->sandbox->no_verify_key && taskcache_cacheable(t))
			j->start_note = "sandbox.verifyKey: false: its reads are not checked against "
					"its key";
		if (t->cfg->output_logs.s && output_logs_parse(t->cfg->output_logs.s) >= 0) {
			j->logs_own = true;
			j->logs = (enum output_logs)output_logs_parse(t->cfg->output_logs.s);
		}
		j->data = t;
		p->deps[i] = xmalloc((t->deps.n + 1) * sizeof **p->deps);
		for (size_t k = 0; k < t->deps.n; k++)
			p->deps[i][k] = t->deps.v[k].to;
		j->deps = p->deps[i];
		j->ndeps = t->deps.n;
		if (!t->command || (only && !t->requested))
			continue;
		strvec_push(&p->argvs[i], "/bin/sh");
		strvec_push(&p->argvs[i], "-c");
		strvec_push(&p->argvs[i], t->command);
		j->argv = p->argvs[i].v;
		j->command = t->command;
	}
}

/* Settles the sandbox (a task that asked for one never runs without it,
 * SPEC §4: whether this machine can give it is known before anything runs)
 * and makes the jobs. Returns 0, or 2 after an error line. */
static int plan_run_part(const struct run_opts *o, struct plan *p)
{
	unsigned flags = o->report && strcmp(o->report, "text") ? SANDBOX_JOBS_QUIET : 0;
	p->sj_init = true;
	if (sandbox_jobs_init(&p->sj, p->ws, &p->g, p->cache_dir, flags))
		return 2;
	plan_jobs(p, o->only);
	return 0;
}

/* --shard I/N: splits the graph (shard.h) and keeps what part I owns and
 * what that needs; p->owner says whose each kept node is. Returns 0, or -1
 * after an error line. */
static int plan_shard(const struct run_opts *o, struct plan *p)
{
	size_t n = p->g.nodes.n;
	p->shard_index = o->shard_index;
	p->shard_count = o->shard_count;
	struct shard_task *st = xcalloc(n + 1, sizeof *st);
	for (size_t i = 0; i < n; i++)
		st[i] = (struct shard_task){.id = p->g.nodes.v[i]->id,
					    .noop = !p->g.nodes.v[i]->command,
					    .weight_ms = -1};
	for (size_t k = 0; k < o->shard_timings.n; k++)
		if (shard_timings_load(o->shard_timings.v[k], st, n)) {
			free(st);
			return -1;
		}
	unsigned *owner = xcalloc(n + 1, sizeof *owner);
	shard_split(st, n, p->shard_count, owner);
	free(st);
	/* Dependents come after their dependencies: one sweep from the end
	 * keeps what an owned node needs. */
	bool *keep = xcalloc(n + 1, 1);
	for (size_t i = n; i-- > 0;) {
		keep[i] |= owner[i] == p->shard_index;
		if (!keep[i])
			continue;
		const struct task_node *t = p->g.nodes.v[i];
		for (size_t d = 0; d < t->deps.n; d++)
			keep[t->deps.v[d].to] = true;
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			owner[kept++] = owner[i];
	graph_keep(&p->g, keep);
	free(keep);
	p->owner = owner;
	return 0;
}

/* Loads, selects, builds the graph, makes the run part and computes every
 * key. Returns 0, or 2 after an error line (p is then freed). */
static int run_plan(const struct run_opts *o, struct plan *p)
{
	memset(p, 0, sizeof *p);
	p->lock_fd = -1;
	if (plan(o, &p->ws, &p->g, true))
		return 2;
	if (o->shard && plan_shard(o, p)) {
		plan_free(p);
		return 2;
	}
	p->cache_dir = workspace_cache_dir(p->ws);
	if (plan_run_part(o, p)) {
		plan_free(p);
		return 2;
	}
	/* One run at a time in a workspace, from before any input is hashed
	 * to the last save (a configuration the run refuses touches nothing
	 * first); a server's run (a watch's) takes none, and a dry run or a
	 * run that writes no cache writes nothing of it. */
	if (!o->dry_run && !o->served_by && !o->no_cache &&
	    (p->lock_fd = wslock_take(p->cache_dir, p->ws->root, "vx run")) == -2) {
		plan_free(p);
		return 130;
	}
	struct taskcache_opts to = {
	    .dir = p->cache_dir,
	    .read = !o->force && !o->no_cache,
	    .write = !o->no_cache,
	    .dry_run = o->dry_run != 0,
	    .remote = o->served_by ? REMOTE_OFF : (enum remote_mode)o->remote,
	    .traced = p->sj.strace != NULL,
	    .verbose = o->verbose,
	};
	p->tc_open = true;
	if (taskcache_open(&p->tc, p->ws, &p->g, &to) || taskcache_keys(&p->tc)) {
		plan_free(p);
		return 2;
	}
	if (p->owner && !o->dry_run && !taskcache_remote_readable(&p->tc))
		warning("--shard %s without a remote cache to read: this shard builds every task "
			"its part needs, other shards' too (docs/ci.md)",
			o->shard);
	return 0;
}

/* A machine-readable report owns stdout: the run's own lines go to stderr
 * (the tasks' output is vx's to print, so it moves with them). Returns the
 * saved stdout, or -1 when the report does not need it. */
static int report_stdout_begin(const char *report)
{
	if (!report || !strcmp(report, "text") || !strcmp(report, "github"))
		return -1;
	fflush(stdout);
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		die_errno("cannot set stdout aside for the report");
	return fd;
}

static void report_stdout_end(int fd)
{
	if (fd < 0)
		return;
	fflush(stdout);
	if (dup2(fd, STDOUT_FILENO) < 0)
		die_errno("cannot restore stdout for the report");
	close(fd);
}

/* What a finished run leaves: the run log's hit rate, the --summarize
 * file. Returns status, or 2 when a summary asked for could not be written
 * by a run that had succeeded. */
static int run_record(const struct run_opts *o, struct plan *p, int status, long long total)
{
	size_t n = p->g.nodes.n, hits = 0, misses = 0;
	for (size_t i = 0; i < n; i++) {
		hits += p->tc.status[i] == CACHE_HIT;
		misses += p->tc.status[i] == CACHE_MISS || p->tc.status[i] == CACHE_BAD;
	}
	if (p->tc.store_open && !p->tc.store.read_only && (hits || misses))
		runlog_append(p->tc.dir, hits, misses);
	if (o->summarize) /* one that cannot be written says so; the tasks' status stands */
		summary_write(o->summary_path, &p->g, p->jobs, &p->tc, status, total);
	return status;
}

/* Runs a plan once: every job on the scheduler, then the summary line, the
 * records and the report. t0: when the run began (the total it reports).
 * wh: vx watch's (its loop, its cancel flag, its servers), or NULL.
 * Returns the exit status. */
static int run_once(const struct run_opts *o, struct plan *p, long long t0,
		    const struct run_watch_hooks *wh)
{
	size_t n = p->g.nodes.n;
	int report_fd = report_stdout_begin(o->report);
	if (o->explain_key) {
		int rc = print_explain_key(&p->g, &p->tc, o->explain_key);
		report_stdout_end(report_fd);
		return rc;
	}
	if (o->dry_run) {
		print_dry_run(&p->g, p->jobs, &p->tc, o->dry_run, p->owner, p->shard_index,
			      p->shard_count);
		report_stdout_end(report_fd);
		return 0;
	}
	bool tty = isatty(STDOUT_FILENO);
	const char *term = getenv("TERM");
	/* Everything the run makes outside the workspace lives here, and the
	 * next run sweeps it should this one die (kill -9). */
	struct rundir rd;
	if (rundir_open(&rd, NULL))
		die_errno("cannot make the run's directory in $TMPDIR");
	if (o->logs_set) /* the command line's word is the last */
		for (size_t i = 0; i < p->g.nodes.n; i++)
			p->jobs[i].logs_own = false;
	struct scheduler_opts so = {
	    .concurrency = o->concurrency,
	    .keep_going = o->keep_going,
	    .logs = o->logs,
	    .group_output = !tty && o->concurrency > 1,
	    /* a server's run shares the watch's terminal: one status line */
	    .status_line = tty && term && strcmp(term, "dumb") && !o->served_by,
	    .color = tty && !getenv("NO_COLOR"),
	    .spill_dir = rd.path,
	    .reaper = p->reaper,
	    .cancel = wh ? wh->cancel : NULL,
	};
	struct loop *loop = wh && wh->loop ? wh->loop : loop_new();
	so.loop = loop;
	sandbox_jobs_start(&p->sj, &rd, loop);
	p->sj.keyed_of = keyed_of;
	p->sj.tools_of = tools_of;
	p->sj.keyed_ctx = &p->tc;
	p->sj.externals_keyed = p->tc.ext.path != NULL;
	p->sj.run_started = (long long)time(NULL);
	p->tc.spill_dir = rd.path;
	taskcache_start(&p->tc, loop);
	struct run_hooks rh = {
	    .tc = &p->tc, .sj = &p->sj, .ws = p->ws, .envs = p->envs, .only = o->only, .wh = wh};
	if (p->owner) {
		rh.owner = p->owner;
		rh.shard_index = p->shard_index;
		rh.shard_count = p->shard_count;
		rh.shard_wait_ms = o->shard_wait_s * 1000LL;
		rh.wait_since = xcalloc(n + 1, sizeof *rh.wait_since);
		rh.poll_ms = xcalloc(n + 1, sizeof *rh.poll_ms);
	}
	struct scheduler_hooks hooks = {run_before, run_after, &rh};
	int status = scheduler_run(p->jobs, n, &so, &hooks);
	free(rh.wait_since);
	free(rh.poll_ms);
	taskcache_finish(&p->tc);
	sandbox_jobs_finish(&p->sj);
	if (loop != (wh ? wh->loop : NULL))
		loop_free(loop);
	rundir_close(&rd);
	long long total = loop_now() - t0;
	if (!o->served_by) /* the watch says how its server ended */
		output_summary(p->jobs, n, total);
	status = run_record(o, p, status, total);
	/* json and sarif had stdout set aside (report_fd); github writes its
	 * annotations among the run's lines. */
	report_stdout_end(report_fd);
	if (o->report && strcmp(o->report, "text"))
		print_report(o->report, &p->g, p->jobs, &p->tc, &p->sj, stdout);
	if (o->verbose)
		fprintf(stderr, "vx: listed and hashed the inputs of %zu tasks in %lldms\n", n,
			p->tc.hash_ms);
	return status;
}

/* --served-by PID: this run is a server of vx watch's, and ends (as after
 * a SIGTERM: the task's trap, the grace) when the watch does, even by
 * kill -9. Returns false when the watch is gone already. */
static bool serve_watch(int watch)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		die_errno("prctl(PR_SET_PDEATHSIG)");
	return getppid() == watch;
}

int run_main(int argc, char **argv)
{
	struct run_opts o = {0};
	int rc = parse_opts(argc, argv, false, &o);
	if (rc) {
		run_opts_free(&o);
		return rc > 0 ? 0 : 2;
	}
	if (o.served_by && !serve_watch(o.served_by)) {
		run_opts_free(&o);
		return 130;
	}
	long long t0 = loop_now();
	struct plan p;
	int status = run_plan(&o, &p);
	if (!status) {
		status = run_once(&o, &p, t0, NULL);
		plan_free(&p);
	}
	run_opts_free(&o);
	return status;
}

struct run_session {
	struct run_opts o;
	struct plan *p;	    /* the last good plan, run again by each cycle; NULL: none yet
			     * (on the heap: its parts point at its graph) */
	bool replan;	    /* the next cycle plans from scratch (the last plan failed) */
	enum job_state *last; /* per node of p: how its last run ended; JOB_PENDING: never ran */
	struct strvec ids;  /* the last good plan's tasks, */
	char (*keys)[KEY_HEX_SIZE]; /* their keys (what a cycle compares), */
	struct strmap index; /* and id -> index, borrowing ids */
	struct strvec tainted, tainted_by; /* config files sandboxed tasks of the last
					    * cycle wrote, and the task of each: never
					    * planned from (issue 36) */
};

struct run_session *run_session_new(int argc, char **argv, int *status)
{
	struct run_session *s = xcalloc(1, sizeof *s);
	int rc = parse_opts(argc, argv, false, &s->o);
	if (!rc && (s->o.dry_run || s->o.only || s->o.served_by || s->o.shard ||
		    (s->o.report && strcmp(s->o.report, "text"))))
		rc = error("vx watch runs again and again: --dry-run, --only, --shard and a "
			   "--report document are for vx run");
	if (rc) {
		run_opts_free(&s->o);
		free(s);
		*status = rc > 0 ? 0 : 2;
		return NULL;
	}
	return s;
}

void run_watch_set_clear(struct run_watch_set *ws)
{
	free(ws->root);
	ws->root = NULL;
	free(ws->git_dir);
	ws->git_dir = NULL;
	strvec_clear(&ws->heads);
	strvec_clear(&ws->skip);
	strvec_clear(&ws->outputs);
	strvec_clear(&ws->persistent);
	ws->affected = 0;
}

/* base joined with glob's literal head directory. */
static char *glob_head(const char *base, const char *glob)
{
	char *head = xstrndup(glob, glob_literal_prefix(glob));
	char *dir = path_join(base, head);
	free(head);
	return dir;
}

/* The heads of the globs of v (relative to base) that leave base: "../x" and below. */
static void heads_outside(const char *base, const lstr_vec *v, struct strvec *out)
{
	for (size_t g = 0; g < v->n; g++) {
		const char *s = v->v[g].s;
		if (s[0] == '!')
			continue;
		char *dir = glob_head(base, s);
		if (path_is_within(base, dir))
			free(dir);
		else
			strvec_push_nodup(out, dir);
	}
}

/* The files that shape the plan, not only the keys: a change to one, to
 * the root or to a directory holding a project (a project made, moved or
 * removed) plans again from scratch. */
static const char *const plan_files[] = {"vx.yaml", "package.json", "pnpm-workspace.yaml", "turbo.json", "turbo.jsonc",
					 ".gitignore", NULL};

/* The .git directory of the work tree holding root, or NULL (none, or a
 * linked worktree's .git file: not watched). */
static char *find_git_dir(const char *root)
{
	char *dir = xstrdup(root);
	for (;;) {
		char *git = path_join(dir, ".git");
		struct stat st;
		if (lstat(git, &st) == 0) {
			free(dir);
			if (S_ISDIR(st.st_mode))
				return git;
			free(git);
			return NULL;
		}
		free(git);
		if (!strcmp(dir, "/")) {
			free(dir);
			return NULL;
		}
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
	}
}

static void watch_set(const struct plan *p, bool affected, struct run_watch_set *ws)
{
	run_watch_set_clear(ws);
	const struct workspace *w = p->ws;
	ws->root = xstrdup(w->root);
	if (affected && (ws->git_dir = find_git_dir(w->root))) {
		strvec_push_nodup(&ws->heads, path_join(ws->git_dir, "HEAD"));
		strvec_push_nodup(&ws->heads, path_join(ws->git_dir, "index"));
	}
	if (p->cache_dir)
		strvec_push(&ws->skip, p->cache_dir);
	for (size_t k = 0; k < w->projects.n; k++)
		strvec_push(&ws->heads, w->projects.v[k]->dir);
	for (size_t k = 0; k < w->project_globs.n; k++)
		if (w->project_globs.v[k][0] != '!')
			strvec_push_nodup(&ws->heads, glob_head(w->root, w->project_globs.v[k]));
	for (const char *const *f = plan_files; *f; f++)
		strvec_push_nodup(&ws->heads, path_join(w->root, *f));
	for (size_t k = 0; externals_lockfile_name(k); k++)
		strvec_push_nodup(&ws->heads, path_join(w->root, externals_lockfile_name(k)));
	for (size_t g = 0; g < w->cfg->ws_input_files.n; g++)
		if (w->cfg->ws_input_files.v[g].s[0] != '!')
			strvec_push_nodup(&ws->heads, glob_head(w->root, w->cfg->ws_input_files.v[g].s));
	for (size_t i = 0; i < p->g.nodes.n; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		const struct project *pr = p->ws->projects.v[t->project];
		heads_outside(pr->dir, &t->cfg->input_files, &ws->heads);
		heads_outside(w->root, &t->cfg->input_ws_files, &ws->heads);
		if (t->cfg->persistent)
			strvec_push(&ws->persistent, t->id);
		for (size_t k = 0; k < t->cfg->outputs.n; k++) {
			const char *g = t->cfg->outputs.v[k].s;
			if (g[0] == '!')
				continue;
			strvec_push_nodup(&ws->outputs, path_join(pr->dir, g));
			/* skipped whether it exists yet or not (the first run
			 * makes it); a head that is the project itself ("*.js")
			 * is no place to skip */
			char *dir = glob_head(pr->dir, g);
			if (strcmp(dir, pr->dir))
				strvec_push_nodup(&ws->skip, dir);
			else
				free(dir);
		}
	}
	strvec_sort_unique(&ws->heads);
	strvec_sort_unique(&ws->skip);
}

/* The one answer to "what did the change affect": the tasks whose key
 * differs from the last good plan's (a task new to the plan counts). A
 * server's restart asks the same of its fingerprint (server_fingerprint),
 * which is its key with its upstream outputs for its upstream keys.
 * Remembers this plan's keys for the next cycle. */
static size_t affected(struct run_session *s, const struct plan *p)
{
	size_t n = p->g.nodes.n, count = 0;
	struct strvec ids = STRVEC_INIT;
	char(*keys)[KEY_HEX_SIZE] = xcalloc(n + 1, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		strvec_push(&ids, t->id);
		memcpy(keys[i], p->tc.keys[i], KEY_HEX_SIZE);
		size_t at;
		bool same = strmap_get(&s->index, t->id, &at) && !strcmp(s->keys[at], keys[i]);
		count += !same && !t->cfg->persistent;
	}
	strmap_clear(&s->index);
	strvec_clear(&s->ids);
	free(s->keys);
	s->ids = ids;
	s->keys = keys;
	for (size_t i = 0; i < n; i++)
		strmap_put(&s->index, s->ids.v[i], i);
	return count;
}


static bool needs_plan(const struct plan *p, const struct strvec *changes)
{
	for (size_t c = 0; c < changes->n; c++) {
		const char *path = changes->v[c];
		const char *base = path_basename(path);
		for (const char *const *f = plan_files; *f; f++)
			if (!strcmp(base, *f))
				return true;
		/* an install: every key folds the lockfile's closures, which
		 * taskcache_rekey does not read again */
		if (externals_is_lockfile(base)) {
			char *dir = path_dirname(path);
			bool at_root = !strcmp(dir, p->ws->root);
			free(dir);
			if (at_root)
				return true;
		}
		if (path_is_within(path, p->ws->root))
			return true;
		for (size_t k = 0; k < p->ws->projects.n; k++)
			if (path_is_within(path, p->ws->projects.v[k]->dir))
				return true;
	}
	return false;
}

/* Does a glob (relative to base) of v match a change? */
static bool globs_match(const char *base, const lstr_vec *v, const struct strvec *changes)
{
	for (size_t g = 0; g < v->n; g++) {
		if (v->v[g].s[0] == '!')
			continue;
		char *abs = path_join(base, v->v[g].s);
		for (size_t c = 0; c < changes->n; c++)
			if (glob_match(abs, changes->v[c])) {
				free(abs);
				return true;
			}
		free(abs);
	}
	return false;
}

static bool climbs(const lstr_vec *v)
{
	for (size_t g = 0; g < v->n; g++)
		if (v->v[g].s[0] == '/' || strstr(v->v[g].s, ".."))
			return true;
	return false;
}

/* The nodes whose input listing a change can reach, a superset: each
 * change marks the tasks of the project that holds it (the nearest:
 * nested projects are their own), and the globs that reach beyond a
 * project (inputs.files with "..", inputs.workspaceFiles of a task or of
 * the workspace) are matched against every change. */
static void touched_by(const struct plan *p, const struct strvec *changes, bool *touched)
{
	const struct workspace *ws = p->ws;
	size_t np = ws->projects.n, n = p->g.nodes.n;
	struct strmap dirs = STRMAP_INIT;
	bool *held = xcalloc(np + 1, 1);
	for (size_t k = 0; k < np; k++)
		strmap_put(&dirs, ws->projects.v[k]->dir, k);
	for (size_t c = 0; c < changes->n; c++) {
		char *dir = xstrdup(changes->v[c]);
		for (;;) {
			size_t k;
			if (strmap_get(&dirs, dir, &k)) {
				held[k] = true;
				break;
			}
			char *slash = strrchr(dir, '/');
			if (!slash || slash == dir)
				break;
			*slash = 0;
		}
		free(dir);
	}
	bool all = globs_match(ws->root, &ws->cfg->ws_input_files, changes);
	for (size_t i = 0; i < n; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		const struct project *pr = ws->projects.v[t->project];
		touched[i] = all || held[t->project] ||
			     (climbs(&t->cfg->input_files) &&
			      globs_match(pr->dir, &t->cfg->input_files, changes)) ||
			     globs_match(ws->root, &t->cfg->input_ws_files, changes);
	}
	free(held);
	strmap_clear(&dirs);
}

static bool ended_well(enum job_state st)
{
	return st == JOB_SUCCEEDED || st == JOB_CACHED || st == JOB_NOOP;
}

/* Plans from scratch; *run (allocated) marks every node. Returns 0, or 2
 * (the last good plan stays). */
static int cycle_plan(struct run_session *s, struct run_watch_set *ws, bool **run)
{
	struct plan *p = xmalloc(sizeof *p);
	if (run_plan(&s->o, p)) {
		free(p);
		s->replan = true;
		return 2;
	}
	if (s->p)
		plan_free(s->p);
	free(s->p);
	s->p = p;
	s->replan = false;
	size_t n = p->g.nodes.n;
	free(s->last);
	s->last = xcalloc(n + 1, sizeof *s->last);
	watch_set(p, s->o.affected, ws);
	ws->fresh = true;
	ws->affected = affected(s, p);
	*run = xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++)
		(*run)[i] = true;
	return 0;
}

/* Keeps the plan: folds again the keys of what the changes touched, and
 * runs what they changed, what did not end well last time, and everything
 * downstream of either. Returns 0, or 2 (the next cycle plans afresh). */
static int cycle_again(struct run_session *s, const struct strvec *changes,
		       struct run_watch_set *ws, bool **runp)
{
	struct plan *p = s->p;
	size_t n = p->g.nodes.n;
	bool *touched = xcalloc(n + 1, 1), *changed = xcalloc(n + 1, 1);
	bool *run = *runp = xcalloc(n + 1, 1);
	touched_by(p, changes, touched);
	plan_run_part_free(p);
	int rc = taskcache_rekey(&p->tc, touched, changed) ? 2 : plan_run_part(&s->o, p);
	size_t count = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct task_node *t = p->g.nodes.v[i];
		run[i] = changed[i] || !ended_well(s->last[i]);
		for (size_t d = 0; d < t->deps.n && !run[i]; d++)
			run[i] = run[t->deps.v[d].to];
		count += run[i] && !t->cfg->persistent;
		memcpy(s->keys[i], p->tc.keys[i], KEY_HEX_SIZE); /* ids are in node order */
	}
	free(touched);
	free(changed);
	if (rc) {
		s->replan = true;
		return 2;
	}
	ws->affected = count;
	ws->fresh = false;
	return 0;
}

int run_session_cycle(struct run_session *s, struct run_watch_set *ws,
		      const struct strvec *changes, bool overflow, const struct run_watch_hooks *wh)
{
	long long t0 = loop_now();
	/* A config a sandboxed task wrote is not the user's word: the plan
	 * stays as it was until the user saves it (a change of their own). */
	struct strvec trusted = STRVEC_INIT;
	for (size_t c = 0; c < changes->n; c++) {
		ssize_t at = strvec_find(&s->tainted, changes->v[c]);
		if (at < 0) {
			strvec_push(&trusted, changes->v[c]);
			continue;
		}
		char *rel = s->p ? path_relative(s->p->ws->root, changes->v[c])
				 : xstrdup(changes->v[c]);
		fprintf(stderr,
			"vx watch: %s was written by %s, a sandboxed task: not planned from; save "
			"it yourself to plan from it\n",
			rel, s->tainted_by.v[at]);
		free(rel);
	}
	strvec_clear(&s->tainted);
	strvec_clear(&s->tainted_by);
	changes = &trusted;
	bool full = !s->p || s->replan || overflow || s->o.affected || needs_plan(s->p, changes);
	/* a kept plan takes the workspace's lock again for this cycle (a new
	 * plan takes its own: the kept one holds none between cycles) */
	if (!full && s->p->lock_fd < 0 && !s->o.dry_run && !s->o.no_cache &&
	    (s->p->lock_fd = wslock_take(s->p->cache_dir, s->p->ws->root, "vx watch")) == -2) {
		strvec_clear(&trusted);
		return 130;
	}
	bool *run = NULL;
	int status = full ? cycle_plan(s, ws, &run) : cycle_again(s, changes, ws, &run);
	strvec_clear(&trusted);
	if (status) {
		free(run);
		return status;
	}
	struct plan *p = s->p;
	size_t n = p->g.nodes.n;
	for (size_t i = 0; i < n; i++) {
		p->jobs[i].settled = !run[i];
		if (!run[i])
			p->tc.status[i] = CACHE_DISABLED; /* counted by the run that ran it */
	}
	if (wh->planned)
		wh->planned(ws, wh->ctx);
	status = run_once(&s->o, p, t0, wh);
	/* between cycles the workspace is another run's to take */
	wslock_release(p->lock_fd);
	p->lock_fd = -1;
	sandbox_jobs_configs_written(&p->sj, &s->tainted, &s->tainted_by);
	for (size_t i = 0; i < n; i++)
		if (run[i])
			s->last[i] = p->jobs[i].state;
	taskcache_checkpoint(&p->tc);
	free(run);
	return status;
}

void run_session_server_argv(const struct run_session *s, const char *id, struct strvec *out)
{
	strvec_push(out, "/proc/self/exe");
	strvec_push(out, "run");
	strvec_push(out, id);
	strvec_push(out, "--only");
	strvec_pushf(out, "--served-by=%d", (int)getpid());
	static const char *const logs[] = {"full", "errors-only", "hash-only", "none", "new-only"};
	strvec_pushf(out, "--output-logs=%s", logs[s->o.logs]);
	for (int v = 0; v < s->o.verbose; v++)
		strvec_push(out, "-v");
	if (s->o.args.n) {
		strvec_push(out, "--");
		for (size_t i = 0; i < s->o.args.n; i++)
			strvec_push(out, s->o.args.v[i]);
	}
}

void run_session_free(struct run_session *s)
{
	if (!s)
		return;
	run_opts_free(&s->o);
	if (s->p)
		plan_free(s->p);
	free(s->p);
	free(s->last);
	strmap_clear(&s->index);
	strvec_clear(&s->ids);
	free(s->keys);
	strvec_clear(&s->tainted);
	strvec_clear(&s->tainted_by);
	free(s);
}

int graph_main(int argc, char **argv)
{
	struct run_opts o = {0};
	int rc = parse_opts(argc, argv, true, &o);
	if (rc) {
		run_opts_free(&o);
		return rc > 0 ? 0 : 2;
	}
	struct workspace *ws;
	struct graph g;
	if (plan(&o, &ws, &g, false)) {
		run_opts_free(&o);
		return 2;
	}
	if (!strcmp(o.format, "dot"))
		graph_print_dot(&g, stdout);
	else
		graph_print_json(&g, stdout);
	graph_free(&g);
	workspace_free(ws);
	run_opts_free(&o);
	return 0;
}
