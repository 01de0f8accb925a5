/* run.c - `vx run` and `vx graph`: the options (runopts.c) make a plan
 * (runplan.c), which runs once on the scheduler with the run's hooks
 * (runhooks.c), then the summary, the records and the report
 * (runreport.c). Nothing runs until the whole configuration has been
 * checked. */
#include "orchestrator/run/run.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "orchestrator/keys/taskenv.h"
#include "orchestrator/run/dryrun.h"
#include "orchestrator/run/output.h"
#include "orchestrator/run/profile.h"
#include "orchestrator/run/runhooks.h"
#include "orchestrator/run/runlog.h"
#include "orchestrator/run/runplan.h"
#include "orchestrator/run/runreport.h"
#include "orchestrator/run/summary.h"
#include "util/die.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/rundir.h"
#include "util/spawn.h"

/* A machine-readable report owns stdout: the run's own lines go to stderr
 * (the tasks' output is vx's to print, so it moves with them). Returns the
 * saved stdout, or -1 when the report does not need it. */
static int report_stdout_begin(enum run_report report)
{
	if (report != REPORT_JSON && report != REPORT_SARIF)
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
 * file (jobs_t0: summary_clock_ms() as the scheduler started). Returns
 * status, or 2 when a summary asked for could not be written by a run
 * that had succeeded. */
static int run_record(const struct run_opts *o, struct plan *p, int status, long long total,
		      long long jobs_t0)
{
	size_t n = p->g.nodes.n, hits = 0, misses = 0;
	for (size_t i = 0; i < n; i++) {
		hits += p->tc.status[i] == CACHE_HIT;
		misses += p->tc.status[i] == CACHE_MISS || p->tc.status[i] == CACHE_BAD;
	}
	if (p->tc.store_open && !p->tc.store.read_only && (hits || misses))
		runlog_append(p->tc.dir, hits, misses);
	if (o->summarize) /* one that cannot be written says so; the tasks' status stands */
		summary_write(o, &p->g, p->jobs, &p->tc, status, total, jobs_t0);
	return status;
}

/* -v: the names (never the values) of what the run's sandboxed tasks do
 * not get from vx's environment and would unsandboxed, once a run: in loose
 * mode a task that needed DATABASE_URL now fails with no word of why. */
static void say_held_back(const struct plan *p)
{
	struct strvec names = STRVEC_INIT;
	for (size_t i = 0; i < p->g.nodes.n; i++)
		task_env_held_back(p->ws, p->g.nodes.v[i], &names);
	strvec_sort_unique(&names);
	if (names.n) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < names.n; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", names.v[i]);
		fprintf(stderr,
			"vx: sandboxed tasks run with a strict environment: held back %s (name one "
			"in the task's inputs.env or env.passThrough, turbo.json's env or "
			"passThroughEnv; a credential in env.passThroughSecrets too)\n",
			sb.buf);
		strbuf_release(&sb);
	}
	strvec_clear(&names);
}

/* Runs a plan once: every job on the scheduler, then the summary line, the
 * records and the report. t0: when the run began (the total it reports).
 * wh: vx watch's (its loop, its cancel flag, its servers), or NULL.
 * Returns the exit status. */
int run_once(const struct run_opts *o, struct plan *p, long long t0,
	     const struct run_watch_hooks *wh)
{
	size_t n = p->g.nodes.n;
	int report_fd = report_stdout_begin(o->report);
	if (o->explain_key) {
		int rc = dryrun_explain_key(&p->g, &p->tc, o->explain_key);
		report_stdout_end(report_fd);
		return rc;
	}
	if (o->dry_run) {
		if (o->dry_run == DRY_RUN_TURBO_JSON)
			dryrun_print_turbo(&p->g, p->jobs, &p->tc);
		else
			dryrun_print(&p->g, p->jobs, &p->tc, o->dry_run, p->shard);
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
	    .bare_lines = o->log_prefix == LOG_PREFIX_NONE,
	    .past_failure = o->past_failure,
	    .logs = o->logs,
	    .group_output = o->log_order != LOG_ORDER_AUTO ? o->log_order == LOG_ORDER_GROUPED
							   : !tty && o->concurrency > 1,
	    /* a server's run shares the watch's terminal: one status line */
	    .status_line = tty && term && strcmp(term, "dumb") && !o->served_by && !o->tui,
	    .tui = o->tui,
	    .served = o->served_by != 0,
	    .color = output_wants_color(tty, getenv("NO_COLOR"), getenv("FORCE_COLOR")),
	    .spill_dir = rd.path,
	    .reaper = p->reaper,
	    .cancel = wh ? wh->cancel : NULL,
	};
	if (o->verbose)
		say_held_back(p);
	struct loop *loop = wh && wh->loop ? wh->loop : loop_new();
	so.loop = loop;
	sandbox_jobs_start(&p->sj, &rd, loop);
	p->sj.tc = &p->tc;
	p->sj.externals_keyed = p->tc.ks.ext.path != NULL;
	p->sj.run_started = (long long)time(NULL);
	p->tc.spill_dir = rd.path;
	taskcache_start(&p->tc, loop);
	struct run_hooks rh = {.tc = &p->tc,
			       .sj = &p->sj,
			       .ws = p->ws,
			       .envs = p->envs,
			       .only = o->only,
			       .wh = wh,
			       .jobs = p->jobs,
			       .tainted = o->past_failure ? xcalloc(n + 1, 1) : NULL};
	if (p->shard) {
		rh.shard = p->shard;
		shardrun_start(p->shard, n);
	}
	struct scheduler_hooks hooks = {run_before, run_after, &rh, run_stop_hook};
	long long jobs_t0 = summary_clock_ms(); /* the summary's wall clock of job times */
	int status = scheduler_run(p->jobs, n, &so, &hooks);
	free(rh.tainted);
	shardrun_finish(p->shard); /* its split lookups, before the pool goes */
	taskcache_finish(&p->tc);
	sandbox_jobs_finish(&p->sj);
	if (loop != (wh ? wh->loop : NULL))
		loop_free(loop);
	rundir_close(&rd);
	long long total = loop_now() - t0;
	if (!o->served_by) /* the watch says how its server ended */
		output_summary(p->jobs, n, total);
	status = run_record(o, p, status, total, jobs_t0);
	if (o->profile && profile_write(o->profile, &p->g, p->jobs, &p->tc, &p->sj) && !status)
		status = 1;
	/* json and sarif had stdout set aside (report_fd); github writes its
	 * annotations among the run's lines. */
	report_stdout_end(report_fd);
	if (run_opts_report_doc(o))
		runreport_print(o->report, &p->g, p->jobs, &p->tc, &p->sj, stdout);
	if (o->verbose)
		fprintf(stderr, "vx: listed and hashed the inputs of %zu tasks in %lldms\n", n,
			p->tc.ks.hash_ms);
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

/* The formats --graph=FILE writes itself, and those graphviz renders. */
static int graph_format(const char *file, const char **fmt)
{
	static const char *const own[] = {".dot", ".gv", ".json", ".mermaid", ".mmd", ".html"};
	static const char *const viz[] = {".svg", ".png", ".pdf", ".jpg", ".jpeg"};
	const char *ext = strrchr(file, '.');
	for (size_t i = 0; ext && i < sizeof own / sizeof *own; i++)
		if (!strcmp(ext, own[i])) {
			*fmt = own[i];
			return 0;
		}
	for (size_t i = 0; ext && i < sizeof viz / sizeof *viz; i++)
		if (!strcmp(ext, viz[i])) {
			*fmt = viz[i];
			return 1;
		}
	return -1;
}

/* `vx run TASK --graph[=FILE]`, Turborepo's: the graph the run would
 * build, written, and nothing run. */
static int run_graph(const struct run_opts *o)
{
	const char *fmt = ".dot";
	int viz = o->graph_file ? graph_format(o->graph_file, &fmt) : 0;
	if (viz < 0) {
		error("--graph=%s: name a .dot, .gv, .json, .mermaid, .mmd, .html, .svg, .png, "
		      ".pdf or .jpg file",
		      o->graph_file);
		return 2;
	}
	struct workspace *ws;
	struct graph g;
	if (runplan_graph(o, NULL, &ws, &g))
		return 2;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		die_errno("open_memstream");
	if (!strcmp(fmt, ".json"))
		graph_print_json(&g, mem);
	else if (!strcmp(fmt, ".mermaid") || !strcmp(fmt, ".mmd"))
		graph_print_mermaid(&g, mem);
	else
		graph_print_dot(&g, mem);
	fclose(mem);
	graph_free(&g);
	workspace_free(ws);
	int rc = 0;
	struct strbuf out = STRBUF_INIT;
	if (viz || !strcmp(fmt, ".html")) { /* graphviz draws it */
		char tflag[16];
		snprintf(tflag, sizeof tflag, "-T%s", viz ? fmt + 1 : "svg");
		char *argv[] = {"dot", tflag, NULL};
		struct spawned sp;
		int st =
		    spawn_start_input(argv, NULL, text, len, &sp) ? -1 : spawn_finish(&sp, &out);
		if (st) {
			error("--graph=%s needs graphviz's dot, which %s", o->graph_file,
			      st < 0 ? "is not on PATH (apt install graphviz)" : "failed");
			rc = 2;
		}
	} else {
		strbuf_add(&out, text, len);
	}
	if (!rc && !strcmp(fmt, ".html")) {
		struct strbuf page = STRBUF_INIT;
		strbuf_addstr(&page, "<!doctype html>\n<html><head><meta charset=\"utf-8\">"
				     "<title>vx task graph</title></head>\n<body>\n");
		strbuf_add(&page, out.buf, out.len);
		strbuf_addstr(&page, "</body></html>\n");
		strbuf_release(&out);
		out = page;
	}
	if (!rc && !o->graph_file) {
		fwrite(out.buf, 1, out.len, stdout);
	} else if (!rc && write_file_atomic(o->graph_file, out.buf, out.len)) {
		rc = 2;
		error_errno("cannot write %s", o->graph_file);
	} else if (!rc) {
		fprintf(stderr, "vx: the task graph is in %s\n", o->graph_file);
	}
	strbuf_release(&out);
	free(text);
	return rc;
}

int run_main(int argc, char **argv)
{
	struct run_opts o = {0};
	int rc = run_opts_parse(argc, argv, false, &o);
	if (rc) {
		run_opts_free(&o);
		return rc > 0 ? 0 : 2;
	}
	if (o.graph) {
		rc = run_graph(&o);
		run_opts_free(&o);
		return rc;
	}
	if (o.served_by && !serve_watch(o.served_by)) {
		run_opts_free(&o);
		return 130;
	}
	o.tui = run_opts_tui(&o);
	long long t0 = loop_now();
	struct plan p;
	int status = runplan_make(&o, &p);
	if (!status) {
		status = run_once(&o, &p, t0, NULL);
		plan_free(&p);
	}
	run_opts_free(&o);
	return status;
}

int graph_main(int argc, char **argv)
{
	struct run_opts o = {0};
	int rc = run_opts_parse(argc, argv, true, &o);
	if (rc) {
		run_opts_free(&o);
		return rc > 0 ? 0 : 2;
	}
	struct workspace *ws;
	struct graph g;
	if (runplan_graph(&o, NULL, &ws, &g)) {
		run_opts_free(&o);
		return 2;
	}
	switch (o.format) {
	case GRAPH_DOT:
		graph_print_dot(&g, stdout);
		break;
	case GRAPH_TEXT:
		graph_print_text(&g, stdout);
		break;
	case GRAPH_JSON:
		graph_print_json(&g, stdout);
		break;
	}
	graph_free(&g);
	workspace_free(ws);
	run_opts_free(&o);
	return 0;
}
