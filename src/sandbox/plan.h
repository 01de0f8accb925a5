/* plan.h - the plan being made: what sandbox_request_plan (plan.c) keeps
 * while it resolves a task's grants, and mounts.c reads to lay them out as
 * mounts. Private to src/sandbox. */
#ifndef VX_SANDBOX_PLAN_H
#define VX_SANDBOX_PLAN_H

#include <stdbool.h>

#include "sandbox/grants.h"
#include "sandbox/request.h"
#include "sandbox/walls.h"
#include "util/die.h"
#include "util/strbuf.h"

/* Everything a build needs while it is being assembled. */
struct builder {
	const struct sandbox_input *in;
	struct sandbox_request *req;
	struct strbuf *err;
	char *ws, *proj, *home, *tmp;
	bool home_masked; /* home is an empty read-only tmpfs but for what is granted */
	bool run_masked;  /* so is /run, where the host's sockets live */
	wall_vec walls;
	grant_vec reads, writes;
	struct strvec rw_dirs;	      /* canonical dirs bound read-write */
	struct strvec rw_files;	      /* canonical files bound read-write alone (untraced) */
	grant_vec glob_heads;	      /* the literal head dir of each write glob */
	struct strvec punched;	      /* masked-and-punched dirs (avoid doing one twice) */
	struct strvec masked;	      /* walls inside a RW bind: masked read-only there */
	struct strvec hidden_outputs; /* other tasks' outputs masked (other_outputs) */
	struct strvec staged_roots;   /* canonical paths of the staged grants (in the project) */
	bool staging;		      /* the project is bound from the stage (see plan_stage) */
};

/* Puts the one-line reason a task is refused in err and returns -1. */
int plan_refuse(struct strbuf *err, const char *fmt, ...) VX_PRINTF(2, 3);

#endif
