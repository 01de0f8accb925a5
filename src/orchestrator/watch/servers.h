/* servers.h - vx watch's persistent tasks, kept running across cycles
 * (docs/watch.md "Servers"). */
#ifndef VX_WATCH_SERVERS_H
#define VX_WATCH_SERVERS_H

#include <stdbool.h>

#include "orchestrator/run/run.h"
#include "util/vec.h"

struct loop;
struct servers;

/* The servers live on l: each is a child `vx run ID --only --served-by`
 * (its own sandbox, bridges and signal relay), watched by a pidfd. */
struct servers *servers_new(struct loop *l);

/* Server id's turn in a cycle (its dependencies ran and succeeded). argv
 * is the child to run when it must start; fp its fingerprints now. Starts
 * it when it is not running (again, after it exited, when anything it sees
 * changed); restarts it (SIGINT, the old one gone first, then the new one)
 * when it runs and what it restarts for changed; else leaves it alone.
 * Returns the line that says which (static text). */
const char *servers_serve(struct servers *sv, const char *id, const struct strvec *argv,
			  const struct server_fp *fp);

/* Stops the servers whose ids keep does not hold (a plan that dropped
 * them). */
void servers_retain(struct servers *sv, const struct strvec *keep);

/* Stops every server: SIGINT, which its run relays to the task's own trap,
 * then the task's grace; returns when all have ended (running the loop). */
void servers_stop_all(struct servers *sv);
/* A second Ctrl-C while they stop: their runs kill their tasks at once. */
void servers_hurry(struct servers *sv);
/* How many are running (or stopping). */
size_t servers_running(const struct servers *sv);

void servers_free(struct servers *sv);

#endif
