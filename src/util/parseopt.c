/* parseopt.c - the option table's parser and usage (parseopt.h): the rows
 * become getopt_long's optstring and longopts, and each answer is the row
 * it names. */
#include "util/parseopt.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "util/closest.h"
#include "util/die.h"
#include "util/strbuf.h"

/* The column a help starts at, as the usage texts of git and GNU do. */
#define HELP_COLUMN 25

static size_t rows_count(const struct opt *rows)
{
	size_t n = 0;
	while (rows[n].type != OPTION_END)
		n++;
	return n;
}

/* "--name" or "-c", for messages. */
static void row_name(const struct opt *row, struct strbuf *sb)
{
	if (row->long_name)
		strbuf_addf(sb, "--%s", row->long_name);
	else
		strbuf_addf(sb, "-%c", row->short_name);
}

bool parseopt_takes_arg(const struct opt *row)
{
	switch (row->type) {
	case OPTION_STRING:
	case OPTION_STRVEC:
	case OPTION_INT:
	case OPTION_ENUM:
		return true;
	case OPTION_CALLBACK:
		return row->argh != NULL;
	default:
		return false;
	}
}

const char *const parseopt_bools[] = {
    [OPT_TRUE] = "true", [OPT_FALSE] = "false", [OPT_UNSET] = NULL};

/* "a, b or c" */
static void choices_list(const char *const *c, struct strbuf *sb)
{
	for (size_t k = 0; c[k]; k++)
		strbuf_addf(sb, "%s%s", k == 0 ? "" : c[k + 1] ? ", " : " or ", c[k]);
}

/* Sets what row names from arg. Returns 0, or -1 after an error line. */
static int row_apply(const struct opt *row, const char *arg)
{
	struct strbuf name = STRBUF_INIT;
	int rc = 0;
	switch (row->type) {
	case OPTION_BOOL:
		*(bool *)row->value = true;
		break;
	case OPTION_SET_INT:
		*(int *)row->value = row->num;
		break;
	case OPTION_COUNT:
		(*(int *)row->value)++;
		break;
	case OPTION_STRING:
		*(const char **)row->value = arg;
		break;
	case OPTION_STRVEC:
		strvec_push(row->value, arg);
		break;
	case OPTION_INT: {
		char *end;
		errno = 0;
		long n = strtol(arg, &end, 10);
		if (!*arg || *end || errno || n < row->min || n > row->max) {
			row_name(row, &name);
			rc = error("%s wants a number from %d to %d, not \"%s\"", name.buf,
				   row->min, row->max, arg);
			break;
		}
		*(int *)row->value = (int)n;
		break;
	}
	case OPTION_ENUM: {
		size_t k = 0;
		while (row->choices[k] && strcmp(row->choices[k], arg))
			k++;
		if (row->choices[k]) {
			*(int *)row->value = (int)k;
			break;
		}
		row_name(row, &name);
		strbuf_addstr(&name, " takes ");
		choices_list(row->choices, &name);
		rc = error("%s, not \"%s\"", name.buf, arg);
		break;
	}
	case OPTION_CALLBACK:
		rc = row->cb(row, arg);
		break;
	case OPTION_END:
	case OPTION_HELP:
		break;
	}
	strbuf_release(&name);
	return rc;
}

/* Says what is wrong with word, a "--name[=ARG]" getopt_long refused: a
 * prefix of several names, an argument given to a row that takes none, or
 * a name no row has (with the closest one; else, when "--" hands the rest
 * on (rest), where an option of the tasks' goes). Returns -1. */
static int bad_long_option(const struct opt *rows, const char *word, bool rest)
{
	const char *name = word + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	struct strvec fits = STRVEC_INIT;
	const struct opt *exact = NULL, *fit = NULL;
	for (const struct opt *r = rows; r->type != OPTION_END; r++) {
		if (!r->long_name || strncmp(r->long_name, name, len))
			continue;
		if (!r->long_name[len])
			exact = r;
		fit = r;
		strvec_pushf(&fits, "--%s", r->long_name);
	}
	struct strbuf sb = STRBUF_INIT;
	int rc;
	if (exact || fits.n == 1) {
		rc = error("option --%s takes no argument", (exact ? exact : fit)->long_name);
	} else if (fits.n > 1) {
		strbuf_addf(&sb, "option --%.*s is ambiguous: ", (int)len, name);
		choices_list((const char *const *)fits.v, &sb);
		rc = error("%s", sb.buf);
	} else {
		size_t n = rows_count(rows);
		const char **names = xcalloc(n + 1, sizeof *names);
		for (size_t i = 0; i < n; i++)
			names[i] =
			    rows[i].help || rows[i].type == OPTION_HELP ? rows[i].long_name : NULL;
		char *typed = xstrndup(name, len);
		const char *near = closest_name(typed, names, n);
		if (near)
			strbuf_addf(&sb, " (did you mean --%s?)", near);
		else if (rest)
			strbuf_addstr(&sb, " (a task's own options go after \"--\")");
		rc = error("unknown option --%s%s", typed, sb.buf);
		free(typed);
		free(names);
	}
	strbuf_release(&sb);
	strvec_clear(&fits);
	return rc;
}

/* Not the whole usage after an error: `vx run build --frobnicate` printed
 * 60 lines, the error line first and out of sight (issue 56 item 2); git
 * and clap print the line, the usage line and where --help is. */
void parseopt_usage_hint(const struct opt_usage *usage, FILE *out)
{
	const char *head = usage->head ? usage->head : "";
	size_t line = strcspn(head, "\n");
	if (strncmp(head, "usage: ", 7) || line <= 7) {
		fputs("`--help` lists every option.\n", out);
		return;
	}
	struct strbuf cmd = STRBUF_INIT;
	for (const char *w = head + 7; w < head + line;) {
		size_t wl = strcspn(w, " \n");
		if (strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789-_") < wl || !wl)
			break;
		strbuf_addf(&cmd, "%s%.*s", cmd.len ? " " : "", (int)wl, w);
		w += wl + (w[wl] == ' ');
	}
	fprintf(out, "%.*s\n`%s --help` lists every option.\n", (int)line, head, cmd.buf);
	strbuf_release(&cmd);
}

int parseopt(int argc, char **argv, const struct opt *rows, const struct opt_usage *usage,
	     struct strvec *operands, struct strvec *rest)
{
	size_t n = rows_count(rows);
	/* ':' first: a missing argument is told from an unknown option */
	struct strbuf shorts = STRBUF_INIT;
	strbuf_addch(&shorts, ':');
	struct option *longs = xcalloc(n + 1, sizeof *longs);
	size_t nl = 0;
	for (size_t i = 0; i < n; i++) {
		const struct opt *r = &rows[i];
		int has = !parseopt_takes_arg(r) ? no_argument
			  : r->optional_arg	 ? optional_argument
						 : required_argument;
		if (r->short_name) {
			strbuf_addch(&shorts, (char)r->short_name);
			if (has != no_argument)
				strbuf_addstr(&shorts, has == optional_argument ? "::" : ":");
		}
		if (r->long_name)
			longs[nl++] = (struct option){r->long_name, has, NULL, 256 + (int)i};
	}
	/* What follows "--" is not vx's: the tasks' ARGS, or operands. */
	int end = argc;
	struct strvec after = STRVEC_INIT;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			end = i;
			for (int k = i + 1; k < argc; k++)
				strvec_push(&after, argv[k]);
			break;
		}
		/* getopt keeps where it was inside an argument across calls: 0 makes
		 * glibc start afresh (1 left a stale position from an earlier
		 * parse's error, and test_parseopt failed one run in twenty); BSD
		 * libcs have optreset for it */
#ifdef __GLIBC__
	optind = 0;
#else
	optreset = 1;
	optind = 1;
#endif
	opterr = 0;
	int c, rc = 0;
	while (!rc && (c = getopt_long(end, argv, shorts.buf, longs, NULL)) != -1) {
		if (c == ':' || c == '?') {
			const char *word = argv[optind - 1];
			if (optopt && optopt < 256)
				rc = error(c == ':' ? "option -%c needs an argument"
						    : "unknown option -%c",
					   optopt);
			else if (c == ':')
				rc = error("option %s needs an argument", word);
			else
				rc = bad_long_option(rows, word, rest != NULL);
			parseopt_usage_hint(usage, stderr);
			break;
		}
		const struct opt *row = c >= 256 ? &rows[c - 256] : NULL;
		for (size_t i = 0; i < n && !row; i++)
			if (rows[i].short_name == c)
				row = &rows[i];
		if (row->type == OPTION_HELP) {
			parseopt_usage(rows, usage, stdout);
			rc = 1;
			break;
		}
		rc = row_apply(row, optarg);
	}
	for (int i = optind; i < end && !rc; i++)
		strvec_push(operands, argv[i]);
	strvec_extend(rest ? rest : operands, &after);
	strvec_clear(&after);
	free(longs);
	strbuf_release(&shorts);
	return rc;
}

void parseopt_usage(const struct opt *rows, const struct opt_usage *usage, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	if (usage->head)
		strbuf_addstr(&sb, usage->head);
	for (const struct opt *r = rows; r->type != OPTION_END; r++) {
		if (!r->help)
			continue;
		size_t start = sb.len;
		strbuf_addstr(&sb, "  ");
		if (r->short_name && r->long_name)
			strbuf_addf(&sb, "-%c, --%s", r->short_name, r->long_name);
		else if (r->short_name)
			strbuf_addf(&sb, "-%c", r->short_name);
		else
			strbuf_addf(&sb, "    --%s", r->long_name);
		if (r->argh)
			strbuf_addf(&sb, r->optional_arg ? "[=%s]" : " %s", r->argh);
		size_t width = sb.len - start;
		if (width < HELP_COLUMN)
			strbuf_addf(&sb, "%*s", (int)(HELP_COLUMN - width), "");
		else
			strbuf_addstr(&sb, "  ");
		/* each further line of the help under the first */
		for (const char *h = r->help; *h;) {
			const char *nl = strchr(h, '\n');
			size_t len = nl ? (size_t)(nl - h) : strlen(h);
			strbuf_add(&sb, h, len);
			strbuf_addch(&sb, '\n');
			h += len + (nl != NULL);
			if (*h)
				strbuf_addf(&sb, "%*s", HELP_COLUMN, "");
		}
	}
	if (usage->tail)
		strbuf_addstr(&sb, usage->tail);
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

struct opt *parseopt_copy(const struct opt *rows)
{
	size_t n = rows_count(rows) + 1;
	struct opt *copy = xcalloc(n, sizeof *copy);
	memcpy(copy, rows, n * sizeof *copy);
	return copy;
}

struct opt *parseopt_join(struct opt *a, struct opt *b)
{
	size_t na = rows_count(a), nb = rows_count(b), n = 0;
	bool help = false;
	struct opt *all = xcalloc(na + nb + 1, sizeof *all);
	for (size_t i = 0; i < na + nb; i++) {
		const struct opt *r = i < na ? &a[i] : &b[i - na];
		if (r->type == OPTION_HELP && help)
			continue;
		help = help || r->type == OPTION_HELP;
		all[n++] = *r;
	}
	all[n].type = OPTION_END;
	free(a);
	free(b);
	return all;
}

int parseopt_take(int argc, char **argv, const struct opt *rows)
{
	int out = 0, i = 0;
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		const struct opt *r = rows;
		while (r->type != OPTION_END &&
		       !(i > 0 && r->type == OPTION_BOOL && r->long_name && argv[i][0] == '-' &&
			 argv[i][1] == '-' && !strcmp(argv[i] + 2, r->long_name)))
			r++;
		if (r->type == OPTION_END)
			argv[out++] = argv[i];
		else
			*(bool *)r->value = true;
	}
	while (i < argc)
		argv[out++] = argv[i++];
	if (out < argc)
		argv[out] = NULL;
	return out;
}
