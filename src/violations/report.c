#include "violations/report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/errnames.h"
#include "util/path.h"
#include "violations/fix.h"
#include "violations/strace.h"

static void add_path(struct strbuf *out, const struct judge_input *in, const char *path)
{
	char *shown = judge_display_path(in, path);
	strbuf_add_quoted(out, shown);
	free(shown);
}

/* How a write that no grant names got through. */
#define WIDENED "let through only because a file grant binds its directory"
#define UNKEYED "read, and not in the task's cache key"

static const char *errno_name(int err)
{
	const char *name = errname_of(err);
	return name ? name : "refused";
}

/* "read app/notes.txt", "network 1.2.3.4:443": the op and what it reached. */
static void add_what(struct strbuf *out, const struct judge_input *in, const struct violation *x)
{
	strbuf_addf(out, "%s ", violation_op_name(x->op));
	if (x->op == VIOLATION_NETWORK)
		strbuf_addstr(out, x->path);
	else
		add_path(out, in, x->path);
}

/* "(openat ENOENT)", or how a write no grant names got through. */
static void add_how(struct strbuf *out, const struct violation *x)
{
	if (x->reason)
		strbuf_addf(out, "(%s)", x->reason);
	else if (violation_unkeyed(x))
		strbuf_addf(out, "(%s, %s)", x->syscall, UNKEYED);
	else if (x->err)
		strbuf_addf(out, "(%s %s)", x->syscall, errno_name(x->err));
	else
		strbuf_addf(out, "(%s, %s)", x->syscall, WIDENED);
}

/* One violation as SARIF and GitHub say it: "ID<sep>read app/x refused (openat ENOENT)". */
static void add_message(struct strbuf *out, const char *id, const char *sep,
			const struct judge_input *in, const struct violation *x)
{
	strbuf_addf(out, "%s%s", id, sep);
	add_what(out, in, x);
	strbuf_addstr(out, x->err || x->reason	  ? " refused "
			   : violation_unkeyed(x) ? " not keyed "
						  : " not granted ");
	add_how(out, x);
}

void report_text(const char *id, const char *yaml_rel, const char *task,
		 const struct judge_input *in, const struct verdict *v, struct strbuf *out)
{
	for (size_t i = 0; i < v->violations.n; i++) {
		const struct violation *x = &v->violations.v[i];
		strbuf_addf(out, "%s: violation: ", id);
		add_what(out, in, x);
		strbuf_addch(out, ' ');
		add_how(out, x);
		strbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < v->notes.n; i++) {
		const struct judge_note *n = &v->notes.v[i];
		strbuf_addf(out, "%s: note: ", id);
		strbuf_add_controls_escaped(out, n->text);
		strbuf_addch(out, '\n');
	}
	struct strvec fixes = STRVEC_INIT;
	fix_texts(&fixes, yaml_rel, task, v);
	for (size_t i = 0; i < fixes.n; i++)
		strbuf_addf(out, "%s: fix: %s\n", id, fixes.v[i]);
	strvec_clear(&fixes);
}

static cJSON *string_array(const struct strvec *sv)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

/* A verdict's fix as --report json spells it (SPEC §5), also a SARIF
 * result's properties.fix: {allow, inputs, withheld, ignore}; v NULL: empty. */
static cJSON *fix_object(const struct verdict *v)
{
	cJSON *fix = cJSON_CreateObject();
	cJSON *allow = cJSON_AddObjectToObject(fix, "allow");
	cJSON *inputs = cJSON_AddObjectToObject(fix, "inputs");
	cJSON_AddArrayToObject(fix, "withheld");
	cJSON *ignore = cJSON_AddObjectToObject(fix, "ignore");
	if (!v)
		return fix;
	const struct {
		cJSON *in;
		const char *name;
		const struct strvec *list;
	} fields[] = {
	    {allow, "read", &v->fix_read},
	    {allow, "write", &v->fix_write},
	    {allow, "network", &v->fix_network},
	    {inputs, "files", &v->fix_inputs},
	    {inputs, "workspaceFiles", &v->fix_workspace_inputs},
	    {inputs, "toolchain", &v->fix_toolchain},
	    {ignore, "read", &v->fix_ignore_read},
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		if (fields[i].list->n)
			cJSON_AddItemToObject(fields[i].in, fields[i].name,
					      string_array(fields[i].list));
	return fix;
}

/* A workspace-relative path as a SARIF artifactLocation.uri: an RFC 3986
 * relative reference, each byte but the unreserved ones and '/' escaped
 * (issue 41: "my app/vx.yaml" was SARIF1002 to GitHub's validator). */
static char *sarif_uri(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("-._~/", *c))
			strbuf_addch(&sb, (char)*c);
		else
			strbuf_addf(&sb, "%%%02X", *c);
	}
	return strbuf_detach(&sb, NULL);
}

static char *print_json(cJSON *doc)
{
	char *s = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!s)
		die("out of memory writing a report");
	return s;
}

void report_json(const struct task_report *t, size_t n, struct strbuf *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "version", 1);
	cJSON *tasks = cJSON_AddArrayToObject(doc, "tasks");
	for (size_t i = 0; i < n; i++) {
		const struct task_report *r = &t[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", r->id);
		cJSON_AddStringToObject(o, "project", r->project);
		cJSON_AddStringToObject(o, "name", r->name);
		cJSON_AddStringToObject(o, "task", r->task);
		/* the file its fix goes in: where its sandbox: is declared */
		cJSON_AddStringToObject(o, "config", r->yaml);
		cJSON_AddStringToObject(o, "status", r->status);
		if (r->reason)
			cJSON_AddStringToObject(o, "reason", r->reason);
		else
			cJSON_AddNullToObject(o, "reason");
		if (r->ran) {
			cJSON_AddNumberToObject(o, "exitCode", r->exit_code);
			cJSON_AddNumberToObject(o, "commandExitCode", r->command_exit_code);
		} else {
			cJSON_AddNullToObject(o, "exitCode");
			cJSON_AddNullToObject(o, "commandExitCode");
		}
		cJSON_AddStringToObject(o, "cache", r->cache);
		if (r->cache_source)
			cJSON_AddStringToObject(o, "cacheSource", r->cache_source);
		else
			cJSON_AddNullToObject(o, "cacheSource");
		cJSON_AddStringToObject(o, "key", r->key);
		cJSON_AddNumberToObject(o, "durationMs", (double)r->duration_ms);
		cJSON *viol = cJSON_AddArrayToObject(o, "violations");
		cJSON *notes = cJSON_AddArrayToObject(o, "notes");
		cJSON *fix = fix_object(r->v && r->in ? r->v : NULL);
		cJSON_AddItemToObject(o, "fix", fix);
		cJSON *withheld = cJSON_GetObjectItemCaseSensitive(fix, "withheld");
		if (r->v && r->in) {
			for (size_t k = 0; k < r->v->violations.n; k++) {
				const struct violation *x = &r->v->violations.v[k];
				cJSON *e = cJSON_CreateObject();
				char *p = x->op == VIOLATION_NETWORK
					      ? xstrdup(x->path)
					      : judge_display_path(r->in, x->path);
				cJSON_AddStringToObject(e, "op", violation_op_name(x->op));
				cJSON_AddStringToObject(e, "path", p);
				if (x->reason) {
					/* the proxy refused it: no system call failed */
					cJSON_AddStringToObject(e, "reason", x->reason);
				} else {
					cJSON_AddStringToObject(e, "syscall", x->syscall);
					if (x->err)
						cJSON_AddStringToObject(e, "errno",
									errno_name(x->err));
					else
						cJSON_AddNullToObject(e, "errno");
				}
				cJSON_AddItemToArray(viol, e);
				free(p);
			}
			for (size_t k = 0; k < r->v->notes.n; k++) {
				const struct judge_note *x = &r->v->notes.v[k];
				cJSON *e = cJSON_CreateObject();
				char *p = judge_display_path(r->in, x->path);
				cJSON_AddStringToObject(e, "kind", x->kind);
				cJSON_AddStringToObject(e, "path", p);
				cJSON_AddStringToObject(e, "text", x->text);
				cJSON_AddItemToArray(notes, e);
				free(p);
			}
		}
		for (size_t k = 0; k < r->n_withheld; k++)
			cJSON_AddItemToArray(withheld, cJSON_CreateString(r->withheld[k]));
		cJSON_AddItemToArray(tasks, o);
	}
	char *text = print_json(doc);
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
}

/* A violation's message in SARIF and GitHub: what it was, then ". Fix: "
 * and each of the task's fixes as fix_texts spells them (the text
 * report's lines), joined by "; ". */
static void add_message_fix(struct strbuf *msg, const struct task_report *r, const char *sep,
			    const struct violation *x)
{
	add_message(msg, r->id, sep, r->in, x);
	struct strvec fixes = STRVEC_INIT;
	fix_texts(&fixes, r->fix_yaml ? r->fix_yaml : r->yaml, r->task, r->v);
	for (size_t i = 0; i < fixes.n; i++)
		strbuf_addf(msg, "%s%s", i ? "; " : ". Fix: ", fixes.v[i]);
	strvec_clear(&fixes);
}

void report_sarif(const struct task_report *t, size_t n, struct strbuf *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(doc, "version", "2.1.0");
	cJSON *runs = cJSON_AddArrayToObject(doc, "runs");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
	cJSON_AddStringToObject(driver, "name", "vx");
	cJSON_AddStringToObject(driver, "version", VX_VERSION);
	cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
	/* one rule per op, in enum violation_op's order (SPEC §5) */
	static const char *const rule_ids[VIOLATION_OPS] = {"vx/sandbox-read", "vx/sandbox-write",
							    "vx/sandbox-exec", "vx/sandbox-network",
							    "vx/read-unkeyed"};
	static const char *const rule_text[VIOLATION_OPS] = {
	    "A sandboxed task read a path in its project that no grant allows",
	    "A sandboxed task wrote a path in its project that no grant allows",
	    "A sandboxed task ran a program that no grant allows, or that its cache key does not "
	    "hold",
	    "A sandboxed task reached a host its allow.network does not grant, or the network past "
	    "its proxy",
	    "A cached sandboxed task read a file its cache key does not hold"};
	static const char *const rule_help[VIOLATION_OPS] = {
	    "Grant the read with sandbox.allow.read in the task's vx.yaml (the fix vx prints), "
	    "and key it with inputs when the task is cached; or change the command not to read it.",
	    "Grant the write with sandbox.allow.write in the task's vx.yaml (the fix vx prints); "
	    "a write into .git, the cache or a mandatory deny is never granted.",
	    "Grant the program's directory with sandbox.allow.read, and key it with "
	    "inputs.toolchain or inputs.files when the task is cached (the fix vx prints).",
	    "Name the host in sandbox.allow.network, and use a client that reads HTTP_PROXY and "
	    "HTTPS_PROXY: a sandboxed task reaches the network only through vx's proxy.",
	    "Add the file to the task's inputs (the fix vx prints), so a change to it misses the "
	    "cache; a replay of a build that read an unkeyed file is a stale hit."};
	for (int i = 0; i < VIOLATION_OPS; i++) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "id", rule_ids[i]);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "shortDescription"), "text",
					rule_text[i]);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "fullDescription"), "text",
					rule_text[i]);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "help"), "text", rule_help[i]);
		cJSON_AddItemToArray(rules, r);
	}
	cJSON *results = cJSON_AddArrayToObject(run, "results");
	for (size_t i = 0; i < n; i++) {
		const struct task_report *r = &t[i];
		if (!r->v || !r->in)
			continue;
		for (size_t k = 0; k < r->v->violations.n; k++) {
			const struct violation *x = &r->v->violations.v[k];
			cJSON *res = cJSON_CreateObject();
			int rule = (int)x->op;
			cJSON_AddStringToObject(res, "ruleId", rule_ids[rule]);
			cJSON_AddNumberToObject(res, "ruleIndex", rule);
			cJSON_AddStringToObject(res, "level", "error");
			struct strbuf msg = STRBUF_INIT;
			add_message_fix(&msg, r, ": ", x);
			cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "message"), "text",
						msg.buf);
			strbuf_release(&msg);
			cJSON *loc = cJSON_CreateObject();
			cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
			char *uri = sarif_uri(r->yaml);
			cJSON_AddStringToObject(cJSON_AddObjectToObject(phys, "artifactLocation"),
						"uri", uri);
			free(uri);
			cJSON *region = cJSON_AddObjectToObject(phys, "region");
			cJSON_AddNumberToObject(region, "startLine", r->line > 0 ? r->line : 1);
			cJSON_AddNumberToObject(region, "startColumn", r->col > 0 ? r->col : 1);
			cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "locations"), loc);
			/* The fix is data (properties.fix, as --report json's) and
			 * words (the message), not a SARIF fixes[] edit: an edit at
			 * the sandbox: line made YAML no parser takes (issue 41),
			 * and a right one would merge into the task's mapping. */
			cJSON_AddItemToObject(cJSON_AddObjectToObject(res, "properties"), "fix",
					      fix_object(r->v));
			cJSON_AddItemToArray(results, res);
		}
	}
	char *text = print_json(doc);
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
}

/* Workflow command data: '%', CR and LF escaped; properties also ',' and ':'. */
static void gh_escape(struct strbuf *sb, const char *s, bool property)
{
	for (; *s; s++) {
		if (*s == '%')
			strbuf_addstr(sb, "%25");
		else if (*s == '\r')
			strbuf_addstr(sb, "%0D");
		else if (*s == '\n')
			strbuf_addstr(sb, "%0A");
		else if (property && *s == ':')
			strbuf_addstr(sb, "%3A");
		else if (property && *s == ',')
			strbuf_addstr(sb, "%2C");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			/* ESC and friends have no workflow-command escape: shown
			 * C-style, so an annotation cannot drive the log viewer */
			char one[2] = {*s, 0};
			strbuf_add_controls_escaped(sb, one);
		} else
			strbuf_addch(sb, *s);
	}
}

void report_github(const struct task_report *t, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct task_report *r = &t[i];
		size_t nv = r->v && r->in ? r->v->violations.n : 0;
		for (size_t k = 0; k < nv; k++) {
			const struct violation *x = &r->v->violations.v[k];
			struct strbuf msg = STRBUF_INIT;
			add_message_fix(&msg, r, " ", x);
			strbuf_addstr(out, "::error file=");
			gh_escape(out, r->yaml, true);
			strbuf_addf(out, ",line=%d,col=%d,title=", r->line > 0 ? r->line : 1,
				    r->col > 0 ? r->col : 1);
			gh_escape(out, "vx sandbox violation", true);
			strbuf_addstr(out, "::");
			gh_escape(out, msg.buf, false);
			strbuf_addch(out, '\n');
			strbuf_release(&msg);
		}
		if (!nv && !strcmp(r->status, "failed")) {
			strbuf_addstr(out, "::error file=");
			gh_escape(out, r->yaml, true);
			strbuf_addstr(out, ",title=vx task failed::");
			struct strbuf msg = STRBUF_INIT;
			if (r->ran)
				strbuf_addf(&msg, "%s failed (exit %d)", r->id, r->exit_code);
			else
				strbuf_addf(&msg, "%s failed before it ran", r->id);
			if (r->reason)
				strbuf_addf(&msg, ": %s", r->reason);
			gh_escape(out, msg.buf, false);
			strbuf_release(&msg);
			strbuf_addch(out, '\n');
		}
	}
}

void report_findings_sarif(const struct report_rule *rules, size_t n_rules,
			   const struct report_finding *f, size_t n, struct strbuf *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(doc, "version", "2.1.0");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "runs"), run);
	cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
	cJSON_AddStringToObject(driver, "name", "vx");
	cJSON_AddStringToObject(driver, "version", VX_VERSION);
	cJSON *jrules = cJSON_AddArrayToObject(driver, "rules");
	for (size_t i = 0; i < n_rules; i++) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "id", rules[i].id);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "shortDescription"), "text",
					rules[i].text);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "fullDescription"), "text",
					rules[i].text);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "help"), "text", rules[i].help);
		cJSON_AddItemToArray(jrules, r);
	}
	cJSON *results = cJSON_AddArrayToObject(run, "results");
	for (size_t i = 0; i < n; i++) {
		cJSON *res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "ruleId", rules[f[i].rule].id);
		cJSON_AddNumberToObject(res, "ruleIndex", (double)f[i].rule);
		cJSON_AddStringToObject(res, "level", "error");
		struct strbuf msg = STRBUF_INIT;
		strbuf_addstr(&msg, f[i].message);
		if (f[i].fix)
			strbuf_addf(&msg, ". Fix: %s", f[i].fix);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "message"), "text", msg.buf);
		strbuf_release(&msg);
		cJSON *loc = cJSON_CreateObject();
		cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
		char *uri = sarif_uri(f[i].file);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(phys, "artifactLocation"), "uri",
					uri);
		free(uri);
		cJSON *region = cJSON_AddObjectToObject(phys, "region");
		cJSON_AddNumberToObject(region, "startLine", f[i].line ? f[i].line : 1);
		cJSON_AddNumberToObject(region, "startColumn", f[i].col ? f[i].col : 1);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "locations"), loc);
		if (f[i].fix)
			cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "properties"), "fix",
						f[i].fix);
		cJSON_AddItemToArray(results, res);
	}
	char *s = print_json(doc);
	strbuf_addstr(out, s);
	strbuf_addch(out, '\n');
	free(s);
}

void report_findings_github(const char *title, const struct report_finding *f, size_t n,
			    struct strbuf *out)
{
	for (size_t i = 0; i < n; i++) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addstr(&msg, f[i].message);
		if (f[i].fix)
			strbuf_addf(&msg, ". Fix: %s", f[i].fix);
		strbuf_addstr(out, "::error file=");
		gh_escape(out, f[i].file, true);
		strbuf_addf(out, ",line=%u,col=%u,title=", f[i].line ? f[i].line : 1,
			    f[i].col ? f[i].col : 1);
		gh_escape(out, title, true);
		strbuf_addstr(out, "::");
		gh_escape(out, msg.buf, false);
		strbuf_addch(out, '\n');
		strbuf_release(&msg);
	}
}
