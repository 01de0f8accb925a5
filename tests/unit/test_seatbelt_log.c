/* Unit tests for violations/seatbelt_log.c: Seatbelt's denial records in
 * both shapes, and the access events the judge takes from them.
 *
 * Where the lines come from: no macOS machine and no network to Apple's
 * documentation are here, so each line is written from the record's shape
 * as the kernel prints it ("Sandbox: PROCESS(PID) deny(N) OPERATION
 * TARGET", the form sandbox-exec users quote in bug reports and forum
 * threads about denied reads, connects and execs), the "K duplicate reports
 * for …" form the log coalesces repeats into, and `log stream --style
 * ndjson`'s record (eventMessage, processID, subsystem, category), whose
 * message is the same text. Names with spaces and parentheses are the
 * shape of app helpers ("Google Chrome Helper (Renderer)"). */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "violations/seatbelt_log.h"

struct want {
	const char *line;
	int rc;
	const char *process;
	int pid;
	bool deny;
	int count;
	const char *op, *target;
	/* the event: NULL when none stands for it */
	const char *path;
	enum access_op ev_op;
};

static const struct want cases[] = {
    /* the kernel's text */
    {"Sandbox: cat(1234) deny(1) file-read-data /Users/me/p/secret.txt", 1, "cat", 1234, true, 1,
     "file-read-data", "/Users/me/p/secret.txt", "/Users/me/p/secret.txt", ACCESS_READ},
    {"Sandbox: ls(77) deny(1) file-read-metadata /private/etc/master.passwd", 1, "ls", 77, true, 1,
     "file-read-metadata", "/private/etc/master.passwd", "/private/etc/master.passwd",
     ACCESS_PROBE},
    {"Sandbox: touch(8) deny(1) file-write-create /Users/me/p/out/a.o", 1, "touch", 8, true, 1,
     "file-write-create", "/Users/me/p/out/a.o", "/Users/me/p/out/a.o", ACCESS_WRITE},
    {"Sandbox: cc1(91) deny(1) file-write-data /Users/me/p/src/x.c", 1, "cc1", 91, true, 1,
     "file-write-data", "/Users/me/p/src/x.c", "/Users/me/p/src/x.c", ACCESS_WRITE},
    {"Sandbox: rm(5) deny(1) file-write-unlink /Users/me/p/.git/index", 1, "rm", 5, true, 1,
     "file-write-unlink", "/Users/me/p/.git/index", "/Users/me/p/.git/index", ACCESS_UNLINK},
    {"Sandbox: touch(9) deny(1) file-write-times /Users/me/p/src/x.c", 1, "touch", 9, true, 1,
     "file-write-times", "/Users/me/p/src/x.c", "/Users/me/p/src/x.c", ACCESS_UTIME},
    {"Sandbox: chmod(10) deny(1) file-write-mode /Users/me/p/bin/run", 1, "chmod", 10, true, 1,
     "file-write-mode", "/Users/me/p/bin/run", "/Users/me/p/bin/run", ACCESS_ATTR},
    {"Sandbox: xattr(11) deny(1) file-write-xattr /Users/me/p/a", 1, "xattr", 11, true, 1,
     "file-write-xattr", "/Users/me/p/a", "/Users/me/p/a", ACCESS_ATTR},
    {"Sandbox: sh(12) deny(1) process-exec /usr/local/bin/python3", 1, "sh", 12, true, 1,
     "process-exec", "/usr/local/bin/python3", "/usr/local/bin/python3", ACCESS_EXEC},
    {"Sandbox: node(4321) deny(1) network-outbound 140.82.112.3:443", 1, "node", 4321, true, 1,
     "network-outbound", "140.82.112.3:443", "140.82.112.3:443", ACCESS_CONNECT},
    {"Sandbox: curl(13) deny(1) network-outbound /private/var/run/mDNSResponder", 1, "curl", 13,
     true, 1, "network-outbound", "/private/var/run/mDNSResponder",
     "/private/var/run/mDNSResponder", ACCESS_CONNECT},
    /* the addressless record a dual-stack retry leaves: nothing refused */
    {"Sandbox: node(14) deny(1) network-outbound", 1, "node", 14, true, 1, "network-outbound", "",
     NULL, 0},
    /* operations the judge does not know: kept verbatim, no event */
    {"Sandbox: mdworker(15) deny(1) mach-lookup com.apple.coreservices.launchservicesd", 1,
     "mdworker", 15, true, 1, "mach-lookup", "com.apple.coreservices.launchservicesd", NULL, 0},
    {"Sandbox: node(16) deny(1) sysctl-read kern.bootargs", 1, "node", 16, true, 1, "sysctl-read",
     "kern.bootargs", NULL, 0},
    {"Sandbox: swift(17) deny(1) iokit-open IOSurfaceRootUserClient", 1, "swift", 17, true, 1,
     "iokit-open", "IOSurfaceRootUserClient", NULL, 0},
    /* names with spaces and parentheses; a path with spaces */
    {"Sandbox: Google Chrome Helper (Renderer)(2468) deny(1) file-read-data /Users/me/My Files/a "
     "b.txt",
     1, "Google Chrome Helper (Renderer)", 2468, true, 1, "file-read-data",
     "/Users/me/My Files/a b.txt", "/Users/me/My Files/a b.txt", ACCESS_READ},
    /* repeats coalesced */
    {"2 duplicate reports for Sandbox: cat(1234) deny(1) file-read-data /Users/me/p/secret.txt", 1,
     "cat", 1234, true, 3, "file-read-data", "/Users/me/p/secret.txt", "/Users/me/p/secret.txt",
     ACCESS_READ},
    {"1 duplicate report for Sandbox: git(30) deny(1) file-read-data /Users/me/.ssh/id_ed25519", 1,
     "git", 30, true, 2, "file-read-data", "/Users/me/.ssh/id_ed25519", "/Users/me/.ssh/id_ed25519",
     ACCESS_READ},
    /* a bare /var, /tmp, /etc path is made canonical */
    {"Sandbox: sh(31) deny(1) file-write-create /tmp/vx-x/out", 1, "sh", 31, true, 1,
     "file-write-create", "/tmp/vx-x/out", "/private/tmp/vx-x/out", ACCESS_WRITE},
    /* an allow the profile asked to report: a record, no refusal */
    {"Sandbox: cat(40) allow file-read-data /Users/me/p/src/a.c", 1, "cat", 40, false, 1,
     "file-read-data", "/Users/me/p/src/a.c", NULL, 0},
    /* a deny count above one */
    {"Sandbox: make(41) deny(3) file-read-data /Users/me/p/../shared/x.h", 1, "make", 41, true, 3,
     "file-read-data", "/Users/me/p/../shared/x.h", "/Users/me/p/../shared/x.h", ACCESS_READ},
    /* `log stream --style ndjson`: the message carries the record */
    {"{\"traceID\":1,\"eventMessage\":\"Sandbox: cat(1234) deny(1) file-read-data /Users/me/x\","
     "\"eventType\":\"logEvent\",\"subsystem\":\"com.apple.sandbox.reporting\",\"category\":"
     "\"violation\","
     "\"processID\":0,\"processImagePath\":\"/kernel\",\"timestamp\":\"2026-09-01 "
     "10:00:00.000000+0000\"}",
     1, "cat", 1234, true, 1, "file-read-data", "/Users/me/x", "/Users/me/x", ACCESS_READ},
    {"{\"eventMessage\":\"node(55) deny(1) network-outbound 1.1.1.1:53\",\"subsystem\":"
     "\"com.apple.sandbox.reporting\",\"category\":\"violation\",\"processID\":99}",
     1, "node", 55, true, 1, "network-outbound", "1.1.1.1:53", "1.1.1.1:53", ACCESS_CONNECT},
    /* not sandbox records */
    {"{\"eventMessage\":\"hello\",\"subsystem\":\"com.apple.network\"}", 0, NULL, 0, false, 0, NULL,
     NULL, NULL, 0},
    {"Filtering the log data using \"subsystem == \\\"com.apple.sandbox.reporting\\\"\"", 0, NULL,
     0, false, 0, NULL, NULL, NULL, 0},
    {"", 0, NULL, 0, false, 0, NULL, NULL, NULL, 0},
    /* looks like one and does not parse */
    {"Sandbox: cat deny(1) file-read-data /x", -1, NULL, 0, false, 0, NULL, NULL, NULL, 0},
    {"Sandbox: cat(12) deny(1)", -1, NULL, 0, false, 0, NULL, NULL, NULL, 0},
    {"{\"eventMessage\": ", -1, NULL, 0, false, 0, NULL, NULL, NULL, 0},
};

/* Attribution: by the pids the spawn recorded, else by the project. */
static void test_ours(void)
{
	const pid_t tree[] = {500, 501};
	struct seatbelt_record r;
	const char *line = "Sandbox: cc(501) deny(1) file-read-data /Users/me/ws/lib/x.h";
	CHECK_INT(seatbelt_log_line(line, strlen(line), &r), 1);
	CHECK(seatbelt_record_ours(&r, tree, 2, "/Users/me/ws/app"));
	CHECK(!seatbelt_record_ours(&r, tree, 0, "/Users/me/ws/app"));
	seatbelt_record_release(&r);
	line = "Sandbox: ld(777) deny(1) file-read-data /Users/me/ws/app/secret";
	CHECK_INT(seatbelt_log_line(line, strlen(line), &r), 1);
	CHECK(seatbelt_record_ours(&r, tree, 2, "/Users/me/ws/app"));
	CHECK(!seatbelt_record_ours(&r, tree, 2, "/Users/me/ws/ap"));
	CHECK(!seatbelt_record_ours(&r, tree, 2, NULL));
	seatbelt_record_release(&r);
	line = "Sandbox: sh(778) deny(1) file-write-create /tmp/p/out";
	CHECK_INT(seatbelt_log_line(line, strlen(line), &r), 1);
	CHECK(seatbelt_record_ours(&r, NULL, 0, "/private/tmp/p"));
	seatbelt_record_release(&r);
	line = "Sandbox: node(779) deny(1) network-outbound 1.1.1.1:53";
	CHECK_INT(seatbelt_log_line(line, strlen(line), &r), 1);
	CHECK(!seatbelt_record_ours(&r, tree, 2, "/Users/me/ws/app"));
	seatbelt_record_release(&r);
}

int main(void)
{
	test_ours();
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct want *w = &cases[i];
		struct seatbelt_record r;
		int rc = seatbelt_log_line(w->line, strlen(w->line), &r);
		if (rc != w->rc)
			fprintf(stderr, "line %zu: %s\n", i, w->line);
		CHECK_INT(rc, w->rc);
		if (rc != 1 || w->rc != 1)
			continue;
		CHECK_STR(r.process, w->process);
		CHECK_INT(r.pid, w->pid);
		CHECK_INT(r.deny, w->deny);
		CHECK_INT(r.count, w->count);
		CHECK_STR(r.op, w->op);
		CHECK_STR(r.target, w->target);
		struct access_event ev;
		bool has = seatbelt_record_event(&r, &ev);
		if (has != (w->path != NULL))
			fprintf(stderr, "line %zu: event %d\n", i, has);
		CHECK_INT(has, w->path != NULL);
		if (has && w->path) {
			CHECK_STR(ev.path, w->path);
			CHECK_INT(ev.op, w->ev_op);
			CHECK_INT(ev.err, EPERM);
			CHECK_STR(ev.syscall, w->op);
			CHECK_INT(ev.pid, w->pid);
		}
		free(ev.path);
		seatbelt_record_release(&r);
	}
	CHECK(seatbelt_op_name("file-read-data") != NULL);
	CHECK(seatbelt_op_name("mach-lookup") == NULL);
	return check_finish("test_seatbelt_log");
}
