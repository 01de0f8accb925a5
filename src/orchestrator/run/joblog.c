/* joblog.c - what a job printed (joblog.h). */
#include "orchestrator/run/joblog.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/io.h"

void joblog_reset(struct job *job)
{
	strbuf_reset(&job->log);
	if (job->log_fd >= 0)
		close(job->log_fd);
	job->log_fd = -1;
	job->log_len = 0;
	job->log_lost = false;
	strbuf_release(&job->log_tail);
	strbuf_init(&job->log_tail);
}

/* Keeps n bytes in job's tail, at most twice JOBLOG_TAIL. */
static void tail_add(struct job *job, const char *buf, size_t n)
{
	if (n > JOBLOG_TAIL) {
		buf += n - JOBLOG_TAIL;
		n = JOBLOG_TAIL;
	}
	strbuf_add(&job->log_tail, buf, n);
	if (job->log_tail.len > 2 * JOBLOG_TAIL) {
		size_t cut = job->log_tail.len - JOBLOG_TAIL;
		memmove(job->log_tail.buf, job->log_tail.buf + cut, JOBLOG_TAIL);
		strbuf_setlen(&job->log_tail, JOBLOG_TAIL);
	}
}

/* The spill failed (a full TMPDIR): said once, the file given up, the
 * head and the tail kept (issue 39: the log grew in memory unbounded, 397
 * MB for 200 MB, and O_TMPFILE was tried again on every chunk). */
static void log_lose(struct job *job, const char *spill_dir)
{
	warning("%s: cannot keep its output past %zu MiB in %s (%s): only its first %zu MiB "
		"and its last %zu KiB are kept, and it is not saved to the cache",
		job->id, JOBLOG_MEM >> 20, spill_dir, strerror(errno), JOBLOG_MEM >> 20,
		JOBLOG_TAIL >> 10);
	if (job->log_fd >= 0)
		close(job->log_fd);
	job->log_fd = -1;
	job->log_lost = true;
}

void joblog_add(struct job *job, const char *spill_dir, const char *buf, size_t n)
{
	job->log_len += n;
	if (job->log_lost) {
		tail_add(job, buf, n);
		return;
	}
	if (job->log_fd < 0 && job->log.len + n > JOBLOG_MEM && spill_dir) {
		int fd = compat_tmpfile(spill_dir);
		if (fd < 0 || write_all(fd, job->log.buf, job->log.len) < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			errno = e;
			log_lose(job, spill_dir);
			tail_add(job, job->log.buf, job->log.len);
			tail_add(job, buf, n);
			return;
		}
		job->log_fd = fd;
		tail_add(job, job->log.buf, job->log.len);
	}
	if (job->log_fd < 0) {
		strbuf_add(&job->log, buf, n);
		return;
	}
	if (write_all(job->log_fd, buf, n) < 0)
		log_lose(job, spill_dir);
	tail_add(job, buf, n);
}

const char *joblog_end(const struct job *job, size_t *n)
{
	const struct strbuf *sb = job->log_fd >= 0 || job->log_lost ? &job->log_tail : &job->log;
	*n = sb->len;
	return sb->buf ? sb->buf : "";
}

void joblog_release(struct job *job)
{
	strbuf_release(&job->log);
	strbuf_release(&job->log_tail);
	if (job->log_fd >= 0)
		close(job->log_fd);
	job->log_fd = -1;
}
