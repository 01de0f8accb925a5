/* completion.c - the shells' completion scripts, written from the tables
 * the command line is parsed with (completion.h). A script holds vx's
 * verbs and options as this vx has them; the workspace's tasks and
 * packages it asks `vx __complete` for, each time, in the directory (and
 * -C DIR) of the command line being completed. */
#include "orchestrator/cli/completion.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/cli/verbs.h"
#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "util/die.h"
#include "util/parseopt.h"
#include "util/strbuf.h"

/* What completes an option's argument, told by its row. */
enum arg_kind {
	ARG_NONE,     /* the option takes none */
	ARG_ANY,      /* a number, a size, a ref: nothing is offered */
	ARG_WORDS,    /* its choices, or the one word its usage spells ("[=json]") */
	ARG_PACKAGES, /* PATTERN: a package name is one */
	ARG_IDS,      /* PROJECT#TASK */
	ARG_DIRS,     /* DIR */
	ARG_FILES,    /* FILE, PATH */
};

/* The kind of r's argument; ARG_WORDS's words appended to words, a space
 * between them. */
static enum arg_kind arg_kind(const struct opt *r, struct strbuf *words)
{
	if (!parseopt_takes_arg(r))
		return ARG_NONE;
	if (r->choices) {
		for (size_t k = 0; r->choices[k]; k++)
			strbuf_addf(words, "%s%s", k ? " " : "", r->choices[k]);
		return ARG_WORDS;
	}
	const char *a = r->argh;
	if (!a)
		return ARG_ANY;
	if (!strcmp(a, "PATTERN"))
		return ARG_PACKAGES;
	if (!strcmp(a, "PROJECT#TASK"))
		return ARG_IDS;
	if (!strcmp(a, "DIR"))
		return ARG_DIRS;
	if (!strcmp(a, "FILE") || !strcmp(a, "PATH"))
		return ARG_FILES;
	for (const char *c = a; *c; c++)
		if (!islower((unsigned char)*c) && *c != '-')
			return ARG_ANY;
	strbuf_addstr(words, a);
	return ARG_WORDS;
}

/* Whether a row is offered: those the usage lists, and --help. */
static bool row_listed(const struct opt *r)
{
	return r->help || r->type == OPTION_HELP;
}

/* The first line of a row's help (--help's own: none). */
static void help_line(const struct opt *r, struct strbuf *sb)
{
	const char *h = r->help ? r->help : "print the usage";
	strbuf_add(sb, h, strcspn(h, "\n"));
}

/* A command completion knows: vx itself, a verb, or a verb's verb. */
struct cmd {
	char *path;	      /* "", "run", "cache prune" */
	const struct verb *v; /* NULL: vx itself */
	struct opt *rows;     /* its options (malloc'd); NULL: none */
	void *scratch;	      /* what rows are bound to */
};

struct cmds {
	VEC(struct cmd) v;
};

/* vx's own, before a verb: main.c's take_dir_options takes -C DIR (before
 * or after the verb), --help and --version stand for help and version. */
static struct opt *root_rows(void)
{
	const struct opt rows[] = {
	    OPT_STRING('C', NULL, NULL, "DIR", "run as if started in DIR"),
	    OPT_BOOL(0, "version", NULL, "the version of vx, its commit, build and features"),
	    OPT_HELP(),
	    OPT_END(),
	};
	return parseopt_copy(rows);
}

static void cmds_collect(struct cmds *c, const struct verb *table, const char *path)
{
	for (const struct verb *v = table; v->name; v++) {
		if (!v->summary)
			continue;
		struct cmd cmd = {.path = xasprintf("%s%s%s", path, *path ? " " : "", v->name),
				  .v = v};
		if (v->rows) {
			cmd.scratch = xcalloc(1, v->opts_size);
			cmd.rows = v->rows(cmd.scratch);
		}
		vec_push(&c->v, cmd);
		if (v->subs)
			cmds_collect(c, v->subs, cmd.path);
	}
}

static void cmds_free(struct cmds *c)
{
	for (size_t i = 0; i < c->v.n; i++) {
		free(c->v.v[i].path);
		free(c->v.v[i].rows);
		free(c->v.v[i].scratch);
	}
	vec_free(&c->v);
}

/* The listed verbs of a table (vx's, or a verb's subs), a space between. */
static void verb_names(const struct verb *table, struct strbuf *sb)
{
	for (const struct verb *v = table; v->name; v++)
		if (v->summary)
			strbuf_addf(sb, "%s%s", sb->len ? " " : "", v->name);
}

/* The verbs a command's operands are, or NULL. */
static const struct verb *cmd_verbs(const struct cmd *c)
{
	return c->v ? c->v->subs : verbs_table();
}

/* The words of a command's OPERANDS_WORDS, a space between. */
static void operand_words(const struct verb *v, struct strbuf *sb)
{
	for (size_t k = 0; v->words[k]; k++)
		strbuf_addf(sb, "%s%s", k ? " " : "", v->words[k]);
}

/* --- bash ---------------------------------------------------------------- */

/* The case arms that walk the words before the cursor to the verb path:
 * one for each verb and verb's verb, arm being the shell's, a printf
 * format of two strings: the "PATH/NAME" matched and the new path. */
static void step_arms(struct strbuf *sb, const struct verb *table, const char *path,
		      const char *arm)
{
	for (const struct verb *v = table; v->name; v++) {
		char *match = xasprintf("%s/%s", path, v->name);
		char *here = xasprintf("%s%s%s", path, *path ? " " : "", v->name);
		strbuf_addf(sb, arm, match, here);
		if (v->subs)
			step_arms(sb, v->subs, here, arm);
		free(match);
		free(here);
	}
}

static const char BASH_HEAD[] =
    "# bash completion for vx, written by `vx completion bash` from the tables\n"
    "# vx parses its command line with. Load it with\n"
    "#   source <(vx completion bash)\n"
    "# or install it as share/bash-completion/completions/vx (cmake --install does).\n"
    "\n"
    "# KIND: the workspace's tasks, task ids or packages, from the vx being\n"
    "# completed, in the directory the command line names with -C\n"
    "__vx_ws() {\n"
    "\tlocal vx=${COMP_WORDS[0]/#\\~/$HOME}\n"
    "\tcommand \"${vx:-vx}\" \"${__vx_dir[@]}\" __complete \"$1\" 2>/dev/null\n"
    "}\n"
    "\n"
    "# WORDS CUR: those of WORDS that CUR begins; a word holding ':' (build:types)\n"
    "# is one to vx and three to bash, which replaces only what follows the ':'\n"
    "__vx_reply() {\n"
    "\tmapfile -t COMPREPLY < <(compgen -W \"$1\" -- \"$2\")\n"
    "\tif [[ -n ${COMP_LINE:-} && $2 == *:* && ${COMP_WORDBREAKS:-} == *:* ]]; then\n"
    "\t\tlocal p=${2%\"${2##*:}\"}\n"
    "\t\tCOMPREPLY=(\"${COMPREPLY[@]#\"$p\"}\")\n"
    "\tfi\n"
    "}\n"
    "\n"
    "__vx_tasks() {\n"
    "\tif [[ $1 == *#* ]]; then\n"
    "\t\t__vx_reply \"$(__vx_ws ids)\" \"$1\"\n"
    "\telse\n"
    "\t\t__vx_reply \"$(__vx_ws tasks)\" \"$1\"\n"
    "\tfi\n"
    "}\n"
    "\n"
    "__vx_paths() { # -d or -f, CUR\n"
    "\tcompopt -o filenames 2>/dev/null\n"
    "\tmapfile -t COMPREPLY < <(compgen \"$1\" -- \"$2\")\n"
    "}\n"
    "\n";

static const char BASH_MAIN_HEAD[] =
    "_vx() {\n"
    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= key= opt= eq= pre= w i\n"
    "\tlocal -a __vx_dir=()\n"
    "\tCOMPREPLY=()\n"
    "\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "\tif [[ -n ${COMP_LINE:-} && ${COMP_WORDBREAKS:-} == *:* ]]; then\n"
    "\t\tw=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}\n"
    "\t\tw=${w##*[[:space:]]}\n"
    "\t\t[[ $w == *:* && $w != *=* ]] && cur=$w\n"
    "\tfi\n"
    "\t# the verb path (run, cache prune) and -C DIR, from the words before\n"
    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
    "\t\tw=${COMP_WORDS[i]}\n"
    "\t\tcase $w in\n"
    "\t\t--) compopt -o default 2>/dev/null; return 0 ;; # the tasks' own arguments\n"
    "\t\t-C) __vx_dir=(-C \"${COMP_WORDS[i+1]/#\\~/$HOME}\"); i=$((i + 1)); continue ;;\n"
    "\t\t-C?*) __vx_dir=(\"${w/#-C\\~/-C$HOME}\"); continue ;;\n"
    "\t\t-*|=) continue ;;\n"
    "\t\tesac\n"
    "\t\tcase \"$key/$w\" in\n";

static const char BASH_MAIN_TAIL[] =
    "\t\t/*) key=run ;; # vx build is vx run build\n"
    "\t\tesac\n"
    "\tdone\n"
    "\t# an option's argument: --opt ARG, --opt=ARG\n"
    "\tif [ \"$cur\" = \"=\" ]; then\n"
    "\t\topt=$prev eq== cur=\n"
    "\telif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
    "\t\topt=${COMP_WORDS[COMP_CWORD-2]} eq==\n"
    "\telif [[ $cur == --*=* ]]; then\n"
    "\t\topt=${cur%%=*} eq== pre=${cur%%=*}= cur=${cur#*=}\n"
    "\telse\n"
    "\t\topt=$prev\n"
    "\tfi\n"
    "\tif [ \"$opt\" = -C ] && [ -z \"$eq\" ]; then\n"
    "\t\t__vx_paths -d \"$cur\"\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tif [ -n \"$opt\" ] && __vx_arg \"$key\" \"$opt$eq\" \"$cur\"; then\n"
    "\t\t[ -z \"$pre\" ] || COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\")\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\tif [[ $cur == -* ]]; then\n"
    "\t\t__vx_flags \"$key\"\n"
    "\t\t__vx_reply \"$__vx_w\" \"$cur\"\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\t__vx_operand \"$key\" \"$cur\"\n"
    "}\n"
    "\n"
    "complete -F _vx vx\n";

/* "NAME" "NAME=" "-c": the spellings of r for bash's case arms. */
static void bash_spellings(const struct cmd *c, const struct opt *r, bool optional,
			   struct strbuf *sb)
{
	const char *sep = "";
	if (r->long_name && !optional)
		strbuf_addf(&*sb, "%s\"%s --%s\"|\"%s --%s=\"", sep, c->path, r->long_name, c->path,
			    r->long_name),
		    sep = "|";
	if (r->long_name && optional)
		strbuf_addf(sb, "%s\"%s --%s=\"", sep, c->path, r->long_name), sep = "|";
	if (r->short_name && !optional)
		strbuf_addf(sb, "%s\"%s -%c\"", sep, c->path, r->short_name);
}

static void gen_bash(const struct cmds *cs, struct strbuf *sb)
{
	strbuf_addstr(sb, BASH_HEAD);
	struct strbuf words = STRBUF_INIT;

	strbuf_addstr(sb, "# KEY: its options, in __vx_w\n__vx_flags() {\n\tcase $1 in\n");
	for (size_t i = 0; i < cs->v.n; i++) {
		const struct cmd *c = &cs->v.v[i];
		strbuf_addf(sb, "\t\"%s\") __vx_w=\"", c->path);
		const char *sep = "";
		if (!c->rows && c->v && c->v->main)
			strbuf_addstr(sb, "--help"); /* each verb answers it */
		for (const struct opt *r = c->rows; r && r->type != OPTION_END; r++) {
			if (!row_listed(r))
				continue;
			if (r->long_name)
				strbuf_addf(sb, "%s--%s", sep, r->long_name), sep = " ";
			if (r->short_name && r->type != OPTION_HELP)
				strbuf_addf(sb, "%s-%c", sep, r->short_name), sep = " ";
		}
		strbuf_addstr(sb, "\" ;;\n");
	}
	strbuf_addstr(sb, "\t*) __vx_w= ;;\n\tesac\n}\n\n");

	strbuf_addstr(sb, "# KEY OPTION CUR: the option's argument; 1 when OPTION takes none\n"
			  "__vx_arg() {\n\tcase \"$1 $2\" in\n");
	for (size_t i = 0; i < cs->v.n; i++) {
		const struct cmd *c = &cs->v.v[i];
		for (const struct opt *r = c->rows; r && r->type != OPTION_END; r++) {
			strbuf_reset(&words);
			enum arg_kind k = arg_kind(r, &words);
			if (k == ARG_NONE || !row_listed(r))
				continue;
			strbuf_addch(sb, '\t');
			bash_spellings(c, r, r->optional_arg, sb);
			switch (k) {
			case ARG_WORDS:
				strbuf_addf(sb, ") __vx_reply \"%s\" \"$3\" ;;\n", words.buf);
				break;
			case ARG_PACKAGES:
				strbuf_addstr(sb,
					      ") __vx_reply \"$(__vx_ws packages)\" \"$3\" ;;\n");
				break;
			case ARG_IDS:
				strbuf_addstr(sb, ") __vx_reply \"$(__vx_ws ids)\" \"$3\" ;;\n");
				break;
			case ARG_DIRS:
				strbuf_addstr(sb, ") __vx_paths -d \"$3\" ;;\n");
				break;
			case ARG_FILES:
				strbuf_addstr(sb, ") __vx_paths -f \"$3\" ;;\n");
				break;
			default:
				strbuf_addstr(sb, ") ;;\n");
				break;
			}
		}
	}
	strbuf_addstr(sb, "\t*) return 1 ;;\n\tesac\n}\n\n");

	strbuf_addstr(sb, "# KEY CUR: what follows the verb path KEY\n"
			  "__vx_operand() {\n\tcase $1 in\n");
	for (size_t i = 0; i < cs->v.n; i++) {
		const struct cmd *c = &cs->v.v[i];
		const struct verb *subs = cmd_verbs(c);
		strbuf_reset(&words);
		if (subs) {
			verb_names(subs, &words);
			strbuf_addf(sb, "\t\"%s\") __vx_reply \"%s\" \"$2\" ;;\n", c->path,
				    words.buf);
		} else if (c->v->operands == OPERANDS_TASKS) {
			strbuf_addf(sb, "\t\"%s\") __vx_tasks \"$2\" ;;\n", c->path);
		} else if (c->v->operands == OPERANDS_PACKAGES) {
			strbuf_addf(sb, "\t\"%s\") __vx_reply \"$(__vx_ws packages)\" \"$2\" ;;\n",
				    c->path);
		} else if (c->v->operands == OPERANDS_WORDS) {
			operand_words(c->v, &words);
			strbuf_addf(sb, "\t\"%s\") __vx_reply \"%s\" \"$2\" ;;\n", c->path,
				    words.buf);
		}
	}
	strbuf_addstr(sb, "\tesac\n}\n\n");

	strbuf_addstr(sb, BASH_MAIN_HEAD);
	step_arms(sb, verbs_table(), "", "\t\t\"%s\") key=\"%s\" ;;\n");
	strbuf_addstr(sb, BASH_MAIN_TAIL);
	strbuf_release(&words);
}

/* --- zsh ----------------------------------------------------------------- */

/* s with what ends or breaks a zsh single-quoted _arguments description
 * escaped. */
static void zsh_desc(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'')
			strbuf_addstr(sb, "'\\''");
		else if (s[i] == '[' || s[i] == ']' || s[i] == ':' || s[i] == '\\')
			strbuf_addf(sb, "\\%c", s[i]);
		else
			strbuf_addch(sb, s[i]);
	}
}

/* A function name for a verb path: "__vx_verbs_cache". */
static void zsh_fn(struct strbuf *sb, const char *prefix, const char *path)
{
	strbuf_addstr(sb, prefix);
	for (const char *p = path; *p; p++)
		strbuf_addch(sb, *p == ' ' || *p == '-' ? '_' : *p);
}

/* One _arguments spec of r, spelled as spell ("-F+", "--filter="). */
static void zsh_spec(struct strbuf *sb, const struct opt *r, const char *spell)
{
	struct strbuf words = STRBUF_INIT, help = STRBUF_INIT;
	enum arg_kind k = arg_kind(r, &words);
	bool many = r->type == OPTION_STRVEC || r->type == OPTION_COUNT;
	help_line(r, &help);
	strbuf_addf(sb, " \\\n\t\t\t'%s%s%s[", r->type == OPTION_HELP ? "(- *)" : "",
		    many ? "*" : "", spell);
	zsh_desc(sb, help.buf, help.len);
	strbuf_addch(sb, ']');
	if (k != ARG_NONE) {
		strbuf_addstr(sb, r->optional_arg ? "::" : ":");
		for (const char *a = r->argh ? r->argh : "arg"; *a; a++)
			strbuf_addch(sb, *a == ':' ? '_' : (char)tolower((unsigned char)*a));
		strbuf_addch(sb, ':');
		switch (k) {
		case ARG_WORDS:
			strbuf_addf(sb, "(%s)", words.buf);
			break;
		case ARG_PACKAGES:
			strbuf_addstr(sb, "__vx_packages");
			break;
		case ARG_IDS:
			strbuf_addstr(sb, "__vx_ids");
			break;
		case ARG_DIRS:
			strbuf_addstr(sb, "_directories");
			break;
		case ARG_FILES:
			strbuf_addstr(sb, "_files");
			break;
		default:
			strbuf_addch(sb, ' ');
			break;
		}
	}
	strbuf_addch(sb, '\'');
	strbuf_release(&words);
	strbuf_release(&help);
}

static const char ZSH_HEAD[] =
    "#compdef vx\n"
    "# zsh completion for vx, written by `vx completion zsh` from the tables vx\n"
    "# parses its command line with. Load it with\n"
    "#   source <(vx completion zsh)     (after compinit)\n"
    "# or install it as _vx in $fpath (cmake --install puts it in\n"
    "# share/zsh/vendor-completions).\n"
    "\n"
    "# KIND: the workspace's tasks, task ids or packages, from the vx being\n"
    "# completed, in the directory the command line names with -C\n"
    "__vx_ws() {\n"
    "\t${~__vx_cmd:-vx} \"${__vx_dir[@]}\" __complete $1 2>/dev/null\n"
    "}\n"
    "__vx_packages() {\n"
    "\tlocal -a p expl\n"
    "\tp=(${(f)\"$(__vx_ws packages)\"})\n"
    "\t_wanted packages expl package compadd -a p\n"
    "}\n"
    "# -Q: the '#' of an id is vx's, not a pattern to quote\n"
    "__vx_ids() {\n"
    "\tlocal -a t expl\n"
    "\tt=(${(f)\"$(__vx_ws ids)\"})\n"
    "\t_wanted tasks expl task compadd -Q -a t\n"
    "}\n"
    "__vx_tasks() {\n"
    "\tlocal -a t expl\n"
    "\tif [[ $PREFIX == *'#'* ]]; then\n"
    "\t\tt=(${(f)\"$(__vx_ws ids)\"})\n"
    "\telse\n"
    "\t\tt=(${(f)\"$(__vx_ws tasks)\"})\n"
    "\tfi\n"
    "\t_wanted tasks expl task compadd -Q -a t\n"
    "}\n";

static void gen_zsh(const struct cmds *cs, struct strbuf *sb)
{
	strbuf_addstr(sb, ZSH_HEAD);
	struct strbuf words = STRBUF_INIT;
	/* each verb list as _describe wants it: 'name:summary' */
	for (size_t i = 0; i < cs->v.n; i++) {
		const struct cmd *c = &cs->v.v[i];
		const struct verb *subs = cmd_verbs(c);
		if (!subs)
			continue;
		zsh_fn(sb, "__vx_verbs", c->path);
		strbuf_addstr(sb, "() {\n\tlocal -a v\n\tv=(");
		for (const struct verb *v = subs; v->name; v++)
			if (v->summary) {
				strbuf_addf(sb, "\n\t\t'%s:", v->name);
				zsh_desc(sb, v->summary, strlen(v->summary));
				strbuf_addch(sb, '\'');
			}
		strbuf_addf(sb, "\n\t)\n\t_describe -t commands 'vx%s%s verb' v\n}\n",
			    *c->path ? " " : "", c->path);
	}
	strbuf_addstr(sb, "\n_vx() {\n"
			  "\tlocal __vx_cmd=${words[1]} key= w i=2 at=1\n"
			  "\tlocal -a __vx_dir\n"
			  "\t# the verb path (run, cache prune) and -C DIR, from the words before\n"
			  "\twhile (( i < CURRENT )); do\n"
			  "\t\tw=${words[i]}\n"
			  "\t\tcase $w in\n"
			  "\t\t(-C) __vx_dir=(-C ${~words[i+1]}); (( i += 2 )); continue ;;\n"
			  "\t\t(-C?*) __vx_dir=($w) ;;\n"
			  "\t\t(--) break ;;\n"
			  "\t\t(-*) ;;\n"
			  "\t\t(*)\n"
			  "\t\t\tcase \"$key/$w\" in\n");
	step_arms(sb, verbs_table(), "", "\t\t\t(\"%s\") key=\"%s\" at=$i ;;\n");
	strbuf_addstr(sb, "\t\t\t(/*) key=run at=$(( i - 1 )) ;; # vx build is vx run build\n"
			  "\t\t\tesac ;;\n"
			  "\t\tesac\n"
			  "\t\t(( i++ ))\n"
			  "\tdone\n"
			  "\tif [[ -n $key ]]; then\n"
			  "\t\twords=(\"${(@)words[at,-1]}\")\n"
			  "\t\t(( CURRENT -= at - 1 ))\n"
			  "\tfi\n"
			  "\tcase $key in\n");
	for (size_t i = 0; i < cs->v.n; i++) {
		const struct cmd *c = &cs->v.v[i];
		strbuf_addf(sb, "\t(\"%s\")\n\t\t_arguments -s -S", c->path);
		for (const struct opt *r = c->rows; r && r->type != OPTION_END; r++) {
			if (!row_listed(r))
				continue;
			bool arg = parseopt_takes_arg(r);
			if (r->short_name) {
				char *spell = xasprintf("-%c%s", r->short_name,
							arg && !r->optional_arg ? "+" : "");
				zsh_spec(sb, r, spell);
				free(spell);
			}
			if (r->long_name) {
				char *spell = xasprintf("--%s%s", r->long_name,
							!arg		  ? ""
							: r->optional_arg ? "=-"
									  : "=");
				zsh_spec(sb, r, spell);
				free(spell);
			}
		}
		const struct verb *subs = cmd_verbs(c);
		strbuf_reset(&words);
		if (subs) {
			strbuf_addstr(sb, " \\\n\t\t\t': :");
			zsh_fn(sb, "__vx_verbs", c->path);
			strbuf_addch(sb, '\'');
		} else if (c->v->operands == OPERANDS_TASKS) {
			strbuf_addstr(sb, " \\\n\t\t\t'*:task:__vx_tasks'");
		} else if (c->v->operands == OPERANDS_PACKAGES) {
			strbuf_addstr(sb, " \\\n\t\t\t'*:package:__vx_packages'");
		} else if (c->v->operands == OPERANDS_WORDS) {
			operand_words(c->v, &words);
			strbuf_addf(sb, " \\\n\t\t\t'1:%s:(%s)'", c->v->name, words.buf);
		}
		strbuf_addstr(sb, "\n\t\t;;\n");
	}
	strbuf_addstr(sb, "\tesac\n}\n\n"
			  "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
			  "\t_vx \"$@\"\n"
			  "else\n"
			  "\tcompdef _vx vx\n"
			  "fi\n");
	strbuf_release(&words);
}

/* --- fish ---------------------------------------------------------------- */

/* s in a fish single-quoted string */
static void fish_quoted(struct strbuf *sb, const char *s, size_t n)
{
	strbuf_addch(sb, '\'');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, s[i]);
	}
	strbuf_addch(sb, '\'');
}

static const char FISH_HEAD[] =
    "# fish completion for vx, written by `vx completion fish` from the tables vx\n"
    "# parses its command line with. Load it with\n"
    "#   vx completion fish | source\n"
    "# or install it as share/fish/vendor_completions.d/vx.fish (cmake --install\n"
    "# does).\n"
    "\n"
    "# the verb path (run, cache prune) of the words before the cursor\n"
    "function __vx_key\n"
    "    set -l words (commandline -opc)\n"
    "    set -l key\n"
    "    set -l i 2\n"
    "    while test $i -le (count $words)\n"
    "        set -l w $words[$i]\n"
    "        set i (math $i + 1)\n"
    "        switch $w\n"
    "            case -C\n"
    "                set i (math $i + 1)\n"
    "                continue\n"
    "            case '-*'\n"
    "                continue\n"
    "        end\n"
    "        switch \"$key/$w\"\n";

static const char FISH_MID[] =
    "            case '/*'\n"
    "                set key run # vx build is vx run build\n"
    "        end\n"
    "    end\n"
    "    echo $key\n"
    "end\n"
    "\n"
    "function __vx_is\n"
    "    set -l key (__vx_key)\n"
    "    test \"$key\" = \"$argv[1]\"\n"
    "end\n"
    "\n"
    "# KIND: the workspace's tasks, task ids or packages, from the vx being\n"
    "# completed, in the directory the command line names with -C\n"
    "function __vx_ws\n"
    "    set -l words (commandline -opc)\n"
    "    set -l dir\n"
    "    for i in (seq 2 (count $words))\n"
    "        if test \"$words[$i]\" = -C; and test $i -lt (count $words)\n"
    "            set dir -C $words[(math $i + 1)]\n"
    "        else if string match -q -- '-C?*' $words[$i]\n"
    "            set dir $words[$i]\n"
    "        end\n"
    "    end\n"
    "    command $words[1] $dir __complete $argv[1] 2>/dev/null\n"
    "end\n"
    "\n"
    "function __vx_tasks\n"
    "    if string match -q -- '*#*' (commandline -ct)\n"
    "        __vx_ws ids\n"
    "    else\n"
    "        __vx_ws tasks\n"
    "    end\n"
    "end\n"
    "\n"
    "complete -c vx -f\n";

static void gen_fish(const struct cmds *cs, struct strbuf *sb)
{
	strbuf_addstr(sb, FISH_HEAD);
	step_arms(sb, verbs_table(), "", "            case '%s'\n                set key '%s'\n");
	strbuf_addstr(sb, FISH_MID);

	struct strbuf words = STRBUF_INIT, help = STRBUF_INIT;
	for (size_t i = 0; i < cs->v.n; i++) {
		const struct cmd *c = &cs->v.v[i];
		struct strbuf cond = STRBUF_INIT;
		strbuf_addstr(&cond, "complete -c vx -n ");
		char *is = xasprintf("__vx_is '%s'", c->path);
		fish_quoted(&cond, is, strlen(is));
		free(is);
		for (const struct opt *r = c->rows; r && r->type != OPTION_END; r++) {
			if (!row_listed(r))
				continue;
			strbuf_reset(&words);
			strbuf_reset(&help);
			enum arg_kind k = arg_kind(r, &words);
			strbuf_addstr(sb, cond.buf);
			if (r->short_name)
				strbuf_addf(sb, " -s %c", r->short_name);
			if (r->long_name)
				strbuf_addf(sb, " -l %s", r->long_name);
			/* an optional argument is --name=ARG alone: offered as a flag */
			if (k != ARG_NONE && !r->optional_arg) {
				switch (k) {
				case ARG_WORDS:
					strbuf_addstr(sb, " -x -a ");
					fish_quoted(sb, words.buf, words.len);
					break;
				case ARG_PACKAGES:
					strbuf_addstr(sb, " -x -a '(__vx_ws packages)'");
					break;
				case ARG_IDS:
					strbuf_addstr(sb, " -x -a '(__vx_ws ids)'");
					break;
				case ARG_DIRS:
					strbuf_addstr(sb, " -x -a '(__fish_complete_directories)'");
					break;
				case ARG_FILES:
					strbuf_addstr(sb, " -r -F");
					break;
				default:
					strbuf_addstr(sb, " -x");
					break;
				}
			}
			help_line(r, &help);
			strbuf_addstr(sb, " -d ");
			fish_quoted(sb, help.buf, help.len);
			strbuf_addch(sb, '\n');
		}
		const struct verb *subs = cmd_verbs(c);
		if (subs) {
			for (const struct verb *v = subs; v->name; v++) {
				if (!v->summary)
					continue;
				strbuf_addf(sb, "%s -a %s -d ", cond.buf, v->name);
				fish_quoted(sb, v->summary, strlen(v->summary));
				strbuf_addch(sb, '\n');
			}
		} else if (c->v->operands == OPERANDS_TASKS) {
			strbuf_addf(sb, "%s -a '(__vx_tasks)'\n", cond.buf);
		} else if (c->v->operands == OPERANDS_PACKAGES) {
			strbuf_addf(sb, "%s -a '(__vx_ws packages)'\n", cond.buf);
		} else if (c->v->operands == OPERANDS_WORDS) {
			strbuf_reset(&words);
			operand_words(c->v, &words);
			strbuf_addf(sb, "%s -a ", cond.buf);
			fish_quoted(sb, words.buf, words.len);
			strbuf_addch(sb, '\n');
		}
		strbuf_release(&cond);
	}
	strbuf_release(&words);
	strbuf_release(&help);
}

/* --- the verbs ----------------------------------------------------------- */

static const struct opt_usage completion_usage = {
    "usage: vx completion bash|zsh|fish\n"
    "\n"
    "Prints the shell's completion script for vx: its verbs and options, and the\n"
    "tasks and packages of the workspace at hand, asked of vx as you type.\n"
    "  bash:  source <(vx completion bash)    (in ~/.bashrc)\n"
    "  zsh:   source <(vx completion zsh)     (in ~/.zshrc, after compinit)\n"
    "  fish:  vx completion fish | source     (in ~/.config/fish/config.fish)\n"
    "cmake --install puts each where its shell looks (docs/install.md).\n"
    "\n",
    NULL};

int completion_main(int argc, char **argv)
{
	const struct opt rows[] = {OPT_HELP(), OPT_END()};
	struct strvec operands = STRVEC_INIT;
	int rc = parseopt(argc, argv, rows, &completion_usage, &operands, NULL);
	void (*gen)(const struct cmds *, struct strbuf *) = NULL;
	if (!rc && operands.n == 1)
		gen = !strcmp(operands.v[0], "bash")   ? gen_bash
		      : !strcmp(operands.v[0], "zsh")  ? gen_zsh
		      : !strcmp(operands.v[0], "fish") ? gen_fish
						       : NULL;
	if (!rc && !gen) {
		if (operands.n)
			error("vx completion: no script for \"%s\": bash, zsh or fish",
			      operands.v[0]);
		parseopt_usage(rows, &completion_usage, stderr);
		rc = -1;
	}
	strvec_clear(&operands);
	if (rc)
		return rc > 0 ? 0 : 2;
	struct cmds cs = {0};
	struct cmd root = {.path = xstrdup(""), .rows = root_rows()};
	vec_push(&cs.v, root);
	cmds_collect(&cs, verbs_table(), "");
	struct strbuf sb = STRBUF_INIT;
	gen(&cs, &sb);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
	cmds_free(&cs);
	return 0;
}

static void drop_line(const char *line, void *ctx)
{
	(void)line, (void)ctx;
}

int complete_main(int argc, char **argv)
{
	const char *kind = argc == 2 ? argv[1] : "";
	bool ids = !strcmp(kind, "ids"), packages = !strcmp(kind, "packages");
	if (!ids && !packages && strcmp(kind, "tasks")) {
		error("usage: vx __complete tasks|ids|packages");
		return 2;
	}
	/* a completion prints nothing but its words: no workspace, none */
	report_to(drop_line, NULL);
	struct workspace *ws = workspace_load_here();
	report_to(NULL, NULL);
	if (!ws)
		return 0;
	struct strvec out = STRVEC_INIT, names = STRVEC_INIT;
	for (size_t i = 0; i < ws->projects.n; i++) {
		const struct project *p = ws->projects.v[i];
		if (packages) {
			strvec_push(&out, p->name);
			continue;
		}
		graph_project_task_names(ws, p, false, &names);
		for (size_t k = 0; k < names.n; k++)
			if (ids)
				strvec_pushf(&out, "%s#%s", p->name, names.v[k]);
			else
				strvec_push(&out, names.v[k]);
		strvec_clear(&names);
	}
	strvec_sort_unique(&out);
	for (size_t i = 0; i < out.n; i++)
		puts(out.v[i]);
	strvec_clear(&out);
	workspace_free(ws);
	return 0;
}
