/* parseopt.h - a verb's options as one table row each, git's parse-options
 * cut to size: the row names the option, its argument, the field it sets
 * and its help, and the usage text is printed from the rows, so an option
 * cannot be parsed and left out of --help (or the other way round).
 *
 *	struct opt opts[] = {
 *		OPT_STRVEC('F', "filter", &o->filters, "PATTERN", "only projects matching PATTERN"),
 *		OPT_BOOL(0, "force", &o->force, "ignore cache hits"),
 *		OPT_END(),
 *	};
 *
 * Parsing is getopt_long's (GNU permutation: options may follow the
 * operands; a long option may be shortened while it stays unambiguous;
 * short options cluster), built from the rows. */
#ifndef VX_UTIL_PARSEOPT_H
#define VX_UTIL_PARSEOPT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/vec.h"

enum opt_type {
	OPTION_END,
	OPTION_BOOL,	 /* bool *value: set */
	OPTION_SET_INT,	 /* int *value: set to .num */
	OPTION_COUNT,	 /* int *value: one more each time (-v -v) */
	OPTION_STRING,	 /* const char **value: the argument, argv's own */
	OPTION_STRVEC,	 /* struct strvec *value: each argument pushed */
	OPTION_INT,	 /* int *value: a decimal number from .min to .max */
	OPTION_ENUM,	 /* int *value: the index in .choices of the argument */
	OPTION_CALLBACK, /* .cb(row, arg): 0, or -1 after an error line */
	OPTION_HELP,	 /* prints the usage on stdout: the parse returns 1 */
};

struct opt {
	enum opt_type type;
	int short_name;	       /* 0: none */
	const char *long_name; /* NULL: none */
	void *value;
	const char *argh;	    /* the argument's name in the usage; NULL: takes none */
	const char *help;	    /* its lines ('\n' between them); NULL: not in the usage */
	bool optional_arg;	    /* the argument is optional: --name=ARG or --name */
	int num, min, max;	    /* OPTION_SET_INT's value; OPTION_INT's bounds */
	const char *const *choices; /* OPTION_ENUM: NULL-terminated */
	int (*cb)(const struct opt *row, const char *arg); /* arg: NULL when absent */
};

#define OPT_END()                                                                                  \
	{                                                                                          \
		.type = OPTION_END                                                                 \
	}
#define OPT_BOOL(s, l, v, h)                                                                       \
	{                                                                                          \
		.type = OPTION_BOOL, .short_name = (s), .long_name = (l), .value = (v),            \
		.help = (h)                                                                        \
	}
#define OPT_SET_INT(s, l, v, n, h)                                                                 \
	{                                                                                          \
		.type = OPTION_SET_INT, .short_name = (s), .long_name = (l), .value = (v),         \
		.num = (n), .help = (h)                                                            \
	}
#define OPT_COUNT(s, l, v, h)                                                                      \
	{                                                                                          \
		.type = OPTION_COUNT, .short_name = (s), .long_name = (l), .value = (v),           \
		.help = (h)                                                                        \
	}
#define OPT_STRING(s, l, v, a, h)                                                                  \
	{                                                                                          \
		.type = OPTION_STRING, .short_name = (s), .long_name = (l), .value = (v),          \
		.argh = (a), .help = (h)                                                           \
	}
#define OPT_STRVEC(s, l, v, a, h)                                                                  \
	{                                                                                          \
		.type = OPTION_STRVEC, .short_name = (s), .long_name = (l), .value = (v),          \
		.argh = (a), .help = (h)                                                           \
	}
#define OPT_INT(s, l, v, a, lo, hi, h)                                                             \
	{                                                                                          \
		.type = OPTION_INT, .short_name = (s), .long_name = (l), .value = (v),             \
		.argh = (a), .min = (lo), .max = (hi), .help = (h)                                 \
	}
/* v: an enum's address, the argument parsed once into it: c is indexed by
 * its values ([REPORT_JSON] = "json"), in the order an error lists them;
 * a value after c's NULL stands for the option not given (REPORT_NONE).
 * The parse writes an int: an enum of another size does not compile. */
#define OPT_ENUM(s, l, v, c, a, h)                                                                 \
	{                                                                                          \
		.type = OPTION_ENUM, .short_name = (s), .long_name = (l),                          \
		.value = (v) + 0 * sizeof(char[sizeof *(v) == sizeof(int) ? 1 : -1]),              \
		.choices = (c), .argh = (a), .help = (h)                                           \
	}
/* An OPT_ENUM of parseopt_bools: "true" or "false", OPT_UNSET when not
 * given (the field's default, set before the parse). */
enum opt_tristate { OPT_TRUE, OPT_FALSE, OPT_UNSET };
extern const char *const parseopt_bools[];
/* a: the argument's name, or NULL for none; opt: it is optional */
#define OPT_CALLBACK(s, l, v, a, opt, f, h)                                                        \
	{                                                                                          \
		.type = OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v),        \
		.argh = (a), .optional_arg = (opt), .cb = (f), .help = (h)                         \
	}
#define OPT_HELP()                                                                                 \
	{                                                                                          \
		.type = OPTION_HELP, .long_name = "help", .short_name = 'h', .help = NULL          \
	}

/* The usage: head (the "usage:" line and what the verb does), one entry
 * per row with a help, then tail (NULL: none). */
struct opt_usage {
	const char *head, *tail;
};

/* Parses argv (argv[0] the verb) by the rows: the operands go to operands
 * in their order, everything after a "--" to rest (NULL: "--" ends the
 * options and what follows is operands). Returns 0; 1 after --help printed
 * the usage on stdout; -1 after an error line (an unknown long option's
 * with the closest known one) and parseopt_usage_hint on stderr. */
int parseopt(int argc, char **argv, const struct opt *rows, const struct opt_usage *usage,
	     struct strvec *operands, struct strvec *rest);
/* Prints, after an error line, the usage's first line and "`CMD --help`
 * lists every option.": CMD is that line's leading words of lowercase
 * letters, digits, '-' and '_' ("usage: vx cache prune [--max-size SIZE]"
 * gives vx cache prune). */
void parseopt_usage_hint(const struct opt_usage *usage, FILE *out);
/* Prints the usage of the rows. */
void parseopt_usage(const struct opt *rows, const struct opt_usage *usage, FILE *out);

/* Returns whether the row takes an argument (optional_arg: only as
 * --name=ARG). */
bool parseopt_takes_arg(const struct opt *row);
/* Returns a malloc'd copy of rows, their OPT_END included: a table built
 * on its function's stack (its values point into a caller's options)
 * handed out, to the parser and to `vx completion` alike. */
struct opt *parseopt_copy(const struct opt *rows);
/* Returns a malloc'd table of a's rows, then b's but for a second
 * OPT_HELP; frees a and b. */
struct opt *parseopt_join(struct opt *a, struct opt *b);
/* Applies each option of rows that argv (argv[0] the verb) holds before a
 * "--" as "--NAME" (boolean rows only: OPTION_BOOL), and takes it out of
 * argv, the rest kept in order. Returns the new argc. For a verb whose
 * other options are another verb's (vx watch's are vx run's). */
int parseopt_take(int argc, char **argv, const struct opt *rows);

#endif
