/* graph.h - the task graph: which project#task nodes a run needs and the
 * edges between them (SPEC §2.2 "Dependency spellings"). */
#ifndef VX_PLAN_GRAPH_H
#define VX_PLAN_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "orchestrator/config/workspace.h"

struct task_edge {
	size_t to;	/* index of the node depended on */
	struct loc loc; /* the dependsOn entry that made the edge */
};

struct task_node {
	size_t index;	      /* its place in g->nodes (jobs, keys and statuses are parallel) */
	size_t project;	      /* index into ws->projects */
	struct task_cfg *cfg; /* the project's task merged over the workspace default; owned */
	const char *task;     /* the task's name ("build"; "//#" stripped for the root) */
	char *id;	      /* "project#task" */
	char *command;	      /* what /bin/sh -c runs; NULL: nothing to run (a no-op) */
	bool from_script;     /* command came from package.json "scripts" */
	size_t args_at;	      /* where -- ARGS go in command: the end of the script
			       * itself, before a "post" script (0: the end) */
	bool requested;	      /* named on the command line (gets the -- ARGS) */
	VEC(struct task_edge) deps;
};

struct graph {
	struct workspace *ws;	       /* not owned */
	VEC(struct task_node *) nodes; /* dependencies before dependents after graph_build */
	bool *selected; /* the projects the run selected, indexed like ws->projects (all
			 * when graph_build was given none); owned */
};

/* Builds the graph of tasks (each "task" or "project#task") for the projects
 * marked in selected (indexed like ws->projects; NULL: all), plus every task
 * they depend on. A project lacking a requested task is left out for that
 * project; an explicit project#task that does not exist is an error.
 * Returns 0, or -1 after printing one error line: an unknown project or task
 * in dependsOn (with its FILE:LINE:COL), a cycle (naming every task on it, in
 * order), a dependency on a persistent task. */
int graph_build(struct graph *g, struct workspace *ws, char *const *tasks, size_t ntasks,
		const bool *selected);
void graph_free(struct graph *g);

/* The task config project p has for name, as a graph would make it (its
 * own over the workspace's and turbo.json's layers; a bare one for a
 * package.json script), or NULL when p lacks it. Caller frees it with
 * task_cfg_free. */
struct task_cfg *graph_project_task(const struct workspace *ws, const struct project *p,
				    const char *name);

/* True when some project of the workspace has task name (the typo check:
 * `vx run biuld` must not pass for having run nothing). */
bool graph_workspace_has_task(const struct workspace *ws, const char *name);

/* Appends to out, sorted, the name of every task project p has (its own, a
 * layer's it inherits, its package.json scripts); runs: only those it runs
 * a command for (a task turbo.json names that p has no script for is a
 * no-op in p's graph, and `turbo ls` lists it with an empty command). */
void graph_project_task_names(const struct workspace *ws, const struct project *p, bool runs,
			      struct strvec *out);

/* Drops every node i with !keep[i] (keep indexed like g->nodes), keeping
 * the order and renumbering the edges. What is kept must hold its
 * dependencies (dies otherwise: the caller's bug). */
void graph_keep(struct graph *g, const bool *keep);

/* Appends args, each shell-quoted, to the command of every requested task
 * (`vx run build -- --watch`): the command is what runs, is keyed and is
 * recorded, so it is the node's, once. */
void graph_append_args(struct graph *g, char *const *args, size_t nargs);

/* Writes the graph as JSON {"nodes":[{"id","project","name","task","command"}],
 * "edges":[{"from","to"}]} or as Graphviz dot. */
void graph_print_json(const struct graph *g, FILE *out);
/* Appends t's fields "id","project" (its directory),"name","task","command"
 * (command, or null) to sb, without braces: every JSON report names a
 * task so. */
void graph_node_json(const struct graph *g, const struct task_node *t, const char *command,
		     struct strbuf *sb);
/* The dot: a dashed node is a task with no command, and then the graph's
 * label says so. */
void graph_print_dot(const struct graph *g, FILE *out);
/* The graph as a person reads it (`vx graph --format text`): each task no
 * task depends on, the tasks it needs in a tree below it; a task shown
 * before is marked (*) and not expanded again, as `cargo tree` does. */
void graph_print_text(const struct graph *g, FILE *out);
/* The graph as a Mermaid flowchart ("graph LR", an arrow from each task to
 * each task it depends on, as the dot's): GitHub renders it in Markdown. */
void graph_print_mermaid(const struct graph *g, FILE *out);

#endif
