/* sandbox_learn.c - `vx sandbox learn TASK...`: the sandbox turned on in one
 * step (issue 40). The selected tasks get `sandbox: {}` where they have none,
 * then run, traced, behind every wall vx keeps, round after round: each
 * round's fixes (the judge's, as `--report json` gives them) are written
 * into the config file each names, until every task passes with no
 * violation, or a round adds nothing (what is left needs a person: a
 * wall, a dependency, a connection past the proxy). What it wrote is
 * printed as a diff. */
#include "orchestrator/cli/sandbox_learn.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/cli/learn.h"
#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/runplan.h"
#include "util/die.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* Enough for the real tools of t0330 (two or three rounds); a task still
 * failing after this many is failing for something a grant cannot give. */
#define LEARN_ROUNDS 12

static const char LEARN_USAGE[] =
    "usage: vx sandbox learn TASK... [run options]\n"
    "\n"
    "Turns the sandbox on for the selected tasks and writes what each needs into\n"
    "its config: runs them (never from the cache), traced, behind the walls vx\n"
    "always keeps, writes the grants and inputs each round's fixes name into\n"
    "each task's project's own vx.yaml (the layer that wins; made when missing,\n"
    "comments and layout kept; sandbox: itself goes where the task is defined,\n"
    "the root vx.yaml in a turbo.json repository), and runs again,\n"
    "until every task passes with no violation. Prints a diff of what it wrote.\n"
    "It writes by itself only what cannot widen a task's reach beyond its own\n"
    "project; network, secret-class files, reads under home, writes outside the\n"
    "project and the like are printed as lines for a person (exit 3).\n"
    "What a grant cannot give (a wall, a dependency the task lacks, a connection\n"
    "past the proxy) stops it, with the run's report.\n"
    "\n"
    "Run options are vx run's (--filter, --affected, -j, --env-mode, ...).\n";

/* Where a task with no sandbox: gets one: the file that defines it when
 * that is a vx.yaml, else the root's vx.yaml in a turbo.json repository
 * (the overlay every package's task inherits), else its project's. */
static char *sandbox_home(const struct workspace *ws, const struct task_node *t)
{
	const struct project *p = ws->projects.v[t->project];
	const char *file = t->cfg->loc.file;
	if (file && !strcmp(path_basename(file), "vx.yaml"))
		return path_relative(ws->root, file);
	if (ws->cfg->turbo_path)
		return xstrdup("vx.yaml");
	return p->is_root ? xstrdup("vx.yaml") : xasprintf("%s/vx.yaml", p->rel);
}

/* Turns the sandbox on for each requested task that runs a command and has
 * none. Returns 0, or -1 after an error line. */
static int turn_on(struct learn *l, const struct graph *g, size_t *turned)
{
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		if (!t->requested || !t->command)
			continue;
		if (t->cfg->persistent)
			return error("%s is persistent (a server): vx sandbox learn runs tasks to "
				     "their end; learn what it needs from the tasks it serves, or "
				     "add its grants by hand",
				     t->id);
		if (t->cfg->sandbox)
			continue;
		char *rel = sandbox_home(l->ws, t);
		const char *path[] = {"tasks", t->task, "sandbox"};
		size_t before = l->added;
		int rc = learn_add(l, rel, path, 3, NULL, 0);
		free(rel);
		if (rc)
			return -1;
		*turned += l->added != before;
	}
	return 0;
}

/* What stopped learning, from the run's report: each task that did not
 * pass, its violations and notes (the run's text report, which
 * --report json leaves out). */
static void print_left(const cJSON *tasks)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks)
	{
		const char *id = learn_json_str(t, "id"), *st = learn_json_str(t, "status"),
			   *why = learn_json_str(t, "reason");
		const cJSON *viol = cJSON_GetObjectItemCaseSensitive(t, "violations"), *x;
		if (!id || !st ||
		    ((!strcmp(st, "succeeded") || !strcmp(st, "cached") || !strcmp(st, "noop")) &&
		     !cJSON_GetArraySize(viol)))
			continue;
		fprintf(stderr, "vx: %s: %s%s%s%s\n", id, st, why ? " (" : "", why ? why : "",
			why ? ")" : "");
		cJSON_ArrayForEach(x, viol)
		{
			const char *how = learn_json_str(x, "reason")  ? learn_json_str(x, "reason")
					  : learn_json_str(x, "errno") ? learn_json_str(x, "errno")
								       : "not granted or not keyed";
			fprintf(stderr, "vx: %s: violation: %s %s (%s)\n", id,
				learn_json_say(x, "op"), learn_json_say(x, "path"), how);
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, "notes"))
		    fprintf(stderr, "vx: %s: note: %s\n", id, learn_json_say(x, "text"));
	}
}

/* One round: the run, its report read, its fixes written. Returns 0 when
 * every task passed with no violation, 1 when fixes were written (run
 * again), 2 when nothing more can be learned or the run could not be read. */
static int round_once(struct learn *l, int round, char *const *run_argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	learn_configs_take(l);
	int status = spawn_capture(run_argv, NULL, &out, &err);
	const char *changed = learn_configs_changed(l);
	if (changed) {
		char *rel = path_relative(l->ws->root, changed);
		error("sandbox learn: round %d: %s changed on disk during the round, and not by "
		      "learn: a task (or a person) wrote a file that decides what vx runs; "
		      "learning stops: look at it (git diff %s) before you run anything",
		      round, rel, rel);
		free(rel);
		strbuf_release(&out);
		strbuf_release(&err);
		return 2;
	}
	cJSON *doc = status >= 0 ? cJSON_Parse(out.buf) : NULL;
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(doc, "tasks");
	int rc = 2;
	if (!cJSON_IsArray(tasks)) {
		fputs(err.buf, stderr);
		error("sandbox learn: round %d: the run gave no report (exit %d)", round, status);
		goto out;
	}
	size_t ran = 0, failed = 0, skipped = 0, violations = 0;
	bool refused = false, bad = false;
	l->added = l->removed = 0;
	l->round = round;
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks)
	{
		const char *st = learn_json_str(t, "status");
		ran += st && (!strcmp(st, "succeeded") || !strcmp(st, "failed"));
		failed += st && !strcmp(st, "failed");
		/* not run: a dependency failed (issue 54 item 10: they were
		 * counted as tasks that did not pass) */
		skipped += st && strcmp(st, "failed") && strcmp(st, "succeeded") &&
			   strcmp(st, "cached") && strcmp(st, "noop");
		violations +=
		    (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "violations"));
		if (learn_task(l, t, &refused))
			bad = true;
	}
	if (bad)
		goto out;
	if (!failed && !skipped && !violations && !status) {
		fprintf(stderr, "vx: learn round %d: %zu tasks ran, all passed with no violation\n",
			round, ran);
		rc = 0;
		int declared = learn_own_state(l, tasks);
		if (declared)
			rc = declared < 0 || learn_write_files(l) ? 2
								  : 1; /* a round more, to see it */
		goto out;
	}
	if (learn_own_state(l, tasks) < 0) {
		rc = 2;
		goto out;
	}
	fprintf(stderr, "vx: learn round %d: %zu tasks ran, %zu failed", round, ran, failed);
	if (skipped)
		fprintf(stderr, ", %zu not run (a dependency failed)", skipped);
	fprintf(stderr, ", %zu violations; %zu learned", violations, l->added);
	if (l->removed)
		fprintf(stderr, ", %zu leftovers removed", l->removed);
	fputc('\n', stderr);
	if (!l->added && !l->removed) {
		fputs(err.buf, stderr);
		print_left(tasks);
		error("sandbox learn: what is left needs a person (above: the run's "
		      "report%s); what was learned is kept",
		      refused || l->asked.n ? ", and what was not learned" : "");
		goto out;
	}
	rc = learn_write_files(l) ? 2 : 1;
out:
	cJSON_Delete(doc);
	strbuf_release(&out);
	strbuf_release(&err);
	return rc;
}

int sandbox_learn_main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(LEARN_USAGE, stdout);
		return 0;
	}
	/* the run's own options, checked by its parser (argv[0] is "learn") */
	struct run_opts o;
	memset(&o, 0, sizeof o);
	if (run_opts_parse(argc, argv, false, &o)) {
		run_opts_free(&o);
		return 2;
	}
	const char *taken = o.dry_run		      ? "--dry-run"
			    : o.report != REPORT_NONE ? "--report"
			    : o.shard		      ? "--shard"
			    : o.only		      ? "--only"
			    : o.served_by	      ? "--served-by"
			    : o.explain_key	      ? "--explain-key"
						      : NULL;
	if (taken) {
		error("sandbox learn: %s is not a learn option: learn runs every selected "
		      "task itself and reads its report",
		      taken);
		run_opts_free(&o);
		return 2;
	}
	struct learn l = {0};
	struct graph g;
	if (runplan_graph(&o, NULL, &l.ws, &g)) {
		run_opts_free(&o);
		return 2;
	}
	size_t turned = 0;
	learn_fresh_outputs(&l, &g);
	int rc = turn_on(&l, &g, &turned) || learn_write_files(&l) ? 2 : 0;
	if (!rc && turned)
		fprintf(stderr, "vx: learn: the sandbox turned on for %zu task%s\n", turned,
			turned == 1 ? "" : "s");
	l.g = &g;
	struct strvec run = STRVEC_INIT;
	strvec_push(&run, "/proc/self/exe");
	strvec_push(&run, "run");
	for (int i = 1; i < argc; i++)
		strvec_push(&run, argv[i]);
	/* before any "--": options after it are the tasks' own arguments */
	size_t at = run.n;
	for (size_t i = 2; i < run.n; i++)
		if (!strcmp(run.v[i], "--")) {
			at = i;
			break;
		}
	const char *own[] = {"--force", "--continue", "--report=json"};
	for (size_t k = 0; k < 3; k++) {
		strvec_push(&run, own[k]);
		for (size_t i = run.n - 1; i > at + k; i--) {
			char *s = run.v[i];
			run.v[i] = run.v[i - 1];
			run.v[i - 1] = s;
		}
	}
	int round = 0;
	while (!rc) {
		if (++round > LEARN_ROUNDS) {
			error("sandbox learn: still failing after %d rounds; what was "
			      "learned is kept",
			      LEARN_ROUNDS);
			rc = 2;
			break;
		}
		int r = round_once(&l, round, run.v);
		if (r == 0)
			break;
		if (r == 2)
			rc = 2;
	}
	learn_print_diffs(&l);
	learn_print_asked(&l);
	/* 3: lines a person must add or refuse; 1: stopped for what no grant
	 * gives (docs/sandbox.md) */
	int exit_code = l.asked.n ? 3 : rc ? 1 : 0;
	learn_asked_release(&l);
	learn_files_release(&l);
	strvec_clear(&run);
	strvec_clear(&l.fresh);
	graph_free(&g);
	workspace_free(l.ws);
	run_opts_free(&o);
	return exit_code;
}
