/* scheduler.c - the jobs on vx's event loop (util/loop.h): their output
 * pipes, SIGCHLD/SIGINT/SIGTERM and their deadlines as timers.
 * docs/scheduler.md tells the story. */
#include "orchestrator/run/scheduler.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "orchestrator/run/joblog.h"
#include "orchestrator/run/output.h"
#include "orchestrator/run/tui.h"
#include "util/compat.h"
#include "util/io.h"
#include "util/loop.h"
#include "util/spawn.h"

extern char **environ;

#define DEFAULT_GRACE_MS 5000
/* The status line shows tenths of a second; redrawing more often shows nothing new. */
#define STATUS_TICK_MS 100
/* Reads per job per wake-up: a task printing without pause cannot starve the others. */
#define READS_PER_WAKE 16
/* Reads after the leader is reaped: what it wrote is in the pipe, at most its
 * capacity (1 MiB at most for an unprivileged process, fs.pipe-max-size), so
 * 64 reads of 64 KiB get it all, and a grandchild that keeps writing into
 * the pipe cannot hold vx there. */
#define READS_AFTER_EXIT 64

/* What the scheduler knows of a job beyond struct job. */
struct proc {
	struct sched *s;	  /* for the loop's callbacks, which get the proc */
	size_t i;		  /* its index in the jobs array */
	pid_t pid;		  /* the process group leader while RUNNING, else 0 */
	int fd;			  /* read end of its output pipe, watched on the loop; -1
				   * once at EOF or closed */
	unsigned long term_timer; /* the loop timer of its timeout's SIGTERM, or 0 */
	unsigned long kill_timer; /* the loop timer of its SIGKILL, or 0 */
	long long kill_at;	  /* when kill_timer fires */
	bool stopped;		  /* vx signalled it (interrupt, persistent exit), not the task */
	size_t waiting;		  /* dependencies not yet ended */
	size_t slot;		  /* its place in sched.live while RUNNING */
	bool retried; /* already run a second time: its timeout counts from the first start */
	long long first_start; /* the first attempt's start, for the timeout of a retry */
	bool asked;	       /* its hook said BEFORE_PENDING: its start stays the first ask's */
};

/* A binary min-heap of job indices: the ready queue hands out jobs in the
 * order of the jobs array, which is the caller's topological order. */
struct ready {
	size_t *v;
	size_t n;
};

struct sched {
	struct job *jobs;
	size_t njobs;
	const struct scheduler_opts *opts;
	const struct scheduler_hooks *hooks;
	struct output out;
	struct loop *loop; /* the caller's (opts->loop) or the run's own */
	struct proc *procs;
	size_t *rdep_off; /* dependents of job i: rdeps[rdep_off[i] .. rdep_off[i+1]) */
	size_t *rdeps;
	struct ready ready;
	size_t *todo; /* job_ended()'s worklist, njobs long */
	size_t *live; /* the RUNNING jobs, `running` of them: a wake-up costs
		       * O(running), not O(njobs) */
	size_t running, ended;
	size_t *held; /* the jobs ended but held (job->held), nheld of them */
	size_t nheld;
	size_t *pending; /* the jobs whose before hook is pending (job->pending) */
	size_t npending;
	unsigned long tick; /* the status line's redraw timer, or 0 */
	long long t0;	    /* loop_now() at the start: job times count from it */
	long long grace_ms;
	bool stop_starting;
	bool any_failed;	 /* a job failed on its own terms */
	int interrupted;	 /* the SIGINT or SIGTERM that stopped the run, or 0 */
	bool cancelled;		 /* opts->cancel stopped it */
	int persistent_status;	 /* the exit status of a persistent job that failed
				  * on its own: the run's */
	const char *stop_reason; /* why jobs still pending at the end are skipped */
	int reaper_fd;		 /* the write end of the reaper's pipe, or -1 */
	pid_t reaper_pid;	 /* the run's reaper (opts->reaper), or 0 */
};

/* The run's reaper, started with the first job a run spawns (a fully cached
 * run starts none): vx-sandbox-init --reaper, in a group of its own, its
 * stdin a pipe whose write end only vx holds (O_CLOEXEC: no task inherits
 * it). When vx dies by any signal the kernel closes it, and the reaper
 * SIGKILLs every group it was told of and not told gone (issue 39). A
 * reaper that cannot start is a warning: the run goes on. */
static void reaper_start(struct sched *s)
{
	int pfd[2];
	if (s->reaper_pid || !s->opts->reaper || compat_pipe(pfd, O_CLOEXEC) < 0)
		return;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	int err = posix_spawn_file_actions_adddup2(&fa, pfd[0], 0);
	if (!err)
		err =
		    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	if (!err)
		err = posix_spawnattr_setpgroup(&attr, 0);
	if (!err)
		err = posix_spawnattr_setsigmask(&attr, &none);
	char *argv[] = {(char *)s->opts->reaper, "--reaper", NULL};
	if (!err)
		err = posix_spawn(&s->reaper_pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[0]);
	if (err) {
		warning("cannot start the reaper %s (%s): a task may outlive a vx killed by "
			"SIGKILL",
			s->opts->reaper, strerror(err));
		s->reaper_pid = 0;
		close(pfd[1]);
		return;
	}
	s->reaper_fd = pfd[1];
}

/* "+PGID" when a job's group starts, "-PGID" when its leader is reaped. */
static void reaper_tell(struct sched *s, char what, pid_t pgid)
{
	if (s->reaper_fd < 0)
		return;
	char line[32];
	int n = snprintf(line, sizeof line, "%c%d\n", what, (int)pgid);
	if (write(s->reaper_fd, line, (size_t)n) != n) { /* a reaper gone: nothing to do */
	}
}

static void reaper_stop(struct sched *s)
{
	if (s->reaper_fd >= 0)
		close(s->reaper_fd);
	s->reaper_fd = -1;
	if (s->reaper_pid)
		while (waitpid(s->reaper_pid, NULL, 0) < 0 && errno == EINTR)
			;
	s->reaper_pid = 0;
}

static long long now_ms(const struct sched *s)
{
	return loop_now() - s->t0;
}

/* A job's times are taken in microseconds (a cache hit takes a few hundred:
 * in milliseconds the profile showed it as 0, issue 56 item 6); the _ms
 * fields are the same instants, whole milliseconds. */
static void job_mark_start(const struct sched *s, struct job *job)
{
	job->start_us = loop_now_us() - s->t0 * 1000;
	job->start_ms = job->start_us / 1000;
}

static void job_mark_end(const struct sched *s, struct job *job)
{
	long long now = loop_now_us() - s->t0 * 1000;
	job->duration_us = now - job->start_us;
	job->duration_ms = now / 1000 - job->start_ms; /* as now_ms() counts */
}

static void ready_push(struct ready *r, size_t i)
{
	size_t k = r->n++;
	while (k) {
		size_t parent = (k - 1) / 2;
		if (r->v[parent] <= i)
			break;
		r->v[k] = r->v[parent];
		k = parent;
	}
	r->v[k] = i;
}

static size_t ready_pop(struct ready *r)
{
	size_t top = r->v[0], last = r->v[--r->n], k = 0;
	for (;;) {
		size_t c = 2 * k + 1;
		if (c >= r->n)
			break;
		if (c + 1 < r->n && r->v[c + 1] < r->v[c])
			c++;
		if (last <= r->v[c])
			break;
		r->v[k] = r->v[c];
		k = c;
	}
	if (r->n)
		r->v[k] = last;
	return top;
}

/* Signals job i's whole process group; a group already gone is no error. */
static void group_signal(struct sched *s, size_t i, int sig)
{
	struct job *job = &s->jobs[i];
	if (job->relay_signals && job->signal_fd >= 0) {
		if (sig != SIGKILL) {
			/* The watcher inside the sandbox forwards it to the task's
			 * session, so the task's own trap runs; bwrap, the pid 1
			 * of the sandbox, would otherwise just die. */
			char line[32];
			int n = snprintf(line, sizeof line, "%s\n",
					 compat_signame(sig) ? compat_signame(sig) : "TERM");
			if (write(job->signal_fd, line, (size_t)n) < 0 && errno != EPIPE &&
			    errno != EAGAIN)
				warning("%s: relaying %s: %s", job->id, line, strerror(errno));
			return;
		}
		close(job->signal_fd);
		job->signal_fd = -1;
	}
	if (kill(-s->procs[i].pid, sig) < 0 && errno != ESRCH)
		warning("%s: signalling process group %d: %s", s->jobs[i].id, (int)s->procs[i].pid,
			strerror(errno));
}

static bool job_ok(const struct job *job)
{
	return job->state == JOB_SUCCEEDED || job->state == JOB_CACHED || job->state == JOB_NOOP;
}

/* The run starts nothing more: what waits off the loop for no slot (a
 * remote lookup, another shard's upload) is let go, and ends skipped. */
static void pending_let_go(struct sched *s)
{
	if (s->hooks && s->hooks->stop)
		s->hooks->stop(s->hooks->ctx);
}

/* Job i reached a final state: release or skip its dependents. A failure
 * skips its whole downstream at once, breadth-first, so deep chains cost
 * no stack. */
static void job_ended(struct sched *s, size_t i)
{
	size_t *todo = s->todo;
	size_t ntodo = 0;
	todo[ntodo++] = i;
	while (ntodo) {
		size_t j = todo[--ntodo];
		struct job *job = &s->jobs[j];
		s->ended++;
		if (job->state == JOB_FAILED && !s->procs[j].stopped) {
			s->any_failed = true;
			if (!s->opts->keep_going && !s->stop_starting) {
				s->stop_starting = true;
				s->stop_reason = "run stopped after a failure";
				pending_let_go(s);
			}
		}
		for (size_t k = s->rdep_off[j]; k < s->rdep_off[j + 1]; k++) {
			size_t d = s->rdeps[k];
			struct job *dep = &s->jobs[d];
			if (dep->state != JOB_PENDING)
				continue;
			if (job_ok(job) || (s->opts->past_failure && job->state == JOB_FAILED &&
					    !s->procs[j].stopped)) {
				if (--s->procs[d].waiting == 0)
					ready_push(&s->ready, d);
				continue;
			}
			dep->state = JOB_SKIPPED;
			dep->reason = "dependency failed";
			output_job_skipped(&s->out, d);
			todo[ntodo++] = d;
		}
	}
}

/* Appends n bytes to job's log: in memory up to JOBLOG_MEM, then,
 * with a spill dir, the whole log goes to an unlinked file there and only
 * its head and tail stay. */
static void log_add(struct sched *s, struct job *job, const char *buf, size_t n)
{
	joblog_add(job, s->opts->spill_dir, buf, n);
}

static void pipe_close(struct sched *s, struct proc *p)
{
	loop_unwatch(s->loop, p->fd);
	close(p->fd);
	p->fd = -1;
}

/* Reads what job i printed into its log and the output. Returns when the
 * pipe is empty or after max reads; closes it at EOF. */
static void job_read(struct sched *s, size_t i, int max)
{
	struct proc *p = &s->procs[i];
	char buf[65536];
	for (int n = 0; p->fd >= 0 && n < max; n++) {
		ssize_t r = read(p->fd, buf, sizeof buf);
		if (r > 0) {
			log_add(s, &s->jobs[i], buf, (size_t)r);
			output_job_data(&s->out, i, buf, (size_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r < 0)
			warning("%s: reading its output: %s", s->jobs[i].id, strerror(errno));
		pipe_close(s, p);
	}
}

static void on_output(struct loop *l, int fd, unsigned events, void *data)
{
	(void)l, (void)fd, (void)events;
	struct proc *p = data;
	job_read(p->s, p->i, READS_PER_WAKE);
}

/* Spawns job i in a process group of its own (a session of its own under
 * the TUI) with stdin from /dev/null and stdout and stderr into one pipe.
 * Returns 0, or an errno value. */
static int job_spawn(struct sched *s, size_t i)
{
	struct job *job = &s->jobs[i];
	struct proc *p = &s->procs[i];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int pfd[2], err;

	if (compat_pipe(pfd, O_CLOEXEC) < 0)
		return errno;
	if ((err = posix_spawn_file_actions_init(&fa))) {
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if ((err = posix_spawnattr_init(&attr))) {
		posix_spawn_file_actions_destroy(&fa);
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	/* dup2 clears O_CLOEXEC on 1 and 2 only; pfd themselves close at exec,
	 * as does every other fd of vx. */
	err = spawn_child_setup(&fa, &attr, loop_child_sigmask(s->loop));
	/* Under the TUI the terminal is the frame's: a task wrote over it
	 * through /dev/tty (review, session 29); bwrap's --new-session too. */
	if (!err && s->out.tui)
		err = spawn_child_new_session(&attr);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	/* Under the TUI a server reads what the user types to it (tui.h);
	 * this dup2 comes after spawn_child_setup's /dev/null and wins. */
	int in[2] = {-1, -1};
	if (!err && s->out.tui && job->persistent && compat_pipe(in, O_CLOEXEC) == 0)
		err = posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	if (!err && job->cwd)
		err = posix_spawn_file_actions_addchdir_np(&fa, job->cwd);
	if (!err && job->spawn_actions)
		err = job->spawn_actions(&fa, job->spawn_data);
	/* glibc's posix_spawn returns only once the child has exec'd (or
	 * failed to), so its setpgid or setsid is done before vx can signal
	 * the group. */
	if (!err)
		err = posix_spawn(&p->pid, job->argv[0], &fa, &attr, job->argv,
				  job->envp ? job->envp : environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (in[0] >= 0)
		close(in[0]);
	if (err) {
		p->pid = 0;
		close(pfd[0]);
		if (in[1] >= 0)
			close(in[1]);
		return err;
	}
	if (in[1] >= 0) {
		/* a task that does not read must not stall the loop */
		if (fcntl(in[1], F_SETFL, O_NONBLOCK) < 0) {
			close(in[1]);
		} else {
			tui_job_input(s->out.tui, i, in[1]);
		}
	}
	if (fcntl(pfd[0], F_SETFL, O_NONBLOCK) < 0) {
		err = errno;
		/* The child runs already; it must not outlive a job vx gave up. */
		kill(-p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
		p->pid = 0;
		close(pfd[0]);
		return err;
	}
	p->fd = pfd[0];
	loop_watch(s->loop, p->fd, LOOP_READ, on_output, p);
	reaper_start(s);
	reaper_tell(s, '+', p->pid);
	return 0;
}

/* SIGKILL for job p at `at` (run time), unless one is due sooner. */
static void on_kill(struct loop *l, void *data);
static void arm_kill(struct sched *s, struct proc *p, long long at)
{
	if (p->kill_timer && p->kill_at <= at)
		return;
	loop_timer_cancel(s->loop, p->kill_timer);
	p->kill_at = at;
	p->kill_timer = loop_timer(s->loop, s->t0 + at, on_kill, p);
}

static void on_kill(struct loop *l, void *data)
{
	(void)l;
	struct proc *p = data;
	p->kill_timer = 0;
	group_signal(p->s, p->i, SIGKILL);
}

/* The task's timeout: SIGTERM now, SIGKILL after the grace. */
static void on_term(struct loop *l, void *data)
{
	(void)l;
	struct proc *p = data;
	struct sched *s = p->s;
	p->term_timer = 0;
	s->jobs[p->i].timed_out = true;
	arm_kill(s, p, now_ms(s) + s->grace_ms);
	group_signal(s, p->i, SIGTERM);
}

static void timers_cancel(struct sched *s, struct proc *p)
{
	loop_timer_cancel(s->loop, p->term_timer);
	loop_timer_cancel(s->loop, p->kill_timer);
	p->term_timer = p->kill_timer = 0;
}

/* Takes job i off the ready queue: a no-op, a cache hit, a hook failure, a
 * spawn failure, a running job, or a job pending on its hook's owner. */
static void job_start(struct sched *s, size_t i)
{
	struct job *job = &s->jobs[i];
	struct proc *p = &s->procs[i];
	if (!p->asked) /* a job asked again keeps its first start */
		job_mark_start(s, job);
	if (!job->argv) {
		job->state = JOB_NOOP;
		job_ended(s, i);
		return;
	}
	if (s->hooks && s->hooks->before) {
		enum before_result r = s->hooks->before(job, s->hooks->ctx);
		if (r == BEFORE_PENDING) {
			job->pending = p->asked = true;
			s->pending[s->npending++] = i;
			return;
		}
		if (r == BEFORE_HANDED_OFF) {
			job->state = JOB_NOOP;
			job->handed_off = true;
			job_mark_end(s, job);
			output_job_note(&s->out, i, "%s", job->reason ? job->reason : "handed off");
			job_ended(s, i);
			return;
		}
		if (r == BEFORE_DONE) {
			job->state = JOB_CACHED;
			job_mark_end(s, job);
			output_job_cached(&s->out, i);
			job_ended(s, i);
			return;
		}
		if (r == BEFORE_FAIL) {
			job->state = JOB_FAILED;
			if (!job->reason)
				job->reason = "could not prepare the task";
			job_mark_end(s, job);
			output_job_end(&s->out, i);
			job_ended(s, i);
			return;
		}
	}
	job_mark_start(s, job);
	int err = job_spawn(s, i);
	if (err) {
		job->state = JOB_FAILED;
		job->reason = "could not start the command";
		job->duration_ms = job->duration_us = 0;
		output_job_note(&s->out, i, "cannot run %s: %s", job->argv[0], strerror(err));
		output_job_end(&s->out, i);
		job_ended(s, i);
		return;
	}
	job->state = JOB_RUNNING;
	if (!p->retried)
		p->first_start = job->start_ms;
	/* A retry runs in what is left of the task's timeout, not a new one. */
	if (job->timeout_ms > 0)
		p->term_timer =
		    loop_timer(s->loop, s->t0 + p->first_start + job->timeout_ms, on_term, p);
	p->slot = s->running;
	s->live[s->running++] = i;
	output_job_start(&s->out, i);
}

/* Signals every running job's group (SIGTERM or the interrupt's signal)
 * and gives them the grace to end before SIGKILL. */
static void run_stop(struct sched *s, int sig, const char *reason)
{
	long long now = now_ms(s);
	s->stop_starting = true;
	s->stop_reason = reason;
	pending_let_go(s);
	for (size_t k = 0; k < s->running; k++) {
		size_t i = s->live[k];
		struct proc *p = &s->procs[i];
		if (p->stopped)
			continue;
		p->stopped = true;
		loop_timer_cancel(s->loop, p->term_timer);
		p->term_timer = 0;
		arm_kill(s, p, now + s->grace_ms);
		group_signal(s, i, sig);
	}
}

static void run_kill_all(struct sched *s)
{
	for (size_t k = 0; k < s->running; k++) {
		size_t i = s->live[k];
		s->procs[i].stopped = true;
		timers_cancel(s, &s->procs[i]);
		group_signal(s, i, SIGKILL);
	}
}

/* Job i's leader was reaped with wait status st (-1: lost, someone else
 * reaped it). Drains its pipe, settles its state and releases dependents. */
static void job_reaped(struct sched *s, size_t i, int st)
{
	if (s->jobs[i].relay_signals && s->jobs[i].signal_fd >= 0) {
		close(s->jobs[i].signal_fd);
		s->jobs[i].signal_fd = -1;
	}
	struct job *job = &s->jobs[i];
	struct proc *p = &s->procs[i];
	job_read(s, i, READS_AFTER_EXIT);
	/* A grandchild may hold the pipe open; its later output is lost. */
	if (p->fd >= 0)
		pipe_close(s, p);
	timers_cancel(s, p);
	/* What vx signalled must leave nothing behind: members of the group
	 * that ignored the signal die with the group now. */
	if (p->stopped || job->timed_out)
		group_signal(s, i, SIGKILL);
	size_t last = s->live[--s->running];
	s->live[p->slot] = last;
	s->procs[last].slot = p->slot;
	job_mark_end(s, job);
	job->exit_code = st < 0 ? -1 : spawn_exit_code(st, &job->term_signal);
	job->state = job->exit_code == 0 ? JOB_SUCCEEDED : JOB_FAILED;
	if (st < 0)
		job->reason = "its process was reaped elsewhere";
	if (job->timed_out) {
		job->state = JOB_FAILED;
	} else if (p->stopped) {
		job->state = JOB_FAILED;
		job->stopped = true;
		job->reason = s->interrupted && s->opts->served ? "stopped by vx watch"
			      : s->interrupted			? "interrupted"
			      : s->cancelled			? "cancelled: files changed"
					     : "stopped: a persistent task exited";
	}
	reaper_tell(s, '-', p->pid);
	p->pid = 0;
	job->retry = NULL;
	if (s->hooks && s->hooks->after && s->hooks->after(job, s->hooks->ctx) == AFTER_FAIL &&
	    job->state == JOB_SUCCEEDED) {
		job->state = JOB_FAILED;
		if (!job->reason)
			job->reason = "rejected after it exited 0";
	}
	/* Once, never when the run is stopping, and only with time left. */
	if (job->retry && !p->retried && !s->stop_reason && !s->interrupted && !job->timed_out &&
	    (job->timeout_ms <= 0 || now_ms(s) < p->first_start + job->timeout_ms)) {
		output_job_note(&s->out, i, "running it once more: %s", job->retry);
		p->retried = true;
		job->reason = NULL;
		joblog_reset(job);
		job_start(s, i);
		return;
	}
	output_job_end(&s->out, i);
	bool persistent_exit = job->persistent && !p->stopped;
	if (job->held && job->state == JOB_SUCCEEDED) {
		s->held[s->nheld++] = i;
		return;
	}
	job->held = false;
	job_ended(s, i);
	if (persistent_exit) {
		if (!s->persistent_status && job->state == JOB_FAILED)
			s->persistent_status =
			    job->exit_code > 0 && job->exit_code < 256 ? job->exit_code : 1;
		run_stop(s, SIGTERM, "run stopped: a persistent task exited");
	}
}

/* Reaps, by pid, every running job whose leader has exited; other children
 * of vx are left for whoever spawned them. */
static void run_reap(struct sched *s)
{
	/* Backwards: job_reaped() moves the last live job into the freed
	 * slot, and that one was looked at already. */
	for (size_t k = s->running; k-- > 0;) {
		size_t i = s->live[k];
		int st;
		pid_t r;
		while ((r = waitpid(s->procs[i].pid, &st, WNOHANG)) < 0 && errno == EINTR)
			;
		if (r > 0)
			job_reaped(s, i, st);
		else if (r < 0)
			job_reaped(s, i, -1);
	}
}

static void on_sigchld(struct loop *l, int signo, void *data)
{
	(void)l, (void)signo;
	run_reap(data);
}

static void on_interrupt(struct loop *l, int signo, void *data)
{
	(void)l;
	struct sched *s = data;
	/* A closed terminal (SIGHUP) or SIGQUIT ends vx as SIGTERM does, the
	 * tasks first (issue 39: vx died by either and every task ran on). */
	if (signo == SIGHUP || signo == SIGQUIT)
		signo = SIGTERM;
	if (!s->interrupted) {
		s->interrupted = signo;
		run_stop(s, signo, "run interrupted");
	} else {
		/* A second ^C: the user does not want to wait for the grace. */
		run_kill_all(s);
	}
}

/* q or ^C in the TUI: what ^C is in stream mode (the terminal is raw, so
 * no SIGINT comes of it). */
static void on_tui_quit(void *ctx)
{
	struct sched *s = ctx;
	on_interrupt(s->loop, SIGINT, s);
}

/* The status line's clock: a wake-up at every tenth of a second, and the
 * redraw after it (run_loop draws after every wake-up). */
static void on_tick(struct loop *l, void *data)
{
	struct sched *s = data;
	long long now = now_ms(s);
	s->tick = loop_timer(l, s->t0 + (now / STATUS_TICK_MS + 1) * STATUS_TICK_MS, on_tick, s);
}

static void run_start_ready(struct sched *s)
{
	int conc = s->opts->concurrency > 0 ? s->opts->concurrency : 1;
	while (!s->stop_starting && s->ready.n && s->running < (size_t)conc)
		job_start(s, ready_pop(&s->ready));
}

static void run_status(struct sched *s)
{
	size_t busy = s->running + s->nheld + s->npending;
	output_status(&s->out, s->ended, busy, s->njobs - s->ended - busy, now_ms(s));
}

/* The held jobs whose hook let go end now: their dependents may start. */
static void run_release_held(struct sched *s)
{
	for (size_t k = 0; k < s->nheld;) {
		size_t i = s->held[k];
		if (s->jobs[i].held) {
			k++;
			continue;
		}
		s->held[k] = s->held[--s->nheld];
		job_ended(s, i);
	}
}

/* The pending jobs whose owner let go go back on the ready queue, where
 * the hook is asked again when a slot is free (the answer may be to run
 * it); after a stop, none does (each ends skipped). */
static void run_requeue_pending(struct sched *s)
{
	size_t kept = 0;
	for (size_t k = 0; k < s->npending; k++) {
		size_t i = s->pending[k];
		if (s->jobs[i].pending)
			s->pending[kept++] = i;
		else if (!s->stop_starting)
			ready_push(&s->ready, i);
	}
	s->npending = kept;
}

/* Start what may start, then let the loop sleep until output, a signal or
 * a deadline. Ends when nothing runs and nothing may start. */
static void run_loop(struct sched *s)
{
	if (s->opts->status_line || s->out.tui)
		on_tick(s->loop, s);
	for (;;) {
		run_start_ready(s);
		if (!s->running && !s->nheld && !s->npending)
			break;
		run_status(s);
		output_flush(&s->out);
		loop_once(s->loop, -1);
		run_release_held(s);
		run_requeue_pending(s);
		if (s->opts->cancel && *s->opts->cancel && !s->cancelled && !s->interrupted) {
			s->cancelled = true;
			run_stop(s, SIGTERM, "run cancelled: files changed");
		}
	}
	loop_timer_cancel(s->loop, s->tick);
	s->tick = 0;
}

/* Builds the reverse edges: who waits for whom. */
static void sched_index(struct sched *s)
{
	size_t total = 0;
	s->rdep_off = xcalloc(s->njobs + 1, sizeof *s->rdep_off);
	for (size_t i = 0; i < s->njobs; i++) {
		for (size_t k = 0; k < s->jobs[i].ndeps; k++) {
			size_t d = s->jobs[i].deps[k];
			if (d >= s->njobs)
				die("%s: dependency index %zu out of range", s->jobs[i].id, d);
			s->rdep_off[d + 1]++;
		}
		total += s->jobs[i].ndeps;
	}
	for (size_t i = 0; i < s->njobs; i++)
		s->rdep_off[i + 1] += s->rdep_off[i];
	s->rdeps = xcalloc(total ? total : 1, sizeof *s->rdeps);
	size_t *fill = xcalloc(s->njobs + 1, sizeof *fill);
	for (size_t i = 0; i < s->njobs; i++)
		for (size_t k = 0; k < s->jobs[i].ndeps; k++) {
			size_t d = s->jobs[i].deps[k];
			s->rdeps[s->rdep_off[d] + fill[d]++] = i;
		}
	free(fill);
}

int scheduler_run(struct job *jobs, size_t njobs, const struct scheduler_opts *opts,
		  const struct scheduler_hooks *hooks)
{
	struct sched s = {
	    .jobs = jobs, .njobs = njobs, .opts = opts, .hooks = hooks, .reaper_fd = -1};

	s.grace_ms = opts->grace_ms > 0 ? opts->grace_ms : DEFAULT_GRACE_MS;
	/* A reader that went away (| head) must cost vx its display, not its life. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die_errno("ignoring SIGPIPE");
	/* An ignored SIGCHLD makes the kernel reap the children itself, and
	 * waitpid() could never tell a job's exit status. */
	struct sigaction dfl = {.sa_handler = SIG_DFL}, oldchld;
	if (sigaction(SIGCHLD, &dfl, &oldchld) < 0)
		die_errno("resetting SIGCHLD");
	s.loop = opts->loop ? opts->loop : loop_new();
	loop_signal(s.loop, SIGCHLD, on_sigchld, &s);
	loop_signal(s.loop, SIGINT, on_interrupt, &s);
	loop_signal(s.loop, SIGTERM, on_interrupt, &s);
	loop_signal(s.loop, SIGHUP, on_interrupt, &s);
	loop_signal(s.loop, SIGQUIT, on_interrupt, &s);
	s.t0 = loop_now();

	output_init(&s.out, STDOUT_FILENO, opts, jobs, njobs);
	if (opts->tui) /* NULL when curses cannot start: the run streams */
		s.out.tui = tui_open(s.loop, jobs, njobs, on_tui_quit, &s);
	s.procs = xcalloc(njobs ? njobs : 1, sizeof *s.procs);
	s.ready.v = xcalloc(njobs ? njobs : 1, sizeof *s.ready.v);
	s.todo = xcalloc(njobs ? njobs : 1, sizeof *s.todo);
	s.live = xcalloc(njobs ? njobs : 1, sizeof *s.live);
	s.held = xcalloc(njobs ? njobs : 1, sizeof *s.held);
	s.pending = xcalloc(njobs ? njobs : 1, sizeof *s.pending);
	sched_index(&s);
	for (size_t i = 0; i < njobs; i++) {
		struct job *job = &jobs[i];
		job->state = JOB_PENDING;
		job->exit_code = -1;
		job->term_signal = 0;
		job->timed_out = job->stopped = false;
		job->start_ms = job->duration_ms = job->start_us = job->duration_us = 0;
		job->reason = NULL;
		job->held = false;
		job->pending = false;
		job->handed_off = false;
		job->hit_from = NULL;
		if (!job->log.buf)
			strbuf_init(&job->log);
		job->log_fd = -1; /* a zeroed job holds fd 0 here, never its own */
		joblog_reset(job);
		s.procs[i].s = &s;
		s.procs[i].i = i;
		s.procs[i].fd = -1;
		s.procs[i].waiting = job->ndeps;
	}
	/* Settled jobs end at once, silently: what waits only on them is
	 * ready (job_ended queues it). A settled job's dependencies must be
	 * settled too: the caller's promise. */
	for (size_t i = 0; i < njobs; i++)
		if (jobs[i].settled)
			jobs[i].state = JOB_NOOP;
	for (size_t i = 0; i < njobs; i++)
		if (jobs[i].settled)
			job_ended(&s, i);
	for (size_t i = 0; i < njobs; i++)
		if (!jobs[i].settled && !jobs[i].ndeps)
			ready_push(&s.ready, i);

	run_loop(&s);

	for (size_t i = 0; i < njobs; i++) {
		if (jobs[i].state != JOB_PENDING)
			continue;
		jobs[i].state = JOB_SKIPPED;
		jobs[i].reason = s.stop_reason ? s.stop_reason : "not reached";
		/* After ^C the user knows; a line per queued task would bury the rest. */
		if (!s.interrupted)
			output_job_skipped(&s.out, i);
	}
	output_finish(&s.out);

	/* A signal that comes now waits, blocked, for the loop's next user;
	 * the run's own loop gives the mask back. */
	loop_signal(s.loop, SIGCHLD, NULL, NULL);
	loop_signal(s.loop, SIGINT, NULL, NULL);
	loop_signal(s.loop, SIGTERM, NULL, NULL);
	loop_signal(s.loop, SIGHUP, NULL, NULL);
	loop_signal(s.loop, SIGQUIT, NULL, NULL);
	reaper_stop(&s);
	if (!opts->loop)
		loop_free(s.loop);
	if (sigaction(SIGCHLD, &oldchld, NULL) < 0)
		die_errno("restoring SIGCHLD");
	free(s.procs);
	free(s.ready.v);
	free(s.todo);
	free(s.live);
	free(s.held);
	free(s.pending);
	free(s.rdep_off);
	free(s.rdeps);
	if (s.interrupted)
		return 130;
	if (s.persistent_status)
		return s.persistent_status;
	return s.any_failed ? 1 : 0;
}

const char *job_state_name(enum job_state s)
{
	switch (s) {
	case JOB_SUCCEEDED:
		return "succeeded";
	case JOB_CACHED:
		return "cached";
	case JOB_FAILED:
		return "failed";
	case JOB_SKIPPED:
		return "skipped";
	case JOB_NOOP:
		return "noop";
	case JOB_RUNNING:
		return "running";
	default:
		return "pending";
	}
}
