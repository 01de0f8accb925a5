#include "violations/seatbelt_log.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/seatbelt.h"
#include "util/die.h"

static const struct {
	const char *name;
	enum access_op op;
} OPS[] = {
    {"file-read-data", ACCESS_READ},	  {"file-read*", ACCESS_READ},
    {"file-read-metadata", ACCESS_PROBE}, {"file-read-xattr", ACCESS_PROBE},
    {"file-write-create", ACCESS_WRITE},  {"file-write-data", ACCESS_WRITE},
    {"file-write*", ACCESS_WRITE},	  {"file-write-unlink", ACCESS_UNLINK},
    {"file-write-times", ACCESS_UTIME},	  {"file-write-mode", ACCESS_ATTR},
    {"file-write-owner", ACCESS_ATTR},	  {"file-write-xattr", ACCESS_ATTR},
    {"file-write-flags", ACCESS_ATTR},	  {"file-write-setugid", ACCESS_ATTR},
    {"file-link", ACCESS_LINK_TO},	  {"process-exec", ACCESS_EXEC},
    {"process-exec*", ACCESS_EXEC},	  {"network-outbound", ACCESS_CONNECT},
};

const char *seatbelt_op_name(const char *op)
{
	for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++)
		if (!strcmp(OPS[i].name, op))
			return OPS[i].name;
	return NULL;
}

void seatbelt_record_release(struct seatbelt_record *r)
{
	free(r->process);
	free(r->op);
	free(r->target);
	memset(r, 0, sizeof *r);
}

/* The first n-byte needle in hay (len bytes), or NULL: memmem, which this
 * file does without (it builds for macOS, and POSIX before 2024 has none). */
static const char *find(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (!memcmp(hay + i, needle, n))
			return hay + i;
	return NULL;
}

/* The decimal number at s, not reading at or past end (the line is not
 * NUL-terminated); saturates rather than overflows. */
static long num(const char *s, const char *end)
{
	long v = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		v = v > 100000000 ? v : v * 10 + (*s - '0');
	return v;
}

/* Parses "[K duplicate report(s) for ][Sandbox: ]NAME(PID) deny(N) OP[ TARGET]"
 * in s (n bytes). */
static int parse_text(const char *s, size_t n, struct seatbelt_record *r)
{
	const char *end = s + n;
	while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	int dup = 1;
	/* "2 duplicate reports for Sandbox: …": the same denial, K more times */
	const char *p = s;
	while (p < end && *p == ' ')
		p++;
	const char *d = p;
	while (d < end && *d >= '0' && *d <= '9')
		d++;
	static const char dupword[] = " duplicate report";
	if (d > p && (size_t)(end - d) > sizeof dupword &&
	    !memcmp(d, dupword, sizeof dupword - 1)) {
		const char *f = find(d, (size_t)(end - d), " for ");
		if (!f)
			return -1;
		dup += (int)num(p, d);
		p = f + 5;
	}
	static const char prefix[] = "Sandbox: ";
	const char *sb = find(p, (size_t)(end - p), prefix);
	if (sb)
		p = sb + sizeof prefix - 1;
	/* the verdict word, then back to "NAME(PID)" before it */
	const char *v = NULL;
	for (const char *q = p; q + 6 < end && !v; q++)
		if ((!memcmp(q, ") deny(", 7) || !memcmp(q, ") allow", 7)))
			v = q;
	if (!v)
		return sb ? -1 : 0;
	const char *open = v;
	while (open > p && open[-1] >= '0' && open[-1] <= '9')
		open--;
	if (open == v || open == p || open[-1] != '(')
		return -1;
	r->pid = (pid_t)num(open, v);
	r->process = xstrndup(p, (size_t)(open - 1 - p));
	const char *w = v + 2; /* "deny(1) …" or "allow …" */
	r->deny = !memcmp(w, "deny", 4);
	w += r->deny ? 4 : 5;
	r->count = 1;
	if (w < end && *w == '(') {
		r->count = (int)num(w + 1, end);
		w = memchr(w, ')', (size_t)(end - w));
		if (!w)
			return -1;
		w++;
	}
	r->count *= dup;
	while (w < end && *w == ' ')
		w++;
	const char *op = w;
	while (w < end && *w != ' ')
		w++;
	if (w == op)
		return -1;
	r->op = xstrndup(op, (size_t)(w - op));
	while (w < end && *w == ' ')
		w++;
	r->target = xstrndup(w, (size_t)(end - w)); /* the rest: a path may hold spaces */
	return 1;
}

int seatbelt_log_line(const char *line, size_t len, struct seatbelt_record *r)
{
	memset(r, 0, sizeof *r);
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	int rc;
	if (i < len && line[i] == '{') {
		cJSON *doc = cJSON_ParseWithLength(line + i, len - i);
		cJSON *msg = cJSON_GetObjectItemCaseSensitive(doc, "eventMessage");
		cJSON *sub = cJSON_GetObjectItemCaseSensitive(doc, "subsystem");
		if (!doc)
			rc = -1;
		else if (!cJSON_IsString(msg) ||
			 (cJSON_IsString(sub) &&
			  strcmp(sub->valuestring, "com.apple.sandbox.reporting") &&
			  !strstr(msg->valuestring, "Sandbox: ")))
			rc = 0; /* another subsystem's line, or no message */
		else
			rc = parse_text(msg->valuestring, strlen(msg->valuestring), r);
		/* the record's own pid is the reporting daemon's; the message's is
		 * the process that was refused */
		cJSON_Delete(doc);
	} else {
		rc = parse_text(line + i, len - i, r);
	}
	if (rc != 1)
		seatbelt_record_release(r);
	return rc;
}

bool seatbelt_record_event(const struct seatbelt_record *r, struct access_event *ev)
{
	memset(ev, 0, sizeof *ev);
	if (!r->deny)
		return false;
	size_t k;
	for (k = 0; k < sizeof OPS / sizeof *OPS; k++)
		if (!strcmp(OPS[k].name, r->op))
			break;
	if (k == sizeof OPS / sizeof *OPS)
		return false; /* mach-lookup, sysctl-read, …: the record keeps it */
	const char *t = r->target;
	if (OPS[k].op == ACCESS_CONNECT) {
		/* "1.2.3.4:443", "*:443" (any address), a UNIX socket's path; none
		 * at all is the record a dual-stack retry leaves: nothing refused */
		if (!*t || !strcmp(t, "*:0"))
			return false;
		ev->path = t[0] == '/' ? seatbelt_spell(t) : xstrdup(t);
	} else {
		if (t[0] != '/')
			return false; /* a file operation names an absolute path */
		ev->path = seatbelt_spell(t);
	}
	ev->op = OPS[k].op;
	ev->syscall = OPS[k].name;
	ev->err = EPERM;
	ev->pid = r->pid;
	ev->write_intent = ev->op == ACCESS_WRITE || ev->op == ACCESS_UNLINK ||
			   ev->op == ACCESS_UTIME || ev->op == ACCESS_ATTR ||
			   ev->op == ACCESS_LINK_TO;
	return true;
}

bool seatbelt_record_ours(const struct seatbelt_record *r, const pid_t *pids, size_t n,
			  const char *project)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == r->pid)
			return true;
	if (!project || r->target[0] != '/')
		return false;
	char *t = seatbelt_spell(r->target);
	size_t len = strlen(project);
	bool in = !strncmp(t, project, len) && (t[len] == '/' || !t[len]);
	free(t);
	return in;
}
