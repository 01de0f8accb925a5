/* main.c - argv to verb. Every verb takes -C DIR before or after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cache_cmd.h"
#include "cli/info.h"
#include "cli/ls.h"
#include "cli/prune.h"
#include "run/run.h"
#include "cli/sandbox_learn.h"
#include "cli/sandbox_show.h"
#include "cli/version.h"
#include "watch/watch.h"
#include "sandbox/netd.h"
#include "util/die.h"
#include "util/spawn.h"

static const char USAGE[] =
    "usage: vx [-C DIR] VERB [options]\n"
    "\n"
    "  run TASK... [options] [-- ARGS]   run tasks and their dependencies\n"
    "  watch TASK... [options]           run, then run again through the cache on each change\n"
    "  graph TASK... [--format dot|json] the task graph, without running anything\n"
    "  info                              platform, sandbox and tracer availability\n"
    "  ls [PACKAGE...] [options]         the packages, or what one runs and depends on\n"
    "  prune PACKAGE... [--docker]       the part of the workspace PACKAGEs need, lockfile cut "
    "down\n"
    "  cache stats|clean|prune           the local cache: size and entries; remove all; evict to "
    "maxSize\n"
    "  sandbox show TASK                 the exact bwrap argv a sandboxed task would run under\n"
    "  sandbox learn TASK... [options]   turn the sandbox on: run traced, write what tasks need\n"
    "  version                           the version of vx, its commit, build and features\n"
    "  TASK... [options]                 vx run TASK..., as turbo TASK is turbo run TASK\n"
    "\n"
    "`vx VERB --help` describes each verb.\n";

/* Removes every "-C DIR" (and "-CDIR") from argv and enters each DIR in turn,
 * as git and make do. Returns the new argc. */
static int take_dir_options(int argc, char **argv)
{
	int out = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		const char *dir = NULL;
		if (!strcmp(argv[i], "-C")) {
			if (i + 1 >= argc)
				die("-C needs a directory");
			dir = argv[++i];
		} else if (!strncmp(argv[i], "-C", 2)) {
			dir = argv[i] + 2;
		}
		if (dir) {
			if (chdir(dir))
				die_errno("cannot enter %s", dir);
			continue;
		}
		argv[out++] = argv[i];
	}
	argv[out] = NULL;
	return out;
}

int main(int argc, char **argv)
{
	/* Inside a sandbox, as a task's network helper: before anything
	 * seals the descriptors the task's command must inherit (fd 3). */
	if (argc > 1 && !strcmp(argv[1], "__netd"))
		return netd_main(argc - 1, argv + 1);
	if (spawn_seal_inherited()) {
		error_errno("cannot mark inherited descriptors close-on-exec");
		return 2;
	}
	argc = take_dir_options(argc, argv);
	if (argc < 2) {
		fputs(USAGE, stderr);
		return 2;
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "run"))
		return run_main(argc - 1, argv + 1);
	if (!strcmp(verb, "graph"))
		return graph_main(argc - 1, argv + 1);
	if (!strcmp(verb, "info"))
		return info_main(argc - 1, argv + 1);
	if (!strcmp(verb, "version") || !strcmp(verb, "--version"))
		return version_main(argc - 1, argv + 1);
	if (!strcmp(verb, "help") || !strcmp(verb, "--help") || !strcmp(verb, "-h")) {
		fputs(USAGE, stdout);
		return 0;
	}
	if (!strcmp(verb, "cache"))
		return cache_main(argc - 1, argv + 1);
	if (!strcmp(verb, "ls"))
		return ls_main(argc - 1, argv + 1);
	if (!strcmp(verb, "prune"))
		return prune_main(argc - 1, argv + 1);
	if (!strcmp(verb, "sandbox") && argc > 2 && !strcmp(argv[2], "learn"))
		return sandbox_learn_main(argc - 2, argv + 2);
	if (!strcmp(verb, "sandbox"))
		return sandbox_show_main(argc - 1, argv + 1);
	if (!strcmp(verb, "watch"))
		return watch_main(argc - 1, argv + 1);
	/* `vx build` is `vx run build`, as `turbo build` is `turbo run build`
	 * (issue 42): a word that is no verb names tasks */
	if (verb[0] != '-')
		return run_main(argc, argv);
	error("unknown verb \"%s\"", verb);
	fputs(USAGE, stderr);
	return 2;
}
