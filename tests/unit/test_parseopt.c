/* Unit tests for util/parseopt.c: the table's rows parsed as getopt_long
 * would (permuted, shortened, clustered), each type's checks, and the
 * usage printed from the rows. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "util/parseopt.h"

struct opts {
	bool force;
	int verbose, jobs, remote;
	enum report { REPORT_TEXT, REPORT_JSON, REPORT_SARIF, REPORT_NONE } report;
	const char *name;
	struct strvec filters;
	bool summarize;
	char *summary;
};

static int summarize_cb(const struct opt *row, const char *arg)
{
	struct opts *o = row->value;
	o->summarize = true;
	free(o->summary);
	o->summary = arg ? strdup(arg) : NULL;
	return 0;
}

static const char *const reports[] = {
    [REPORT_TEXT] = "text", [REPORT_JSON] = "json", [REPORT_SARIF] = "sarif", [REPORT_NONE] = NULL};
static const struct opt_usage usage = {"usage: t [options]\n\n", "  -- ARGS    theirs\n"};
/* what the last parse() printed on stderr */
static char last_err[8192];

/* Parses the words of line (split at spaces) with a fresh table. */
static int parse(const char *line, struct opts *o, struct strvec *ops, struct strvec *rest)
{
	struct opt rows[] = {
	    OPT_STRVEC('F', "filter", &o->filters, "PATTERN", "only PATTERN;\nrepeatable"),
	    OPT_BOOL(0, "force", &o->force, "ignore hits"),
	    OPT_COUNT('v', "verbose", &o->verbose, "say more"),
	    OPT_INT('j', "concurrency", &o->jobs, "N", 1, 4096, "tasks at once"),
	    OPT_SET_INT(0, "no-remote", &o->remote, 1, "no remote"),
	    OPT_SET_INT(0, "remote-only", &o->remote, 2, "remote only"),
	    OPT_ENUM(0, "report", &o->report, reports, "MODE", "text|json|sarif"),
	    OPT_STRING(0, "name-given-as-a-very-long-option", &o->name, "WHAT", "long"),
	    OPT_CALLBACK(0, "summarize", o, "FILE", true, summarize_cb, "write it"),
	    OPT_INT(0, "hidden", &o->jobs, "N", 1, 9, NULL),
	    OPT_HELP(),
	    OPT_END(),
	};
	struct strvec words = STRVEC_INIT;
	strvec_push(&words, "t");
	char *copy = strdup(line);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		strvec_push(&words, w);
	free(copy);
	capture_begin();
	int rc = parseopt((int)words.n, words.v, rows, &usage, ops, rest);
	snprintf(last_err, sizeof last_err, "%s", capture_end());
	strvec_clear(&words);
	return rc;
}

static void reset(struct opts *o, struct strvec *ops, struct strvec *rest)
{
	strvec_clear(&o->filters);
	free(o->summary);
	memset(o, 0, sizeof *o);
	strvec_clear(ops);
	strvec_clear(rest);
}

int main(void)
{
	struct opts o = {0};
	struct strvec ops = STRVEC_INIT, rest = STRVEC_INIT;

	/* permuted: options after the operands; -- keeps the rest apart */
	CHECK_INT(parse("build -F a --force test -vv -F b -- --force x", &o, &ops, &rest), 0);
	CHECK_INT(ops.n, 2);
	CHECK_STR(ops.v[0], "build");
	CHECK_STR(ops.v[1], "test");
	CHECK_INT(rest.n, 2);
	CHECK_STR(rest.v[0], "--force");
	CHECK_INT(o.filters.n, 2);
	CHECK_STR(o.filters.v[1], "b");
	CHECK(o.force);
	CHECK_INT(o.verbose, 2);
	reset(&o, &ops, &rest);

	/* a rest vector of NULL: what follows -- is operands, after the others */
	CHECK_INT(parse("a -- -b", &o, &ops, NULL), 0);
	CHECK_INT(ops.n, 2);
	CHECK_STR(ops.v[1], "-b");
	reset(&o, &ops, &rest);

	/* each spelling of an argument; a shortened long option */
	CHECK_INT(parse("-j4 --concurrency=7 --conc 9 --report json --summ", &o, &ops, &rest), 0);
	CHECK_INT(o.jobs, 9);
	CHECK_INT(o.report, REPORT_JSON);
	CHECK(o.summarize);
	CHECK(o.summary == NULL);
	CHECK_INT(parse("--summarize=out.json --no-remote", &o, &ops, &rest), 0);
	CHECK_STR(o.summary, "out.json");
	CHECK_INT(o.remote, 1);
	reset(&o, &ops, &rest);

	/* an optional argument is only ever --name=ARG */
	CHECK_INT(parse("--summarize out.json", &o, &ops, &rest), 0);
	CHECK(o.summary == NULL);
	CHECK_INT(ops.n, 1);
	reset(&o, &ops, &rest);

	/* errors: each a line naming the option, then the usage */
	capture_begin();
	struct opt rows[] = {OPT_INT('j', "concurrency", &o.jobs, "N", 1, 4096, "x"), OPT_END()};
	char *argv0[] = {"t", "-j0", NULL};
	CHECK_INT(parseopt(2, argv0, rows, &usage, &ops, &rest), -1);
	const char *err = capture_end();
	CHECK(strstr(err, "-j wants a number from 1 to 4096, not \"0\"") == NULL);
	CHECK(strstr(err, "--concurrency wants a number from 1 to 4096, not \"0\"") != NULL);
	reset(&o, &ops, &rest);
	CHECK_INT(parse("-j many", &o, &ops, &rest), -1);
	CHECK_INT(parse("-j 99999999999999999999", &o, &ops, &rest), -1);
	CHECK_INT(parse("--report yaml", &o, &ops, &rest), -1);
	CHECK_INT(parse("--nope", &o, &ops, &rest), -1);
	CHECK_INT(parse("-x", &o, &ops, &rest), -1);
	CHECK_INT(parse("--filter", &o, &ops, &rest), -1);
	CHECK_INT(parse("-j", &o, &ops, &rest), -1);
	CHECK_INT(parse("--force=yes", &o, &ops, &rest), -1);
	/* --no-remote and --name... share no prefix with --n alone: ambiguous */
	CHECK_INT(parse("--n", &o, &ops, &rest), -1);
	CHECK_INT(parse("--help", &o, &ops, &rest), 1);
	reset(&o, &ops, &rest);

	/* issue 56 item 2: an unknown option is three lines (the option, the
	 * closest known one, the usage line, where --help is), not the whole
	 * usage */
	CHECK_INT(parse("build --filtr a", &o, &ops, &rest), -1);
	CHECK_STR(last_err, "vx: unknown option --filtr (did you mean --filter?)\n"
			    "usage: t [options]\n"
			    "`t --help` lists every option.\n");
	CHECK_INT(parse("--repot=json", &o, &ops, &rest), -1);
	CHECK(strstr(last_err, "unknown option --repot (did you mean --report?)\n") != NULL);
	/* nothing near: where a task's own option goes, when there is a -- */
	CHECK_INT(parse("--frobnicate", &o, &ops, &rest), -1);
	CHECK(strstr(last_err, "vx: unknown option --frobnicate (a task's own options go after "
			       "\"--\")\n") == last_err);
	CHECK(strstr(last_err, "ignore hits") == NULL);
	CHECK_INT(parse("--frobnicate", &o, &ops, NULL), -1);
	CHECK(strstr(last_err, "vx: unknown option --frobnicate\n") == last_err);
	CHECK_INT(parse("-x", &o, &ops, &rest), -1);
	CHECK(strstr(last_err, "vx: unknown option -x\n") == last_err);
	CHECK(strstr(last_err, "ignore hits") == NULL);
	/* a shortened name that fits several: each named */
	CHECK_INT(parse("--n", &o, &ops, &rest), -1);
	CHECK(strstr(last_err, "vx: option --n is ambiguous: --no-remote or "
			       "--name-given-as-a-very-long-option\n") == last_err);
	CHECK_INT(parse("--force=yes", &o, &ops, &rest), -1);
	CHECK(strstr(last_err, "vx: option --force takes no argument\n") == last_err);
	CHECK_INT(parse("--forc=yes", &o, &ops, &rest), -1);
	CHECK(strstr(last_err, "vx: option --force takes no argument\n") == last_err);
	CHECK_INT(parse("--filter", &o, &ops, &rest), -1);
	CHECK(strstr(last_err, "vx: option --filter needs an argument\n") == last_err);
	CHECK(strstr(last_err, "repeatable") == NULL);
	reset(&o, &ops, &rest);

	/* the error lists every word */
	capture_begin();
	struct opt crow[] = {OPT_ENUM(0, "report", &o.report, reports, "MODE", "x"), OPT_END()};
	char *argv1[] = {"t", "--report=yaml", NULL};
	CHECK_INT(parseopt(2, argv1, crow, &usage, &ops, &rest), -1);
	err = capture_end();
	CHECK(strstr(err, "--report takes text, json or sarif, not \"yaml\"") != NULL);

	/* an enum row: the argument parsed once into the index; a bad one
	 * refused, the value left alone */
	enum shade { SHADE_LIGHT, SHADE_DARK, SHADE_NONE };
	static const char *const shades[] = {
	    [SHADE_LIGHT] = "light", [SHADE_DARK] = "dark", [SHADE_NONE] = NULL};
	enum shade shade = SHADE_NONE;
	struct opt erow[] = {OPT_ENUM(0, "shade", &shade, shades, "SHADE", "x"), OPT_END()};
	char *argv2[] = {"t", "--shade=dark", NULL};
	CHECK_INT(parseopt(2, argv2, erow, &usage, &ops, &rest), 0);
	CHECK_INT(shade, SHADE_DARK);
	char *argv3[] = {"t", "--shade", "light", NULL};
	CHECK_INT(parseopt(3, argv3, erow, &usage, &ops, &rest), 0);
	CHECK_INT(shade, SHADE_LIGHT);
	capture_begin();
	char *argv4[] = {"t", "--shade=grey", NULL};
	CHECK_INT(parseopt(2, argv4, erow, &usage, &ops, &rest), -1);
	err = capture_end();
	CHECK(strstr(err, "vx: --shade takes light or dark, not \"grey\"\n") != NULL);
	CHECK_INT(shade, SHADE_LIGHT);

	/* the usage, from the rows: aligned at one column, continued lines
	 * under the first, a long left part given two spaces, hidden rows
	 * left out */
	struct opt urows[] = {
	    OPT_STRVEC('F', "filter", &o.filters, "PATTERN", "only PATTERN;\nrepeatable"),
	    OPT_BOOL(0, "force", &o.force, "ignore hits"),
	    OPT_CALLBACK(0, "summarize", &o, "FILE", true, summarize_cb, "write it"),
	    OPT_STRING(0, "name-given-as-a-very-long-option", &o.name, "WHAT", "long"),
	    OPT_COUNT('v', NULL, &o.verbose, "say more"),
	    OPT_INT(0, "hidden", &o.jobs, "N", 1, 9, NULL),
	    OPT_END(),
	};
	FILE *f = tmpfile();
	parseopt_usage(urows, &usage, f);
	rewind(f);
	char buf[2048];
	size_t len = fread(buf, 1, sizeof buf - 1, f);
	buf[len] = 0;
	fclose(f);
	CHECK_STR(buf, "usage: t [options]\n\n"
		       "  -F, --filter PATTERN   only PATTERN;\n"
		       "                         repeatable\n"
		       "      --force            ignore hits\n"
		       "      --summarize[=FILE] write it\n"
		       "      --name-given-as-a-very-long-option WHAT  long\n"
		       "  -v                     say more\n"
		       "  -- ARGS    theirs\n");
	reset(&o, &ops, &rest);
	return check_finish("parseopt");
}
