/* stage.h - a staged project (issue 11: `rm -rf dist && mkdir dist` met
 * EBUSY on a grant that is a mount point): its top-level write grants live
 * as plain entries in a stage dir while the task runs, and come back after
 * it. What is staged is planned by sandbox_request_plan (req->stage,
 * req->staged). */
#ifndef VX_SANDBOX_STAGE_H
#define VX_SANDBOX_STAGE_H

#include <stddef.h>

#include "sandbox/request.h"

/* Moves each staged name from the project into the stage (a missing one is
 * left to the task to make). Returns 0, or -1 with errno after moving back
 * what it moved (the task must then not run). */
int sandbox_request_stage(const struct sandbox_request *req);

/* After the task: moves back from the stage each entry a write grant names
 * (the staged ones, and new ones a grant's glob matches, spelled as
 * written in allow), and removes the rest of the stage: a new file no
 * grant names never reaches the project (the judge reports it). Returns
 * how many entries it discarded. */
size_t sandbox_request_unstage(const struct sandbox_request *req, const char *const *allow_write,
			       size_t n_allow_write);

/* Writes beside stage_dir (STAGE.project) what the reaper needs should vx
 * die: req's project and its staged names; then moves the staged entries
 * into stage_dir (sandbox_request_stage). Returns 0, or -1 with errno
 * (nothing is left moved). */
int sandbox_stage_record(const char *stage_dir, const struct sandbox_request *req);

/* Removes stage_dir, and then its record (the reaper's, should vx die); a
 * stage that still holds something stays, with its record. Returns
 * rmdir's result. */
int sandbox_stage_drop(const char *stage_dir);

/* Puts back what a dead run's stages hold (dirfd: the rundir reaper's
 * WS/.vx/stage): each staged entry its project lacks, by the records. */
void sandbox_stage_reap(int dirfd);

#endif
