/* sandbox_job.h - a task that declared sandbox:, turned into a sandbox
 * request and a wrapped job (src/sandbox builds the walls; run/ hands it
 * a view of the task's facts, taskfacts.h). The calls below live in
 * sandbox_job.c (init, wrap, unstage, done), sandbox_input.c (the
 * request's input: sandbox_jobs_request, sandbox_jobs_profile) and
 * sandbox_judge.c (the verdict: sandbox_jobs_judge and its readers); the
 * network's in sandbox_net.c. */
#ifndef VX_RUN_SANDBOX_JOB_H
#define VX_RUN_SANDBOX_JOB_H

#include <stdbool.h>

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskfacts.h"
#include "util/rundir.h"
#include "sandbox/bridge.h"
#include "sandbox/bwrap.h"
#include "sandbox/guard.h"
#include "sandbox/net.h"
#include "sandbox/netrule.h"
#include "sandbox/proxy.h"
#include "sandbox/request.h"
#include "sandbox/tracelog.h"
#include "violations/judge.h"

struct taskcache;

struct sandbox_jobs {
	const struct workspace *ws;
	const struct graph *g;
	const char *cache_dir;	   /* the store: a wall in every sandbox */
	char *bwrap, *setsid;	   /* found on vx's PATH once, before any task runs */
	char *init;		   /* vx-sandbox-init beside vx, or NULL (bwrap.c's script) */
	char *strace;		   /* found and probed once; NULL: tasks run untraced */
	char *netd;		   /* the vx binary (/proc/self/exe), run inside a task with
				    * a network grant as its netd (sandbox/netd.h) */
	struct loop *loop;	   /* the run's (sandbox_jobs_start): the proxies serve on it */
	struct resolver *resolver; /* the proxies' name lookups, made with the first proxy */
	bool quiet_report;	   /* --report json|sarif|github: no text report lines */
	bool showing;		   /* vx sandbox show: nothing runs, the tracer is shown */
	bool darwin;		   /* --platform darwin: a Seatbelt profile, no Linux probe */
	const char *run_dir;	   /* the run's own directory (util/rundir.h), from
				    * sandbox_jobs_start: trace logs go there */
	const char *run_base;	   /* where every run dir of this user lives: a wall */
	struct rundir stage;	   /* the run's stage directory under WS/.vx/stage (on the
				    * workspace's file system); path NULL: no staging */
	struct strvec configs;	   /* the files that decide what vx runs, canonical:
				    * made with the first request, for every task */
	struct strvec projects;	   /* every project's dir, canonical, parallel to
				    * ws->projects: made with the first request */
	struct sandbox_job *jobs;  /* per node */
	struct taskfacts *facts;   /* per node: what each task is (taskfacts.h), planned and
				    * started by its request; the request and the judge's
				    * input are views of it */
	/* The key beyond a task (issue 18), set by the run: the run's task
	 * cache (each node's keyed files, for its dependents' reads, and its
	 * programs, the key's toolchain; NULL: none); whether the lockfile
	 * keys node_modules; the run's start (wall-clock seconds). */
	const struct taskcache *tc;
	bool externals_keyed;
	long long run_started;
};

/* One wrapped task: set by sandbox_jobs_wrap, read by the spawn. */
struct sandbox_job {
	bool built; /* req holds a request to sweep and release */
	struct sandbox_request req;
	int signal_rd;	    /* the read end of the signal pipe, given as fd 3; -1 */
	sandbox_fd_vec fds; /* the filter and bind sources bwrap inherits */
	struct strvec argv;
	struct trace_log trace; /* strace's log (sandbox/tracelog.h); removed after judging */
	char *stage_dir;	/* the stage of its project (request.h), or NULL;
				 * emptied by sandbox_jobs_unstage, removed by done */
	char reason[48];	/* job->reason of a task its violations failed */
	struct guard guard;	/* the configs it could make (sandbox/guard.h): recorded
				 * by wrap, checked by sandbox_jobs_judge */
	/* what each of vx's own steps took, in µs (vx run --profile): the
	 * request planned, then prepared (log, stage, fds, argv); the trace
	 * judged; all of it swept and released */
	long long us_plan, us_prepare, us_judge, us_cleanup;
	bool judged;   /* verdict holds the judge's word (sandbox_jobs_judge) */
	bool untraced; /* judged as a persistent task that ran untraced and failed:
			* its report shows its walls first (runreport_task) */
	struct verdict verdict;
	char *project_dir;	    /* canonical, as judged: report paths are made from it */
	struct sandbox_net net;	    /* its network (sandbox/net.h): rules set by init
				     * (run/sandbox_net.c), started by wrap, stopped by done */
	const struct strvec *keyed; /* set by wrap: the cached task's key files (the
				     * taskcache's, borrowed for the run), or NULL */
};

/* The judge's input for node i's report (paths borrowed from sj). */
struct judge_input sandbox_jobs_report_input(const struct sandbox_jobs *sj, size_t i);
/* Node i's verdict when it was judged this run, else NULL. */
const struct verdict *sandbox_jobs_verdict(const struct sandbox_jobs *sj, size_t i);
/* Appends node i's phases as JSON members (`,"plan_us":N,...`) when it was
 * sandboxed this run; else nothing. */
void sandbox_jobs_phases(const struct sandbox_jobs *sj, size_t i, struct strbuf *out);

enum {
	SANDBOX_JOBS_QUIET = 1,	 /* --report json|sarif|github: no text report lines */
	SANDBOX_JOBS_SHOW = 2,	 /* vx sandbox show: nothing runs, the tracer is shown */
	SANDBOX_JOBS_DARWIN = 4, /* with SHOW: the macOS translation; bwrap is not probed */
};

/* Checks, before anything runs, that every sandboxed task of g can have its
 * sandbox: bwrap works here (the probe), its network and port grants are
 * well formed, and no task asks for what is not built yet (socket grants).
 * cache_dir (borrowed) is walled off in every
 * sandbox; flags are SANDBOX_JOBS_*. A network entry that is no host is a
 * configuration error at its line. Returns 0, or -1 after one error line
 * (the caller exits 2: a sandbox the platform cannot provide is never
 * skipped). */
int sandbox_jobs_init(struct sandbox_jobs *sj, const struct workspace *ws, const struct graph *g,
		      const char *cache_dir, unsigned flags);

/* Before the first task runs: trace logs and the proxies' sockets go to
 * the run's own directory (util/rundir.h, borrowed until
 * sandbox_jobs_finish; its base is walled in every sandbox), the proxies
 * serve on loop, and a run with a sandbox gets its stage under WS/.vx/stage (swept as the run dir
 * is, a dead run's staged entries put back first). A stage that cannot be made leaves the grants
 * bound as they are. */
void sandbox_jobs_start(struct sandbox_jobs *sj, const struct rundir *run, struct loop *loop);
/* After the last task: puts back what a failed spawn left staged, and
 * removes the stage. */
void sandbox_jobs_finish(struct sandbox_jobs *sj);

/* Wraps job (node i, about to run) in its sandbox: builds the request (at
 * task start: globs expand to what exists now, the dependencies' outputs
 * included) and replaces job->argv with bwrap's. Returns 0 (a task without
 * sandbox: is left alone), or -1 with job->reason set and the reason printed
 * (the task fails; it never runs unprotected). keyed: the workspace-relative
 * files the task's key folds when it is cached this run, else NULL; one
 * outside the project that the sandbox hides fails the task before it runs,
 * naming the grant (its key would claim a dependency the task cannot read). */
int sandbox_jobs_wrap(struct sandbox_jobs *sj, size_t i, struct job *job,
		      const struct strvec *keyed);
/* Plans node i's request into req (sandbox_request_plan: nothing is
 * created or opened), as sandbox_jobs_wrap does before it prepares it, and
 * as `vx sandbox show` prints it. Returns 0, or -1 with one line in err. */
int sandbox_jobs_request(struct sandbox_jobs *sj, size_t i, struct sandbox_request *req,
			 struct strbuf *err);
/* Node i's Seatbelt profile (sandbox/seatbelt.h), its TMPDIR tmpdir (a
 * host path), from the same input sandbox_jobs_request plans. Returns 0,
 * or -1 with one line in err; notes get what it leaves out. */
int sandbox_jobs_profile(struct sandbox_jobs *sj, size_t i, const char *tmpdir, struct strbuf *out,
			 struct strvec *notes, struct strbuf *err);
/* After node i ran under strace: judges its trace into its verdict
 * (printed by runreport_task), and returns -1 when a task that exited 0
 * must fail (a violation, or a trace that ended before
 * the command did); 0 otherwise (also for an untraced task). */
int sandbox_jobs_judge(struct sandbox_jobs *sj, size_t i, struct job *job);
/* After node i ran, before anything looks at its project: moves its
 * staged write grants back from the stage (request.h) and discards what
 * else it left there. */
void sandbox_jobs_unstage(struct sandbox_jobs *sj, size_t i);

/* The config files (vx.yaml, package.json, ...) sandboxed tasks of this
 * run were judged to have written (the note "config"): each appended to
 * paths, with the writing task's id at the same index of ids. `vx watch`
 * never plans from them. */
void sandbox_jobs_configs_written(const struct sandbox_jobs *sj, struct strvec *paths,
				  struct strvec *ids);

/* vx-sandbox-init of the running vx (malloc'd; sandbox/initpath.h: beside
 * it, or in its ../libexec/vx/), or NULL when it is in neither: the
 * sandbox's init, and the reaper of unsandboxed tasks. */
char *sandbox_jobs_helper(void);

/* After node i ran: removes placeholders it left untouched and frees its
 * request. */
void sandbox_jobs_done(struct sandbox_jobs *sj, size_t i);
void sandbox_jobs_release(struct sandbox_jobs *sj);

#endif
