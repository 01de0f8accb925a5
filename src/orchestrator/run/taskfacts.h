/* taskfacts.h - one record of a sandboxed task's facts: what it is (its
 * dependency closure, its dependencies' projects, configs and outputs, its
 * grants, its inputs and outputs, its environment), made once and handed
 * to the sandbox and to the judge. The sandbox request's input
 * (sandbox_input.c) and the judge's input (sandbox_judge.c) are views of
 * it: pointers into its lists, never copies (issue 58 item 2: the closure
 * was walked three times and the facts built twice, in two shapes).
 *
 * The record is made in two stages, as samurai's graph.h says who sets
 * what: taskfacts_plan from the workspace's configs and the graph alone,
 * and taskfacts_start from what only exists once the dependencies have
 * finished: what their outputs matched, the packages linked into
 * node_modules (an install task may make them), the key's files. Both run
 * when the task first starts (sandbox_jobs_request), not when the plan is
 * made: planning every sandboxed task up front cost a 500-task dry run
 * (bench/gen-monorepo 500, sandbox: on build) 400 -> 580 ms median, most
 * of it declared_write_walled's walk of every project for each declared
 * output and task_env's pass-through matching, paid for every cache hit. */
#ifndef VX_RUN_TASKFACTS_H
#define VX_RUN_TASKFACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "util/vec.h"
#include "violations/judge_input.h"

struct taskcache;

typedef VEC(size_t) taskfacts_nodes;

struct taskfacts {
	/* Set by taskfacts_plan. */
	bool planned; /* the fields below are made (a sandboxed task with a command) */
	/* The dependency closure: closure[d] for every node d it depends on,
	 * transitively (the key folds each one's, through the chain); deps
	 * lists them in graph order (dependencies first). */
	bool *closure;
	taskfacts_nodes deps;
	struct strvec dep_dirs; /* each dependency's project dir, once, in deps' order:
				 * the linked packages it may see (keyed_projects) */
	/* One judge_dep per dependency (parallel to deps): its project, task,
	 * id and the vx.yaml its fix goes into (the dependency's yaml). */
	VEC(struct judge_dep) judge_deps;
	/* Grants, relative to the project: allow.read and the declared
	 * inputs.workspaceFiles outside it; allow.write and the declared
	 * outputs that stay in it (issue 54 item 9). */
	struct strvec reads, writes;
	/* As written in its config. */
	struct strvec input_files, ws_inputs, outputs, sockets, mach, sysinfo, ignore_read,
	    ignore_write, ignore_network;
	VEC(int) local_ports; /* localBinding: [PORT, ...] */
	/* The environment: define as NAME=VALUE, pass-through and secret
	 * names, vx's own variables, and what envMode gives the same task
	 * unsandboxed (issue 40: CI was dropped, so vitest hung in watch
	 * mode), scrubbed by env_build. */
	struct strvec define, pass, secrets, vxenv, plain_env;
	/* The output directories of the project's other tasks that it does
	 * not wait for, absolute (the request shows them empty), and the
	 * output globs of the project's other tasks that run a command, as
	 * the judge names them (others borrows other_tasks and other_globs). */
	struct strvec other_dirs;
	struct strvec other_tasks, other_globs;
	VEC(struct judge_other_output) others;

	/* Set by taskfacts_start, again at each start (a retry starts afresh). */
	struct strvec linked;	    /* projects linked into its node_modules or the root's */
	struct strvec dep_outputs;  /* what its dependencies' outputs matched, absolute,
				     * sorted */
	struct strvec dep_keyed;    /* its dependencies' keyed files, workspace-relative,
				     * sorted (those cached this run) */
	struct strvec outside;	    /* its read grants outside the workspace, canonical */
	struct strvec tools;	    /* the programs its key holds, sorted; empty: none */
	struct strvec project_deps; /* its project's dependencies' dirs, canonical (made
				     * at the first start) */

	/* Set by taskfacts_yaml for any node, planned or not, the first time
	 * it is asked: the vx.yaml its fix goes into, workspace-relative (the
	 * project's own, or where it would be: a project of package.json
	 * alone, or the root's tasks). */
	char *yaml;

	/* Set by taskfacts_outputs for any node, the first time a dependent
	 * starts: what its output globs matched once it finished (every
	 * dependent reads the same list; a file made there later is not
	 * granted: a false violation at worst, never a read let through). */
	bool outputs_walked, outputs_ok;
	struct strvec matched;
};

/* Makes the plan-time part of node i's facts (all of them: facts is
 * indexed like g->nodes). A node without sandbox: or command is left
 * unplanned. */
void taskfacts_plan(struct taskfacts *facts, const struct workspace *ws, const struct graph *g,
		    size_t i);
/* Makes the start-time part of node i's facts (planned): its
 * dependencies' outputs (each walked once a run, kept in facts[d]), the
 * linked packages, what tc (NULL: none) keys of its dependencies and
 * which programs it keys of its own. */
void taskfacts_start(struct taskfacts *facts, const struct workspace *ws, const struct graph *g,
		     const struct taskcache *tc, size_t i);
/* The vx.yaml a fix of node i goes into (facts[i].yaml, made once). */
const char *taskfacts_yaml(struct taskfacts *facts, const struct workspace *ws,
			   const struct graph *g, size_t i);
/* What node d's output globs match, walked once a run; NULL when the walk
 * failed. */
const struct strvec *taskfacts_outputs(struct taskfacts *facts, const struct workspace *ws,
				       const struct graph *g, size_t d);
void taskfacts_release(struct taskfacts *f);

#endif
