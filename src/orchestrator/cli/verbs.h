/* verbs.h - vx's verbs, one row each: main.c runs a command line by the
 * rows and prints `vx help` from them, and `vx completion` completes from
 * them and from each verb's option rows (util/parseopt.h), so a verb or
 * an option cannot be run and left out of either. */
#ifndef VX_CLI_VERBS_H
#define VX_CLI_VERBS_H

#include <stddef.h>
#include <stdio.h>

struct opt;

/* What a verb's operands name, for completion. */
enum verb_operands {
	OPERANDS_NONE,
	OPERANDS_TASKS,	   /* TASK or PROJECT#TASK of the workspace at hand */
	OPERANDS_PACKAGES, /* its packages (projects) */
	OPERANDS_WORDS,	   /* one of .words */
};

struct verb {
	const char *name;     /* NULL ends a table */
	const char *synopsis; /* what follows the name in the usage ("TASK... [options]") */
	const char *summary; /* what it does, in a line; NULL: hidden (not listed, not completed) */
	/* argv[0] is the verb; returns the exit status. NULL: .subs name what runs */
	int (*main)(int argc, char **argv);
	/* its options' rows, bound to a zeroed scratch of .opts_size bytes the
	 * caller owns, malloc'd; NULL: none but --help */
	struct opt *(*rows)(void *opts);
	size_t opts_size;
	enum verb_operands operands;
	const char *const *words; /* OPERANDS_WORDS's, NULL-terminated */
	const struct verb *subs;  /* its own verbs (vx cache stats), or NULL */
};

/* vx's verbs, in the order `vx help` lists them. */
const struct verb *verbs_table(void);

/* Returns the verb of table named name, or NULL. */
const struct verb *verb_find(const struct verb *table, const char *name);

/* Runs v (argv[0] its name; path: the words before it, "vx" or "vx
 * sandbox"): its main, or the one of its subs argv[1] names; with none
 * named, the subs' usage (on stdout for --help, and 0; else on stderr,
 * and 2). Returns the exit status. */
int verb_run(const struct verb *v, const char *path, int argc, char **argv);

/* For a word that is a Turborepo verb vx lacks (gen, query, login, link,
 * telemetry, ...) and no task of the workspace: says what vx does instead
 * and returns 2. Returns -1 for any other word (a task's name included). */
int verbs_turbo_only(const char *word);

/* Prints vx's usage: every listed verb, the rest of the command line and
 * what the exit status says. */
void verbs_help(FILE *out);

/* Prints "  PATH NAME SYNOPSIS   SUMMARY" for each listed verb of table,
 * its subs' lines in its place. */
void verbs_usage(const struct verb *table, const char *path, FILE *out);

#endif
