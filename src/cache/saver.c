/* saver.c - the cache's saves and uploads on the run's pool (saver.h). */
#include "cache/saver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/remote.h"
#include "cache/transfer.h"
#include "util/die.h"
#include "util/loop.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "util/worker.h"

/* A request with everything it points to owned. */
struct save {
	struct saver *sv;
	void *tag;
	struct entry_save_request req;
	struct strvec strings; /* key, task, project_dir, then outputs, then input pairs */
	struct entry_input *inputs;
	struct inplace_seen seen; /* filled when the submitter asked for it */
	char *log;
	int rc;
	int dup_errno; /* the log's fd could not be duplicated */
};

/* An entry saved, to be uploaded. */
struct upload {
	struct saver *sv;
	char *key;
	uint64_t duration_ms;
};

struct saver {
	const struct store *st;
	struct remote *remote; /* each entry saved is uploaded after, or NULL */
	bool keep_local;       /* false: an entry uploaded (or not) is removed after */
	struct worker *w;
	saver_done_fn *done;
	void *ctx;
	size_t pending; /* saves submitted, not yet reported (the loop's) */
	size_t uploads; /* uploads submitted, not yet ended (the loop's) */
	/* set as the run ends: no upload starts after it (ms; read by the
	 * pool's threads) */
	_Atomic long long upload_until;
	atomic_size_t skipped; /* uploads not made for that */
	long long grace_ms;    /* how long the end waited */
};

/* The run's end waits this long for the uploads still to make, then says
 * how many it leaves (VX_TEST_UPLOAD_GRACE_MS: the tests' shorter one). */
#define UPLOAD_GRACE_MS 30000LL

/* Pool: the entry saved; its error lines are the pool's to collect. */
static void save_work(void *arg)
{
	struct save *s = arg;
	if (s->dup_errno) {
		errno = s->dup_errno;
		s->rc = error_errno("cannot read the task log");
	} else if (s->req.log_fd >= 0 && lseek(s->req.log_fd, 0, SEEK_SET) < 0) {
		s->rc = error_errno("cannot read the task log");
	} else {
		s->rc = entry_save(s->sv->st, &s->req, NULL);
	}
	if (s->req.log_fd >= 0)
		close(s->req.log_fd);
	s->req.log_fd = -1;
}

/* Pool: after key's entry is saved (and reported: the task's dependents
 * do not wait for the network), PUT it to the remote cache. */
static void upload_work(void *arg)
{
	struct upload *u = arg;
	struct saver *sv = u->sv;
	long long until = atomic_load(&sv->upload_until);
	if (until && loop_now() > until) {
		atomic_fetch_add(&sv->skipped, 1);
	} else {
		char *head = NULL;
		size_t head_len = 0;
		int afd = -1;
		uint64_t size = 0;
		if (remote_writable(sv->remote) &&
		    transfer_export(sv->st, u->key, &head, &head_len, &afd, &size) == 0) {
			remote_put(sv->remote, u->key, head, head_len, afd, size, u->duration_ms);
			close(afd);
		}
		free(head);
	}
	if (!sv->keep_local)
		store_remove(sv->st, u->key);
}

/* Loop: the upload's warnings printed. */
static void upload_done(void *arg, const char *messages)
{
	struct upload *u = arg;
	fputs(messages, stderr);
	u->sv->uploads--;
	free(u->key);
	free(u);
}

static void save_free(struct save *s)
{
	strvec_clear(&s->strings);
	free(s->inputs);
	inplace_seen_release(&s->seen);
	free(s->log);
	free(s);
}

/* Loop: the save reported, then its upload queued. */
static void save_done(void *arg, const char *messages)
{
	struct save *s = arg;
	struct saver *sv = s->sv;
	sv->pending--;
	if (sv->done)
		sv->done(s->tag, s->rc, messages, s->req.seen, sv->ctx);
	if (sv->remote && s->rc == 0) {
		struct upload *u = xcalloc(1, sizeof *u);
		u->sv = sv;
		u->key = xstrdup(s->req.key);
		u->duration_ms = s->req.duration_ms;
		sv->uploads++;
		worker_submit(sv->w, WORKER_NET, upload_work, upload_done, u);
	}
	save_free(s);
}

struct saver *saver_new(const struct store *st, struct remote *remote, bool keep_local,
			struct worker *w, saver_done_fn *done, void *ctx)
{
	struct saver *sv = xcalloc(1, sizeof *sv);
	sv->st = st;
	sv->remote = remote;
	sv->keep_local = keep_local || !remote;
	sv->w = w;
	sv->done = done;
	sv->ctx = ctx;
	atomic_init(&sv->upload_until, 0);
	atomic_init(&sv->skipped, 0);
	return sv;
}

void saver_submit(struct saver *sv, const struct entry_save_request *req, void *tag)
{
	struct save *s = xcalloc(1, sizeof *s);
	s->sv = sv;
	s->tag = tag;
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
	sv->pending++;
	worker_submit(sv->w, WORKER_WRITE, save_work, save_done, s);
}

size_t saver_pending(const struct saver *sv)
{
	return sv->pending;
}

void saver_drain(struct saver *sv)
{
	if (sv->remote && !atomic_load(&sv->upload_until)) {
		const char *t = getenv("VX_TEST_UPLOAD_GRACE_MS");
		sv->grace_ms = t && *t ? atoll(t) : UPLOAD_GRACE_MS;
		atomic_store(&sv->upload_until, loop_now() + sv->grace_ms);
	}
	while (sv->pending)
		worker_wait(sv->w);
}

void saver_free(struct saver *sv)
{
	if (!sv)
		return;
	saver_drain(sv);
	/* The uploads left: those that start before the grace is over; an
	 * upload in flight ends first (its request timeout bounds it). */
	while (sv->uploads)
		worker_wait(sv->w);
	size_t skipped = atomic_load(&sv->skipped);
	if (skipped)
		warning("remote cache: %zu upload%s not made: the run's end waited %llds for them "
			"(the tasks ran%s)",
			skipped, skipped == 1 ? "" : "s", sv->grace_ms / 1000,
			sv->keep_local ? " and are in the local cache"
				       : "; --cache keeps no local entry of them");
	free(sv);
}
