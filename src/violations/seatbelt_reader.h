/* seatbelt_reader.h - what only macOS can run of its sandbox's report:
 * the reader of the sandbox's denials in the unified log, and the probe
 * `vx info` runs (docs/seatbelt.md). Declared on macOS alone; the records
 * are seatbelt_log.h's, parsed and tested on any host. */
#ifndef VX_VIOLATIONS_SEATBELT_READER_H
#define VX_VIOLATIONS_SEATBELT_READER_H
#ifdef __APPLE__

#include <sys/types.h>

#include "util/strbuf.h"
#include "util/vec.h"
#include "violations/seatbelt_log.h"

typedef VEC(struct seatbelt_record) seatbelt_record_vec;

/* `log stream --style ndjson` of the sandbox's violation reports, read
 * through a pipe. */
struct seatbelt_log {
	pid_t pid;
	int fd;
	struct strbuf pending; /* a line not yet whole */
};

/* Starts the reader. Returns 0, or -1 with errno. */
int seatbelt_log_start(struct seatbelt_log *l);
/* Reads what the log has written (waiting up to wait_ms for its first
 * bytes) and appends each whole line's record to out. Returns how many. */
size_t seatbelt_log_read(struct seatbelt_log *l, int wait_ms, seatbelt_record_vec *out);
void seatbelt_log_stop(struct seatbelt_log *l);

/* `vx info`: runs a probe that is denied a read on purpose and says in why
 * whether the log reader heard it. Returns 1 heard, 0 not, -1 no sandbox. */
int seatbelt_probe(struct strbuf *why);

#endif
#endif
