/* run.h - the `vx run` and `vx graph` verbs: options to graph to scheduler. */
#ifndef VX_ORCHESTRATOR_RUN_H
#define VX_ORCHESTRATOR_RUN_H

/* Each returns the process exit status (SPEC §3): 0, 1, 2 or 130. argv[0]
 * is the verb. */
int run_main(int argc, char **argv);
int graph_main(int argc, char **argv);

#endif
