/* strace_driver - runs vx's strace parser over a log, for bench/strace-parse
 * and for looking at what a recorded trace turns into.
 *
 *   strace_driver [-p] [-c CWD] [-b CHUNK] LOG
 *
 * Reads LOG whole, then times feeding it to the parser in CHUNK-byte pieces
 * (default 65536, as a pipe would deliver it) and prints "lines N distinct D
 * events E skipped S root PID exited|INCOMPLETE seconds T cpu C Mlines/s R"
 * (T wall, C the process's CPU time: on a shared machine C is the fairer). With -p it also prints
 * every distinct event, one per line: op errno path [flags]. CWD (default "/") is the first
 * process's working directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/die.h"
#include "util/strbuf.h"
#include "violations/strace.h"

static double now(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts))
		die_errno("clock_gettime");
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *cwd = "/";
	size_t chunk = 65536;
	int print = 0, opt;
	while ((opt = getopt(argc, argv, "pc:b:")) != -1) {
		if (opt == 'p')
			print = 1;
		else if (opt == 'c')
			cwd = optarg;
		else if (opt == 'b')
			chunk = (size_t)atol(optarg);
		else
			die("usage: strace_driver [-p] [-c CWD] [-b CHUNK] LOG");
	}
	if (optind + 1 != argc || !chunk)
		die("usage: strace_driver [-p] [-c CWD] [-b CHUNK] LOG");
	struct strbuf log = STRBUF_INIT;
	if (strbuf_read_file(&log, argv[optind]) < 0)
		die_errno("reading %s", argv[optind]);

	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	struct strace_parser *p = strace_parser_new(cwd, 0);
	for (size_t off = 0; off < log.len; off += chunk)
		strace_parser_feed(p, log.buf + off, log.len - off < chunk ? log.len - off : chunk);
	strace_parser_finish(p);
	double t = now(CLOCK_MONOTONIC) - t0, cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;

	size_t n;
	const struct access_event *ev = strace_parser_events(p, &n);
	const struct strace_summary *sum = strace_parser_summary(p);
	if (print)
		for (size_t i = 0; i < n; i++)
			printf("%s %s %d %s%s%s\n", access_op_name(ev[i].op), ev[i].syscall,
			       ev[i].err, ev[i].path, ev[i].truncated ? " [truncated]" : "",
			       ev[i].unresolved ? " [unresolved]" : "");
	printf("lines %zu distinct %zu events %zu skipped %zu root %d %s seconds %.3f cpu %.3f "
	       "Mlines/s %.2f\n",
	       sum->lines, n, sum->events, sum->skipped, (int)sum->root_pid,
	       sum->root_exited ? "exited" : "INCOMPLETE", t, cpu, (double)sum->lines / t / 1e6);
	strace_parser_free(p);
	strbuf_release(&log);
	return 0;
}
