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
#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/run/run.h"
#include "orchestrator/run/runopts.h"
#include "util/closest.h"
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
     .synopsis = "TASK... [--format dot|json|text]",
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
	    "`vx VERB --help` describes each verb.\n"
	    "\n" RUN_EXIT_STATUS
	    "             3 (vx sandbox learn) lines were printed for a person to decide\n",
	    out);
}

/* Turborepo's verbs vx has no counterpart of, each with what vx offers
 * instead, from its code and docs: `vx login` ran as `vx run login` and
 * said no project has a task "login" (issue 56 item 2). */
static const char GEN_INSTEAD[] =
    "Turborepo's code generator (Plop's templates) has no vx counterpart;\n"
    "a generator a package.json script runs is a task like any other: `vx run SCRIPT`";
static const struct {
	const char *name, *instead;
} turbo_verbs[] = {
    {"gen", GEN_INSTEAD},
    {"generate", GEN_INSTEAD},
    {"query", "vx answers no GraphQL; the same facts come as JSON from `vx ls --output json`,\n"
	      "`vx ls PACKAGE --output json`, `vx graph TASK` and `vx run TASK --dry-run=json`"},
    {"login", "the remote cache's token is VX_REMOTE_CACHE_TOKEN (or --token, TURBO_TOKEN),\n"
	      "its URL and team VX_REMOTE_CACHE_URL and VX_REMOTE_CACHE_TEAM, or all three\n"
	      "workspace.cache.remote in vx.yaml (docs/remote-cache.md)"},
    {"logout", "vx keeps no login: each run reads the remote cache's token from --token,\n"
	       "VX_REMOTE_CACHE_TOKEN, workspace.cache.remote.token or TURBO_TOKEN; remove it "
	       "there"},
    {"link", "the remote cache's team is VX_REMOTE_CACHE_TEAM (or --team, TURBO_TEAM) or\n"
	     "workspace.cache.remote.team in vx.yaml, its URL VX_REMOTE_CACHE_URL or\n"
	     "workspace.cache.remote.url (docs/remote-cache.md)"},
    {"unlink", "the remote cache is off while no URL or token is set (VX_REMOTE_CACHE_URL,\n"
	       "VX_REMOTE_CACHE_TOKEN, TURBO_API, TURBO_TOKEN, workspace.cache.remote);\n"
	       "`vx run TASK --no-remote` runs without it"},
    {"telemetry", "vx collects no telemetry, so there is none to turn off; vx itself\n"
		  "connects only to the remote cache you configure"},
    {"daemon", "no vx process stays between runs (`vx watch` is the one that keeps running);\n"
	       "--daemon and --no-daemon are accepted and change nothing"},
};

/* Drops a line workspace_load reports: the workspace is only asked
 * whether it has a task. */
static void drop_line(const char *line, void *ctx)
{
	(void)line, (void)ctx;
}

int verbs_turbo_only(const char *word)
{
	size_t i = 0, n = sizeof turbo_verbs / sizeof *turbo_verbs;
	while (i < n && strcmp(turbo_verbs[i].name, word))
		i++;
	if (i == n)
		return -1;
	/* `vx gen` runs a workspace's task gen, as `vx build` runs build */
	report_to(drop_line, NULL);
	struct workspace *ws = workspace_load_here();
	report_to(NULL, NULL);
	bool task = ws && graph_workspace_has_task(ws, word);
	if (ws)
		workspace_free(ws);
	if (task)
		return -1;
	error("vx has no `%s`, and no project here has a task \"%s\":", word, word);
	for (const char *l = turbo_verbs[i].instead; *l;) {
		size_t len = strcspn(l, "\n");
		fprintf(stderr, "  %.*s\n", (int)len, l);
		l += len + (l[len] == '\n');
	}
	return 2;
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
		const char *names[16] = {0};
		size_t n = 0;
		for (const struct verb *w = v->subs; w->name && n < 16; w++)
			names[n++] = w->summary ? w->name : NULL;
		const char *near = argc > 1 ? closest_name(argv[1], names, n) : NULL;
		if (argc > 1 && !help)
			error("%s: unknown command \"%s\"%s%s%s", here, argv[1],
			      near ? " (did you mean \"" : "", near ? near : "",
			      near ? "\"?)" : "");
		FILE *out = help ? stdout : stderr;
		fprintf(out, "usage:\n");
		verbs_usage(v->subs, here, out);
		fprintf(out, "\n`%s VERB --help` describes each.\n", here);
		rc = help ? 0 : 2;
	}
	free(here);
	return rc;
}
