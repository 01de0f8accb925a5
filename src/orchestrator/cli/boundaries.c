/* boundaries.c - `vx boundaries` (issue 56 item 5): Turborepo's check that
 * a package imports only what its package.json declares, from two
 * sources. The static one reads every JavaScript and TypeScript file of
 * each package (util/jsimports.h) and resolves its imports as turbo
 * boundaries 2.11 does; the runtime one reads what the traced tasks read
 * of the other packages (run/taskreads.h), which no import shows.
 * tests/integration/t0192-boundaries.sh holds turbo's findings beside
 * vx's on the same repositories. */
#include "orchestrator/cli/boundaries.h"
#include "orchestrator/cli/tagcheck.h"
#include "orchestrator/cli/tsconfig.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/keys/ignores.h"
#include "orchestrator/keys/listing.h"
#include "orchestrator/plan/filter.h"
#include "orchestrator/run/taskreads.h"
#include "util/die.h"
#include "util/jsimports.h"
#include "util/jsonloc.h"
#include "util/parseopt.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "violations/report.h"

/* The tag rules' findings keep tagcheck.h's order from RULE_TAG. */
enum rule {
	RULE_UNDECLARED,
	RULE_TYPE_ONLY,
	RULE_LEAVES,
	RULE_RUNTIME,
	RULE_TAG,
	RULES = RULE_TAG + TAGCHECK_RULES
};

static const struct report_rule rules[RULES] = {
    {"vx/boundaries-undeclared", "A package imports a package its package.json does not declare",
     "Add the package to the importing package's dependencies (or devDependencies): an "
     "undeclared import works only while something else installs it."},
    {"vx/boundaries-type-only",
     "A package imports a type declaration package (@types/...) as a value",
     "Write the import as `import type`, or declare the package itself."},
    {"vx/boundaries-leaves-package", "A relative import reaches a file outside the package",
     "Import the other package by its name and declare it, or move the file into the "
     "package."},
    {"vx/boundaries-runtime-read",
     "A traced task read files of a workspace package its package.json does not declare",
     "Declare the package in the reading package's dependencies: the task needs it at run "
     "time, and its build order and cache key follow the declaration."},
    {"vx/boundaries-tag-not-allowed",
     "A package depends on (or is depended on by) a package none of whose tags its rule allows",
     "Give the related package a tag the allow list names, or name it in the list."},
    {"vx/boundaries-tag-denied",
     "A package depends on (or is depended on by) a package with a tag its rule denies",
     "Take the tag off the related package, or out of the deny list."},
    {"vx/boundaries-tag-is-package-name", "A boundaries tag has the name of a package",
     "Rename the tag: a package's name already stands for it in allow and deny lists."},
    {"vx/boundaries-package-tags", "A package's own boundaries hold tag rules",
     "Move the tag rules to the root turbo.json's boundaries."},
};

/* The short names --report json gives the rules. */
static const char *const rule_names[RULES] = {
    "undeclared",      "type-only",  "leaves-package",	    "runtime-read",
    "tag-not-allowed", "tag-denied", "tag-is-package-name", "package-boundaries-tags"};

struct finding {
	enum rule rule;
	char *file; /* workspace-relative */
	unsigned line, col;
	char *package; /* the package, or NULL (a file outside any) */
	char *spec;    /* the import as written; a runtime read's first file; "" */
	char *message, *fix;
	/* a tag rule's: whose rule, the tag, which way, the path (tagcheck.h) */
	char *source, *tag;
	const char *direction;
	struct strvec via;
};

/* One run of the check. */
struct check {
	const struct workspace *ws;
	VEC(struct finding) findings;
	size_t files, packages;
	int failed;		    /* a file could not be read: exit 2 */
	struct tagrules root_rules; /* the root turbo.json's boundaries */
	struct tagrules *rules;	    /* each project's turbo.json's, as ws->projects */
};

/* Node's own modules: importing one declares nothing. */
static const char *const builtins[] = {
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
    NULL,
};

static bool is_builtin(const char *name)
{
	for (const char *const *b = builtins; *b; b++)
		if (!strcmp(*b, name))
			return true;
	return false;
}

static const char *const report_modes[] = {
    [BOUNDARIES_TEXT] = "text",
    [BOUNDARIES_JSON] = "json",
    [BOUNDARIES_SARIF] = "sarif",
    [BOUNDARIES_GITHUB] = "github",
    NULL,
};

static const struct opt_usage boundaries_usage = {
    "usage: vx boundaries [options]\n"
    "\n"
    "Checks that each package imports only the packages its package.json declares\n"
    "(and no file outside itself), as turbo boundaries does, and that its traced\n"
    "tasks read no other package it does not declare. Exits 1 on a finding.\n"
    "\n",
    "  -C DIR                 as if started in DIR\n"};

struct opt *boundaries_opts_rows(struct boundaries_opts *o)
{
	const struct opt rows[] = {
	    OPT_STRVEC('F', "filter", &o->filters, "PATTERN",
		       "only packages matching PATTERN (as vx run's --filter)"),
	    OPT_ENUM(0, "report", &o->report, report_modes, "MODE",
		     "text, json, sarif or github (default text)"),
	    OPT_HELP(),
	    OPT_END(),
	};
	return parseopt_copy(rows);
}

static bool in_list(const lstr_vec *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].s, name))
			return true;
	return false;
}

/* Whether p declares name: in its package.json, or in
 * boundaries.implicitDependencies of its turbo.json or the root's. */
static bool declared(const struct check *c, const struct project *p, const char *name)
{
	long i = workspace_find(c->ws, p->name);
	return strvec_find(&p->pkg_deps, name) >= 0 ||
	       (i >= 0 && in_list(&c->rules[i].implicit, name)) ||
	       in_list(&c->root_rules.implicit, name);
}

/* The specifier to declare name with in p: as another package of the
 * workspace declares it, else the workspace protocol for a workspace
 * package (npm's "*"), else NULL. */
static const char *spec_for(const struct workspace *ws, const char *name)
{
	for (size_t i = 0; i < ws->projects.n; i++) {
		const struct project *o = ws->projects.v[i];
		long k = strvec_find(&o->pkg_deps, name);
		if (k >= 0 && (size_t)k < o->pkg_dep_specs.n)
			return o->pkg_dep_specs.v[k];
	}
	if (workspace_find(ws, name) < 0)
		return NULL;
	return !strcmp(ws->pm.name, "npm") ||
		       (!strcmp(ws->pm.name, "yarn") && ws->pm.version[0] <= '1')
		   ? "*"
		   : "workspace:*";
}

/* The edit that declares name in p. */
static char *declare_fix(const struct workspace *ws, const struct project *p, const char *name)
{
	const char *spec = spec_for(ws, name);
	char *pkg = path_join(p->rel, "package.json");
	char *fix = spec
			? xasprintf("add \"%s\": \"%s\" to \"dependencies\" in %s", name, spec, pkg)
			: xasprintf("add \"%s\" to \"dependencies\" in %s, at the version you "
				    "install",
				    name, pkg);
	free(pkg);
	return fix;
}

static void add_finding(struct check *c, enum rule rule, const char *file, unsigned line,
			unsigned col, const char *package, const char *spec, char *message,
			char *fix)
{
	struct finding f = {.rule = rule,
			    .file = xstrdup(file),
			    .line = line,
			    .col = col,
			    .package = package ? xstrdup(package) : NULL,
			    .spec = xstrdup(spec),
			    .message = message,
			    .fix = fix};
	vec_push(&c->findings, f);
}

/* A file import resolved to abs (normalized): inside the package, or a
 * finding. */
static void check_file_import(struct check *c, const struct project *p, const char *file,
			      const struct jsimport *im, const char *abs)
{
	if (!strcmp(abs, p->dir) || path_is_within(p->dir, abs))
		return;
	char *rel =
	    path_is_within(c->ws->root, abs) ? path_relative(c->ws->root, abs) : xstrdup(abs);
	char *message = xasprintf("import `%s` leaves the package: it resolves to %s, outside %s",
				  im->spec, rel, p->name);
	long q = workspace_project_of(c->ws, abs);
	const struct project *other = q >= 0 ? c->ws->projects.v[q] : NULL;
	char *fix;
	if (other && !other->is_root) {
		char *declare = declare_fix(c->ws, p, other->name);
		fix = declared(c, p, other->name)
			  ? xasprintf("import it by its package's name, \"%s\"", other->name)
			  : xasprintf("import it by its package's name, \"%s\", and %s",
				      other->name, declare);
		free(declare);
	} else {
		fix = xasprintf("move %s into %s, or make its directory a workspace package and "
				"declare it",
				rel, p->rel);
	}
	add_finding(c, RULE_LEAVES, file, im->line, im->col, p->name, im->spec, message, fix);
	free(rel);
}

/* A bare specifier's package: declared, a builtin, or a finding. */
static void check_package_import(struct check *c, const struct project *p, const char *file,
				 const struct jsimport *im, size_t len)
{
	char *name = xstrndup(im->spec, len);
	bool types = !strncmp(name, "@types/", 7);
	char *message = NULL, *fix = NULL;
	enum rule rule = RULE_UNDECLARED;
	if (types && !im->type_only) {
		rule = RULE_TYPE_ONLY;
		message =
		    xasprintf("`%s` is a type declaration package, imported as a value", im->spec);
		fix = xstrdup("write the import as `import type`");
	} else if (!declared(c, p, name) && !is_builtin(name)) {
		char *types_name = xasprintf("@types/%s", name);
		if (declared(c, p, types_name)) {
			if (!im->type_only) {
				rule = RULE_TYPE_ONLY;
				message = xasprintf("%s declares only %s, the types of `%s`, "
						    "which is imported as a value",
						    p->name, types_name, name);
				char *declare = declare_fix(c->ws, p, name);
				fix =
				    xasprintf("write the import as `import type`, or %s", declare);
				free(declare);
			}
		} else {
			message = xasprintf("cannot import package `%s`: %s does not declare it",
					    name, p->name);
			fix = declare_fix(c->ws, p, name);
		}
		free(types_name);
	}
	if (message)
		add_finding(c, rule, file, im->line, im->col, name, im->spec, message, fix);
	free(name);
}

/* One file of package p: rel is workspace-relative. */
static void check_file(struct check *c, const struct project *p, struct tsconfigs *tsconfigs,
		       const char *rel, enum jsimports_syntax syntax)
{
	char *abs = path_join(c->ws->root, rel);
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, abs) < 0) {
		error("boundaries: %s: %s", rel, strbuf_read_strerror(errno));
		c->failed = 1;
		strbuf_release(&sb);
		free(abs);
		return;
	}
	c->files++;
	struct jsimports ims = {0};
	jsimports_scan(sb.buf, sb.len, syntax, &ims);
	char *dir = path_dirname(abs);
	for (size_t k = 0; k < ims.v.n; k++) {
		const struct jsimport *im = &ims.v.v[k];
		if (im->ignore == JSIMPORT_IGNORED)
			continue;
		if (im->ignore == JSIMPORT_NO_REASON)
			warning("%s:%u: @boundaries-ignore needs a reason, e.g. `// "
				"@boundaries-ignore an implicit dependency`: the import is checked",
				rel, im->line);
		struct strvec targets = STRVEC_INIT;
		size_t len;
		const struct tsconfig *ts;
		if (tsconfig_for(tsconfigs, dir, &ts))
			c->failed = 1;
		if (tsconfig_alias(ts, im->spec, &targets)) {
			for (size_t t = 0; t < targets.n; t++)
				check_file_import(c, p, rel, im, targets.v[t]);
		} else if (im->spec[0] == '.') {
			char *joined = path_join(dir, im->spec);
			char *target = path_normalize(joined);
			check_file_import(c, p, rel, im, target);
			free(target);
			free(joined);
		} else if ((len = jsimports_package_len(im->spec))) {
			check_package_import(c, p, rel, im, len);
		}
		strvec_clear(&targets);
	}
	free(dir);
	jsimports_clear(&ims);
	strbuf_release(&sb);
	free(abs);
}

/* Whether rel (workspace-relative) lies in a project nested in p. */
static bool in_nested(const struct workspace *ws, const struct project *p, const char *rel)
{
	for (size_t i = 0; i < p->nested.n; i++)
		if (path_is_within(ws->projects.v[p->nested.v[i]]->rel, rel))
			return true;
	return false;
}

/* The static check of package p over the workspace's files. */
static void check_package(struct check *c, const struct project *p, const struct strvec *files)
{
	struct tsconfigs tsconfigs = {.top = c->ws->root};
	size_t first;
	size_t n = strvec_sorted_below(files, p->rel, &first);
	for (size_t i = first; i < first + n; i++) {
		const char *rel = files->v[i];
		int syntax = jsimports_syntax_of(rel);
		if (syntax < 0 || in_nested(c->ws, p, rel))
			continue;
		check_file(c, p, &tsconfigs, rel, (enum jsimports_syntax)syntax);
	}
	c->packages++;
	tsconfigs_free(&tsconfigs);
}

/* The place of "dependencies" in p's package.json, else its start. */
static void dependencies_place(const struct project *p, unsigned *line, unsigned *col)
{
	struct strbuf sb = STRBUF_INIT;
	*line = *col = 1;
	if (p->pkg_path && strbuf_read_file(&sb, p->pkg_path) == 0) {
		const char *key = "dependencies";
		size_t at = jsonloc_find(sb.buf, sb.len, &key, 1);
		int l, co;
		jsonloc_line_col(sb.buf, at, &l, &co);
		*line = (unsigned)l;
		*col = (unsigned)co;
	}
	strbuf_release(&sb);
}

/* The runtime check: each kept record of a selected package's task. */
static void check_reads(struct check *c, const bool *selected)
{
	const struct workspace *ws = c->ws;
	struct taskreads_list records = {0};
	taskreads_load(ws, &records);
	for (size_t r = 0; r < records.v.n; r++) {
		const struct taskreads *tr = &records.v.v[r];
		long pi = -1;
		for (size_t i = 0; i < ws->projects.n && pi < 0; i++)
			if (!strcmp(ws->projects.v[i]->rel, tr->project))
				pi = (long)i;
		if (pi < 0 || !selected[pi] || ws->projects.v[pi]->is_root)
			continue; /* a package since removed, or not asked about */
		const struct project *p = ws->projects.v[pi];
		/* per package read, its first file and how many */
		struct strmap seen = STRMAP_INIT;
		VEC(size_t) firsts = {0};
		VEC(size_t) counts = {0};
		for (size_t k = 0; k < tr->files.n; k++) {
			long q = workspace_project_of(ws, tr->files.v[k]);
			if (q < 0 || q == pi || ws->projects.v[q]->is_root ||
			    path_is_within(ws->projects.v[q]->rel, p->rel))
				continue;
			size_t at;
			if (strmap_get(&seen, ws->projects.v[q]->name, &at)) {
				counts.v[at]++;
				continue;
			}
			strmap_put(&seen, ws->projects.v[q]->name, firsts.n);
			vec_push(&firsts, k);
			vec_push(&counts, (size_t)1);
		}
		for (size_t g = 0; g < firsts.n; g++) {
			const char *read = tr->files.v[firsts.v[g]];
			const struct project *q = ws->projects.v[workspace_project_of(ws, read)];
			if (declared(c, p, q->name))
				continue;
			unsigned line, col;
			dependencies_place(p, &line, &col);
			char *pkg = path_join(p->rel, "package.json");
			char *more = counts.v[g] > 1
					 ? xasprintf(" and %zu more file%s of %s", counts.v[g] - 1,
						     counts.v[g] > 2 ? "s" : "", q->name)
					 : xstrdup("");
			char *message =
			    xasprintf("%s read %s%s when it ran traced, but %s does not "
				      "declare %s",
				      tr->id, read, more, p->name, q->name);
			add_finding(c, RULE_RUNTIME, pkg, line, col, q->name, read, message,
				    declare_fix(ws, p, q->name));
			free(more);
			free(pkg);
		}
		vec_free(&firsts);
		vec_free(&counts);
		strmap_clear(&seen);
	}
	taskreads_list_free(&records);
}

static int by_place(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int d = strcmp(x->file, y->file);
	if (d)
		return d;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	d = strcmp(x->spec, y->spec);
	return d ? d : strcmp(x->message, y->message);
}

static void write_report(const struct check *c, enum boundaries_report mode, struct strbuf *out)
{
	size_t n = c->findings.n;
	const struct finding *f = c->findings.v;
	if (mode == BOUNDARIES_TEXT) {
		/* a message quotes what a file says (an import's specifier,
		 * its escapes decoded): a control byte in it would reach the
		 * terminal of whoever runs the check (a review: an OSC 52
		 * import wrote to the clipboard) */
		for (size_t i = 0; i < n; i++) {
			strbuf_add_controls_escaped(out, f[i].file);
			strbuf_addf(out, ":%u:%u: ", f[i].line, f[i].col);
			strbuf_add_controls_escaped(out, f[i].message);
			strbuf_addch(out, '\n');
			if (f[i].fix) {
				strbuf_add_controls_escaped(out, f[i].file);
				strbuf_addf(out, ":%u:%u: fix: ", f[i].line, f[i].col);
				strbuf_add_controls_escaped(out, f[i].fix);
				strbuf_addch(out, '\n');
			}
		}
		return;
	}
	if (mode == BOUNDARIES_JSON) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddNumberToObject(doc, "version", 1);
		cJSON_AddNumberToObject(doc, "filesChecked", (double)c->files);
		cJSON_AddNumberToObject(doc, "packagesChecked", (double)c->packages);
		cJSON *items = cJSON_AddArrayToObject(doc, "findings");
		for (size_t i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "rule", rule_names[f[i].rule]);
			cJSON_AddStringToObject(o, "file", f[i].file);
			cJSON_AddNumberToObject(o, "line", f[i].line);
			cJSON_AddNumberToObject(o, "col", f[i].col);
			if (f[i].package)
				cJSON_AddStringToObject(o, "package", f[i].package);
			if (f[i].spec[0])
				cJSON_AddStringToObject(
				    o, f[i].rule == RULE_RUNTIME ? "read" : "import", f[i].spec);
			if (f[i].source)
				cJSON_AddStringToObject(o, "source", f[i].source);
			if (f[i].tag)
				cJSON_AddStringToObject(o, "tag", f[i].tag);
			if (f[i].direction)
				cJSON_AddStringToObject(o, "direction", f[i].direction);
			if (f[i].via.n) {
				cJSON *via = cJSON_AddArrayToObject(o, "via");
				for (size_t k = 0; k < f[i].via.n; k++)
					cJSON_AddItemToArray(via,
							     cJSON_CreateString(f[i].via.v[k]));
			}
			cJSON_AddStringToObject(o, "message", f[i].message);
			if (f[i].fix)
				cJSON_AddStringToObject(o, "fix", f[i].fix);
			cJSON_AddItemToArray(items, o);
		}
		char *s = cJSON_Print(doc);
		cJSON_Delete(doc);
		if (!s)
			die("out of memory");
		strbuf_addf(out, "%s\n", s);
		free(s);
		return;
	}
	struct report_finding *rf = xcalloc(n + 1, sizeof *rf);
	for (size_t i = 0; i < n; i++)
		rf[i] = (struct report_finding){.rule = f[i].rule,
						.file = f[i].file,
						.line = f[i].line,
						.col = f[i].col,
						.message = f[i].message,
						.fix = f[i].fix};
	if (mode == BOUNDARIES_SARIF)
		report_findings_sarif(rules, RULES, rf, n, out);
	else
		report_findings_github("vx boundaries", rf, n, out);
	free(rf);
}

static void check_release(struct check *c)
{
	for (size_t i = 0; i < c->findings.n; i++) {
		struct finding *f = &c->findings.v[i];
		free(f->file);
		free(f->package);
		free(f->spec);
		free(f->message);
		free(f->fix);
		free(f->source);
		free(f->tag);
		strvec_clear(&f->via);
	}
	vec_free(&c->findings);
	for (size_t i = 0; c->rules && i < c->ws->projects.n; i++)
		tagrules_release(&c->rules[i]);
	free(c->rules);
	tagrules_release(&c->root_rules);
}

/* Every turbo.json's boundaries and tags. Returns 0, or -1 after an
 * error line. */
static int load_rules(struct check *c)
{
	const struct workspace *ws = c->ws;
	c->rules = xcalloc(ws->projects.n + 1, sizeof *c->rules);
	if (tagrules_load(ws->root, &c->root_rules) < 0)
		return -1;
	/* turbo reads these in a package's turbo.json only, and says nothing */
	const struct tagrules *r = &c->root_rules;
	if (r->dependencies.set || r->dependents.set)
		warning("%s: boundaries \"dependencies\" and \"dependents\" are a package's own "
			"rules: the root turbo.json's apply to no package (ignored)",
			r->path);
	if (r->has_tags)
		warning("%s:%d:%d: \"tags\" of the root turbo.json tag the root, which no rule "
			"checks (turbo boundaries skips it)",
			r->path, r->tags_loc.line, r->tags_loc.col);
	for (size_t i = 0; i < ws->projects.n; i++)
		if (tagrules_load(ws->projects.v[i]->dir, &c->rules[i]) < 0)
			return -1;
	return 0;
}

/* The tag rules' findings, as the check's. */
static void check_tags(struct check *c, const bool *selected)
{
	struct tagcheck_input in = {
	    .ws = c->ws, .root = &c->root_rules, .rules = c->rules, .selected = selected};
	struct tagcheck_findings tf = {0};
	tagcheck_run(&in, &tf);
	for (size_t i = 0; i < tf.v.n; i++) {
		struct tagcheck_finding *t = &tf.v.v[i];
		struct finding f = {.rule = (enum rule)(RULE_TAG + t->rule),
				    .file = t->file,
				    .line = t->line,
				    .col = t->col,
				    .package = t->package,
				    .spec = xstrdup(""),
				    .message = t->message,
				    .fix = t->fix,
				    .source = t->source,
				    .tag = t->tag,
				    .direction = t->direction,
				    .via = t->via};
		vec_push(&c->findings, f);
		/* the strings moved into the check's finding */
		*t = (struct tagcheck_finding){0};
	}
	tagcheck_findings_free(&tf);
}

/* The packages --filter selects (all without one) into selected. */
static int select_packages(const struct workspace *ws, const struct strvec *args, bool *selected)
{
	char *cwd = path_absolute(".");
	struct filter *filters = xcalloc(args->n + 1, sizeof *filters);
	size_t nf = 0;
	int rc = 0;
	for (; nf < args->n && !rc; nf++)
		rc = filter_parse(args->v[nf], ws, cwd, &filters[nf]);
	if (!rc)
		rc = filter_select(ws, filters, nf, selected);
	for (size_t i = 0; i < nf; i++)
		filter_free(&filters[i]);
	free(filters);
	free(cwd);
	return rc;
}

int boundaries_main(int argc, char **argv)
{
	struct boundaries_opts o = {.report = BOUNDARIES_TEXT};
	struct opt *rows = boundaries_opts_rows(&o);
	int rc = parseopt(argc, argv, rows, &boundaries_usage, NULL, NULL);
	free(rows);
	if (rc) {
		strvec_clear(&o.filters);
		return rc > 0 ? 0 : 2;
	}
	struct workspace *ws = workspace_load_here();
	if (!ws) {
		strvec_clear(&o.filters);
		return 2;
	}
	bool *selected = xcalloc(ws->projects.n + 1, 1);
	struct check c = {.ws = ws};
	struct strvec files = STRVEC_INIT;
	rc = select_packages(ws, &o.filters, selected) ? 2 : 0;
	if (!rc) {
		struct ignores *ig = ignores_load(NULL, ws->root);
		int r = listing_finish(NULL, ws->root, NULL, NULL, ig, &files);
		ignores_free(ig);
		if (r) {
			error("boundaries: %s: %s", ws->root,
			      r < 0 ? strerror(errno)
				    : "not in a git work tree (its files are what git lists)");
			rc = 2;
		}
	}
	if (!rc && load_rules(&c))
		rc = 2;
	if (!rc) {
		check_tags(&c, selected);
		for (size_t i = 0; i < ws->projects.n; i++)
			if (selected[i] && !ws->projects.v[i]->is_root)
				check_package(&c, ws->projects.v[i], &files);
		check_reads(&c, selected);
		if (c.findings.n)
			qsort(c.findings.v, c.findings.n, sizeof *c.findings.v, by_place);
		struct strbuf out = STRBUF_INIT;
		write_report(&c, o.report, &out);
		fputs(out.buf, stdout);
		strbuf_release(&out);
		FILE *summary = o.report != BOUNDARIES_TEXT ? stderr : stdout;
		fprintf(summary, "Checked %zu file%s in %zu package%s: ", c.files,
			c.files == 1 ? "" : "s", c.packages, c.packages == 1 ? "" : "s");
		if (c.findings.n)
			fprintf(summary, "%zu finding%s\n", c.findings.n,
				c.findings.n == 1 ? "" : "s");
		else
			fprintf(summary, "no findings\n");
		rc = c.failed ? 2 : c.findings.n ? 1 : 0;
	}
	check_release(&c);
	strvec_clear(&files);
	free(selected);
	workspace_free(ws);
	strvec_clear(&o.filters);
	return rc;
}
