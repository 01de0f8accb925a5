/* seatbelt_rules.h - what a Seatbelt profile allows a task, collected
 * from its sandbox request before a line is written: one rule per grant
 * (the TMPDIR, the baselines, the toolchain, allow.read/allow.write, the
 * sockets), the directories above them, the walls. seatbelt.c writes them
 * out. */
#ifndef VX_SANDBOX_SEATBELT_RULES_H
#define VX_SANDBOX_SEATBELT_RULES_H

#include <stdbool.h>

#include "sandbox/request.h"
#include "sandbox/walls.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* The operations a rule allows. */
enum { SB_READ = 1, SB_WRITE = 2, SB_META = 4 };
/* How a rule names its paths: one path, a tree, a regex. */
enum sb_filter { SB_LITERAL, SB_SUBPATH, SB_REGEX };

struct seatbelt_rule {
	enum sb_filter kind;
	unsigned ops;
	char *text;  /* the path (literal, subpath) or the regex */
	char *root;  /* the directory that bounds its matches: the path, or the glob's head */
	char *why;   /* the comment: where it comes from */
	bool denies; /* an allow.write grant: the mandatory denies are scoped to it */
	bool own;    /* its TMPDIR: carved out of the wall it lies in (vx's run dirs) */
};

/* Every field is set by seatbelt_rules_make. */
struct seatbelt_rules {
	const struct sandbox_input *in;
	struct strvec *notes;
	struct strbuf *err;
	char *ws, *proj, *home, *tmp; /* as the profile names them */
	wall_vec walls;		      /* likewise */
	VEC(struct seatbelt_rule) rules;
	struct strvec meta;    /* directories above a grant: file-read-metadata, literal */
	struct strvec sockets; /* allow.unixSockets resolved (sandbox_socket_paths) */
};

/* The OS and its toolchains, read-only for every task, NULL-terminated. */
extern const char *const seatbelt_os_roots[];

/* Collects into b the rules of in, in the order the profile lists them;
 * a grant with no spelling is left out with a line in notes. Returns 0,
 * or -1 with err set (a grant refused, a project path a glob would
 * misread, a bad environment); b is to be released either way. */
int seatbelt_rules_make(struct seatbelt_rules *b, const struct sandbox_input *in,
			struct strvec *notes, struct strbuf *err);

/* Frees what seatbelt_rules_make made. */
void seatbelt_rules_release(struct seatbelt_rules *b);

#endif
