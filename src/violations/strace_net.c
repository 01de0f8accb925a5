/* strace_net.c - the network a trace shows: the addresses a connect names,
 * and the names a DNS query the task sent itself asks for. */
#include <string.h>

#include "violations/strace_state.h"

/* connect(fd, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("1.2.3.4")}, 16):
 * one ACCESS_CONNECT event, "1.2.3.4:443", "[::1]:80", or a UNIX socket's
 * path resolved like any other (an abstract socket, "@...", is no path). */
void connect_access(struct strace_parser *p, struct tracee *pr, struct call *c)
{
	if (c->nargs < 2) {
		c->bad = true;
		return;
	}
	struct span sa = c->args[1];
	bool truncated, unresolved = false;
	if (span_has(sa, "AF_UNIX")) {
		struct span q = span_quoted(span_after(sa, "sun_path="));
		if (!q.n)
			return; /* abstract, or unnamed */
		if (str_decode(q, &p->str[0], &truncated) != STR_OK || !p->str[0].len)
			return;
		trace_path_resolve(pr, NULL, &p->str[0], &p->path[0], &unresolved);
		event_add(p, pr, ACCESS_CONNECT, &p->path[0], c->sys->name, c->err, truncated,
			  unresolved, NULL, false);
		return;
	}
	bool v6 = span_has(sa, "AF_INET6");
	if (!v6 && !span_has(sa, "AF_INET"))
		return;
	struct span port = span_after(sa, v6 ? "sin6_port=htons(" : "sin_port=htons(");
	struct span addr = v6 ? span_quoted(span_after(sa, "inet_pton(AF_INET6, "))
			      : span_quoted(span_after(sa, "sin_addr=inet_addr("));
	size_t digits = 0;
	while (digits < port.n && port.s[digits] >= '0' && port.s[digits] <= '9')
		digits++;
	if (!digits || addr.n < 3 || str_decode(addr, &p->str[0], &truncated) != STR_OK ||
	    truncated || !p->str[0].len ||
	    strspn(p->str[0].buf, "0123456789abcdefABCDEF.:") != p->str[0].len) {
		c->bad = true; /* strace prints an address it decoded, never anything else */
		return;
	}
	strbuf_reset(&p->path[0]);
	strbuf_addf(&p->path[0], v6 ? "[%s]:%.*s" : "%s:%.*s", p->str[0].buf, (int)digits, port.s);
	event_add(p, pr, ACCESS_CONNECT, &p->path[0], c->sys->name, c->err, false, false, NULL,
		  false);
}

/* The name a DNS query asks for (RFC 1035 §4.1: a header with QR 0,
 * opcode QUERY, one question and no answers, then the question's labels),
 * lower case and dotted, into out; false for anything else. A label is
 * letters, digits, '-' and '_' (a name that could be printed as anything
 * else is not taken: it is the task's word, shown to a person). The query
 * may be cut after its name (strace's -s). */
static bool dns_query_name(const unsigned char *q, size_t n, bool cut, struct strbuf *out)
{
	if (n < 13 || (q[2] & 0x80) || (q[2] & 0x78) || q[4] || q[5] != 1 || q[6] || q[7] || q[8] ||
	    q[9])
		return false;
	strbuf_reset(out);
	size_t i = 12;
	while (i < n && q[i]) {
		size_t len = q[i++];
		if (len > 63 || i + len > n || out->len + len + 1 > 253)
			return false;
		if (out->len)
			strbuf_addch(out, '.');
		for (size_t k = 0; k < len; k++) {
			unsigned char c = q[i + k];
			if (c >= 'A' && c <= 'Z')
				c = (unsigned char)(c - 'A' + 'a');
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			      c == '_'))
				return false;
			strbuf_addch(out, (char)c);
		}
		i += len;
	}
	/* the root label, then QTYPE and QCLASS, unless strace cut them */
	return i < n && out->len && (cut || i + 5 <= n);
}

/* sendto(fd, "BUF", ...), sendmsg(fd, {... iov_base="BUF" ...}), sendmmsg
 * (fd, [{msg_hdr={... iov_base="BUF" ...}}, ...]): an ACCESS_LOOKUP event
 * for each buffer that is a DNS query. */
void send_access(struct strace_parser *p, struct tracee *pr, struct call *c)
{
	for (size_t a = 1; a < c->nargs && a < 2; a++) {
		const char *s = c->args[a].s, *e = s + c->args[a].n;
		while ((s = memchr(s, '"', (size_t)(e - s))) != NULL) {
			const char *end = skip_quoted(s, e);
			if (!end)
				return;
			struct span q = {s, (size_t)(end - s)};
			if (end + 3 <= e && !memcmp(end, "...", 3))
				q.n += 3;
			bool cut;
			if (str_decode_as(q, &p->str[0], &cut, true) == STR_OK &&
			    dns_query_name((const unsigned char *)p->str[0].buf, p->str[0].len, cut,
					   &p->path[0]))
				event_add(p, pr, ACCESS_LOOKUP, &p->path[0], c->sys->name, c->err,
					  false, false, NULL, false);
			s = end;
		}
	}
}
