#include "orchestrator/run/output.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/run/tui.h"
#include "util/loop.h"

/* A line with no newline in sight is cut here, so that a task printing a
 * progress bar with \r forever cannot grow vx's memory without bound. */
#define LINE_MAX_BYTES (64 * 1024)
/* The start line shows at most this much of the command. */
#define COMMAND_MAX_BYTES 120

#define CLEAR_LINE "\r\033[K"
#define RED "\033[31m"
#define RESET "\033[0m"

/* Colours that read on dark and light terminals; red is left for failures. */
static const int palette[] = {36, 35, 33, 34, 32, 96, 95, 93, 94, 92};

struct output_job {
	struct strbuf prefix;  /* "ID: ", coloured or not */
	struct strbuf partial; /* the unfinished last line */
	struct strbuf held;    /* prefixed lines kept for the end-of-job block */
	bool started;	       /* the start line was printed (it was spawned) */
	bool bare;	       /* --log-prefix=none: the task's own lines carry no prefix */
	bool streaming;	       /* held outgrew HELD_MAX under full logs: shown as it comes */
	size_t cut;	       /* bytes dropped from held's head under errors-only */
};

/* A block held for the end of a job is bounded like the log (issue 12):
 * past it, full logs are shown as they come, and errors-only keeps the
 * last HELD_MAX/2 and says how much it cut. */
#define HELD_MAX ((size_t)8 << 20)

/* Writes all of buf; a closed or failing fd marks out broken instead of
 * ending vx: the run matters more than its display (job->log keeps all). */
static void output_write(struct output *out, const char *buf, size_t n)
{
	while (n && !out->broken) {
		ssize_t w = write(out->fd, buf, n);
		if (w >= 0) {
			buf += w;
			n -= (size_t)w;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			/* stdout inherited non-blocking (a pipe another
			 * program shares): wait until it drains. */
			struct pollfd pfd = {.fd = out->fd, .events = POLLOUT};
			if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
				out->broken = true;
		} else if (errno != EINTR) {
			if (errno != EPIPE)
				warning("writing the output: %s", strerror(errno));
			out->broken = true;
		}
	}
}

/* Writes the batch, taking the status line away first and drawing it back
 * under the new lines, so task lines never mix with it. */
static void output_emit(struct output *out)
{
	if (!out->batch.len)
		return;
	struct strbuf w = STRBUF_INIT;
	if (out->status_drawn)
		strbuf_addstr(&w, CLEAR_LINE);
	strbuf_add(&w, out->batch.buf, out->batch.len);
	out->status_drawn = false;
	if (out->status_line && out->status.len) {
		strbuf_add(&w, out->status.buf, out->status.len);
		out->status_drawn = true;
	}
	strbuf_add(&out->pending, w.buf, w.len);
	strbuf_release(&w);
	strbuf_reset(&out->batch);
	/* a long burst (cache hits restoring big outputs) still shows as it goes */
	if (loop_now() - out->flushed_ms >= OUTPUT_FLUSH_MS || out->pending.len >= 65536)
		output_flush(out);
}

void output_flush(struct output *out)
{
	if (out->tui) {
		tui_draw(out->tui);
		return;
	}
	if (out->pending.len)
		output_write(out, out->pending.buf, out->pending.len);
	strbuf_reset(&out->pending);
	out->flushed_ms = loop_now();
}

static uint32_t id_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a: stable across runs and platforms */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

bool output_wants_color(bool tty, const char *no_color, const char *force_color)
{
	if (no_color && *no_color)
		return false;
	if (force_color)
		return strcmp(force_color, "0") && strcmp(force_color, "false");
	return tty;
}

void output_init(struct output *out, int fd, const struct scheduler_opts *opts, struct job *jobs,
		 size_t njobs)
{
	memset(out, 0, sizeof *out);
	out->fd = fd;
	out->logs = opts->logs;
	out->group = opts->group_output;
	out->status_line = opts->status_line;
	out->color = opts->color;
	out->served = opts->served;
	out->jobs = jobs;
	out->njobs = njobs;
	strbuf_init(&out->batch);
	strbuf_init(&out->pending);
	out->flushed_ms = loop_now();
	strbuf_init(&out->status);
	out->per_job = xcalloc(njobs ? njobs : 1, sizeof *out->per_job);
	for (size_t i = 0; i < njobs; i++) {
		struct output_job *oj = &out->per_job[i];
		strbuf_init(&oj->prefix);
		strbuf_init(&oj->partial);
		strbuf_init(&oj->held);
		oj->bare = opts->bare_lines;
		if (out->color)
			strbuf_addf(
			    &oj->prefix, "\033[%dm%s:" RESET " ",
			    palette[id_hash(jobs[i].id) % (sizeof palette / sizeof *palette)],
			    jobs[i].id);
		else
			strbuf_addf(&oj->prefix, "%s: ", jobs[i].id);
	}
}

/* The TUI gives the terminal back, and what a failed task printed is
 * shown on the normal screen as a block, as stream mode would show it
 * with --output-logs=errors-only: the screen it was on is gone. A task vx
 * stopped (q, ^C) did not fail on its own, and is not repeated. */
static void replay_log(struct output *out, size_t i);
static void add_prefix(struct output *out, size_t i);
static void tui_finish(struct output *out)
{
	tui_close(out->tui);
	out->tui = NULL;
	for (size_t i = 0; i < out->njobs; i++) {
		const struct job *job = &out->jobs[i];
		if (job->state != JOB_FAILED || job->stopped)
			continue;
		replay_log(out, i);
		add_prefix(out, i);
		output_add_outcome(&out->batch, job, out->color, out->served, true);
		strbuf_addch(&out->batch, '\n');
		output_emit(out);
	}
}

void output_finish(struct output *out)
{
	if (out->tui)
		tui_finish(out);
	if (out->status_drawn)
		strbuf_addstr(&out->pending, CLEAR_LINE);
	out->status_drawn = false;
	output_flush(out);
	strbuf_release(&out->pending);
	for (size_t i = 0; i < out->njobs; i++) {
		strbuf_release(&out->per_job[i].prefix);
		strbuf_release(&out->per_job[i].partial);
		strbuf_release(&out->per_job[i].held);
	}
	free(out->per_job);
	out->per_job = NULL;
	strbuf_release(&out->batch);
	strbuf_release(&out->status);
}

void output_add_duration(struct strbuf *sb, long long ms)
{
	if (ms < 0)
		ms = 0;
	if (ms < 60000)
		strbuf_addf(sb, "%lld.%02llds", ms / 1000, ms % 1000 / 10);
	else
		strbuf_addf(sb, "%lldm%02llds", ms / 60000, ms % 60000 / 1000);
}

/* A timeout reads best as the user wrote it: "10s", "10m", "300ms". */
static void add_timeout(struct strbuf *sb, long long ms)
{
	if (ms >= 60000 && ms % 60000 == 0)
		strbuf_addf(sb, "%lldm", ms / 60000);
	else if (ms >= 1000 && ms % 1000 == 0)
		strbuf_addf(sb, "%llds", ms / 1000);
	else
		strbuf_addf(sb, "%lldms", ms);
}

/* Job i's mode: its task's outputLogs, else the run's. new-only shows a
 * run's lines as full does; only a hit's replay differs. */
static enum output_logs logs_of(const struct output *out, size_t i)
{
	enum output_logs l = out->jobs[i].logs_own ? out->jobs[i].logs : out->logs;
	return l == LOGS_NEW_ONLY ? LOGS_FULL : l;
}

/* Whether job i's own lines are shown at all (held or not). */
static bool shows_output(const struct output *out, size_t i)
{
	return logs_of(out, i) == LOGS_FULL || logs_of(out, i) == LOGS_ERRORS_ONLY;
}

/* A persistent job never ends, so holding its lines would hide them forever. */
static bool holds_output(const struct output *out, size_t i)
{
	return !out->jobs[i].persistent && (out->group || logs_of(out, i) == LOGS_ERRORS_ONLY);
}

/* Appends line (n bytes, no newline) to dst as a terminal will show it
 * behind vx's prefix, which nothing in it may overwrite (issue 12): colour
 * (SGR: ESC [ digits ; m) is kept, and reset at the end so it cannot bleed
 * into the next prefix; a carriage return keeps what follows its last
 * occurrence, as the terminal would (a progress bar shows its final
 * state); every other escape sequence (cursor moves, clears) and control
 * byte but a tab is dropped. docs/output.md. */
void output_add_task_text(struct strbuf *dst, const char *line, size_t n)
{
	const char *end = line + n;
	while (end > line && end[-1] == '\r')
		end--;
	for (const char *c = end; c > line; c--)
		if (c[-1] == '\r') {
			line = c;
			break;
		}
	bool coloured = false;
	for (const char *c = line; c < end; c++) {
		unsigned char ch = (unsigned char)*c;
		if (ch == 0x1b) {
			const char *q = c + 1;
			if (q < end && *q == '[') {
				q++;
				while (q < end && ((*q >= '0' && *q <= '9') || *q == ';'))
					q++;
				const char *params_end = q;
				while (q < end &&
				       ((unsigned char)*q < 0x40 || (unsigned char)*q > 0x7e))
					q++; /* intermediate bytes of another sequence */
				if (q < end && q == params_end && *q == 'm') {
					strbuf_add(dst, c, (size_t)(q - c + 1));
					coloured = true;
				}
				c = q < end ? q : end - 1;
			} else if (q < end && *q == ']') {
				/* OSC (a window title, a hyperlink): to BEL or ESC \ */
				while (q < end && *q != '\007' &&
				       !(*q == 0x1b && q + 1 < end && q[1] == '\\'))
					q++;
				c = q < end ? (*q == '\007' ? q : q + 1) : end - 1;
			} else {
				c = q < end ? q : end - 1; /* ESC and the byte after it */
			}
			continue;
		}
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			continue;
		strbuf_addch(dst, (char)ch);
	}
	if (coloured)
		strbuf_addstr(dst, "\033[0m");
}

static void add_line(struct strbuf *dst, const struct output_job *oj, const char *line, size_t n)
{
	if (!oj->bare)
		strbuf_add(dst, oj->prefix.buf, oj->prefix.len);
	output_add_task_text(dst, line, n);
	strbuf_addch(dst, '\n');
}

/* A spilled log is replayed this much at a time. */
#define REPLAY_CHUNK ((size_t)64 << 10)

static void split_lines(struct strbuf *dst, struct output_job *oj, const char *buf, size_t n)
{
	while (n) {
		const char *nl = memchr(buf, '\n', n);
		if (!nl) {
			strbuf_add(&oj->partial, buf, n);
			if (oj->partial.len >= LINE_MAX_BYTES) {
				add_line(dst, oj, oj->partial.buf, oj->partial.len);
				strbuf_reset(&oj->partial);
			}
			return;
		}
		size_t len = (size_t)(nl - buf);
		if (oj->partial.len) {
			strbuf_add(&oj->partial, buf, len);
			add_line(dst, oj, oj->partial.buf, oj->partial.len);
			strbuf_reset(&oj->partial);
		} else {
			add_line(dst, oj, buf, len);
		}
		buf += len + 1;
		n -= len + 1;
	}
}

static void flush_partial(struct strbuf *dst, struct output_job *oj)
{
	if (!oj->partial.len)
		return;
	add_line(dst, oj, oj->partial.buf, oj->partial.len);
	strbuf_reset(&oj->partial);
}

/* The command as one short line: what the user wrote, not the wrapper. */
static void add_command(struct strbuf *sb, const struct job *job)
{
	struct strbuf cmd = STRBUF_INIT;
	char **argv = job->argv;
	if (job->command) {
		strbuf_addstr(&cmd, job->command);
	} else if (argv[0] && argv[1] && argv[2] && !strcmp(argv[1], "-c") &&
		   strlen(argv[0]) >= 2 && !strcmp(argv[0] + strlen(argv[0]) - 2, "sh")) {
		strbuf_addstr(&cmd, argv[2]);
	} else {
		for (size_t i = 0; argv[i]; i++) {
			if (i)
				strbuf_addch(&cmd, ' ');
			if (argv[i][strcspn(argv[i], " \t\n'\"\\$`*?[]{}()<>|&;~#")] || !argv[i][0])
				strbuf_add_shell_quoted(&cmd, argv[i]);
			else
				strbuf_addstr(&cmd, argv[i]);
		}
	}
	size_t n = strcspn(cmd.buf, "\n");
	bool cut = n < cmd.len;
	if (n > COMMAND_MAX_BYTES) {
		n = COMMAND_MAX_BYTES;
		/* Never cut a UTF-8 sequence in half. */
		while (n && ((unsigned char)cmd.buf[n] & 0xC0) == 0x80)
			n--;
		cut = true;
	}
	strbuf_add(sb, cmd.buf, n);
	if (cut)
		strbuf_addstr(sb, " ...");
	strbuf_release(&cmd);
}

static void add_prefix(struct output *out, size_t i)
{
	struct output_job *oj = &out->per_job[i];
	strbuf_add(&out->batch, oj->prefix.buf, oj->prefix.len);
}

static void add_failure_word(struct strbuf *sb, bool color, const char *word)
{
	if (color)
		strbuf_addf(sb, RED "%s" RESET, word);
	else
		strbuf_addstr(sb, word);
}

void output_add_outcome(struct strbuf *sb, const struct job *job, bool color, bool served,
			bool started)
{
	if (job->state != JOB_FAILED) {
		strbuf_addstr(sb, "done in ");
		output_add_duration(sb, job->duration_ms);
	} else if (job->stopped && served) {
		strbuf_addf(sb, "%s in ", job->reason);
		output_add_duration(sb, job->duration_ms);
	} else if (job->timed_out) {
		add_failure_word(sb, color, "timed out");
		strbuf_addstr(sb, " after ");
		add_timeout(sb, job->timeout_ms);
	} else {
		add_failure_word(sb, color, "failed");
		if (job->reason)
			strbuf_addf(sb, " (%s)", job->reason);
		else if (job->term_signal)
			strbuf_addf(sb, " (signal %d)", job->term_signal);
		else
			strbuf_addf(sb, " (exit %d)", job->exit_code);
		if (started) {
			strbuf_addstr(sb, " in ");
			output_add_duration(sb, job->duration_ms);
		}
	}
}

void output_job_start(struct output *out, size_t i)
{
	out->per_job[i].started = true;
	if (out->tui) {
		tui_job_started(out->tui, i);
		return;
	}
	add_prefix(out, i);
	strbuf_addstr(&out->batch, "running: ");
	add_command(&out->batch, &out->jobs[i]);
	if (out->jobs[i].start_note)
		strbuf_addf(&out->batch, "  (%s)", out->jobs[i].start_note);
	strbuf_addch(&out->batch, '\n');
	output_emit(out);
}

void output_job_data(struct output *out, size_t i, const char *buf, size_t n)
{
	struct output_job *oj = &out->per_job[i];
	if (out->tui) { /* the pane shows every line, whatever the logs mode */
		tui_job_data(out->tui, i, buf, n);
		return;
	}
	if (!shows_output(out, i))
		return;
	if (holds_output(out, i) && !oj->streaming) {
		split_lines(&oj->held, oj, buf, n);
		if (oj->held.len <= HELD_MAX)
			return;
		if (logs_of(out, i) == LOGS_FULL) {
			strbuf_add(&out->batch, oj->held.buf, oj->held.len);
			strbuf_release(&oj->held);
			strbuf_init(&oj->held);
			oj->streaming = true;
			output_emit(out);
		} else {
			const char *keep =
			    memchr(oj->held.buf + oj->held.len - HELD_MAX / 2, '\n', HELD_MAX / 2);
			size_t drop = keep ? (size_t)(keep + 1 - oj->held.buf) : oj->held.len;
			oj->cut += drop;
			memmove(oj->held.buf, oj->held.buf + drop, oj->held.len - drop);
			strbuf_setlen(&oj->held, oj->held.len - drop);
		}
		return;
	}
	split_lines(&out->batch, oj, buf, n);
	output_emit(out);
}

void output_job_note(struct output *out, size_t i, const char *fmt, ...)
{
	va_list ap;
	if (out->tui) {
		struct strbuf sb = STRBUF_INIT;
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
		tui_job_note(out->tui, i, sb.buf);
		strbuf_release(&sb);
		return;
	}
	add_prefix(out, i);
	va_start(ap, fmt);
	strbuf_vaddf(&out->batch, fmt, ap);
	va_end(ap);
	strbuf_addch(&out->batch, '\n');
	output_emit(out);
}

void output_job_end(struct output *out, size_t i)
{
	struct output_job *oj = &out->per_job[i];
	const struct job *job = &out->jobs[i];
	bool failed = job->state == JOB_FAILED;
	if (out->tui) {
		tui_job_ended(out->tui, i);
		return;
	}

	if (shows_output(out, i)) {
		if (holds_output(out, i) && !oj->streaming) {
			flush_partial(&oj->held, oj);
			if (oj->cut && failed) {
				add_prefix(out, i);
				strbuf_addf(&out->batch,
					    "(%zu bytes of earlier output not shown)\n", oj->cut);
			}
			if (logs_of(out, i) == LOGS_FULL || failed)
				strbuf_add(&out->batch, oj->held.buf, oj->held.len);
			strbuf_release(&oj->held);
		} else {
			flush_partial(&out->batch, oj);
		}
	}

	add_prefix(out, i);
	output_add_outcome(&out->batch, job, out->color, out->served, oj->started);
	strbuf_addch(&out->batch, '\n');
	output_emit(out);
}

/* Job i's whole log, each line under its prefix: a hit's replay. */
static void replay_log(struct output *out, size_t i)
{
	struct output_job *oj = &out->per_job[i];
	const struct job *job = &out->jobs[i];
	if (job->log_fd < 0) {
		split_lines(&out->batch, oj, job->log.buf, job->log.len);
	} else {
		/* a spilled log, streamed from its file a chunk at a
		 * time: a 500 MB log replays in bounded memory */
		char *buf = xmalloc(REPLAY_CHUNK);
		off_t at = 0;
		ssize_t k;
		while ((k = pread(job->log_fd, buf, REPLAY_CHUNK, at)) > 0) {
			split_lines(&out->batch, oj, buf, (size_t)k);
			output_emit(out);
			at += k;
		}
		free(buf);
	}
	flush_partial(&out->batch, oj);
}

void output_job_cached(struct output *out, size_t i)
{
	const struct job *job = &out->jobs[i];
	if (out->tui) {
		tui_job_log(out->tui, i);
		tui_job_ended(out->tui, i);
		return;
	}
	enum output_logs l = out->jobs[i].logs_own ? out->jobs[i].logs : out->logs;
	if (l == LOGS_NONE)
		return; /* as Turborepo's, a hit says nothing (issue 42: a line per
			 * task); the summary counts it */
	add_prefix(out, i);
	const char *from = job->hit_from ? job->hit_from : "";
	const char *gap = job->hit_from ? " " : "";
	if (l == LOGS_FULL) {
		strbuf_addf(&out->batch, "%s%scache hit, replaying output\n", from, gap);
		replay_log(out, i);
	} else {
		strbuf_addf(&out->batch, "%s%scache hit\n", from, gap);
	}
	output_emit(out);
}

void output_job_skipped(struct output *out, size_t i)
{
	const struct job *job = &out->jobs[i];
	if (out->tui) {
		tui_job_ended(out->tui, i);
		return;
	}
	add_prefix(out, i);
	strbuf_addf(&out->batch, "skipped (%s)\n", job->reason ? job->reason : "not run");
	output_emit(out);
}

void output_status(struct output *out, size_t done, size_t running, size_t queued,
		   long long elapsed_ms)
{
	if (out->tui)
		tui_status(out->tui, done, running, queued, elapsed_ms);
	if (!out->status_line)
		return;
	struct strbuf now = STRBUF_INIT;
	strbuf_addf(&now, "[done/running/queued] %zu/%zu/%zu  %lld.%llds", done, running, queued,
		    elapsed_ms / 1000, elapsed_ms % 1000 / 100);
	if (out->status_drawn && !strcmp(now.buf, out->status.buf)) {
		strbuf_release(&now);
		return;
	}
	strbuf_release(&out->status);
	out->status = now;
	struct strbuf w = STRBUF_INIT;
	strbuf_addstr(&w, CLEAR_LINE);
	strbuf_add(&w, out->status.buf, out->status.len);
	strbuf_add(&out->pending, w.buf, w.len);
	out->status_drawn = true;
	strbuf_release(&w);
}

void output_summary(const struct job *jobs, size_t n, long long total_ms)
{
	size_t ok = 0, cached = 0, failed = 0, skipped = 0, noop = 0, settled = 0, served = 0;
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].settled) {
			settled++;
			continue;
		}
		if (jobs[i].handed_off) {
			served++;
			continue;
		}
		switch (jobs[i].state) {
		case JOB_SUCCEEDED:
			ok++;
			break;
		case JOB_NOOP:
			noop++;
			break;
		case JOB_CACHED:
			cached++;
			break;
		case JOB_FAILED:
			failed++;
			break;
		case JOB_SKIPPED:
		case JOB_PENDING:
		case JOB_RUNNING:
			skipped++;
			break;
		}
	}
	struct output out = {.fd = STDOUT_FILENO};
	strbuf_init(&out.batch);
	/* A task with no command neither succeeded nor was cached: an all-hit
	 * run said "3 succeeded, 14 cached" (issue 11). It is counted apart. */
	strbuf_addf(&out.batch, "Tasks: %zu succeeded, %zu cached, %zu failed, %zu skipped (of %zu",
		    ok, cached, failed, skipped, n - noop - settled - served);
	if (noop)
		strbuf_addf(&out.batch, "; %zu with no command", noop);
	if (served)
		strbuf_addf(&out.batch, "; %zu server%s vx watch keeps", served,
			    served == 1 ? "" : "s");
	if (settled)
		strbuf_addf(&out.batch, "; %zu unchanged since the last run", settled);
	strbuf_addstr(&out.batch, ") in ");
	output_add_duration(&out.batch, total_ms);
	strbuf_addch(&out.batch, '\n');
	output_write(&out, out.batch.buf, out.batch.len);
	strbuf_release(&out.batch);
}
