/* Unit tests for sandbox/netrule.c: the grammar of a network entry, the
 * decision by name, and the address classes DNS rebinding is judged by. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sandbox/netrule.h"

/* Parses entry; returns the error text (caller frees) or NULL. */
static char *parse_error(const char *entry)
{
	struct netrule r;
	struct strbuf why = STRBUF_INIT;
	if (netrule_parse(entry, &r, &why) == 0) {
		netrule_clear(&r);
		strbuf_release(&why);
		return NULL;
	}
	return strbuf_detach(&why, NULL);
}

static void check_refused(const char *entry, const char *says)
{
	char *e = parse_error(entry);
	CHECK(e != NULL);
	if (e && !strstr(e, says))
		fprintf(stderr, "  '%s': \"%s\" lacks \"%s\"\n", entry, e, says);
	CHECK(e && strstr(e, says));
	free(e);
}

static void add(struct netrules *rs, bool deny, const char *entry)
{
	struct netrule r;
	struct strbuf why = STRBUF_INIT;
	CHECK_INT(netrule_parse(entry, &r, &why), 0);
	if (why.len)
		fprintf(stderr, "  %s\n", why.buf);
	strbuf_release(&why);
	if (deny)
		vec_push(&rs->deny, r);
	else
		vec_push(&rs->allow, r);
}

static struct sockaddr_storage addr(const char *text)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, text, &a4->sin_addr) == 1)
		a4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &a6->sin6_addr) == 1)
		a6->sin6_family = AF_INET6;
	return ss;
}

static int klass(const char *text)
{
	struct sockaddr_storage ss = addr(text);
	return net_addr_class((struct sockaddr *)&ss);
}

static void test_grammar(void)
{
	struct netrule r;
	struct strbuf why = STRBUF_INIT;
	CHECK_INT(netrule_parse("Registry.NPMjs.org", &r, &why), 0);
	CHECK_STR(r.host, "registry.npmjs.org");
	CHECK_INT(r.port, 0);
	CHECK(!r.wildcard && !r.address && !r.loopback);
	netrule_clear(&r);
	CHECK_INT(netrule_parse("*.github.com:8443", &r, &why), 0);
	CHECK_STR(r.host, "github.com");
	CHECK_INT(r.port, 8443);
	CHECK(r.wildcard);
	netrule_clear(&r);
	CHECK_INT(netrule_parse("[2001:DB8:0::1]:443", &r, &why), 0);
	CHECK_STR(r.host, "2001:db8::1");
	CHECK(r.address && !r.loopback);
	netrule_clear(&r);
	CHECK_INT(netrule_parse("10.0.0.5", &r, &why), 0);
	CHECK(r.address && !r.loopback);
	netrule_clear(&r);
	CHECK_INT(netrule_parse("localhost:4173", &r, &why), 0);
	CHECK(r.loopback);
	CHECK_INT(r.port, 4173);
	netrule_clear(&r);
	CHECK_INT(netrule_parse("127.0.0.1:5432", &r, &why), 0);
	CHECK(r.loopback && r.address);
	netrule_clear(&r);
	CHECK_INT(netrule_parse("[::1]:5173", &r, &why), 0);
	CHECK(r.loopback);
	netrule_clear(&r);
	CHECK_INT(why.len, 0);
	strbuf_release(&why);

	check_refused("https://registry.npmjs.org", "is a URL");
	check_refused("registry.npmjs.org/pkg", "has a path");
	check_refused("*", "network: true");
	check_refused("*:443", "network: true");
	check_refused("intranet", "dotless");
	check_refused("*.com", "top-level domain");
	check_refused("api.*.example.com", "leading '*.'");
	check_refused("a*b.example.com", "leading '*.'");
	check_refused("example.com:0", "port");
	check_refused("example.com:65536", "port");
	check_refused("example.com:http", "port");
	check_refused("example.com:", "port");
	check_refused("2001:db8::1", "brackets");
	check_refused("[2001:db8::1", "[IPv6]:PORT");
	check_refused("[example.com]:80", "no IPv6 address");
	check_refused("localhost", "without a port");
	check_refused("127.0.0.1", "without a port");
	check_refused("exa mple.com", "not a host name");
	check_refused("example..com", "not a host name");
	check_refused("", "empty");
}

static void test_decide(void)
{
	struct netrules rs = {0};
	add(&rs, false, "registry.npmjs.org");
	add(&rs, false, "*.example.com");
	add(&rs, false, "api.other.org:8443");
	add(&rs, false, "localhost:4173");
	add(&rs, true, "evil.example.com");
	bool exact;
	CHECK_INT(netrules_decide(&rs, "registry.npmjs.org", 443, &exact), NET_ALLOWED);
	CHECK(exact);
	CHECK_INT(netrules_decide(&rs, "registry.npmjs.org", 80, &exact), NET_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "registry.npmjs.org", 8080, &exact), NET_NOT_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "npmjs.org", 443, &exact), NET_NOT_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "cdn.example.com", 443, &exact), NET_ALLOWED);
	CHECK(!exact);
	/* a wildcard is strictly below its name, and no suffix trick reaches it */
	CHECK_INT(netrules_decide(&rs, "example.com", 443, &exact), NET_NOT_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "badexample.com", 443, &exact), NET_NOT_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "example.com.evil.org", 443, &exact), NET_NOT_ALLOWED);
	/* deny wins over allow, on every port */
	CHECK_INT(netrules_decide(&rs, "evil.example.com", 443, &exact), NET_DENIED);
	CHECK_INT(netrules_decide(&rs, "evil.example.com", 22, &exact), NET_DENIED);
	CHECK_INT(netrules_decide(&rs, "api.other.org", 8443, &exact), NET_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "api.other.org", 443, &exact), NET_NOT_ALLOWED);
	/* a relay entry is served inside the namespace, never by the proxy */
	CHECK_INT(netrules_decide(&rs, "localhost", 4173, &exact), NET_NOT_ALLOWED);
	rs.any = true;
	CHECK_INT(netrules_decide(&rs, "anything.org", 443, &exact), NET_ALLOWED);
	CHECK(!exact);
	CHECK_INT(netrules_decide(&rs, "evil.example.com", 443, &exact), NET_DENIED);
	/* one canonical form for every name (issue 36: "evil.test." and
	 * "EVIL.TEST." reached a denied host under network: true) */
	add(&rs, true, "Evil.Test.");
	add(&rs, true, "*.bad.test");
	const char *denied[] = {"evil.test",	     "evil.test.",	 "EVIL.TEST.",
				"Evil.Test",	     "x.bad.test.",	 "X.BAD.TEST",
				"evil.example.com.", "EVIL.example.COM."};
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
		if (netrules_decide(&rs, denied[i], 443, &exact) != NET_DENIED)
			fprintf(stderr, "%s was not denied\n", denied[i]);
		CHECK_INT(netrules_decide(&rs, denied[i], 443, &exact), NET_DENIED);
	}
	/* a name that is no ASCII host name matches no rule, network: true
	 * included: a client sends an IDN as its A-label (xn--) */
	CHECK_INT(netrules_decide(&rs, "\xc3\xa9vil.test", 443, &exact), NET_NOT_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "", 443, &exact), NET_NOT_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "a b.test", 443, &exact), NET_NOT_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "xn--vil-bpa.test", 443, &exact), NET_ALLOWED);
	rs.any = false;
	CHECK_INT(netrules_decide(&rs, "REGISTRY.npmjs.org.", 443, &exact), NET_ALLOWED);
	CHECK_INT(netrules_decide(&rs, "cdn.EXAMPLE.com.", 443, &exact), NET_ALLOWED);
	rs.any = true;
	struct netrules copy;
	netrules_copy(&copy, &rs);
	CHECK_INT(netrules_decide(&copy, "cdn.example.com", 443, &exact), NET_ALLOWED);
	netrules_clear(&copy);
	netrules_clear(&rs);
}

static void test_addresses(void)
{
	CHECK_INT(klass("93.184.216.34"), NET_PUBLIC);
	CHECK_INT(klass("2606:2800:220:1::"), NET_PUBLIC);
	const char *private[] = {"127.0.0.1",
				 "10.1.2.3",
				 "172.16.0.1",
				 "172.31.255.255",
				 "192.168.1.1",
				 "169.254.1.1",
				 "100.64.0.1",
				 "0.0.0.0",
				 "224.0.0.1",
				 "::1",
				 "::",
				 "fc00::1",
				 "fd12::1",
				 "fe80::1",
				 "::ffff:10.0.0.1",
				 "::ffff:127.0.0.1"};
	for (size_t i = 0; i < sizeof private / sizeof *private; i++) {
		if (klass(private[i]) != NET_PRIVATE)
			fprintf(stderr, "  %s is not private\n", private[i]);
		CHECK_INT(klass(private[i]), NET_PRIVATE);
	}
	CHECK_INT(klass("172.32.0.1"), NET_PUBLIC);
	CHECK_INT(klass("100.128.0.1"), NET_PUBLIC);
	CHECK_INT(klass("169.254.169.254"), NET_METADATA);
	CHECK_INT(klass("::ffff:169.254.169.254"), NET_METADATA);
	CHECK_INT(klass("fd00:ec2::254"), NET_METADATA);

	struct netrules rs = {0};
	add(&rs, false, "*.corp.example");
	add(&rs, false, "db.corp.example");
	add(&rs, false, "10.9.9.9");
	add(&rs, true, "93.184.216.34");
	struct strbuf why = STRBUF_INIT;
	struct sockaddr_storage a;
	a = addr("93.184.216.35");
	CHECK(netrules_address_ok(&rs, (struct sockaddr *)&a, false, &why));
	a = addr("93.184.216.34");
	CHECK(!netrules_address_ok(&rs, (struct sockaddr *)&a, true, &why));
	CHECK(strstr(why.buf, "denied by deny.network") != NULL);
	strbuf_reset(&why);
	/* rebinding: a wildcard's name resolving to a private address */
	a = addr("10.0.0.7");
	CHECK(!netrules_address_ok(&rs, (struct sockaddr *)&a, false, &why));
	CHECK(strstr(why.buf, "private address") != NULL);
	strbuf_reset(&why);
	CHECK(netrules_address_ok(&rs, (struct sockaddr *)&a, true, &why));
	a = addr("10.9.9.9");
	CHECK(netrules_address_ok(&rs, (struct sockaddr *)&a, false, &why));
	/* the metadata address needs itself listed, an exact name is not enough */
	a = addr("169.254.169.254");
	CHECK(!netrules_address_ok(&rs, (struct sockaddr *)&a, true, &why));
	CHECK(strstr(why.buf, "metadata") != NULL);
	strbuf_release(&why);
	netrules_clear(&rs);

	char *s = netrule_fix("example.com", 443);
	CHECK_STR(s, "example.com");
	free(s);
	s = netrule_fix("example.com", 8443);
	CHECK_STR(s, "example.com:8443");
	free(s);
	s = netrule_fix("2001:db8::1", 443);
	CHECK_STR(s, "[2001:db8::1]");
	free(s);
	s = net_target("2001:db8::1", 80);
	CHECK_STR(s, "[2001:db8::1]:80");
	free(s);
}

int main(void)
{
	test_grammar();
	test_decide();
	test_addresses();
	return check_finish("netrule");
}
