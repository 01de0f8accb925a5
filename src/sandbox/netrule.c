/* netrule.c - network entries and the proxy's decision. */
#include "sandbox/netrule.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util/die.h"

static int bad(struct strbuf *why, const char *entry, const char *what)
{
	strbuf_addf(why, "network entry '%s' %s", entry, what);
	return -1;
}

/* A port as written after ':' (1-65535), or -1. */
static int parse_port(const char *s)
{
	if (!*s || strlen(s) > 5)
		return -1;
	int n = 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		n = n * 10 + (*s - '0');
	}
	return n >= 1 && n <= 65535 ? n : -1;
}

/* A DNS name: labels of [a-z0-9_-], 1-63 bytes, no empty label. */
static bool valid_name(const char *s)
{
	size_t label = 0, n = strlen(s);
	if (!n || n > 253)
		return false;
	for (; *s; s++) {
		if (*s == '.') {
			if (!label)
				return false;
			label = 0;
		} else if (isalnum((unsigned char)*s) || *s == '-' || *s == '_') {
			if (++label > 63)
				return false;
		} else {
			return false;
		}
	}
	return label > 0;
}

/* The canonical text of an IP literal into out (INET6_ADDRSTRLEN), or false. */
static bool canonical_address(const char *s, char *out, int *family)
{
	unsigned char buf[sizeof(struct in6_addr)];
	if (inet_pton(AF_INET, s, buf) == 1) {
		*family = AF_INET;
		return inet_ntop(AF_INET, buf, out, INET6_ADDRSTRLEN) != NULL;
	}
	if (inet_pton(AF_INET6, s, buf) == 1) {
		*family = AF_INET6;
		return inet_ntop(AF_INET6, buf, out, INET6_ADDRSTRLEN) != NULL;
	}
	return false;
}

bool netrule_name_canonical(char *host)
{
	size_t n = strlen(host);
	while (n && host[n - 1] == '.' && !strchr(host, ':'))
		host[--n] = '\0'; /* the root's dot: "evil.test." is evil.test */
	if (!n || n > 253)
		return false;
	for (char *s = host; *s; s++) {
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
		else if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '.' ||
			   *s == '-' || *s == '_' || *s == ':'))
			return false; /* a name not in ASCII (IDNA's U-label) matches no rule */
	}
	return true;
}

int netrule_parse(const char *entry, struct netrule *r, struct strbuf *why)
{
	memset(r, 0, sizeof *r);
	if (!*entry)
		return bad(why, entry, "is empty: name a host (registry.npmjs.org)");
	if (strstr(entry, "://"))
		return bad(why, entry,
			   "is a URL: write the host alone (registry.npmjs.org, or "
			   "registry.npmjs.org:8443 for a port other than 80 and 443)");
	if (strchr(entry, '/'))
		return bad(why, entry,
			   "has a path: a network grant names a host and a port, never a path");
	char *host, *port = NULL;
	if (entry[0] == '[') {
		const char *close = strchr(entry, ']');
		if (!close || (close[1] && close[1] != ':'))
			return bad(why, entry, "is not [IPv6]:PORT");
		host = xstrndup(entry + 1, (size_t)(close - entry - 1));
		if (close[1])
			port = xstrdup(close + 2);
	} else {
		const char *colon = strchr(entry, ':');
		if (colon && strchr(colon + 1, ':'))
			return bad(why, entry,
				   "looks like an IPv6 address: write it in brackets ([::1]:8080)");
		host = colon ? xstrndup(entry, (size_t)(colon - entry)) : xstrdup(entry);
		if (colon)
			port = xstrdup(colon + 1);
	}
	int rc = 0;
	if (port && (r->port = parse_port(port)) < 0)
		rc = bad(why, entry, "has a port that is not a number from 1 to 65535");
	free(port);
	for (char *c = host; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	size_t hl = strlen(host);
	while (hl > 1 && host[hl - 1] == '.' && host[hl - 2] != '.')
		host[--hl] = '\0'; /* "evil.test." names evil.test */
	char addr[INET6_ADDRSTRLEN];
	int family = 0;
	if (rc) {
	} else if (!strcmp(host, "*")) {
		rc = bad(why, entry, "allows every host: write network: true for that");
	} else if (canonical_address(host, addr, &family)) {
		r->address = true;
		free(host);
		host = xstrdup(addr);
		struct in_addr a4;
		r->loopback = (family == AF_INET6 && !strcmp(addr, "::1")) ||
			      (family == AF_INET && inet_pton(AF_INET, addr, &a4) == 1 &&
			       (ntohl(a4.s_addr) >> 24) == 127);
	} else if (entry[0] == '[') {
		rc = bad(why, entry, "holds no IPv6 address between its brackets");
	} else if (!strncmp(host, "*.", 2)) {
		if (!valid_name(host + 2) || strchr(host + 2, '*'))
			rc = bad(why, entry, "is not *.NAME with NAME a host name");
		else if (!strchr(host + 2, '.'))
			rc =
			    bad(why, entry,
				"allows a whole top-level domain: name the domain (*.example.com)");
		r->wildcard = true;
		memmove(host, host + 2, strlen(host + 2) + 1);
	} else if (strchr(host, '*')) {
		rc = bad(why, entry,
			 "has a wildcard that is not a leading '*.': write *.example.com");
	} else if (!valid_name(host)) {
		rc = bad(why, entry, "is not a host name (letters, digits, '-', '.')");
	} else if (!strcmp(host, "localhost")) {
		r->loopback = true;
	} else if (!strchr(host, '.')) {
		rc =
		    bad(why, entry,
			"is a dotless name, which the resolver completes from a search list: write "
			"its full name");
	}
	if (!rc && r->loopback && !r->port)
		rc = bad(why, entry,
			 "names the host's loopback without a port: write localhost:PORT to relay "
			 "that one port into the sandbox");
	r->host = host;
	if (rc)
		netrule_clear(r);
	return rc;
}

void netrule_clear(struct netrule *r)
{
	free(r->host);
	memset(r, 0, sizeof *r);
}

void netrules_clear(struct netrules *rs)
{
	for (size_t i = 0; i < rs->allow.n; i++)
		netrule_clear(&rs->allow.v[i]);
	for (size_t i = 0; i < rs->deny.n; i++)
		netrule_clear(&rs->deny.v[i]);
	vec_free(&rs->allow);
	vec_free(&rs->deny);
	rs->any = false;
}

void netrules_copy(struct netrules *dst, const struct netrules *src)
{
	memset(dst, 0, sizeof *dst);
	dst->any = src->any;
	for (size_t i = 0; i < src->allow.n; i++) {
		struct netrule r = src->allow.v[i];
		r.host = xstrdup(r.host);
		vec_push(&dst->allow, r);
	}
	for (size_t i = 0; i < src->deny.n; i++) {
		struct netrule r = src->deny.v[i];
		r.host = xstrdup(r.host);
		vec_push(&dst->deny, r);
	}
}

/* Does r name host (lowercase; an address in canonical text)? */
static bool names(const struct netrule *r, const char *host)
{
	if (!r->wildcard)
		return !strcmp(r->host, host);
	size_t n = strlen(host), s = strlen(r->host);
	return n > s && host[n - s - 1] == '.' && !strcmp(host + n - s, r->host);
}

static bool matches(const struct netrule *r, const char *host, int port, bool deny)
{
	if (!names(r, host))
		return false;
	if (r->port)
		return r->port == port;
	return deny || port == 80 || port == 443;
}

/* host as an entry compares it: an IP literal in canonical text. */
static void canonical_host(const char *host, char *out, size_t len)
{
	int family;
	char addr[INET6_ADDRSTRLEN];
	if (canonical_address(host, addr, &family))
		host = addr;
	snprintf(out, len, "%s", host);
}

enum net_verdict netrules_decide(const struct netrules *rs, const char *host, int port, bool *exact)
{
	char h[256];
	canonical_host(host, h, sizeof h);
	*exact = false;
	if (!netrule_name_canonical(h))
		return NET_NOT_ALLOWED; /* no rule names it, and network: true takes no such name */
	for (size_t i = 0; i < rs->deny.n; i++)
		if (matches(&rs->deny.v[i], h, port, true))
			return NET_DENIED;
	bool allowed = false;
	for (size_t i = 0; i < rs->allow.n; i++) {
		const struct netrule *r = &rs->allow.v[i];
		if (r->loopback || !matches(r, h, port, false))
			continue; /* a relay entry is served inside, never by the proxy */
		allowed = true;
		*exact = *exact || !r->wildcard;
	}
	if (allowed)
		return NET_ALLOWED;
	return rs->any ? NET_ALLOWED : NET_NOT_ALLOWED;
}

enum net_class net_addr_class(const struct sockaddr *sa)
{
	uint32_t a;
	if (sa->sa_family == AF_INET6) {
		const unsigned char *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		static const unsigned char ec2[16] = {0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0,
						      0,    0, 0,    0,	   0, 0, 2, 0x54};
		if (!memcmp(b, mapped, 12)) {
			a = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 |
			    b[15];
			goto v4;
		}
		if (!memcmp(b, ec2, 16))
			return NET_METADATA;
		static const unsigned char zero[15] = {0};
		if (!memcmp(b, zero, 15) && b[15] <= 1) /* :: and ::1 */
			return NET_PRIVATE;
		if ((b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||
		    b[0] == 0xff)
			return NET_PRIVATE; /* fc00::/7, fe80::/10, ff00::/8 */
		return NET_PUBLIC;
	}
	if (sa->sa_family != AF_INET)
		return NET_PRIVATE;
	a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
v4:
	if (a == 0xa9fea9feu) /* 169.254.169.254 */
		return NET_METADATA;
	if ((a >> 24) == 0 || (a >> 24) == 10 || (a >> 24) == 127 || (a >> 16) == 0xa9fe ||
	    (a >> 20) == 0xac1 || (a >> 16) == 0xc0a8 || (a >> 22) == (100u << 2 | 1) ||
	    (a >> 28) >= 0xe)
		return NET_PRIVATE; /* 0/8 10/8 127/8 169.254/16 172.16/12 192.168/16
				     * 100.64/10 224/4 and 240/4 */
	return NET_PUBLIC;
}

void net_addr_text(const struct sockaddr *sa, char *out)
{
	const void *a = sa->sa_family == AF_INET6
			    ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr
			    : (const void *)&((const struct sockaddr_in *)sa)->sin_addr;
	if (!inet_ntop(sa->sa_family, a, out, INET6_ADDRSTRLEN))
		strcpy(out, "?");
}

bool netrules_address_ok(const struct netrules *rs, const struct sockaddr *sa, bool exact,
			 struct strbuf *why)
{
	char addr[INET6_ADDRSTRLEN];
	net_addr_text(sa, addr);
	for (size_t i = 0; i < rs->deny.n; i++)
		if (rs->deny.v[i].address && !strcmp(rs->deny.v[i].host, addr)) {
			strbuf_addf(why, "resolves to %s, denied by deny.network", addr);
			return false;
		}
	enum net_class c = net_addr_class(sa);
	if (c == NET_PUBLIC)
		return true;
	for (size_t i = 0; i < rs->allow.n; i++)
		if (rs->allow.v[i].address && !strcmp(rs->allow.v[i].host, addr))
			return true;
	if (c == NET_PRIVATE && exact)
		return true;
	strbuf_addf(
	    why,
	    c == NET_METADATA
		? "resolves to %s, a cloud metadata address: only an entry naming that address "
		  "allows it"
		: "resolves to %s, a private address: list the name itself (not a wildcard) or the "
		  "address to allow it",
	    addr);
	return false;
}

char *net_target(const char *host, int port)
{
	return strchr(host, ':') ? xasprintf("[%s]:%d", host, port)
				 : xasprintf("%s:%d", host, port);
}

char *netrule_fix(const char *host, int port)
{
	if (port == 80 || port == 443)
		return strchr(host, ':') ? xasprintf("[%s]", host) : xstrdup(host);
	return net_target(host, port);
}
