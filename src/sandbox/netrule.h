/* netrule.h - one allow.network / deny.network entry, and the decision a
 * task's proxy makes with them: by the name the client asked for, then by
 * every address that name resolves to (docs/network.md, "the decision").
 * Pure: no socket, no resolver. */
#ifndef VX_SANDBOX_NETRULE_H
#define VX_SANDBOX_NETRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "util/strbuf.h"
#include "util/vec.h"

struct netrule {
	char *host;    /* lowercase; a wildcard keeps its suffix without "*." ("example.com") */
	int port;      /* 0: none written (allow: 80 and 443; deny: every port) */
	bool wildcard; /* "*.example.com": a name strictly below host */
	bool address;  /* host is an IP literal (canonical text, no brackets) */
	bool loopback; /* localhost, 127.0.0.0/8 or ::1 with a port: a host port relayed in */
};

struct netrules {
	VEC(struct netrule) allow, deny;
	bool any; /* network: true: every public host, for this task only */
};

/* Parses entry as written in vx.yaml. Returns 0, or -1 with one sentence in
 * why (what is wrong and how to write it): a URL, an entry with a path, a
 * bare "*", a dotless name, a wildcard anywhere but a leading "*.", a bad
 * port, an IPv6 address without brackets, localhost without a port. */
int netrule_parse(const char *entry, struct netrule *r, struct strbuf *why);
void netrule_clear(struct netrule *r);
void netrules_clear(struct netrules *rs);
/* A deep copy of src. */
void netrules_copy(struct netrules *dst, const struct netrules *src);

enum net_verdict {
	NET_ALLOWED,
	NET_DENIED,	 /* a deny.network entry matches the name */
	NET_NOT_ALLOWED, /* no allow.network entry matches (and not network: true) */
};

/* The one form every rule compares a name in (allow, deny, the relays,
 * ignore.network): lower case, no trailing dot ("EVIL.TEST." is
 * evil.test). Rewrites host in place; false when it is no host name (empty,
 * over 253 bytes, or a byte outside [A-Za-z0-9._:-]: a name not in ASCII
 * must come as its IDNA A-label, xn--..., which is what clients send). */
bool netrule_name_canonical(char *host);

/* Decides by name (put in canonical form here too) and port. *exact is set when an
 * entry names host itself (a name or an address, not a wildcard): only
 * then may it resolve to a private address. */
enum net_verdict netrules_decide(const struct netrules *rs, const char *host, int port,
				 bool *exact);

enum net_class {
	NET_PUBLIC,
	NET_PRIVATE,  /* loopback, RFC 1918, CGNAT, fc00::/7, link-local, unspecified, multicast */
	NET_METADATA, /* 169.254.169.254, fd00:ec2::254: a cloud's credentials */
};
enum net_class net_addr_class(const struct sockaddr *sa);
/* sa's address as text into out (INET6_ADDRSTRLEN bytes), "?" when it has
 * none. */
void net_addr_text(const struct sockaddr *sa, char *out);

/* May the proxy connect to sa, which host resolved to? A private address
 * needs the name listed exactly (exact), or the address itself listed; a
 * metadata address needs the address itself listed; a deny.network
 * address entry refuses it. On refusal why gets the reason. */
bool netrules_address_ok(const struct netrules *rs, const struct sockaddr *sa, bool exact,
			 struct strbuf *why);

/* The allow.network entry that would allow host:port, as a user writes it
 * ("registry.npmjs.org", "example.com:8443", "[2001:db8::1]:443"). */
char *netrule_fix(const char *host, int port);

/* "host:port", brackets around an IPv6 literal. */
char *net_target(const char *host, int port);

#endif
