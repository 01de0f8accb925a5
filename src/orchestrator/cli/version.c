/* version.c - `vx version`: which vx this is, and what it can do before it
 * looks at the machine (`vx info` says what the machine gives it). The
 * commit and the build come from cmake/version.cmake. */
#include "orchestrator/cli/version.h"

#include <stdio.h>
#include <string.h>

#include "cache/crypto_lib.h"
#include "cache/curl_lib.h"
#include "util/die.h"

#ifndef VX_COMMIT
#define VX_COMMIT "unknown"
#endif
#ifndef VX_BUILD
#define VX_BUILD "unknown"
#endif
#ifndef VX_SANITIZERS
#define VX_SANITIZERS ""
#endif

int version_main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: vx version\n\nThe version of vx, the commit it was built from, the "
		     "build and its features.");
		return 0;
	}
	if (argc > 1) {
		error("vx version: unexpected \"%s\"", argv[1]);
		return 2;
	}
	printf("vx %s\ncommit: %s\nbuild: %s\nfeatures:", VX_VERSION, VX_COMMIT, VX_BUILD);
	/* the tools themselves are found on PATH when a task asks for them */
#if defined(__linux__)
	printf(" linux-sandbox (bwrap, strace),");
#elif defined(__APPLE__)
	printf(" seatbelt (sandbox-exec),");
#endif
	/* never linked (curl_lib.h: 3.3 ms on every process) */
	printf(" remote-cache (" CURL_SONAME " and " CRYPTO_SONAME ", opened at first use)");
	if (*VX_SANITIZERS)
		printf(", sanitizers (%s)", VX_SANITIZERS);
	printf("\n");
	return 0;
}
