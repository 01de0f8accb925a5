/* fuzz_strace.c - libFuzzer target for violations/strace.c. The input is a
 * log; its first byte seeds the chunk sizes it is fed in, so partial lines
 * are buffered at every possible cut. The parser must never crash or leak,
 * and every event it keeps must obey the header: a resolved path is
 * absolute and lexically normalized (a connect's peer is ADDR:PORT), and
 * the counters agree. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "violations/strace.h"

static bool normalized(const char *p)
{
	if (p[0] != '/')
		return false;
	if (!strcmp(p, "/"))
		return true;
	for (const char *s = p; *s; s++) {
		if (*s != '/')
			continue;
		const char *n = s + 1;
		if (*n == '\0' || *n == '/')
			return false; /* trailing or doubled slash */
		if (n[0] == '.' && (n[1] == '/' || n[1] == '\0'))
			return false;
		if (n[0] == '.' && n[1] == '.' && (n[2] == '/' || n[2] == '\0'))
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	unsigned seed = data[0];
	data++;
	size--;
	struct strace_parser *p = strace_parser_new("/ws/app", seed & 1 ? 100 : 0);
	for (size_t off = 0; off < size;) {
		seed = seed * 1103515245u + 12345u;
		size_t k = 1 + (seed >> 16) % 64;
		if (k > size - off)
			k = size - off;
		strace_parser_feed(p, (const char *)data + off, k);
		off += k;
	}
	strace_parser_finish(p);
	size_t n;
	const struct access_event *ev = strace_parser_events(p, &n);
	const struct strace_summary *sum = strace_parser_summary(p);
	if (sum->skipped > sum->lines || n > sum->events)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (!ev[i].path || !ev[i].syscall || (unsigned)ev[i].op >= ACCESS_OP_COUNT)
			abort();
		/* a connect's peer is "ADDR:PORT" or "[ADDR6]:PORT", not a path */
		bool peer = ev[i].op == ACCESS_CONNECT && !ev[i].unresolved && ev[i].path[0] != '/';
		if (peer &&
		    (!strrchr(ev[i].path, ':') ||
		     strspn(ev[i].path, "0123456789abcdefABCDEF.:[]") != strlen(ev[i].path)))
			abort();
		/* a lookup's name: lower-case labels of [a-z0-9_-], dotted */
		bool name = ev[i].op == ACCESS_LOOKUP;
		if (name && (!*ev[i].path || strlen(ev[i].path) > 253 || ev[i].path[0] == '.' ||
			     strstr(ev[i].path, "..") ||
			     strspn(ev[i].path, "abcdefghijklmnopqrstuvwxyz0123456789-_.") !=
				 strlen(ev[i].path)))
			abort();
		if (!peer && !name && !ev[i].unresolved && !normalized(ev[i].path))
			abort();
		if (strcmp(access_op_name(ev[i].op), "?") == 0)
			abort();
		/* -y's kernel path: an open's only, absolute and normalized */
		if (ev[i].real && (!normalized(ev[i].real) || ev[i].err ||
				   (ev[i].op != ACCESS_READ && ev[i].op != ACCESS_WRITE)))
			abort();
	}
	strace_parser_free(p);
	return 0;
}
