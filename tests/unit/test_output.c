/* Unit tests for run/output.c: line formats, prefixes, partial
 * lines, grouping, the logs modes, colours and the status line, written to
 * a temporary file and read back byte for byte. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "orchestrator/run/output.h"
#include "util/strbuf.h"

static char path[] = "/tmp/vxoutput-XXXXXX";
static int fd = -1;

static char *sh_argv[] = {"/bin/sh", "-c", "make all", NULL};

static void jobs_init(struct job *jobs, size_t n)
{
	static const char *ids[] = {"app#build", "lib#build", "web#dev"};
	memset(jobs, 0, n * sizeof *jobs);
	for (size_t i = 0; i < n; i++) {
		jobs[i].id = ids[i];
		jobs[i].argv = sh_argv;
		jobs[i].log_fd = -1; /* as scheduler_run sets it: no spilled log */
		jobs[i].state = JOB_RUNNING;
		strbuf_init(&jobs[i].log);
	}
}

static void out_open(struct output *out, const struct scheduler_opts *opts, struct job *jobs,
		     size_t n)
{
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		die_errno("%s", path);
	output_init(out, fd, opts, jobs, n);
}

/* Everything written since out_open(); the caller frees. */
static char *written(void)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0)
		die_errno("%s", path);
	return strbuf_detach(&sb, NULL);
}

static void check_written(const char *want)
{
	char *got = written();
	CHECK_STR(got, want);
	free(got);
}

static void end(struct output *out, struct job *job, size_t i, enum job_state st, int code,
		long long ms)
{
	job->state = st;
	job->exit_code = code;
	job->duration_ms = ms;
	output_job_end(out, i);
}

static const struct scheduler_opts plain = {.concurrency = 2, .logs = LOGS_FULL};

static void test_stream(void)
{
	struct job jobs[1];
	struct output out;
	jobs_init(jobs, 1);
	out_open(&out, &plain, jobs, 1);
	output_job_start(&out, 0);
	output_job_data(&out, 0, "hel", 3);
	output_job_data(&out, 0, "lo\nwor", 6);
	output_job_data(&out, 0, "ld\n\nlast", 8);
	end(&out, &jobs[0], 0, JOB_SUCCEEDED, 0, 1234);
	output_finish(&out);
	check_written("app#build: running: make all\n"
		      "app#build: hello\n"
		      "app#build: world\n"
		      "app#build: \n"
		      "app#build: last\n"
		      "app#build: done in 1.23s\n");
}

/* Issue 12: a task's bytes cannot overwrite vx's prefix: colour stays
 * (and is reset), a carriage return keeps what the terminal would show,
 * cursor moves, clears and other control bytes go. */
static void test_task_bytes(void)
{
	struct job jobs[1];
	struct output out;
	jobs_init(jobs, 1);
	out_open(&out, &plain, jobs, 1);
	output_job_start(&out, 0);
	const char data[] = "\033[31mred\033[0m ok\n"
			    "10%\r50%\r100%\n"
			    "crlf\r\n"
			    "\033[2J\033[Hcleared\033[1A up\bb\007\n"
			    "\033]0;title\007x\n"
			    "\033]8;;http://e\033\\link\n";
	output_job_data(&out, 0, data, sizeof data - 1);
	end(&out, &jobs[0], 0, JOB_SUCCEEDED, 0, 10);
	output_finish(&out);
	check_written("app#build: running: make all\n"
		      "app#build: \033[31mred\033[0m ok\033[0m\n"
		      "app#build: 100%\n"
		      "app#build: crlf\n"
		      "app#build: cleared upb\n"
		      "app#build: x\n"
		      "app#build: link\n"
		      "app#build: done in 0.01s\n");
}

static void test_end_lines(void)
{
	struct job jobs[1];
	struct output out;
	jobs_init(jobs, 1);
	out_open(&out, &plain, jobs, 1);
	output_job_start(&out, 0);
	end(&out, &jobs[0], 0, JOB_FAILED, 2, 100);
	jobs[0].term_signal = 9;
	end(&out, &jobs[0], 0, JOB_FAILED, 137, 61000);
	jobs[0].term_signal = 0;
	jobs[0].reason = "sandbox violation";
	end(&out, &jobs[0], 0, JOB_FAILED, 0, 5);
	jobs[0].reason = NULL;
	jobs[0].timed_out = true;
	jobs[0].timeout_ms = 10000;
	end(&out, &jobs[0], 0, JOB_FAILED, 143, 10000);
	jobs[0].timeout_ms = 600000;
	end(&out, &jobs[0], 0, JOB_FAILED, 143, 600000);
	jobs[0].timed_out = false;
	jobs[0].reason = "dependency failed";
	output_job_skipped(&out, 0);
	output_finish(&out);
	check_written("app#build: running: make all\n"
		      "app#build: failed (exit 2) in 0.10s\n"
		      "app#build: failed (signal 9) in 1m01s\n"
		      "app#build: failed (sandbox violation) in 0.00s\n"
		      "app#build: timed out after 10s\n"
		      "app#build: timed out after 10m\n"
		      "app#build: skipped (dependency failed)\n");

	/* Never started (the before hook refused it): no duration. */
	jobs_init(jobs, 1);
	out_open(&out, &plain, jobs, 1);
	jobs[0].reason = "hook says no";
	end(&out, &jobs[0], 0, JOB_FAILED, -1, 0);
	output_finish(&out);
	check_written("app#build: failed (hook says no)\n");
}

static void test_command_summary(void)
{
	struct job jobs[1];
	struct output out;
	char *multi[] = {"/usr/bin/sh", "-c", "make all\nmake install", NULL};
	char *plain_argv[] = {"/usr/bin/tool", "a b", "x", "", NULL};
	char long_cmd[300];
	memset(long_cmd, 'x', sizeof long_cmd - 1);
	long_cmd[sizeof long_cmd - 1] = '\0';
	char *longv[] = {"/bin/sh", "-c", long_cmd, NULL};

	jobs_init(jobs, 1);
	out_open(&out, &plain, jobs, 1);
	jobs[0].argv = multi;
	output_job_start(&out, 0);
	jobs[0].argv = plain_argv;
	output_job_start(&out, 0);
	jobs[0].command = "tsc -b";
	output_job_start(&out, 0);
	jobs[0].command = NULL;
	jobs[0].argv = longv;
	output_job_start(&out, 0);
	output_finish(&out);
	char *want = xasprintf("app#build: running: make all ...\n"
			       "app#build: running: /usr/bin/tool 'a b' x ''\n"
			       "app#build: running: tsc -b\n"
			       "app#build: running: %.120s ...\n",
			       long_cmd);
	check_written(want);
	free(want);
}

/* Grouped: nothing of a job shows until it ends, then its lines come as one
 * block with its end line, even when two jobs' output interleaved. */
static void test_group(void)
{
	struct job jobs[2];
	struct output out;
	struct scheduler_opts opts = plain;
	opts.group_output = true;
	jobs_init(jobs, 2);
	out_open(&out, &opts, jobs, 2);
	output_job_start(&out, 0);
	output_job_start(&out, 1);
	output_job_data(&out, 0, "a1\n", 3);
	output_job_data(&out, 1, "b1\n", 3);
	output_job_data(&out, 0, "a2", 2);
	/* Start lines are not held: they say the job is under way (written
	 * when the scheduler next waits, at the latest). */
	output_flush(&out);
	check_written("app#build: running: make all\nlib#build: running: make all\n");
	output_job_data(&out, 1, "b2\n", 3);
	end(&out, &jobs[1], 1, JOB_SUCCEEDED, 0, 10);
	end(&out, &jobs[0], 0, JOB_FAILED, 1, 20);
	output_finish(&out);
	check_written("app#build: running: make all\nlib#build: running: make all\n"
		      "lib#build: b1\nlib#build: b2\nlib#build: done in 0.01s\n"
		      "app#build: a1\napp#build: a2\napp#build: failed (exit 1) in 0.02s\n");
}

/* A persistent job never ends: its lines stream even when grouped. */
static void test_persistent_streams(void)
{
	struct job jobs[3];
	struct output out;
	struct scheduler_opts opts = plain;
	opts.group_output = true;
	opts.logs = LOGS_ERRORS_ONLY;
	jobs_init(jobs, 3);
	jobs[2].persistent = true;
	out_open(&out, &opts, jobs, 3);
	output_job_data(&out, 2, "listening\n", 10);
	output_finish(&out);
	check_written("web#dev: listening\n");
}

static void test_logs_modes(void)
{
	struct job jobs[2];
	struct output out;
	struct scheduler_opts opts = plain;

	opts.logs = LOGS_ERRORS_ONLY;
	jobs_init(jobs, 2);
	out_open(&out, &opts, jobs, 2);
	output_job_data(&out, 0, "quiet\n", 6);
	output_job_data(&out, 1, "loud\n", 5);
	end(&out, &jobs[0], 0, JOB_SUCCEEDED, 0, 0);
	end(&out, &jobs[1], 1, JOB_FAILED, 1, 0);
	output_finish(&out);
	check_written("app#build: done in 0.00s\n"
		      "lib#build: loud\nlib#build: failed (exit 1)\n");

	for (int m = 0; m < 2; m++) {
		opts.logs = m ? LOGS_NONE : LOGS_HASH_ONLY;
		jobs_init(jobs, 2);
		out_open(&out, &opts, jobs, 2);
		output_job_start(&out, 0);
		output_job_data(&out, 0, "hidden\n", 7);
		end(&out, &jobs[0], 0, JOB_FAILED, 1, 0);
		strbuf_addstr(&jobs[1].log, "cached line\n");
		output_job_cached(&out, 1);
		output_finish(&out);
		/* none says nothing of a hit, as Turborepo's (issue 42) */
		check_written(
		    m ? "app#build: running: make all\napp#build: failed (exit 1) in 0.00s\n"
		      : "app#build: running: make all\napp#build: failed (exit 1) in 0.00s\n"
			"lib#build: cache hit\n");
		strbuf_release(&jobs[1].log);
	}

	opts.logs = LOGS_FULL;
	jobs_init(jobs, 2);
	out_open(&out, &opts, jobs, 2);
	strbuf_addstr(&jobs[1].log, "one\ntwo");
	output_job_cached(&out, 1);
	output_finish(&out);
	check_written("lib#build: cache hit, replaying output\nlib#build: one\nlib#build: two\n");
	strbuf_release(&jobs[1].log);
}

static void test_color(void)
{
	struct job jobs[2];
	struct output out;
	struct scheduler_opts opts = plain;
	opts.color = true;
	jobs_init(jobs, 2);
	out_open(&out, &opts, jobs, 2);
	output_job_data(&out, 0, "x\n", 2);
	end(&out, &jobs[0], 0, JOB_FAILED, 1, 0);
	output_finish(&out);
	char *got = written();
	/* A palette colour on the prefix, red on the failure, reset after each. */
	CHECK(!strncmp(got, "\033[3", 3) || !strncmp(got, "\033[9", 3));
	CHECK(strstr(got, "app#build:\033[0m x\n") != NULL);
	CHECK(strstr(got, "\033[31mfailed\033[0m (exit 1)") != NULL);
	/* The same id gets the same colour in another run. */
	char first[8];
	memcpy(first, got, 5);
	first[5] = '\0';
	free(got);
	out_open(&out, &opts, jobs, 2);
	output_job_data(&out, 0, "y\n", 2);
	output_finish(&out);
	got = written();
	CHECK(!strncmp(got, first, 5));
	CHECK(strchr(got + 5, '\033') != NULL);
	free(got);

	opts.color = false;
	out_open(&out, &opts, jobs, 2);
	output_job_data(&out, 0, "y\n", 2);
	end(&out, &jobs[0], 0, JOB_FAILED, 1, 0);
	output_finish(&out);
	got = written();
	CHECK(strchr(got, '\033') == NULL);
	free(got);
}

/* The status line is cleared before task lines and drawn again under them. */
static void test_status_line(void)
{
	struct job jobs[1];
	struct output out;
	struct scheduler_opts opts = plain;
	opts.status_line = true;
	jobs_init(jobs, 1);
	out_open(&out, &opts, jobs, 1);
	output_status(&out, 1, 2, 3, 1234);
	output_status(&out, 1, 2, 3, 1250); /* same text: no redraw */
	output_job_data(&out, 0, "x\n", 2);
	output_status(&out, 2, 1, 3, 12345);
	output_finish(&out);
	check_written("\r\033[K[done/running/queued] 1/2/3  1.2s"
		      "\r\033[Kapp#build: x\n[done/running/queued] 1/2/3  1.2s"
		      "\r\033[K[done/running/queued] 2/1/3  12.3s"
		      "\r\033[K");

	/* Off: output_status writes nothing. */
	out_open(&out, &plain, jobs, 1);
	output_status(&out, 1, 2, 3, 1234);
	output_finish(&out);
	check_written("");
}

static void test_summary(void)
{
	struct job jobs[6];
	memset(jobs, 0, sizeof jobs);
	enum job_state st[] = {JOB_SUCCEEDED, JOB_NOOP,	   JOB_CACHED,
			       JOB_FAILED,    JOB_SKIPPED, JOB_SKIPPED};
	for (int i = 0; i < 6; i++)
		jobs[i].state = st[i];
	fflush(stdout);
	int saved = dup(1);
	if (saved < 0 || ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0 || dup2(fd, 1) < 0)
		die_errno("redirecting stdout");
	output_summary(jobs, 6, 83456);
	if (dup2(saved, 1) < 0)
		die_errno("restoring stdout");
	close(saved);
	/* the no-op is counted apart, never as succeeded (issue 11) */
	check_written("Tasks: 1 succeeded, 1 cached, 1 failed, 2 skipped (of 5; 1 with no command) "
		      "in 1m23s\n");
}

static void test_duration(void)
{
	struct strbuf sb = STRBUF_INIT;
	output_add_duration(&sb, 0);
	strbuf_addch(&sb, ' ');
	output_add_duration(&sb, 1234);
	strbuf_addch(&sb, ' ');
	output_add_duration(&sb, 59999);
	strbuf_addch(&sb, ' ');
	output_add_duration(&sb, 123000);
	CHECK_STR(sb.buf, "0.00s 1.23s 59.99s 2m03s");
	strbuf_release(&sb);
}

/* issue 56 item 6: FORCE_COLOR honoured as NO_COLOR is */
static void test_wants_color(void)
{
	CHECK(output_wants_color(true, NULL, NULL));
	CHECK(!output_wants_color(false, NULL, NULL));
	/* no-color.org: set and not empty; it wins over FORCE_COLOR */
	CHECK(!output_wants_color(true, "1", NULL));
	CHECK(output_wants_color(true, "", NULL));
	CHECK(!output_wants_color(false, "1", "1"));
	/* force-color.org, supports-color: any value but 0 and false, even
	 * empty, colours a pipe; 0 and false turn a terminal's off */
	CHECK(output_wants_color(false, NULL, "1"));
	CHECK(output_wants_color(false, NULL, "3"));
	CHECK(output_wants_color(false, NULL, ""));
	CHECK(output_wants_color(false, "", "true"));
	CHECK(!output_wants_color(true, NULL, "0"));
	CHECK(!output_wants_color(true, NULL, "false"));
}

int main(void)
{
	test_wants_color();
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		die_errno("mkstemp");
	test_task_bytes();
	test_stream();
	test_end_lines();
	test_command_summary();
	test_group();
	test_persistent_streams();
	test_logs_modes();
	test_color();
	test_status_line();
	test_summary();
	test_duration();
	close(fd);
	unlink(path);
	return check_finish("output");
}
