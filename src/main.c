/* main.c - argv to verb. Every verb takes -C DIR before or after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/cli/verbs.h"
#include "orchestrator/run/run.h"
#include "sandbox/netd.h"
#include "util/die.h"
#include "util/spawn.h"

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
		verbs_help(stderr);
		return 2;
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "--version"))
		verb = "version";
	else if (!strcmp(verb, "--help") || !strcmp(verb, "-h"))
		verb = "help";
	const struct verb *v = verb_find(verbs_table(), verb);
	if (v)
		return verb_run(v, "vx", argc - 1, argv + 1);
	int rc = verbs_turbo_only(verb);
	if (rc >= 0)
		return rc;
	/* `vx build` is `vx run build`, as `turbo build` is `turbo run build`
	 * (issue 42): a word that is no verb names tasks, and an option before
	 * them is vx run's (`turbo --filter=web build`); vx run's parser names
	 * one it does not know */
	return run_main(argc, argv);
}
