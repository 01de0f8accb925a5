/* sandbox_job.c - from a task to its sandbox request, and the wrapped job:
 * init, wrap (the request planned and prepared, the stage, the network,
 * the argv), unstage, done. Its input is sandbox_input.c's, its verdict
 * sandbox_judge.c's.
 *
 * The request is built when the task starts, not when the run is planned:
 * a glob grant expands to what exists then (a bind is a mount), and the
 * outputs of the task's dependencies exist only once they have run. */
#include "orchestrator/run/sandbox_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/fsafe.h"
#include "orchestrator/keys/inputs.h"
#include "orchestrator/run/sandbox_net.h"
#include "orchestrator/run/taskcache.h"
#include "orchestrator/run/taskreads.h"
#include "orchestrator/keys/taskenv.h"
#include "sandbox/bwrap.h"
#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "sandbox/env.h"
#include "sandbox/grants.h"
#include "sandbox/initpath.h"
#include "sandbox/probe.h"
#include "sandbox/seatbelt.h"
#include "sandbox/stage.h"
#include "util/compat.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/fix.h"
#include "violations/judge.h"

extern char **environ;

/* vx-sandbox-init beside the running vx (a build tree) or in its
 * ../libexec/vx/ (an install): sandbox/initpath.h; else NULL and the
 * wrapper is the shell script (bwrap.c). */
static char *sandbox_init_path(const char *self)
{
	return initpath_of(self, NULL);
}

char *sandbox_jobs_helper(void)
{
	char *self = realpath("/proc/self/exe", NULL);
	char *init = sandbox_init_path(self);
	free(self);
	return init;
}

int sandbox_jobs_init(struct sandbox_jobs *sj, const struct workspace *ws, const struct graph *g,
		      const char *cache_dir, unsigned flags)
{
	memset(sj, 0, sizeof *sj);
	sj->ws = ws;
	sj->g = g;
	sj->cache_dir = cache_dir;
	sj->quiet_report = flags & SANDBOX_JOBS_QUIET;
	sj->showing = flags & SANDBOX_JOBS_SHOW;
	sj->darwin = flags & SANDBOX_JOBS_DARWIN;
	sj->stage.lock_fd = -1;
	size_t n = g->nodes.n + 1;
	sj->jobs = xcalloc(n, sizeof *sj->jobs);
	sj->facts = xcalloc(n, sizeof *sj->facts);
	for (size_t i = 0; i < n; i++)
		sj->jobs[i].signal_rd = -1;
	const struct task_node *first = NULL;
	bool any_net = false;
	for (size_t i = 0; i < g->nodes.n; i++) {
		const struct task_node *t = g->nodes.v[i];
		const struct sandbox_cfg *sb = t->cfg->sandbox;
		if (!sb || !t->command)
			continue;
		if (!first)
			first = t;
		/* The sandbox's own rule, asked before anything runs so the
		 * error can name the config line. */
		struct strvec pass = STRVEC_INIT, secrets = STRVEC_INIT, keyed = STRVEC_INIT;
		lstr_vec_strings(&t->cfg->env_pass, &pass);
		lstr_vec_strings(&t->cfg->env_pass_secrets, &secrets);
		lstr_vec_strings(&t->cfg->input_env, &keyed);
		struct env_input ein = {
		    .pass_through = (const char *const *)pass.v,
		    .n_pass = pass.n,
		    .pass_secrets = (const char *const *)secrets.v,
		    .n_secrets = secrets.n,
		    .keyed = (const char *const *)keyed.v,
		    .n_keyed = keyed.n,
		};
		struct strbuf why = STRBUF_INIT;
		const char *field = NULL;
		long bad = env_refused(&ein, &field, &why);
		strvec_clear(&pass);
		strvec_clear(&secrets);
		strvec_clear(&keyed);
		if (bad >= 0) {
			const lstr_vec *list =
			    !strcmp(field, "inputs.env") ? &t->cfg->input_env : &t->cfg->env_pass;
			config_error(&list->v[bad].loc, "%s: %s", t->id, why.buf);
			strbuf_release(&why);
			return -1;
		}
		strbuf_release(&why);
		struct sandbox_job *sjob = &sj->jobs[i];
		if (sandbox_jobs_net_rules(t, &sjob->net, sj->darwin) < 0)
			return -1;
		sjob->net.proxied = sjob->net.rules.any || sjob->net.rules.allow.n;
		any_net = any_net || sandbox_net_wanted(&sjob->net);
		if (sb->unix_sockets.any)
			return config_error(
			    &sb->unix_sockets.loc,
			    "%s: unixSockets: true cannot be built: the host's sockets "
			    "are not enumerable, and the docker socket or an agent's "
			    "must never ride in unnamed; list the socket paths",
			    t->id);
	}
	/* vx's own binary: the network helper, and beside it vx-sandbox-init */
	char *self = sj->darwin || !first ? NULL : realpath("/proc/self/exe", NULL);
	if (any_net && !sj->darwin && !(sj->netd = self ? xstrdup(self) : NULL))
		return error_errno("a sandboxed task has a network or port grant, and vx cannot "
				   "find its own binary to run as its network helper");
	if (!first || sj->darwin)
		return 0; /* a Seatbelt profile is shown: nothing of Linux's is asked for */
	/* The probes' answer is kept in WS/.vx/probe (probe.h): a run whose
	 * machine did not change spawns no trial. vx sandbox show keeps none. */
	char *state =
	    sj->showing || workspace_vx_dir(ws) < 0 ? NULL : path_join(ws->root, ".vx/probe");
	struct probe p, st;
	sj->init = sandbox_init_path(self);
	probe_sandbox(state, sj->init, &p, &st);
	free(state);
	if (!p.works) {
		error("%s declares sandbox:, and this machine cannot give one: %s", first->id,
		      p.reason ? p.reason : "bwrap does not work");
		probe_free(&p);
		probe_free(&st);
		free(self);
		return -1;
	}
	sj->bwrap = xstrdup(p.path);
	probe_free(&p);
	sj->setsid = probe_which("setsid");
	free(self);
	if (st.works)
		sj->strace = xstrdup(st.path);
	else
		warning(
		    "sandboxed tasks run untraced this run (the walls still hold, but no violation "
		    "can be reported): %s",
		    st.reason ? st.reason : "strace does not work");
	probe_free(&st);
	if (!sj->setsid) {
		char *missing = probe_missing("setsid", "util-linux");
		error("%s declares sandbox:, and %s", first->id, missing);
		free(missing);
		return -1;
	}
	return 0;
}

static int spawn_actions(posix_spawn_file_actions_t *fa, void *data)
{
	const struct sandbox_job *sjob = data;
	return sandbox_spawn_actions(&sjob->fds, sjob->signal_rd, fa);
}

/* The files the task's own inputs.workspaceFiles key that the sandbox hides,
 * as allow.read entries (relative to the project), appended to out. The
 * workspace's inputs.workspaceFiles are left out: they invalidate every task
 * at once (a lockfile), which claims no task reads them. */
static void keyed_hidden(const struct sandbox_jobs *sj, const struct taskfacts *f,
			 const struct sandbox_request *req, const struct strvec *keyed,
			 struct strvec *out)
{
	const struct strvec *own = &f->ws_inputs;
	for (size_t k = 0; keyed && own->n && k < keyed->n; k++) {
		if (!globlist_match(own->v, own->n, keyed->v[k]))
			continue;
		char *abs = path_join(sj->ws->root, keyed->v[k]);
		char *real = realpath(abs, NULL);
		const char *p = real ? real : abs;
		if (!path_is_within(req->cwd, p) && !sandbox_request_sees(req, p))
			strvec_push_nodup(out, path_relative(req->cwd, p));
		free(real);
		free(abs);
	}
}

/* A task refused before it ran because its key holds files its sandbox
 * hides (hidden: project-relative) is judged all the same, so --report
 * json, sarif and github carry the refusal and its fix: a read violation
 * per file, refused by vx itself, and the allow.read grant. */
static void hidden_verdict(struct sandbox_job *sjob, const struct strvec *hidden)
{
	struct verdict *v = &sjob->verdict;
	if (sjob->judged)
		verdict_release(v);
	memset(v, 0, sizeof *v);
	for (size_t k = 0; k < hidden->n; k++) {
		struct violation x = {
		    .op = VIOLATION_READ,
		    .path = path_join(sjob->req.cwd, hidden->v[k]),
		    .syscall = "key",
		    .reason = xstrdup("its key holds it, and its sandbox hides it"),
		};
		vec_push(&v->violations, x);
		strvec_push_nodup(&v->fix_read, fix_glob(hidden->v[k]));
	}
	free(sjob->project_dir);
	sjob->project_dir = xstrdup(sjob->req.cwd);
	sjob->judged = true;
}

static int guard_record(struct sandbox_jobs *sj, struct sandbox_job *sjob,
			const struct task_node *t);

typedef VEC(struct strvec) glob_lists;

/* The outputs of each other task of the graph in t's project, one glob
 * list a task ("!" takes away within its own list only). */
static void others_outputs(const struct graph *g, const struct task_node *t, glob_lists *out)
{
	for (size_t k = 0; k < g->nodes.n; k++) {
		const struct task_node *o = g->nodes.v[k];
		if (o == t || o->project != t->project || !o->cfg->outputs.n)
			continue;
		struct strvec globs = STRVEC_INIT;
		lstr_vec_strings(&o->cfg->outputs, &globs);
		vec_push(out, globs);
	}
}

/* Does one of lists match rel? (Two tasks writing one dist/: neither's
 * run removes the other's.) */
static bool lists_match(const glob_lists *lists, const char *rel)
{
	for (size_t k = 0; k < lists->n; k++)
		if (globlist_match(lists->v[k].v, lists->v[k].n, rel))
			return true;
	return false;
}

/* On a miss, what a sandboxed cached task's outputs match is removed
 * before it runs, as Bazel does (issue 54 items 3 and 5): a task that read
 * what an earlier run of it left (Tailwind's CLI reads dist/styles.css
 * before it writes it; tsc -b the .d.ts its build info describes) made its
 * result depend on what no key holds, failed as read-unkeyed on the first
 * rebuild after an edit, and learn's rounds took turns removing such
 * leftovers and never converged. What a hit would restore is what a miss
 * starts without. A tool's own cache that validates itself by content
 * stays (.next/cache when the outputs do not take it away, .eslintcache;
 * judge_tool_cache), and so does what another task of the project
 * declares. A file only: an empty directory left is no input. */
static void clear_outputs(struct sandbox_jobs *sj, const struct task_node *t)
{
	if (t->cfg->persistent || !t->cfg->outputs.n || !taskcache_cacheable(t))
		return;
	const char *dir = sj->ws->projects.v[t->project]->dir;
	struct strvec outs = STRVEC_INIT;
	int rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || outputs_collect(dir, &t->cfg->outputs, &outs)) {
		if (rootfd >= 0)
			close(rootfd);
		strvec_clear(&outs);
		return;
	}
	glob_lists others = {0};
	others_outputs(sj->g, t, &others);
	struct fsafe_parent pc = {0};
	for (size_t k = 0; k < outs.n; k++) {
		const char *rel = outs.v[k], *leaf;
		if (judge_tool_cache(rel) || lists_match(&others, rel))
			continue;
		int pfd = fsafe_parent_open(&pc, rootfd, rel, false, &leaf);
		struct stat st;
		if (pfd >= 0 && fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode) && unlinkat(pfd, leaf, 0) < 0 && errno != ENOENT)
			warning("%s: cannot remove its earlier output %s: %s", t->id, rel,
				strerror(errno));
	}
	fsafe_parent_release(&pc);
	close(rootfd);
	strvec_clear(&outs);
	for (size_t k = 0; k < others.n; k++)
		strvec_clear(&others.v[k]);
	vec_free(&others);
}

int sandbox_jobs_wrap(struct sandbox_jobs *sj, size_t i, struct job *job,
		      const struct strvec *keyed)
{
	const struct task_node *t = sj->g->nodes.v[i];
	if (!t->cfg->sandbox || !job->argv)
		return 0;
	struct sandbox_job *sjob = &sj->jobs[i];
	long long t_wrap = loop_now_us();
	sjob->keyed = t->cfg->sandbox->no_verify_key ? NULL : keyed;
	if (!sj->showing)
		clear_outputs(sj, t);
	strvec_clear(&sjob->argv); /* a retry builds everything afresh */
	if (sj->strace && !t->cfg->persistent) {
		/* The run is traced, so the task's key says traced: a task that
		 * cannot be traced must not run (it would be saved unjudged). A
		 * server is never cached and its trace would grow for as long
		 * as it serves, to be read only after it exits: untraced. */
		trace_log_remove(&sjob->trace); /* a retry's log is a new one */
		if (trace_log_make(&sjob->trace, sj->run_dir)) {
			error_errno("%s: cannot make its trace log in %s", t->id,
				    sj->run_dir ? sj->run_dir : "/tmp");
			job->reason = "its trace log could not be made (see above)";
			return -1;
		}
	}
	if (sj->stage.path && !sjob->stage_dir) {
		char *tmpl = path_join(sj->stage.path, "task-XXXXXX");
		if (mkdtemp(tmpl))
			sjob->stage_dir = tmpl;
		else
			free(tmpl); /* no stage: the grants are bound as they are */
	}
	if (sandbox_net_wanted(&sjob->net) && sandbox_jobs_net_start(sj, sjob, t, job) < 0)
		return -1;
	struct strbuf err = STRBUF_INIT;
	long long t_plan = loop_now_us();
	int rc = sandbox_jobs_request(sj, i, &sjob->req, &err);
	long long t_prepare = loop_now_us();
	sjob->us_plan = t_prepare - t_plan;
	if (!rc)
		rc = sandbox_request_prepare(&sjob->req, &err);
	if (!rc && !sjob->req.stage && sjob->stage_dir) {
		rmdir(sjob->stage_dir);
		free(sjob->stage_dir);
		sjob->stage_dir = NULL;
	}
	if (rc) {
		if (err.len)
			error("%s: sandbox refused: %s", t->id, err.buf);
		if (!job->reason)
			job->reason = "its sandbox could not be built (see above)";
	} else {
		sjob->built = true;
		for (size_t k = 0; k < sjob->req.notes.n; k++)
			fprintf(stderr, "%s: note: %s\n", t->id, sjob->req.notes.v[k]);
		struct strvec hidden = STRVEC_INIT;
		keyed_hidden(sj, &sj->facts[i], &sjob->req, keyed, &hidden);
		int pfd[2];
		if (hidden.n) {
			hidden_verdict(sjob, &hidden);
			struct strbuf fix = STRBUF_INIT;
			fix_text(&fix, sj->facts[i].yaml, t->task, "sandbox.allow.read",
				 &sjob->verdict.fix_read, false);
			error("%s: its key holds %s outside the project that its sandbox "
			      "hides, so the key would claim a dependency the task cannot "
			      "read; %s",
			      t->id, hidden.n == 1 ? "a file" : "files", fix.buf);
			strbuf_release(&fix);
			job->reason = "its key holds a file its sandbox hides (see above)";
			rc = -1;
		} else {
			sandbox_fds_close(&sjob->fds);
			sandbox_argv(&sjob->req, t->command, &sjob->argv, &sjob->fds);
			rc = sandbox_fds_lift(&sjob->fds) < 0 || compat_pipe(pfd, O_CLOEXEC) < 0
				 ? -1
				 : 0;
			if (rc) {
				error_errno("%s: cannot pass its sandbox the fds it needs", t->id);
				job->reason = "its sandbox's fds could not be passed (see above)";
			}
		}
		if (!rc) {
			/* The signal pipe is dup2'd first (onto fd 3), so it
			 * only needs to lie above 3 (dup2 onto itself would
			 * leave it close-on-exec). */
			sjob->signal_rd = fcntl(pfd[0], F_DUPFD_CLOEXEC, SANDBOX_SIGNAL_FD + 1);
			close(pfd[0]);
			if (sjob->signal_rd < 0 || fcntl(pfd[1], F_SETFL, O_NONBLOCK) < 0) {
				/* without its signal pipe the task could not be
				 * stopped from outside: it does not run */
				error_errno("%s: cannot make its sandbox's signal pipe", t->id);
				job->reason =
				    "its sandbox's signal pipe could not be made (see above)";
				if (sjob->signal_rd >= 0)
					close(sjob->signal_rd);
				sjob->signal_rd = -1;
				close(pfd[1]);
				rc = -1;
			}
		}
		if (!rc) {
			job->argv = sjob->argv.v;
			/* bwrap (untraced) or vx-sandbox-init (traced) is pid
			 * 1 of the task's namespace and its /proc/1/environ is
			 * readable there: the tracer, the init and bwrap get no
			 * environment of vx's at all (issue 36:
			 * vx's GITHUB_TOKEN was one `tr` away); the task's
			 * own is in the argv (--setenv), scrubbed. */
			static char *no_env[] = {NULL};
			job->envp = no_env;
			job->relay_signals = true;
			job->signal_fd = pfd[1];
			job->spawn_actions = spawn_actions;
			job->spawn_data = sjob;
		}
		strvec_clear(&hidden);
	}
	if (!rc && guard_record(sj, sjob, t) < 0) {
		error_errno("%s: cannot record in %s/.vx/guard the configs it could make", t->id,
			    sj->ws->root);
		job->reason = "its config guard could not be recorded (see above)";
		rc = -1;
	}
	/* Last, once nothing else can refuse the task: the grants move into
	 * the stage only for a task about to run (its after hook moves them
	 * back; run.c puts back whatever a failed spawn left). */
	if (!rc && sjob->req.stage && sandbox_stage_record(sjob->stage_dir, &sjob->req) < 0) {
		error_errno("%s: cannot stage its write grants in %s", t->id, sjob->stage_dir);
		job->reason = "its write grants could not be staged (see above)";
		rc = -1;
	}
	if (rc) {
		sandbox_net_stop(
		    &sjob->net); /* a refused task holds no port while the run goes on */
		struct strvec none = STRVEC_INIT;
		guard_end(&sjob->guard, &none); /* it never ran: nothing of its appeared */
		strvec_clear(&none);
		/* nothing was moved into its stage (sandbox_stage_record moves last, and
		 * leaves nothing moved when it fails): the stage goes now, and
		 * no unstage runs for a task that never ran (it warned that the
		 * empty stage "keeps what could not be moved back") */
		if (sjob->stage_dir) {
			sandbox_stage_drop(sjob->stage_dir);
			free(sjob->stage_dir);
			sjob->stage_dir = NULL;
		}
	}
	strbuf_release(&err);
	sjob->us_prepare = loop_now_us() - t_wrap - sjob->us_plan;
	return rc;
}

/* Records the configs the task could make where no mount keeps them out
 * (sandbox/guard.h): those of its request's configs (in a writable place,
 * named by no write grant) that are missing now. Traced or not: a traced
 * task's write that makes one is a violation, but the file stays, and
 * only the record keeps the next plan from it (or a kill -9 of vx from
 * skipping the check). Returns 0, or -1 with errno. */
static int guard_record(struct sandbox_jobs *sj, struct sandbox_job *sjob,
			const struct task_node *t)
{
	struct strvec missing = STRVEC_INIT;
	for (size_t k = 0; k < sjob->req.configs.n; k++) {
		struct stat st;
		if (lstat(sjob->req.configs.v[k], &st) < 0 && errno == ENOENT)
			strvec_push(&missing, sjob->req.configs.v[k]);
	}
	int rc = 0;
	if (missing.n) {
		char *dir = path_join(sj->ws->root, ".vx/guard");
		rc = workspace_vx_dir(sj->ws) < 0
			 ? -1
			 : guard_begin(&sjob->guard, dir, t->id, (const char *const *)missing.v,
				       missing.n);
		free(dir);
	}
	strvec_clear(&missing);
	return rc;
}

void sandbox_jobs_unstage(struct sandbox_jobs *sj, size_t i)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	if (sjob->built && !sjob->stage_dir)
		sandbox_request_sweep_dirs(&sjob->req); /* unstaged, or never staged */
	if (!sjob->built || !sjob->req.stage || !sjob->stage_dir)
		return;
	const struct task_node *t = sj->g->nodes.v[i];
	const struct strvec *aw = &sj->facts[i].writes;
	sandbox_request_unstage(&sjob->req, (const char *const *)aw->v, aw->n);
	if (sandbox_stage_drop(sjob->stage_dir)) {
		warning(
		    "%s: %s keeps what could not be moved back to %s; the next run puts it back",
		    t->id, sjob->stage_dir, sjob->req.cwd);
	}
	free(sjob->stage_dir);
	sjob->stage_dir = NULL; /* unstaged: never twice; req.stage stays for the judge */
	sandbox_request_sweep_dirs(&sjob->req);
}

void sandbox_jobs_start(struct sandbox_jobs *sj, const struct rundir *run, struct loop *loop)
{
	sj->run_dir = run->path;
	sj->run_base = run->base;
	sj->loop = loop;
	if (!sj->bwrap)
		return;
	char *base = path_join(sj->ws->root, ".vx/stage");
	if (workspace_vx_dir(sj->ws) == 0 && (mkdir(base, 0700) == 0 || errno == EEXIST) &&
	    rundir_open_reaping(&sj->stage, base, sandbox_stage_reap) < 0)
		sj->stage = (struct rundir){NULL, NULL, -1};
	free(base);
}

void sandbox_jobs_finish(struct sandbox_jobs *sj)
{
	/* Before the loop goes: whatever still listens on it (a task whose
	 * wrap failed late) is released, and the lookups with it. */
	for (size_t i = 0; sj->jobs && i < sj->g->nodes.n; i++)
		sandbox_net_stop(&sj->jobs[i].net);
	resolver_free(sj->resolver);
	sj->resolver = NULL;
	sj->loop = NULL;
	sj->run_dir = sj->run_base = NULL;
	if (!sj->stage.path)
		return;
	/* A staged grant a failed spawn never gave back goes home before
	 * the stage is removed: a stage never takes a user's files with it. */
	int sfd = open(sj->stage.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd >= 0) {
		sandbox_stage_reap(sfd);
		close(sfd);
	}
	rundir_close(&sj->stage);
}

void sandbox_jobs_phases(const struct sandbox_jobs *sj, size_t i, struct strbuf *out)
{
	const struct sandbox_job *sjob = sj->jobs ? &sj->jobs[i] : NULL;
	if (!sjob || !sj->g->nodes.v[i]->cfg->sandbox || !(sjob->us_plan || sjob->us_prepare))
		return;
	strbuf_addf(out,
		    ",\"plan_us\":%lld,\"prepare_us\":%lld,\"judge_us\":%lld,\"cleanup_us\":%lld",
		    sjob->us_plan, sjob->us_prepare, sjob->us_judge, sjob->us_cleanup);
}

static void done(struct sandbox_jobs *sj, size_t i);

void sandbox_jobs_done(struct sandbox_jobs *sj, size_t i)
{
	long long t = loop_now_us();
	done(sj, i);
	sj->jobs[i].us_cleanup = loop_now_us() - t;
}

static void done(struct sandbox_jobs *sj, size_t i)
{
	struct sandbox_job *sjob = &sj->jobs[i];
	trace_log_remove(&sjob->trace);
	sandbox_net_stop(&sjob->net);
	/* not judged (a retry): a record naming what appeared stays */
	struct strvec appeared = STRVEC_INIT;
	guard_end(&sjob->guard, &appeared);
	strvec_clear(&appeared);
	sandbox_jobs_unstage(sj, i);
	if (sjob->signal_rd >= 0) {
		close(sjob->signal_rd);
		sjob->signal_rd = -1;
	}
	sandbox_fds_close(&sjob->fds);
	if (!sjob->built)
		return;
	sandbox_request_sweep(&sjob->req);
	sandbox_request_release(&sjob->req);
	sjob->built = false;
}

void sandbox_jobs_release(struct sandbox_jobs *sj)
{
	sandbox_jobs_finish(sj);
	for (size_t i = 0; sj->jobs && i < sj->g->nodes.n; i++) {
		sandbox_jobs_done(sj, i);
		strvec_clear(&sj->jobs[i].argv);
		taskfacts_release(&sj->facts[i]);
		if (sj->jobs[i].judged)
			verdict_release(&sj->jobs[i].verdict);
		free(sj->jobs[i].project_dir);
		sandbox_net_release(&sj->jobs[i].net);
	}
	free(sj->jobs);
	free(sj->facts);
	strvec_clear(&sj->configs);
	strvec_clear(&sj->projects);
	free(sj->netd);
	free(sj->bwrap);
	free(sj->setsid);
	free(sj->init);
	free(sj->strace);
}