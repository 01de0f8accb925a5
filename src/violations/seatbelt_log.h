/* seatbelt_log.h - macOS Seatbelt's denial records, parsed into the same
 * access events the strace parser makes, so one judge serves both feeds
 * (issue 19; docs/seatbelt.md). Platform-independent: the records are text,
 * read here on any host; only the `log stream` reader is macOS's.
 *
 * Two shapes, one record:
 *   the kernel's message text
 *     Sandbox: cat(1234) deny(1) file-read-data /Users/me/p/secret.txt
 *     2 duplicate reports for Sandbox: cat(1234) deny(1) file-read-data /x
 *   and `log stream --style ndjson` lines of the com.apple.sandbox.reporting
 *   subsystem, whose "eventMessage" holds the same text (with or without
 *   its "Sandbox: " prefix). */
#ifndef VX_VIOLATIONS_SEATBELT_LOG_H
#define VX_VIOLATIONS_SEATBELT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "violations/strace.h"

/* One record, as the OS wrote it. */
struct seatbelt_record {
	char *process; /* "cat", "Google Chrome He" (a name may hold spaces) */
	pid_t pid;
	bool deny;    /* deny(N); false: an allow the profile asked to report */
	int count;    /* the N of deny(N), times "K duplicate reports for" */
	char *op;     /* "file-read-data", "network-outbound", …: verbatim, any */
	char *target; /* the path, "ADDR:PORT", a mach service, a sysctl name;
		       * "" when the record names none */
};

/* Parses one line (len bytes, no newline needed) of either shape. Returns
 * 1 and fills r (release it with seatbelt_record_release), 0 when the line
 * is no sandbox record (another subsystem's, a log header), -1 when it
 * looks like one and does not parse. */
int seatbelt_log_line(const char *line, size_t len, struct seatbelt_record *r);
void seatbelt_record_release(struct seatbelt_record *r);

/* The access event a denial is, for the judge: op mapped (file-read-data
 * ACCESS_READ, file-read-metadata ACCESS_PROBE, file-write-create/-data
 * ACCESS_WRITE, file-write-unlink ACCESS_UNLINK, file-write-times
 * ACCESS_UTIME, file-write-mode/-owner/-xattr ACCESS_ATTR,
 * file-write-rename… , process-exec ACCESS_EXEC, network-outbound
 * ACCESS_CONNECT), the path canonical as macOS spells it (/var, /tmp and
 * /etc are /private/…), err EPERM, syscall the operation's name. Returns
 * false for what no event stands for — an allow, an operation the judge
 * does not know (mach-lookup, sysctl-read: kept in the record, never
 * dropped by the reader), and the addressless network-outbound a
 * dual-stack retry leaves behind. ev->path is allocated. */
bool seatbelt_record_event(const struct seatbelt_record *r, struct access_event *ev);

/* Is r the task's record? Its pid is one of the pids the spawn recorded
 * of the task's process tree; or, for a process the reader heard of too
 * late to ask (the log lags), its target lies in project (the task's
 * project dir as macOS spells it: the only denials that become
 * violations are there). Two tasks of one project running at once cannot
 * be told apart that way: both get such a record. */
bool seatbelt_record_ours(const struct seatbelt_record *r, const pid_t *pids, size_t n,
			  const char *project);

/* The static name of a known operation, or NULL (the syscall of an event). */
const char *seatbelt_op_name(const char *op);

#endif
