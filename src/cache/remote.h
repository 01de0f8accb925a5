/* remote.h - the remote cache client: Turborepo's HTTP API
 * (/v8/artifacts/:hash), so turborepo-remote-cache and Vercel's endpoint
 * serve vx as they serve Turborepo (docs/remote-cache.md). */
#ifndef VX_CACHE_REMOTE_H
#define VX_CACHE_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct remote_opts {
	const char *url;	   /* the API's base, "http://127.0.0.1:3000" */
	const char *token;	   /* Bearer; never printed */
	const char *team;	   /* the team's slug (slug=), as Turborepo's --team; NULL: none */
	const char *team_id;	   /* its id (teamId=, and signed), as TURBO_TEAMID; NULL: none */
	const char *signature_key; /* sign every upload, verify every download
				    * (x-artifact-tag, signature.h); NULL: neither */
	bool read, write;
	long timeout_ms; /* per request; 0: 30 s (connect: 2 s) */
	/* The most bytes a GET's body may be: what the cache may hold
	 * (cache.maxSize). A larger declared length is refused at the
	 * headers, an undeclared one cut off here; 0: no bound. */
	uint64_t max_body;
};

/* Whether the first n bytes of a GET's body (n <= 64, growing as they
 * come) can begin what was asked for: 1 they do, 0 not known yet, -1
 * they cannot. A 2xx body whose answer is -1 (or still 0 at 64 bytes) is
 * dropped at those bytes, before they are written: a miss, warned. */
typedef int remote_begins_fn(const char *buf, size_t n);

/* A remote cache for one run. Before its first request it asks
 * /v8/artifacts/status once (a disabled or over-limit team turns it off,
 * said once). GETs are made on one thread and PUTs on
 * another (the saver's): each has its own connection; the failure count
 * they share is locked. */
struct remote;

/* Copies o. Returns NULL with one line in err when curl cannot start. */
struct remote *remote_new(const struct remote_opts *o);
void remote_free(struct remote *r);

/* False once the remote is off for the rest of the run (three failures in
 * a row, or a refused token), or when o->read (o->write) was false. */
bool remote_readable(const struct remote *r);
bool remote_writable(const struct remote *r);

/* GET /v8/artifacts/KEY into fd (from its current offset), its body
 * checked by begins (NULL: any) and bounded by max_body. Returns 1 when
 * the body is in fd, 0 for a miss (404; a body given up: past the bound,
 * or not begun as begins wants, one warning, at most max_body bytes
 * written; or, with a signature key, a body whose x-artifact-tag is
 * missing or does not verify: one warning), -1 for a failure (a warning
 * was printed, or will be by the state machine: once per kind). A request
 * that fails on a kept connection before any answer is made once more on
 * a new one. */
int remote_get(struct remote *r, const char *key, int fd, remote_begins_fn *begins);
/* Many GETs at once: at most REMOTE_PARALLEL transfers in flight on one
 * curl multi handle (its connections kept alive and reused; HTTP/2
 * multiplexed where the server speaks it), items taken in their order.
 * Each body is checked and bounded as remote_get's.
 * open_body(item) gives the fd an item's body goes to (-1: skip it); done(item,
 * fd) is called as each ends, with item->result set: 1 the body is in fd
 * (its tag verified when the remote signs), 0 a miss (404, or a bad or
 * missing tag: warned), -1 a failure (counted and warned as any), or
 * REMOTE_ASK: not answered here (a 429; the remote went off; *stop was set
 * before it started): ask for it alone if at all. Blocks until every item
 * is settled; runs on its caller's thread with handles of its own. */
#define REMOTE_PARALLEL 16
/* PUTs at once: the saver's uploader threads, each its own handle
 * (remote_put may be called from that many threads at once). */
#define REMOTE_UPLOADERS 8
/* Idle handles kept (their connections too): the uploaders' and the
 * restorers' (remote_get and remote_head may be called from any thread). */
#define REMOTE_HANDLES 12
#define REMOTE_ASK 2
struct remote_item {
	const char *key; /* the caller's */
	size_t index;	 /* the caller's */
	int result;	 /* set as above */
};
typedef int remote_open_fn(struct remote_item *item, void *ctx);
typedef void remote_done_fn(struct remote_item *item, int fd, void *ctx);
void remote_get_many(struct remote *r, struct remote_item *items, size_t n,
		     remote_begins_fn *begins, remote_open_fn *open_body, remote_done_fn *done,
		     const volatile bool *stop, void *ctx);

/* HEAD /v8/artifacts/KEY: 1 when the remote holds it, 0 when not, -1 for
 * a failure (warned). */
int remote_head(struct remote *r, const char *key);
/* PUT /v8/artifacts/KEY with a body of head (head_len bytes, in memory)
 * then the size bytes of fd from offset 0, streamed; duration_ms goes as
 * x-artifact-duration. Returns 0, or -1 (warned). Safe from several
 * threads at once (the saver's uploaders), each PUT on a handle of its
 * own. */
int remote_put(struct remote *r, const char *key, const void *head, size_t head_len, int fd,
	       uint64_t size, uint64_t duration_ms);

/* "BASE/v8/artifacts/KEY?teamId=ID&slug=SLUG" (each when set, as Turborepo
 * sends them); caller frees. */
char *remote_artifact_url(const char *base, const char *key, const char *team_id, const char *slug);
/* "BASE/v8/artifacts/status" with the team's query; caller frees. */
char *remote_status_url(const char *base, const char *team_id, const char *slug);
/* The "status" of a /v8/artifacts/status answer ("enabled", "disabled",
 * "over_limit", "paused"), or NULL when text is not one; caller frees. */
char *remote_status_parse(const char *text);
/* The message of a server's error body (len bytes, JSON): its "message",
 * else its "error" string, printable and at most 200 bytes; caller frees.
 * NULL when it has none. */
char *remote_error_message(const char *body, size_t len);
/* url with any user:password@ replaced by "***@": what a message may show. */
char *remote_redact(const char *url);

/* The state machine alone, for its unit test: the outcome of one request
 * (0 ok or a miss, else an HTTP status, or -1 for a transport failure)
 * updates the consecutive failures and returns what to say (static text,
 * or NULL to stay quiet), setting *off when the remote goes off. */
struct remote_state {
	int failures; /* in a row */
	bool off;
	bool said_auth; /* 401/403 said once */
	bool said_off;
};
const char *remote_state_after(struct remote_state *s, int outcome);

#endif
