/* remote.c - the remote cache client over libcurl (docs/remote-cache.md).
 *
 * The API is Turborepo's: GET and PUT /v8/artifacts/:hash with
 * "Authorization: Bearer TOKEN", the team as teamId= (an id, "team_…") or
 * slug= (anything else), the body application/octet-stream, the task's
 * duration in x-artifact-duration. A body goes from a file and to a file,
 * never whole into memory. A failure is a warning, never a failed run:
 * three in a row, or a refused token, turn the remote off for the run. */
#include "cache/remote.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/die.h"
#include "util/strbuf.h"

#define CONNECT_TIMEOUT_MS 2000L
#define DEFAULT_TIMEOUT_MS 30000L
#define FAILURES_OFF 3
#define RETRY_AFTER_MAX_S 5

struct remote {
	char *url, *token, *team;
	bool read, write;
	long timeout_ms;
	CURL *get, *put; /* one per thread: the loop's GETs, the saver's PUTs */
	pthread_mutex_t lock;
	struct remote_state st;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void init_curl(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct remote *remote_new(const struct remote_opts *o)
{
	pthread_once(&curl_once, init_curl);
	if (curl_init_rc != CURLE_OK) {
		error("remote cache: libcurl does not start: %s", curl_easy_strerror(curl_init_rc));
		return NULL;
	}
	struct remote *r = xcalloc(1, sizeof *r);
	r->url = xstrdup(o->url);
	size_t n = strlen(r->url);
	while (n && r->url[n - 1] == '/')
		r->url[--n] = 0;
	r->token = o->token ? xstrdup(o->token) : NULL;
	r->team = o->team && *o->team ? xstrdup(o->team) : NULL;
	r->read = o->read;
	r->write = o->write;
	r->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
	r->get = curl_easy_init();
	r->put = curl_easy_init();
	pthread_mutex_init(&r->lock, NULL);
	if (!r->get || !r->put) {
		error("remote cache: libcurl cannot make a handle");
		remote_free(r);
		return NULL;
	}
	return r;
}

void remote_free(struct remote *r)
{
	if (!r)
		return;
	if (r->get)
		curl_easy_cleanup(r->get);
	if (r->put)
		curl_easy_cleanup(r->put);
	pthread_mutex_destroy(&r->lock);
	if (r->token) /* it was a secret: do not leave it in freed memory */
		memset(r->token, 0, strlen(r->token));
	free(r->token);
	free(r->url);
	free(r->team);
	free(r);
}

static bool is_on(const struct remote *r)
{
	pthread_mutex_lock((pthread_mutex_t *)&r->lock);
	bool on = !r->st.off;
	pthread_mutex_unlock((pthread_mutex_t *)&r->lock);
	return on;
}

bool remote_readable(const struct remote *r)
{
	return r && r->read && is_on(r);
}

bool remote_writable(const struct remote *r)
{
	return r && r->write && is_on(r);
}

char *remote_artifact_url(const char *base, const char *key, const char *team)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/v8/artifacts/%s", base, key);
	if (team && *team) {
		bool id = !strncmp(team, "team_", 5);
		strbuf_addstr(&sb, id ? "?teamId=" : "?slug=");
		char *esc = curl_easy_escape(NULL, team, 0);
		strbuf_addstr(&sb, esc ? esc : "");
		curl_free(esc);
	}
	return strbuf_detach(&sb, NULL);
}

char *remote_redact(const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *end = host + strcspn(host, "/?#");
	const char *at = NULL;
	for (const char *c = host; c < end; c++)
		if (*c == '@')
			at = c;
	if (!at)
		return xstrdup(url);
	return xasprintf("%.*s***%s", (int)(host - url), url, at);
}

const char *remote_state_after(struct remote_state *s, int outcome)
{
	if (s->off)
		return NULL;
	if (outcome == 0) {
		s->failures = 0;
		return NULL;
	}
	if (outcome == 401 || outcome == 403) {
		s->off = true;
		if (s->said_auth)
			return NULL;
		s->said_auth = s->said_off = true;
		return "the remote cache refused the token: it is off for the rest of this run";
	}
	if (++s->failures < FAILURES_OFF)
		return "";
	s->off = true;
	if (s->said_off)
		return NULL;
	s->said_off = true;
	return "three remote cache requests in a row failed: it is off for the rest of this run";
}

/* Counts the outcome and says what the state machine and the request
 * have to say: the request's own failure (what, with the URL redacted)
 * unless the state says nothing more should be said. */
static void outcome(struct remote *r, int code, const char *what)
{
	pthread_mutex_lock(&r->lock);
	const char *say = remote_state_after(&r->st, code);
	pthread_mutex_unlock(&r->lock);
	if (!say)
		return;
	if (*say && code != 401 && code != 403)
		warning("remote cache: %s; %s", what, say);
	else if (*say)
		warning("remote cache: %s", say);
	else
		warning("remote cache: %s", what);
}

struct sink {
	int fd;
	bool failed;
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = size * n, done = 0;
	while (done < len) {
		ssize_t w = write(s->fd, data + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->failed = true;
			return 0; /* curl stops: CURLE_WRITE_ERROR */
		}
		done += (size_t)w;
	}
	return len;
}

/* A PUT's response body: never printed (curl's default is stdout). */
static size_t discard(char *data, size_t size, size_t n, void *ctx)
{
	(void)data, (void)ctx;
	return size * n;
}

struct source {
	const char *head;
	size_t head_len, head_at;
	int fd;
	off_t at;
};

static size_t on_read(char *buf, size_t size, size_t n, void *ctx)
{
	struct source *s = ctx;
	size_t want = size * n;
	if (s->head_at < s->head_len) {
		size_t k = s->head_len - s->head_at < want ? s->head_len - s->head_at : want;
		memcpy(buf, s->head + s->head_at, k);
		s->head_at += k;
		return k;
	}
	ssize_t got;
	while ((got = pread(s->fd, buf, want, s->at)) < 0 && errno == EINTR)
		;
	if (got < 0)
		return CURL_READFUNC_ABORT;
	s->at += got;
	return (size_t)got;
}

static void common(struct remote *r, CURL *h, const char *url, struct curl_slist **hdrs)
{
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, r->timeout_ms);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "vx/" VX_VERSION);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (r->token) {
		char *auth = xasprintf("Authorization: Bearer %s", r->token);
		*hdrs = curl_slist_append(*hdrs, auth);
		memset(auth, 0, strlen(auth));
		free(auth);
	}
}

/* Retry-After in seconds, capped, or 0. */
static long retry_after(CURL *h)
{
	curl_off_t s = 0;
	if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &s) != CURLE_OK || s < 0)
		return 0;
	return s > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : (long)s;
}

int remote_get(struct remote *r, const char *key, int fd)
{
	if (!remote_readable(r))
		return -1;
	char *url = remote_artifact_url(r->url, key, r->team);
	off_t start = lseek(fd, 0, SEEK_CUR);
	int rc = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct curl_slist *hdrs = NULL;
		struct sink sink = {fd, false};
		common(r, r->get, url, &hdrs);
		curl_easy_setopt(r->get, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(r->get, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(r->get, CURLOPT_WRITEDATA, &sink);
		CURLcode c = curl_easy_perform(r->get);
		long status = 0;
		curl_easy_getinfo(r->get, CURLINFO_RESPONSE_CODE, &status);
		long wait = status == 429 ? retry_after(r->get) : 0;
		curl_slist_free_all(hdrs);
		char *shown = remote_redact(url);
		if (c != CURLE_OK) {
			char *what = xasprintf("GET %s: %s", shown, sink.failed ? "cannot write the download"
									 : curl_easy_strerror(c));
			outcome(r, -1, what);
			free(what);
		} else if (status == 200) {
			outcome(r, 0, NULL);
			rc = 1;
		} else if (status == 404) {
			outcome(r, 0, NULL);
			rc = 0;
		} else if (status == 429 && !attempt) {
			free(shown);
			if (ftruncate(fd, start) < 0 || lseek(fd, start, SEEK_SET) < 0)
				break;
			sleep((unsigned)(wait ? wait : 1));
			continue;
		} else {
			char *what = xasprintf("GET %s: HTTP %ld", shown, status);
			outcome(r, (int)status, what);
			free(what);
		}
		free(shown);
		break;
	}
	free(url);
	return rc;
}

int remote_put(struct remote *r, const char *key, const void *head, size_t head_len, int fd,
	       uint64_t size, uint64_t duration_ms)
{
	if (!remote_writable(r))
		return -1;
	char *url = remote_artifact_url(r->url, key, r->team);
	int rc = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct curl_slist *hdrs = NULL;
		struct source src = {head, head_len, 0, fd, 0};
		common(r, r->put, url, &hdrs);
		hdrs = curl_slist_append(hdrs, "Content-Type: application/octet-stream");
		char *dur = xasprintf("x-artifact-duration: %llu", (unsigned long long)duration_ms);
		hdrs = curl_slist_append(hdrs, dur);
		free(dur);
		hdrs = curl_slist_append(hdrs, "Expect:"); /* no 100-continue round trip */
		curl_easy_setopt(r->put, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(r->put, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(r->put, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(r->put, CURLOPT_READDATA, &src);
		curl_easy_setopt(r->put, CURLOPT_INFILESIZE_LARGE, (curl_off_t)(head_len + size));
		curl_easy_setopt(r->put, CURLOPT_WRITEFUNCTION, discard);
		CURLcode c = curl_easy_perform(r->put);
		long status = 0;
		curl_easy_getinfo(r->put, CURLINFO_RESPONSE_CODE, &status);
		long wait = status == 429 ? retry_after(r->put) : 0;
		curl_slist_free_all(hdrs);
		char *shown = remote_redact(url);
		if (c != CURLE_OK) {
			char *what = xasprintf("PUT %s: %s", shown, curl_easy_strerror(c));
			outcome(r, -1, what);
			free(what);
		} else if (status >= 200 && status < 300) {
			outcome(r, 0, NULL);
			rc = 0;
		} else if (status == 429 && !attempt) {
			free(shown);
			sleep((unsigned)(wait ? wait : 1));
			continue;
		} else {
			char *what = xasprintf("PUT %s: HTTP %ld", shown, status);
			outcome(r, (int)status, what);
			free(what);
		}
		free(shown);
		break;
	}
	free(url);
	return rc;
}
