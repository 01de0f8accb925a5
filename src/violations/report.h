/* report.h - a failed sandboxed task's violations, notes and fix, as text. */
#ifndef VX_VIOLATIONS_REPORT_H
#define VX_VIOLATIONS_REPORT_H

#include "util/strbuf.h"
#include "violations/judge.h"

/* Appends the text report of task id (its project's vx.yaml at
 * yaml_rel, the task named task) to out:
 *   ID: violation: read packages/app/notes.txt (openat ENOENT)
 *   ID: note: a write outside the project was refused: /tmp/x (...)
 *   ID: fix: add to packages/app/vx.yaml tasks.build.sandbox.allow.read: ["notes.txt"]
 * Paths are workspace-relative where they lie in the workspace. */
void report_text(const char *id, const char *yaml_rel, const char *task,
		 const struct judge_input *in, const struct verdict *v, struct strbuf *out);

/* One task of a run, as the machine-readable reports see it. Strings are
 * borrowed. */
struct task_report {
	const char *id, *project, *task; /* project: workspace-relative dir */
	const char *name;		 /* the project's name */
	const char *status;		 /* succeeded, cached, failed, skipped, noop */
	const char *reason;		 /* why it failed or was skipped (the run's
					  * word), or NULL */
	const char *cache;		 /* hit, miss, disabled */
	const char *cache_source;	 /* a hit's: "local" or "remote"; NULL otherwise */
	const char *key;
	const char *yaml; /* where its sandbox: is declared, workspace-relative: the
			   * annotation's place (a root file every package inherits) */
	/* The vx.yaml its fix goes into (taskfacts' yaml: the project's own,
	 * as the text report and `vx sandbox learn` name it); NULL: yaml. */
	const char *fix_yaml;
	int line, col; /* its sandbox: key there; 0 when none */
	bool ran;      /* exit codes below are real */
	int exit_code, command_exit_code;
	long long duration_ms;
	const struct judge_input *in; /* NULL: untraced (no sandbox, or a hit) */
	const struct verdict *v;
	const char *const *withheld; /* linked packages withheld, canonical */
	size_t n_withheld;
};

/* SPEC §5 `--report json`: one document, {"version":1,"tasks":[...]}. */
void report_json(const struct task_report *t, size_t n, struct strbuf *out);
/* SARIF 2.1.0: one result per violation, located at the task's sandbox: line,
 * the fix as a fixes[] entry. */
void report_sarif(const struct task_report *t, size_t n, struct strbuf *out);
/* GitHub Actions workflow commands: one ::error per violation, one ::error
 * per other failed task. */
void report_github(const struct task_report *t, size_t n, struct strbuf *out);

/* A finding of a check that is no task's (vx boundaries): a rule broken
 * at a place in a file. Strings are borrowed. */
struct report_rule {
	const char *id;	  /* "vx/boundaries-undeclared" */
	const char *text; /* one sentence: what the rule checks */
	const char *help; /* what to do about it */
};
struct report_finding {
	size_t rule;	  /* index into the rules */
	const char *file; /* workspace-relative */
	unsigned line, col;
	const char *message;
	const char *fix; /* the edit that fixes it, one sentence; NULL: none */
};

/* SARIF 2.1.0 of findings: one rule per rules[], one result per finding
 * at its file, line and column, the fix in its message and as
 * properties.fix. */
void report_findings_sarif(const struct report_rule *rules, size_t n_rules,
			   const struct report_finding *f, size_t n, struct strbuf *out);
/* GitHub Actions workflow commands: one ::error per finding, titled
 * title. */
void report_findings_github(const char *title, const struct report_finding *f, size_t n,
			    struct strbuf *out);

#endif
