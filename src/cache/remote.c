/* remote.c - the remote cache client over libcurl (docs/remote-cache.md).
 *
 * The API is Turborepo's: GET and PUT /v8/artifacts/:hash with
 * "Authorization: Bearer TOKEN", the team as teamId= (an id, "team_…") or
 * slug= (anything else), the body application/octet-stream, the task's
 * duration in x-artifact-duration. A body goes from a file and to a file,
 * never whole into memory. A failure is a warning, never a failed run:
 * three in a row, or a refused token, turn the remote off for the run. */
#include "cache/remote.h"
#include "cache/curl_lib.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cache/signature.h"
#include "util/die.h"
#include "util/vec.h"
#include "util/strbuf.h"

#define CONNECT_TIMEOUT_MS 2000L
/* A GET, HEAD or status that receives nothing for this long is given up,
 * and the remote is off for the run: a server that accepts and never
 * answers held the first task a minute (issue 41). A PUT keeps the whole
 * timeout: a server may take a while to answer a large upload. */
#define STALL_S 5L
#define DEFAULT_TIMEOUT_MS 30000L
#define FAILURES_OFF 3
#define RETRY_AFTER_MAX_S 5

struct remote {
	char *url, *token, *team, *team_id, *sig_key;
	bool read, write;
	long timeout_ms;
	uint64_t max_body; /* remote_opts' */
	/* The restorers GET and the saver's uploaders PUT at once: each
	 * request takes an idle handle (its connection kept for the next), or
	 * makes one. Under lock. */
	CURL *idle[REMOTE_HANDLES];
	size_t n_idle;
	pthread_mutex_t lock;
	struct remote_state st;
	pthread_mutex_t status_lock; /* held while the status is asked (check_status) */
	bool status_checked;
	/* Artifacts that were there but did not verify (signed remote): never
	 * overwritten by this run (issue 41: a job with the wrong key missed
	 * every artifact, then uploaded each signed with its own, and the next
	 * good job missed everything). Said once per kind. Under lock. */
	struct strvec unverified;
	bool said_untagged, said_mismatch;
	size_t kept; /* uploads not made over an unverified artifact */
};

/* libcurl's functions (curl_lib.h). remote_new says why when it cannot
 * be opened; a URL built without a client is the one other caller. */
static const struct curl_lib *curl(void)
{
	const char *why = NULL;
	const struct curl_lib *lib = curl_lib(&why);
	if (!lib)
		die("remote cache: libcurl does not start: %s", why);
	return lib;
}

struct remote *remote_new(const struct remote_opts *o)
{
	const char *why = NULL;
	if (!curl_lib(&why)) {
		error("remote cache: libcurl does not start: %s", why);
		return NULL;
	}
	struct remote *r = xcalloc(1, sizeof *r);
	r->url = xstrdup(o->url);
	size_t n = strlen(r->url);
	while (n && r->url[n - 1] == '/')
		r->url[--n] = 0;
	r->token = o->token ? xstrdup(o->token) : NULL;
	r->team = o->team && *o->team ? xstrdup(o->team) : NULL;
	r->team_id = o->team_id && *o->team_id ? xstrdup(o->team_id) : NULL;
	r->sig_key = o->signature_key && *o->signature_key ? xstrdup(o->signature_key) : NULL;
	r->read = o->read;
	r->write = o->write;
	r->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
	r->max_body = o->max_body;
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->status_lock, NULL);
	if (!(r->idle[r->n_idle++] = curl()->easy_init())) {
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
	for (size_t i = 0; i < r->n_idle; i++)
		if (r->idle[i])
			curl()->easy_cleanup(r->idle[i]);
	if (r->unverified.n > 1 || r->kept)
		warning("remote cache: %zu artifacts did not verify this run (misses); %zu uploads "
			"over them were not made",
			r->unverified.n, r->kept);
	strvec_clear(&r->unverified);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->status_lock);
	/* secrets: do not leave them in freed memory */
	if (r->token)
		memset(r->token, 0, strlen(r->token));
	if (r->sig_key)
		memset(r->sig_key, 0, strlen(r->sig_key));
	free(r->token);
	free(r->sig_key);
	free(r->team_id);
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

static void add_query(struct strbuf *sb, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	strbuf_addch(sb, strchr(sb->buf, '?') ? '&' : '?');
	strbuf_addf(sb, "%s=", name);
	char *esc = curl()->easy_escape(NULL, value, 0);
	strbuf_addstr(sb, esc ? esc : "");
	curl()->free(esc);
}

char *remote_artifact_url(const char *base, const char *key, const char *team_id, const char *slug)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/v8/artifacts/%s", base, key);
	add_query(&sb, "teamId", team_id);
	add_query(&sb, "slug", slug);
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

/* Why a GET's body was given up before it was whole (issue 57: a server
 * declaring 4 GB of zeros had 3815 MB written under a 1 MiB cache, then
 * refused as no entry). Each is a miss, said by judge(). A declared
 * length past the bound is curl's to refuse, at the headers
 * (CURLOPT_MAXFILESIZE_LARGE: CURLE_FILESIZE_EXCEEDED). */
enum refusal {
	BODY_TAKEN,
	BODY_SENT_OVER, /* no length declared, and more bytes than the bound
			 * came: cut off before the one that passes */
	BODY_NOT_BEGUN, /* its first bytes begin no body asked for */
};

/* Where a GET's body goes, and what it may be. */
struct sink {
	int fd;
	bool failed;		  /* a write to fd failed */
	uint64_t max;		  /* set by the caller: bytes the body may hold (0: any) */
	remote_begins_fn *begins; /* set by the caller, or NULL: any body */
	/* the rest set as the response comes (reset by prepare) */
	long status;	    /* from its status line (on_header) */
	long long declared; /* its Content-Length (on_header), or -1 */
	uint64_t got;	    /* bytes written */
	char first[64];	    /* its first bytes, for begins */
	size_t n_first;
	int begun; /* begins' last answer */
	enum refusal refused;
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = size * n, done = 0;
	/* Checked before a byte is written: what lands in the store is never
	 * more than the bound, nor more than the first bytes of a body that
	 * is no entry. Returning short stops curl (CURLE_WRITE_ERROR), and
	 * an aborted transfer's connection is closed, not kept. */
	if (s->max && (len > s->max || s->got > s->max - len)) {
		s->refused = BODY_SENT_OVER;
		return 0;
	}
	if (s->begins && !s->begun && s->status >= 200 && s->status < 300) {
		size_t k = sizeof s->first - s->n_first < len ? sizeof s->first - s->n_first : len;
		memcpy(s->first + s->n_first, data, k);
		s->n_first += k;
		s->begun = s->begins(s->first, s->n_first);
		if (s->begun < 0 || (!s->begun && s->n_first == sizeof s->first)) {
			s->refused = BODY_NOT_BEGUN;
			return 0;
		}
	}
	s->got += len;
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
	curl()->easy_reset(h);
	curl()->easy_setopt(h, CURLOPT_URL, url);
	curl()->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl()->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl()->easy_setopt(h, CURLOPT_TIMEOUT_MS, r->timeout_ms);
	curl()->easy_setopt(h, CURLOPT_USERAGENT, "vx/" VX_VERSION);
	curl()->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (r->token) {
		char *auth = xasprintf("Authorization: Bearer %s", r->token);
		*hdrs = curl()->slist_append(*hdrs, auth);
		memset(auth, 0, strlen(auth));
		free(auth);
	}
}

/* Retry-After in seconds, capped, or 0. */
static long retry_after(CURL *h)
{
	curl_off_t s = 0;
	if (curl()->easy_getinfo(h, CURLINFO_RETRY_AFTER, &s) != CURLE_OK || s < 0)
		return 0;
	return s > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : (long)s;
}

/* One request's body, whichever way it goes. */
struct body {
	char tag[SIGNATURE_TAG_SIZE + 8]; /* a GET's x-artifact-tag ("" when none) */
	struct sink sink; /* a GET's: into sink.fd from start; fd -1: kept in text */
	off_t start;
	struct strbuf *text; /* a small response read whole (the status), or NULL */
	struct source src;   /* a PUT's: head then the file */
	uint64_t size;	     /* a PUT's whole length */
};

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	struct body *b = ctx;
	size_t len = size * n;
	static const char name[] = "x-artifact-tag:";
	if (len > 9 && !memcmp(data, "HTTP/", 5)) {
		/* "HTTP/1.1 200 OK": whose body begins is checked on a 2xx only
		 * (an error's body is the server's message) */
		const char *sp = memchr(data, ' ', len);
		b->sink.status = sp && sp + 4 <= data + len ? strtol(sp + 1, NULL, 10) : 0;
		b->sink.declared = -1;
	}
	static const char cl[] = "content-length:";
	if (len > sizeof cl - 1 && !strncasecmp(data, cl, sizeof cl - 1)) {
		/* kept for the message: curl refuses a length past the bound
		 * before it records it (CURLINFO_CONTENT_LENGTH_DOWNLOAD_T -1) */
		char num[24];
		size_t k =
		    len - (sizeof cl - 1) < sizeof num - 1 ? len - (sizeof cl - 1) : sizeof num - 1;
		memcpy(num, data + sizeof cl - 1, k);
		num[k] = 0;
		b->sink.declared = strtoll(num, NULL, 10);
	}
	if (len > sizeof name - 1 && !strncasecmp(data, name, sizeof name - 1)) {
		const char *v = data + sizeof name - 1;
		size_t vl = len - (sizeof name - 1);
		while (vl && (*v == ' ' || *v == '\t'))
			v++, vl--;
		while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
			vl--;
		/* longer than a tag: kept cut, and so never verifies */
		size_t k = vl < sizeof b->tag - 1 ? vl : sizeof b->tag - 1;
		memcpy(b->tag, v, k);
		b->tag[k] = 0;
	}
	return len;
}

static size_t on_text(char *data, size_t size, size_t n, void *ctx)
{
	struct strbuf *sb = ctx;
	if (sb->len + size * n > 4096)
		return 0; /* a status is a few bytes: anything longer is not one */
	strbuf_add(sb, data, size * n);
	return size * n;
}

/* Sets h up for the request method on url (extra: more header lines,
 * NULL-ended; b: its body, NULL for a HEAD). Returns the header list, for
 * the caller to free once the request is over. */
static struct curl_slist *prepare(struct remote *r, CURL *h, const char *method, const char *url,
				  const char *const *extra, struct body *b)
{
	struct curl_slist *hdrs = NULL;
	common(r, h, url, &hdrs);
	for (size_t k = 0; extra && extra[k]; k++)
		hdrs = curl()->slist_append(hdrs, extra[k]);
	if (!strcmp(method, "HEAD")) {
		curl()->easy_setopt(h, CURLOPT_NOBODY, 1L);
	} else if (!strcmp(method, "PUT")) {
		b->src.head_at = 0;
		b->src.at = 0;
		hdrs = curl()->slist_append(hdrs, "Expect:"); /* no 100-continue round trip */
		curl()->easy_setopt(h, CURLOPT_UPLOAD, 1L);
		curl()->easy_setopt(h, CURLOPT_READFUNCTION, on_read);
		curl()->easy_setopt(h, CURLOPT_READDATA, &b->src);
		curl()->easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)b->size);
		curl()->easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	} else if (b->text) {
		strbuf_reset(b->text);
		curl()->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_text);
		curl()->easy_setopt(h, CURLOPT_WRITEDATA, b->text);
	} else {
		b->sink.failed = false;
		b->sink.status = 0;
		b->sink.declared = -1;
		b->sink.got = 0;
		b->sink.n_first = 0;
		b->sink.begun = 0;
		b->sink.refused = BODY_TAKEN;
		b->tag[0] = 0;
		if (b->sink.max) /* a declared length past it fails at the headers */
			curl()->easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)b->sink.max);
		curl()->easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
		curl()->easy_setopt(h, CURLOPT_HEADERDATA, b);
		if (ftruncate(b->sink.fd, b->start) < 0 ||
		    lseek(b->sink.fd, b->start, SEEK_SET) < 0)
			b->sink.failed = true;
		curl()->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
		curl()->easy_setopt(h, CURLOPT_WRITEDATA, &b->sink);
	}
	if (strcmp(method, "PUT")) {
		curl()->easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl()->easy_setopt(h, CURLOPT_LOW_SPEED_TIME, STALL_S);
	}
	curl()->easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	return hdrs;
}

/* Turns the remote off for the rest of the run at once. Returns whether
 * the caller is the one to say so (nothing said it was off yet). */
static bool off_now(struct remote *r)
{
	pthread_mutex_lock(&r->lock);
	bool say = !r->st.off && !r->st.said_off;
	r->st.off = r->st.said_off = true;
	pthread_mutex_unlock(&r->lock);
	return say;
}

/* The message of an error response (a GET's body went to its sink, a
 * status's to text), or NULL. */
static char *server_says(const struct body *b)
{
	if (!b)
		return NULL;
	if (b->text)
		return remote_error_message(b->text->buf, b->text->len);
	if (b->sink.fd < 0) /* a PUT's: its answer was discarded */
		return NULL;
	char buf[1024];
	ssize_t n = pread(b->sink.fd, buf, sizeof buf, b->start);
	return n > 0 ? remote_error_message(buf, (size_t)n) : NULL;
}

/* A 400 that says the request lacks a team (turborepo-remote-cache:
 * "querystring should have required property 'team'"). */
static bool team_missing(const char *says)
{
	return strstr(says, "team") || strstr(says, "slug");
}

/* judge()'s answer for a body given up (enum refusal): a miss. */
#define REFUSED (-2L)

/* Says why a GET's body was given up (shown: its redacted URL). */
static void say_refused(CURLcode c, const char *shown, const struct sink *s)
{
	if (c == CURLE_FILESIZE_EXCEEDED && s->declared >= 0) {
		warning(
		    "remote cache: GET %s: refused at its headers: it declares %lld bytes, more "
		    "than the cache may hold (cache.maxSize, %llu bytes); a miss",
		    shown, s->declared, (unsigned long long)s->max);
	} else if (s->refused == BODY_SENT_OVER || c == CURLE_FILESIZE_EXCEEDED) {
		/* (curl 8.4 and later refuse past the bound while the body comes
		 * too, before the write callback sees it) */
		warning("remote cache: GET %s: cut off at %llu bytes, all the cache may hold "
			"(cache.maxSize), with no length declared; a miss",
			shown, (unsigned long long)s->got);
	} else {
		char begins[sizeof s->first * 4 + 1];
		size_t k = 0;
		for (size_t i = 0; i < s->n_first && i < 12; i++) {
			unsigned char ch = (unsigned char)s->first[i];
			k += (size_t)snprintf(
			    begins + k, sizeof begins - k,
			    ch >= 0x20 && ch < 0x7f && ch != '\\' ? "%c" : "\\x%02x", ch);
		}
		begins[k] = 0;
		warning("remote cache: GET %s: not a vx cache entry (it begins \"%s\"): dropped at "
			"its first bytes; a miss",
			shown, begins);
	}
}

/* Counts a finished request's outcome: a 2xx, and a 404 when miss_ok, are
 * fine; so is a body given up (sink.refused, or its declared length past
 * sink.max: said here, REFUSED returned); anything else is a failure, said
 * with the method and the redacted URL. Returns the HTTP status, REFUSED,
 * or -1 for a failure of the transfer. */
static long judge(struct remote *r, CURL *h, CURLcode c, const char *method, const char *url,
		  const struct body *b, bool miss_ok)
{
	long code = 0, status = -1;
	curl()->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	char *shown = remote_redact(url);
	if (b && b->sink.fd >= 0 && !b->text &&
	    (b->sink.refused != BODY_TAKEN || (c == CURLE_FILESIZE_EXCEEDED && b->sink.max))) {
		/* the server answered; what it sent is no entry this cache takes */
		say_refused(c, shown, &b->sink);
		outcome(r, 0, NULL);
		status = REFUSED;
	} else if (c == CURLE_OPERATION_TIMEDOUT) {
		/* no answer: waiting on it again would hold every task as long */
		if (off_now(r))
			warning(
			    "remote cache: %s %s: no answer in time (%s): it is off for the rest "
			    "of this run",
			    method, shown, curl()->easy_strerror(c));
	} else if (c != CURLE_OK) {
		char *what = xasprintf("%s %s: %s", method, shown,
				       b && b->sink.failed ? "cannot write the download"
							   : curl()->easy_strerror(c));
		outcome(r, -1, what);
		free(what);
	} else if ((code >= 200 && code < 300) || (code == 404 && miss_ok)) {
		outcome(r, 0, NULL);
		status = code;
	} else {
		char *says = server_says(b);
		if (code == 400 && says && team_missing(says)) {
			/* a config the run cannot fix: off at once, said once
			 * (issue 41: "HTTP 400" three times, then off) */
			if (off_now(r))
				warning("remote cache: the server needs a team (it says: %s): set "
					"VX_REMOTE_CACHE_TEAM or cache.remote.team (TURBO_TEAM for "
					"Turborepo); it is off for the rest of this run",
					says);
		} else {
			char *what = says ? xasprintf("%s %s: HTTP %ld (the server says: %s)",
						      method, shown, code, says)
					  : xasprintf("%s %s: HTTP %ld", method, shown, code);
			outcome(r, (int)code, what);
			free(what);
		}
		free(says);
		status = code;
	}
	free(shown);
	return status;
}

/* Whether a request failed on a kept connection before any answer came:
 * the connection was stale, not the server's answer bad. A server that
 * sends more than its Content-Length leaves the excess on the connection,
 * and curl 7.88 read it as the next answer's head ("Received HTTP/0.9
 * when not allowed": CURLE_UNSUPPORTED_PROTOCOL; issue 57's "Unsupported
 * protocol" on the second GET); a server that closed an idle connection
 * gives nothing. curl closes such a connection; the request is made once
 * more on a new one (CURLOPT_FRESH_CONNECT), as browsers retry an
 * idempotent request (every one of the API's is: a PUT of a key is the
 * same body again). */
static bool stale(CURL *h, CURLcode c)
{
	long connects = -1, code = -1;
	curl()->easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
	curl()->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	return connects == 0 && code == 0 &&
	       (c == CURLE_UNSUPPORTED_PROTOCOL || c == CURLE_WEIRD_SERVER_REPLY ||
		c == CURLE_GOT_NOTHING || c == CURLE_RECV_ERROR || c == CURLE_SEND_ERROR);
}

/* Makes the request, once more on a new connection when the kept one was
 * stale, once more after a 429 (after its Retry-After, capped), and
 * judges it. Returns what judge() returns. */
static long perform(struct remote *r, CURL *h, const char *method, const char *url,
		    const char *const *extra, struct body *b, bool miss_ok)
{
	bool fresh = false, waited = false;
	for (;;) {
		struct curl_slist *hdrs = prepare(r, h, method, url, extra, b);
		if (fresh)
			curl()->easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
		CURLcode c = b && b->sink.failed ? CURLE_WRITE_ERROR : curl()->easy_perform(h);
		long code = 0;
		curl()->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		long wait = code == 429 ? retry_after(h) : 0;
		curl()->slist_free_all(hdrs);
		if (!fresh && stale(h, c)) {
			fresh = true;
			continue;
		}
		if (c == CURLE_OK && code == 429 && !waited) {
			waited = true;
			sleep((unsigned)(wait ? wait : 1));
			continue;
		}
		return judge(r, h, c, method, url, b, miss_ok);
	}
}

/* GET /v8/artifacts/status, once per run, before the first request that
 * needs the remote: a team whose cache is disabled, paused or over its
 * limit turns it off, said once. A server without the route (404) is
 * taken as enabled. */
static void check_status(struct remote *r, CURL *h)
{
	pthread_mutex_lock(&r->status_lock);
	if (r->status_checked) {
		pthread_mutex_unlock(&r->status_lock);
		return;
	}
	r->status_checked = true;
	struct strbuf text = STRBUF_INIT;
	struct body b = {.sink = {.fd = -1}, .text = &text};
	char *url = remote_status_url(r->url, r->team_id, r->team);
	long code = perform(r, h, "GET", url, NULL, &b, true);
	if (code == 200) {
		char *st = remote_status_parse(text.buf);
		if (st && strcmp(st, "enabled")) {
			pthread_mutex_lock(&r->lock);
			r->st.off = r->st.said_off = true;
			pthread_mutex_unlock(&r->lock);
			warning("remote cache: the server says its cache is %s for this team: it "
				"is off "
				"for this run",
				!strcmp(st, "over_limit") ? "over its usage limit" : st);
		}
		free(st);
	}
	strbuf_release(&text);
	free(url);
	pthread_mutex_unlock(&r->status_lock);
}

char *remote_status_url(const char *base, const char *team_id, const char *slug)
{
	return remote_artifact_url(base, "status", team_id, slug);
}

char *remote_error_message(const char *body, size_t len)
{
	/* {"message": "..."} (Fastify's, Vercel's {"error":{"message":...}}),
	 * else {"error": "..."}: the first such string, its escapes kept as
	 * written, printable ASCII only and at most 200 bytes */
	static const char *const keys[] = {"\"message\"", "\"error\""};
	for (size_t k = 0; k < 2; k++) {
		const char *at = memmem(body, len, keys[k], strlen(keys[k]));
		if (!at)
			continue;
		const char *p = at + strlen(keys[k]), *end = body + len;
		while (p < end && (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n'))
			p++;
		if (p >= end || *p != '"')
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (p++; p < end && *p != '"' && sb.len < 200; p++) {
			if (*p == '\\' && p + 1 < end)
				strbuf_addch(&sb, *p++);
			unsigned char c = (unsigned char)*p;
			strbuf_addch(&sb, c >= 0x20 && c < 0x7f ? (char)c : '?');
		}
		if (sb.len)
			return strbuf_detach(&sb, NULL);
		strbuf_release(&sb);
	}
	return NULL;
}

char *remote_status_parse(const char *text)
{
	/* {"status":"enabled"}: the one field; anything else is no answer. */
	const char *k = strstr(text, "\"status\"");
	if (!k)
		return NULL;
	k += 8;
	while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r')
		k++;
	if (*k++ != ':')
		return NULL;
	while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r')
		k++;
	if (*k++ != '"')
		return NULL;
	size_t n = strspn(k, "abcdefghijklmnopqrstuvwxyz_");
	if (k[n] != '"' || !n)
		return NULL;
	return xstrndup(k, n);
}

/* A signed remote's download: its tag must be there and be the body's,
 * or it is a miss. The artifact is kept from this run's uploads, and the
 * first of each kind is said (the rest are the same cause). Returns 1 or 0. */
static int verify(struct remote *r, const char *key, const struct body *b)
{
	off_t end = lseek(b->sink.fd, 0, SEEK_END);
	int ok = 0;
	bool untagged = !b->tag[0];
	if (!untagged && end >= b->start)
		ok = signature_verify(r->sig_key, key, r->team_id, b->sink.fd, b->start,
				      (uint64_t)(end - b->start), b->tag);
	if (ok == 1)
		return 1;
	pthread_mutex_lock(&r->lock);
	if (strvec_find(&r->unverified, key) < 0)
		strvec_push(&r->unverified, key);
	bool *said = untagged ? &r->said_untagged : &r->said_mismatch;
	bool say = !*said;
	*said = true;
	pthread_mutex_unlock(&r->lock);
	if (say && untagged)
		warning(
		    "remote cache: artifact %s has no x-artifact-tag, and this remote is signed: "
		    "taken as a miss, as is every such artifact this run (said once); none is "
		    "overwritten by this run's uploads",
		    key);
	else if (say)
		warning(
		    "remote cache: the x-artifact-tag of artifact %s does not verify%s: taken as "
		    "a miss, as is every such artifact this run (said once); none is overwritten "
		    "by this run's uploads. Every artifact failing so means this job's signature "
		    "key (VX_REMOTE_CACHE_SIGNATURE_KEY, TURBO_REMOTE_CACHE_SIGNATURE_KEY or "
		    "cache.remote.signature) is not the team's",
		    key, ok < 0 ? " (the download cannot be read)" : "");
	return 0;
}

/* Whether key's artifact was there and did not verify: kept from uploads. */
static bool unverified(struct remote *r, const char *key)
{
	pthread_mutex_lock(&r->lock);
	bool found = strvec_find(&r->unverified, key) >= 0;
	r->kept += found;
	pthread_mutex_unlock(&r->lock);
	return found;
}

/* A handle no other thread holds: an idle one, or a new one (NULL when
 * libcurl cannot make one: said). */
static CURL *handle_take(struct remote *r)
{
	pthread_mutex_lock(&r->lock);
	CURL *h = r->n_idle ? r->idle[--r->n_idle] : NULL;
	pthread_mutex_unlock(&r->lock);
	if (!h && !(h = curl()->easy_init()))
		warning("remote cache: libcurl cannot make a handle; the request is not made");
	return h;
}

static void handle_give(struct remote *r, CURL *h)
{
	pthread_mutex_lock(&r->lock);
	bool kept = r->n_idle < REMOTE_HANDLES;
	if (kept)
		r->idle[r->n_idle++] = h;
	pthread_mutex_unlock(&r->lock);
	if (!kept)
		curl()->easy_cleanup(h);
}

int remote_get(struct remote *r, const char *key, int fd, remote_begins_fn *begins)
{
	if (!remote_readable(r))
		return -1;
	CURL *h = handle_take(r);
	if (!h)
		return -1;
	check_status(r, h);
	if (!remote_readable(r)) {
		handle_give(r, h);
		return -1;
	}
	char *url = remote_artifact_url(r->url, key, r->team_id, r->team);
	struct body b = {.sink = {.fd = fd, .max = r->max_body, .begins = begins},
			 .start = lseek(fd, 0, SEEK_CUR)};
	long code = perform(r, h, "GET", url, NULL, &b, true);
	handle_give(r, h);
	free(url);
	if (code != 200)
		return code == 404 || code == REFUSED ? 0 : -1;
	return r->sig_key ? verify(r, key, &b) : 1;
}

int remote_head(struct remote *r, const char *key)
{
	if (!remote_readable(r))
		return -1;
	CURL *h = handle_take(r);
	if (!h)
		return -1;
	check_status(r, h);
	if (!remote_readable(r)) {
		handle_give(r, h);
		return -1;
	}
	char *url = remote_artifact_url(r->url, key, r->team_id, r->team);
	long code = perform(r, h, "HEAD", url, NULL, NULL, true);
	handle_give(r, h);
	free(url);
	return code >= 200 && code < 300 ? 1 : code == 404 ? 0 : -1;
}

static int put_with(struct remote *r, CURL *h, const char *key, const void *head, size_t head_len,
		    int fd, uint64_t size, uint64_t duration_ms)
{
	check_status(r, h);
	if (!remote_writable(r))
		return -1;
	if (unverified(r, key))
		return 0; /* the team's artifact, as far as this job can tell */
	char *tag = NULL;
	if (r->sig_key) {
		char t[SIGNATURE_TAG_SIZE];
		if (signature_tag(r->sig_key, key, r->team_id, head, head_len, fd, 0, size, t)) {
			warning("remote cache: cannot sign artifact %s: %s; not uploaded", key,
				strerror(errno));
			return -1;
		}
		tag = xasprintf("x-artifact-tag: %s", t);
	}
	char *url = remote_artifact_url(r->url, key, r->team_id, r->team);
	char *dur = xasprintf("x-artifact-duration: %llu", (unsigned long long)duration_ms);
	const char *extra[] = {"Content-Type: application/octet-stream", dur, tag, NULL};
	struct body b = {
	    .sink = {.fd = -1}, .src = {head, head_len, 0, fd, 0}, .size = head_len + size};
	long code = perform(r, h, "PUT", url, extra, &b, false);
	free(dur);
	free(tag);
	free(url);
	return code >= 200 && code < 300 ? 0 : -1;
}

int remote_put(struct remote *r, const char *key, const void *head, size_t head_len, int fd,
	       uint64_t size, uint64_t duration_ms)
{
	if (!remote_writable(r))
		return -1;
	CURL *h = handle_take(r);
	if (!h)
		return -1;
	int rc = put_with(r, h, key, head, head_len, fd, size, duration_ms);
	handle_give(r, h);
	return rc;
}

/* One transfer of remote_get_many: its handle, its body, its item. */
struct slot {
	CURL *h;
	struct body b;
	struct curl_slist *hdrs;
	char *url;
	size_t item; /* index into items; SIZE_MAX: free */
	bool fresh;  /* its item asked again on a new connection (stale()) */
};

/* Adds slot sl's GET (its body set) to m: on a new connection when fresh. */
static void slot_add(struct remote *r, CURLM *m, struct slot *sl, bool fresh)
{
	sl->hdrs = prepare(r, sl->h, "GET", sl->url, NULL, &sl->b);
	sl->fresh = fresh;
	if (fresh)
		curl()->easy_setopt(sl->h, CURLOPT_FRESH_CONNECT, 1L);
	curl()->easy_setopt(sl->h, CURLOPT_PRIVATE, sl);
	curl()->easy_setopt(sl->h, CURLOPT_PIPEWAIT, 1L);
	curl()->multi_add_handle(m, sl->h);
}

void remote_get_many(struct remote *r, struct remote_item *items, size_t n,
		     remote_begins_fn *begins, remote_open_fn *open_body, remote_done_fn *done,
		     const volatile bool *stop, void *ctx)
{
	for (size_t k = 0; k < n; k++)
		items[k].result = REMOTE_ASK;
	if (!n || !remote_readable(r))
		return;
	CURLM *m = curl()->multi_init();
	struct slot slots[REMOTE_PARALLEL];
	size_t nslots = n < REMOTE_PARALLEL ? n : REMOTE_PARALLEL;
	for (size_t k = 0; k < nslots; k++)
		slots[k] = (struct slot){.h = curl()->easy_init(), .item = SIZE_MAX};
	for (size_t k = 0; k < nslots; k++)
		if (!m || !slots[k].h)
			goto out;
	curl()->multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)REMOTE_PARALLEL);
	check_status(r, slots[0].h);
	size_t next = 0, active = 0;
	while ((next < n && !*stop) || active) {
		for (size_t k = 0; k < nslots && next < n && !*stop && remote_readable(r); k++) {
			struct slot *sl = &slots[k];
			if (sl->item != SIZE_MAX)
				continue;
			size_t it = next++;
			int fd = open_body(&items[it], ctx);
			if (fd < 0)
				continue; /* stays REMOTE_ASK */
			sl->item = it;
			sl->b =
			    (struct body){.sink = {.fd = fd, .max = r->max_body, .begins = begins},
					  .start = lseek(fd, 0, SEEK_CUR)};
			sl->url = remote_artifact_url(r->url, items[it].key, r->team_id, r->team);
			slot_add(r, m, sl, false);
			active++;
		}
		if (!active)
			break; /* the remote went off, or nothing could be opened */
		int running = 0;
		curl()->multi_perform(m, &running);
		CURLMsg *msg;
		int left;
		while ((msg = curl()->multi_info_read(m, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct slot *sl = NULL;
			curl()->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&sl);
			CURLcode c = msg->data.result;
			curl()->multi_remove_handle(m, sl->h);
			struct remote_item *item = &items[sl->item];
			long code = 0;
			curl()->easy_getinfo(sl->h, CURLINFO_RESPONSE_CODE, &code);
			curl()->slist_free_all(sl->hdrs);
			sl->hdrs = NULL;
			if (!sl->fresh && stale(sl->h, c)) {
				slot_add(r, m, sl, true); /* still active */
				continue;
			}
			if (c == CURLE_OK && code == 429) {
				item->result =
				    REMOTE_ASK; /* asked again alone, after its Retry-After */
			} else {
				code = judge(r, sl->h, sl->b.sink.failed ? CURLE_WRITE_ERROR : c,
					     "GET", sl->url, &sl->b, true);
				item->result = code == 200
						   ? (r->sig_key ? verify(r, item->key, &sl->b) : 1)
					       : code == 404 || code == REFUSED ? 0
										: -1;
			}
			free(sl->url);
			sl->url = NULL;
			sl->item = SIZE_MAX;
			active--;
			done(item, sl->b.sink.fd, ctx);
		}
		if (active)
			curl()->multi_poll(m, NULL, 0, 100, NULL);
	}
out:
	for (size_t k = 0; k < nslots; k++) {
		if (slots[k].h) {
			if (slots[k].item != SIZE_MAX) {
				curl()->multi_remove_handle(m, slots[k].h);
				curl()->slist_free_all(slots[k].hdrs);
				free(slots[k].url);
				done(&items[slots[k].item], slots[k].b.sink.fd, ctx);
			}
			curl()->easy_cleanup(slots[k].h);
		}
	}
	if (m)
		curl()->multi_cleanup(m);
}
