/* tagcheck.h - turbo boundaries' tag rules over the workspace's package
 * graph: each package's tags and own rules against the tags of every
 * package it depends on and is depended on by, directly or not
 * (docs/boundaries.md, "Tags"). */
#ifndef VX_CLI_TAGCHECK_H
#define VX_CLI_TAGCHECK_H

#include <stdbool.h>

#include "orchestrator/config/tagrules.h"
#include "orchestrator/config/workspace.h"

enum tagcheck_rule {
	TAGCHECK_NOT_ALLOWED,	 /* a related package has no tag the allow list names */
	TAGCHECK_DENIED,	 /* a related package has a tag (or name) the deny list names */
	TAGCHECK_TAG_IS_PACKAGE, /* a rule's tag is a package's name */
	TAGCHECK_PACKAGE_TAGS,	 /* a package's own boundaries hold "tags" */
	TAGCHECK_RULES
};

struct tagcheck_finding {
	enum tagcheck_rule rule;
	char *file; /* workspace-relative: the package.json of the edge, or a turbo.json */
	unsigned line, col;
	char *source;	       /* the package whose rule it is */
	char *package;	       /* the related package (source itself for the last two) */
	char *tag;	       /* the denied tag, the tag named as a package; or NULL */
	const char *direction; /* "dependencies", "dependents", or NULL */
	struct strvec via;     /* the depending package, ..., the depended one */
	char *message, *fix;
};

struct tagcheck_findings {
	VEC(struct tagcheck_finding) v;
};

/* The rules the check reads: the root turbo.json's, and each project's
 * own turbo.json's (rules[i] for ws->projects.v[i]; path NULL: none). */
struct tagcheck_input {
	const struct workspace *ws;
	const struct tagrules *root;
	const struct tagrules *rules;
	const bool *selected; /* the packages whose rules are checked */
};

/* Appends to out what the tag rules of each selected package with a
 * turbo.json find, as turbo boundaries 2.11 does. Never fails: a package
 * or file it cannot place is reported at 1:1 of its package.json. */
void tagcheck_run(const struct tagcheck_input *in, struct tagcheck_findings *out);

void tagcheck_findings_free(struct tagcheck_findings *f);

#endif
