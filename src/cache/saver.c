/* saver.c - the cache's background save thread (saver.h). */
#include "cache/saver.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/remote.h"
#include "cache/transfer.h"
#include "util/compat.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/thread.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* A request with everything it points to owned. */
struct save {
	struct save *next;
	void *tag;
	struct entry_save_request req;
	struct strvec strings; /* key, task, project_dir, then outputs, then input pairs */
	struct entry_input *inputs;
	struct inplace_seen seen; /* filled when the submitter asked for it */
	char *log;
	int rc;
	int dup_errno; /* the log's fd could not be duplicated */
	struct strbuf messages;
};

/* An entry saved, to be uploaded. */
struct upload {
	struct upload *next;
	char *key;
	uint64_t duration_ms;
};

struct saver {
	const struct store *st;
	struct remote *remote; /* each entry saved is uploaded after, or NULL */
	bool keep_local;       /* false: an entry uploaded (or not) is removed after */
	struct strbuf late;    /* the uploads' warnings, for the loop's thread */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;	    /* the worker: work queued, or stop */
	pthread_cond_t finished;    /* saver_drain: a save finished */
	struct save *queue, **tail; /* submitted, not yet started */
	struct save *done, **done_tail;
	size_t pending; /* submitted and not reaped */
	bool stop;
	int rd, wr; /* a byte per finished save */
	/* Uploads run on threads of their own, so a slow remote never holds
	 * a save (nor so the dependents of its task); several at once, so a
	 * far remote's round trips do not add up one after the other. */
	pthread_t up_threads[REMOTE_UPLOADERS];
	size_t n_up_threads;
	pthread_cond_t up_wake; /* the uploaders: an upload queued, or stop */
	struct upload *uploads, **up_tail;
	long long upload_until; /* set as the run ends: no upload starts after it (ms) */
	size_t skipped;		/* uploads not made for that */
	long long grace_ms;	/* how long the end waited */
};

/* The run's end waits this long for the uploads still to make, then says
 * how many it leaves (VX_TEST_UPLOAD_GRACE_MS: the tests' shorter one). */
#define UPLOAD_GRACE_MS 30000LL

static void save_run(const struct store *st, struct save *s)
{
	report_to(strbuf_report_line, &s->messages);
	if (s->dup_errno) {
		errno = s->dup_errno;
		s->rc = error_errno("cannot read the task log");
	} else if (s->req.log_fd >= 0 && lseek(s->req.log_fd, 0, SEEK_SET) < 0) {
		s->rc = error_errno("cannot read the task log");
	} else {
		s->rc = entry_save(st, &s->req, NULL);
	}
	report_to(NULL, NULL);
	if (s->req.log_fd >= 0)
		close(s->req.log_fd);
	s->req.log_fd = -1;
}

/* After key's entry is saved (and reported: the task's dependents do not
 * wait for the network): PUT it to the remote cache. Its warnings go to
 * sv->late, which the loop's thread prints at its next reap. */
static void upload(struct saver *sv, const char *key, uint64_t duration_ms)
{
	pthread_mutex_lock(&sv->mu);
	bool late = sv->upload_until && loop_now() > sv->upload_until;
	sv->skipped += late;
	pthread_mutex_unlock(&sv->mu);
	struct strbuf lines = STRBUF_INIT;
	report_to(strbuf_report_line, &lines);
	if (late)
		goto out;
	char *head = NULL;
	size_t head_len = 0;
	int afd = -1;
	uint64_t size = 0;
	if (remote_writable(sv->remote) &&
	    transfer_export(sv->st, key, &head, &head_len, &afd, &size) == 0) {
		remote_put(sv->remote, key, head, head_len, afd, size, duration_ms);
		close(afd);
	}
	free(head);
out:
	if (!sv->keep_local)
		store_remove(sv->st, key);
	report_to(NULL, NULL);
	if (lines.len) {
		pthread_mutex_lock(&sv->mu);
		strbuf_addstr(&sv->late, lines.buf);
		pthread_mutex_unlock(&sv->mu);
	}
	strbuf_release(&lines);
}

static void *worker(void *arg)
{
	struct saver *sv = arg;
	pthread_mutex_lock(&sv->mu);
	for (;;) {
		while (!sv->queue && !sv->stop)
			pthread_cond_wait(&sv->wake, &sv->mu);
		if (!sv->queue)
			break;
		struct save *s = sv->queue;
		sv->queue = s->next;
		if (!sv->queue)
			sv->tail = &sv->queue;
		pthread_mutex_unlock(&sv->mu);
		save_run(sv->st, s);
		/* s is the loop's once it is on the done list: keep what the
		 * upload needs */
		char *key = sv->remote && s->rc == 0 ? xstrdup(s->req.key) : NULL;
		uint64_t duration = s->req.duration_ms;
		pthread_mutex_lock(&sv->mu);
		s->next = NULL;
		*sv->done_tail = s;
		sv->done_tail = &s->next;
		pthread_cond_broadcast(&sv->finished);
		char b = 1;
		/* The pipe holds far more bytes than saves can be pending; a full
		 * one would still leave the done list whole. */
		while (write(sv->wr, &b, 1) < 0 && errno == EINTR)
			;
		if (key) {
			struct upload *u = xcalloc(1, sizeof *u);
			u->key = key;
			u->duration_ms = duration;
			*sv->up_tail = u;
			sv->up_tail = &u->next;
			pthread_cond_signal(&sv->up_wake);
		}
	}
	pthread_mutex_unlock(&sv->mu);
	return NULL;
}

static void *uploader(void *arg)
{
	struct saver *sv = arg;
	pthread_mutex_lock(&sv->mu);
	for (;;) {
		while (!sv->uploads && !sv->stop)
			pthread_cond_wait(&sv->up_wake, &sv->mu);
		struct upload *u = sv->uploads;
		if (!u)
			break; /* stopped, and nothing left */
		sv->uploads = u->next;
		if (!sv->uploads)
			sv->up_tail = &sv->uploads;
		pthread_mutex_unlock(&sv->mu);
		upload(sv, u->key, u->duration_ms);
		free(u->key);
		free(u);
		pthread_mutex_lock(&sv->mu);
	}
	pthread_mutex_unlock(&sv->mu);
	return NULL;
}

struct saver *saver_new(const struct store *st, struct remote *remote, bool keep_local)
{
	struct saver *sv = xcalloc(1, sizeof *sv);
	sv->st = st;
	sv->remote = remote;
	sv->keep_local = keep_local || !remote;
	strbuf_init(&sv->late);
	sv->tail = &sv->queue;
	sv->done_tail = &sv->done;
	sv->up_tail = &sv->uploads;
	int p[2];
	if (compat_pipe(p, O_CLOEXEC | O_NONBLOCK) < 0)
		die_errno("cannot make the cache's save pipe");
	sv->rd = p[0];
	sv->wr = p[1];
	pthread_mutex_init(&sv->mu, NULL);
	pthread_cond_init(&sv->wake, NULL);
	pthread_cond_init(&sv->finished, NULL);
	pthread_cond_init(&sv->up_wake, NULL);
	int e = thread_start(&sv->thread, NULL, worker, sv);
	/* an uploader that cannot start only costs parallelism; none at all
	 * is the error */
	for (size_t k = 0; !e && remote && k < REMOTE_UPLOADERS; k++)
		if (thread_start(&sv->up_threads[sv->n_up_threads], NULL, uploader, sv) == 0)
			sv->n_up_threads++;
	if (!e && remote && !sv->n_up_threads)
		e = EAGAIN;
	if (e) {
		errno = e;
		die_errno("cannot start the cache's save thread");
	}
	return sv;
}

void saver_submit(struct saver *sv, const struct entry_save_request *req, void *tag)
{
	struct save *s = xcalloc(1, sizeof *s);
	s->tag = tag;
	strbuf_init(&s->messages);
	s->req = *req;
	strvec_push(&s->strings, req->key);
	strvec_push(&s->strings, req->task ? req->task : "");
	strvec_push(&s->strings, req->project_dir);
	for (size_t i = 0; i < req->n_outputs; i++)
		strvec_push(&s->strings, req->outputs[i]);
	for (size_t i = 0; i < req->n_inputs; i++) {
		strvec_push(&s->strings, req->inputs[i].path);
		strvec_push(&s->strings, req->inputs[i].hash);
	}
	/* Pointers are taken once every push is done: the vector moves. */
	s->req.key = s->strings.v[0];
	s->req.task = s->strings.v[1];
	s->req.project_dir = s->strings.v[2];
	s->req.outputs = (const char *const *)s->strings.v + 3;
	s->inputs = xcalloc(req->n_inputs + 1, sizeof *s->inputs);
	for (size_t i = 0; i < req->n_inputs; i++) {
		s->inputs[i].path = s->strings.v[3 + req->n_outputs + 2 * i];
		s->inputs[i].hash = s->strings.v[3 + req->n_outputs + 2 * i + 1];
	}
	s->req.inputs = s->inputs;
	s->req.seen = req->seen ? &s->seen : NULL;
	if (req->log_len) {
		s->log = xmalloc(req->log_len);
		memcpy(s->log, req->log, req->log_len);
		s->req.log = s->log;
	}
	if (req->log_fd >= 0) {
		s->req.log_fd = fcntl(req->log_fd, F_DUPFD_CLOEXEC, 3);
		if (s->req.log_fd < 0) /* the save then fails with the reason */
			s->dup_errno = errno;
	}
	pthread_mutex_lock(&sv->mu);
	*sv->tail = s;
	sv->tail = &s->next;
	sv->pending++;
	pthread_cond_signal(&sv->wake);
	pthread_mutex_unlock(&sv->mu);
}

int saver_fd(const struct saver *sv)
{
	return sv->rd;
}

static void save_free(struct save *s)
{
	strvec_clear(&s->strings);
	free(s->inputs);
	inplace_seen_release(&s->seen);
	free(s->log);
	strbuf_release(&s->messages);
	free(s);
}

/* The uploads' warnings, printed on the loop's thread. */
static void print_late(struct saver *sv)
{
	pthread_mutex_lock(&sv->mu);
	if (sv->late.len) {
		fputs(sv->late.buf, stderr);
		strbuf_reset(&sv->late);
	}
	pthread_mutex_unlock(&sv->mu);
}

size_t saver_reap(struct saver *sv, saver_done_fn *done, void *ctx)
{
	char buf[256];
	while (read(sv->rd, buf, sizeof buf) > 0)
		;
	print_late(sv);
	pthread_mutex_lock(&sv->mu);
	struct save *list = sv->done;
	sv->done = NULL;
	sv->done_tail = &sv->done;
	pthread_mutex_unlock(&sv->mu);
	size_t n = 0;
	while (list) {
		struct save *s = list;
		list = s->next;
		if (done)
			done(s->tag, s->rc, s->messages.buf, s->req.seen, ctx);
		save_free(s);
		n++;
	}
	pthread_mutex_lock(&sv->mu);
	sv->pending -= n;
	pthread_mutex_unlock(&sv->mu);
	return n;
}

void saver_drain(struct saver *sv, saver_done_fn *done, void *ctx)
{
	if (sv->remote) {
		const char *t = getenv("VX_TEST_UPLOAD_GRACE_MS");
		long long grace = t && *t ? atoll(t) : UPLOAD_GRACE_MS;
		pthread_mutex_lock(&sv->mu);
		if (!sv->upload_until) {
			sv->grace_ms = grace;
			sv->upload_until = loop_now() + grace;
		}
		pthread_mutex_unlock(&sv->mu);
	}
	for (;;) {
		saver_reap(sv, done, ctx);
		pthread_mutex_lock(&sv->mu);
		bool left = sv->pending > 0;
		while (left && !sv->done)
			pthread_cond_wait(&sv->finished, &sv->mu);
		pthread_mutex_unlock(&sv->mu);
		if (!left)
			return;
	}
}

void saver_free(struct saver *sv)
{
	if (!sv)
		return;
	saver_drain(sv, NULL, NULL);
	pthread_mutex_lock(&sv->mu);
	sv->stop = true;
	pthread_cond_signal(&sv->wake);
	pthread_cond_broadcast(&sv->up_wake);
	pthread_mutex_unlock(&sv->mu);
	pthread_join(sv->thread, NULL);
	/* The uploads left: those that start before the grace is over; an
	 * upload in flight ends first (its request timeout bounds it). */
	for (size_t k = 0; k < sv->n_up_threads; k++)
		pthread_join(sv->up_threads[k], NULL);
	print_late(sv);
	if (sv->skipped)
		warning("remote cache: %zu upload%s not made: the run's end waited %llds for them "
			"(the tasks ran%s)",
			sv->skipped, sv->skipped == 1 ? "" : "s", sv->grace_ms / 1000,
			sv->keep_local ? " and are in the local cache"
				       : "; --cache keeps no local entry of them");
	strbuf_release(&sv->late);
	pthread_mutex_destroy(&sv->mu);
	pthread_cond_destroy(&sv->wake);
	pthread_cond_destroy(&sv->finished);
	pthread_cond_destroy(&sv->up_wake);
	close(sv->rd);
	close(sv->wr);
	free(sv);
}
