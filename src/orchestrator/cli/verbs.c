/* verbs.c - the table of vx's verbs (verbs.h). */
#include "orchestrator/cli/verbs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/cli/boundaries.h"
#include "orchestrator/cli/cache_cmd.h"
#include "orchestrator/cli/completion.h"
#include "orchestrator/cli/info.h"
#include "orchestrator/cli/ls.h"
#include "orchestrator/cli/prune.h"
#include "orchestrator/cli/sandbox_learn.h"
#include "orchestrator/cli/sandbox_show.h"
#include "orchestrator/cli/version.h"
#include "orchestrator/run/run.h"
#include "orchestrator/run/runopts.h"
#include "util/die.h"
#include "util/parseopt.h"
#include "util/strbuf.h"
#include "orchestrator/watch/watch.h"

/* Each verb's rows on its scratch: the option struct its parser fills. */
static struct opt *run_rows(void *o)
{
	return run_opts_rows(o, false);
}

static struct opt *graph_rows(void *o)
{
	return run_opts_rows(o, true);
}

/* vx watch's own, then vx run's (watch hands them on) */
struct watch_scratch {
	bool interrupt;
	struct run_opts run;
};

static struct opt *watch_rows(void *o)
{
	struct watch_scratch *w = o;
	return parseopt_join(watch_opts_rows(&w->interrupt), run_opts_rows(&w->run, false));
}

static struct opt *ls_rows(void *o)
{
	return ls_opts_rows(o);
}

static struct opt *boundaries_rows(void *o)
{
	return boundaries_opts_rows(o);
}

static struct opt *prune_rows(void *o)
{
	return prune_opts_rows(o);
}

static struct opt *cache_rows(void *o)
{
	return cache_opts_rows(o, false);
}

static struct opt *cache_prune_rows(void *o)
{
	return cache_opts_rows(o, true);
}

static struct opt *show_rows(void *o)
{
	return sandbox_show_rows(o);
}

static const struct verb cache_verbs[] = {
    {.name = "stats",
     .synopsis = "",
     .summary = "the local cache's size, entries and hit rate",
     .main = cache_main,
     .rows = cache_rows,
     .opts_size = sizeof(struct cache_opts)},
    {.name = "clean",
     .synopsis = "",
     .summary = "remove every entry",
     .main = cache_main,
     .rows = cache_rows,
     .opts_size = sizeof(struct cache_opts)},
    {.name = "prune",
     .synopsis = "[--max-size SIZE]",
     .summary = "evict least recently used entries to maxSize",
     .main = cache_main,
     .rows = cache_prune_rows,
     .opts_size = sizeof(struct cache_opts)},
    {.name = NULL},
};

static const struct verb sandbox_verbs[] = {
    {.name = "show",
     .synopsis = "TASK [--platform linux|darwin]",
     .summary = "the exact bwrap argv a sandboxed task would run under",
     .main = sandbox_show_main,
     .rows = show_rows,
     .opts_size = sizeof(struct sandbox_show_opts),
     .operands = OPERANDS_TASKS},
    /* learn takes vx run's options (it runs vx run) */
    {.name = "learn",
     .synopsis = "TASK... [options]",
     .summary = "turn the sandbox on: run traced, write what tasks need",
     .main = sandbox_learn_main,
     .rows = run_rows,
     .opts_size = sizeof(struct run_opts),
     .operands = OPERANDS_TASKS},
    {.name = NULL},
};

static const char *const shells[] = {"bash", "zsh", "fish", NULL};

static int help_main(int argc, char **argv);

static const struct verb verbs[] = {
    {.name = "run",
     .synopsis = "TASK... [options] [-- ARGS]",
     .summary = "run tasks and their dependencies",
     .main = run_main,
     .rows = run_rows,
     .opts_size = sizeof(struct run_opts),
     .operands = OPERANDS_TASKS},
    {.name = "watch",
     .synopsis = "TASK... [options]",
     .summary = "run, then run again through the cache on each change",
     .main = watch_main,
     .rows = watch_rows,
     .opts_size = sizeof(struct watch_scratch),
     .operands = OPERANDS_TASKS},
    {.name = "graph",
     .synopsis = "TASK... [--format dot|json]",
     .summary = "the task graph, without running anything",
     .main = graph_main,
     .rows = graph_rows,
     .opts_size = sizeof(struct run_opts),
     .operands = OPERANDS_TASKS},
    {.name = "info",
     .synopsis = "",
     .summary = "platform, sandbox and tracer availability",
     .main = info_main},
    {.name = "ls",
     .synopsis = "[PACKAGE...] [options]",
     .summary = "the packages, or what one runs and depends on",
     .main = ls_main,
     .rows = ls_rows,
     .opts_size = sizeof(struct ls_opts),
     .operands = OPERANDS_PACKAGES},
    {.name = "prune",
     .synopsis = "PACKAGE... [--docker]",
     .summary = "the part of the workspace PACKAGEs need, lockfile cut down",
     .main = prune_main,
     .rows = prune_rows,
     .opts_size = sizeof(struct prune_opts),
     .operands = OPERANDS_PACKAGES},
    {.name = "boundaries",
     .synopsis = "[--filter P] [--report MODE]",
     .summary = "undeclared imports and reads of other packages",
     .main = boundaries_main,
     .rows = boundaries_rows,
     .opts_size = sizeof(struct boundaries_opts)},
    {.name = "cache", .summary = "the local cache", .subs = cache_verbs},
    {.name = "sandbox", .summary = "the sandbox", .subs = sandbox_verbs},
    {.name = "version",
     .synopsis = "",
     .summary = "the version of vx, its commit, build and features",
     .main = version_main},
    {.name = "completion",
     .synopsis = "bash|zsh|fish",
     .summary = "the shell's completion script",
     .main = completion_main,
     .operands = OPERANDS_WORDS,
     .words = shells},
    {.name = "help", .synopsis = "", .main = help_main},
    /* the completion scripts' question: the workspace's task and package names */
    {.name = "__complete", .synopsis = "tasks|ids|packages", .main = complete_main},
    {.name = NULL},
};

const struct verb *verbs_table(void)
{
	return verbs;
}

void verbs_help(FILE *out)
{
	fputs("usage: vx [-C DIR] VERB [options]\n\n", out);
	verbs_usage(verbs, "", out);
	fputs(
	    "  TASK... [options]                 vx run TASK..., as turbo TASK is turbo run TASK\n"
	    "\n"
	    "`vx VERB --help` describes each verb.\n",
	    out);
}

static int help_main(int argc, char **argv)
{
	verbs_help(stdout);
	return 0;
}

const struct verb *verb_find(const struct verb *table, const char *name)
{
	for (const struct verb *v = table; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

/* The column a summary starts at. */
#define SUMMARY_COLUMN 36

static void usage_lines(const struct verb *table, const char *path, struct strbuf *sb)
{
	for (const struct verb *v = table; v->name; v++) {
		if (!v->summary)
			continue;
		char *here = xasprintf("%s%s%s", path, *path ? " " : "", v->name);
		if (v->subs) {
			usage_lines(v->subs, here, sb);
			free(here);
			continue;
		}
		size_t start = sb->len;
		strbuf_addf(sb, "  %s%s%s", here, *v->synopsis ? " " : "", v->synopsis);
		size_t width = sb->len - start;
		/* a long synopsis has its summary on the next line */
		if (width < SUMMARY_COLUMN)
			strbuf_addf(sb, "%*s", (int)(SUMMARY_COLUMN - width), "");
		else
			strbuf_addf(sb, "\n%*s", SUMMARY_COLUMN, "");
		strbuf_addf(sb, "%s\n", v->summary);
		free(here);
	}
}

void verbs_usage(const struct verb *table, const char *path, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	usage_lines(table, path, &sb);
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

int verb_run(const struct verb *v, const char *path, int argc, char **argv)
{
	if (!v->subs)
		return v->main(argc, argv);
	const struct verb *sub = argc > 1 ? verb_find(v->subs, argv[1]) : NULL;
	char *here = xasprintf("%s %s", path, v->name);
	int rc;
	if (sub) {
		rc = verb_run(sub, here, argc - 1, argv + 1);
	} else {
		bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
		if (argc > 1 && !help)
			error("%s: unknown command \"%s\"", here, argv[1]);
		FILE *out = help ? stdout : stderr;
		fprintf(out, "usage:\n");
		verbs_usage(v->subs, here, out);
		fprintf(out, "\n`%s VERB --help` describes each.\n", here);
		rc = help ? 0 : 2;
	}
	free(here);
	return rc;
}
