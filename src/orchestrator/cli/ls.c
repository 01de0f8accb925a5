/* ls.c - `vx ls [PKG...] [--filter P] [--affected[=REF]] [--output json]`:
 * the workspace's packages, or what one runs and depends on, as `turbo ls`
 * prints them (issue 42 item 8; its JSON is turbo 2.11.13's, field for
 * field: tests/integration/t0186-ls.sh compares the two). */
#include "orchestrator/cli/ls.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/filter.h"
#include "orchestrator/plan/graph.h"
#include "util/die.h"
#include "util/parseopt.h"
#include "util/path.h"

static int affected_cb(const struct opt *row, const char *arg)
{
	struct ls_opts *o = row->value;
	o->affected = true;
	free(o->affected_ref);
	o->affected_ref = arg ? xstrdup(arg) : NULL;
	return 0;
}

static const struct opt_usage ls_usage = {
    "usage: vx ls [PACKAGE...] [options]\n"
    "\n"
    "Lists the workspace's packages (name and directory), or, for each PACKAGE\n"
    "named, the tasks it runs with their commands, the packages it depends on\n"
    "and those that depend on it.\n"
    "\n",
    "  -C DIR                 as if started in DIR\n"};

static int by_name(const void *a, const void *b)
{
	const struct project *x = *(const struct project *const *)a,
			     *y = *(const struct project *const *)b;
	return strcmp(x->name, y->name);
}

/* The names of the packages p depends on (dependents: that depend on p),
 * directly or not, as turbo ls lists them, sorted. */
static void related(const struct workspace *ws, const struct project *p, bool dependents,
		    struct strvec *out)
{
	size_t n = ws->projects.n;
	bool *seed = xcalloc(n + 1, 1), *mark = xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++)
		seed[i] = ws->projects.v[i] == p;
	workspace_closure(ws, seed, dependents, mark);
	for (size_t i = 0; i < n; i++)
		if (mark[i] && !seed[i] && !ws->projects.v[i]->is_root)
			strvec_push(out, ws->projects.v[i]->name);
	free(seed);
	free(mark);
	strvec_sort_unique(out);
}

static char *task_command(const struct workspace *ws, const struct project *p, const char *name)
{
	struct task_cfg *c = graph_project_task(ws, p, name);
	const char *cmd = c && c->command.s ? c->command.s : project_script(p, name);
	char *s = xstrdup(cmd ? cmd : "");
	if (c)
		task_cfg_free(c);
	return s;
}

static cJSON *string_array(const struct strvec *sv)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

/* `vx ls PKG...`: each package's tasks, dependencies and dependents. */
static void show_packages(const struct workspace *ws, const struct project *const *pkgs, size_t n,
			  bool json)
{
	cJSON *doc = json ? cJSON_CreateObject() : NULL;
	cJSON *items = json ? cJSON_AddArrayToObject(doc, "packages") : NULL;
	for (size_t i = 0; i < n; i++) {
		const struct project *p = pkgs[i];
		struct strvec tasks = STRVEC_INIT, deps = STRVEC_INIT, users = STRVEC_INIT;
		graph_project_task_names(ws, p, false, &tasks);
		related(ws, p, false, &deps);
		related(ws, p, true, &users);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", p->name);
			cJSON_AddStringToObject(o, "path", p->rel);
			cJSON *t = cJSON_AddObjectToObject(o, "tasks");
			cJSON_AddNumberToObject(t, "count", (double)tasks.n);
			cJSON *ti = cJSON_AddArrayToObject(t, "items");
			for (size_t k = 0; k < tasks.n; k++) {
				cJSON *e = cJSON_CreateObject();
				char *cmd = task_command(ws, p, tasks.v[k]);
				cJSON_AddStringToObject(e, "name", tasks.v[k]);
				cJSON_AddStringToObject(e, "command", cmd);
				free(cmd);
				cJSON_AddItemToArray(ti, e);
			}
			cJSON_AddItemToObject(o, "dependencies", string_array(&deps));
			cJSON_AddItemToObject(o, "dependents", string_array(&users));
			cJSON_AddItemToArray(items, o);
		} else {
			printf("%s\n%s depends on: ", p->rel, p->name);
			if (!deps.n)
				printf("<no packages>");
			for (size_t k = 0; k < deps.n; k++)
				printf("%s%s", k ? ", " : "", deps.v[k]);
			printf("\n\ntasks:\n");
			for (size_t k = 0; k < tasks.n; k++) {
				char *cmd = task_command(ws, p, tasks.v[k]);
				printf("  %s: %s\n", tasks.v[k], cmd);
				free(cmd);
			}
			printf("\n");
		}
		strvec_clear(&tasks);
		strvec_clear(&deps);
		strvec_clear(&users);
	}
	if (json) {
		char *s = cJSON_Print(doc);
		if (!s)
			die("out of memory");
		printf("%s\n", s);
		free(s);
		cJSON_Delete(doc);
	}
}

/* `vx ls`: the selected packages, by name. */
static void list_packages(const struct workspace *ws, const struct project *const *pkgs, size_t n,
			  bool json)
{
	if (!json) {
		printf("%zu package%s (%s)\n\n", n, n == 1 ? "" : "s", ws->pm.name);
		for (size_t i = 0; i < n; i++)
			printf("  %s %s\n", pkgs[i]->name, pkgs[i]->rel);
		return;
	}
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "packageManager", ws->pm.name);
	cJSON *packages = cJSON_AddObjectToObject(doc, "packages");
	cJSON_AddNumberToObject(packages, "count", (double)n);
	cJSON *items = cJSON_AddArrayToObject(packages, "items");
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", pkgs[i]->name);
		cJSON_AddStringToObject(o, "path", pkgs[i]->rel);
		cJSON_AddItemToArray(items, o);
	}
	char *s = cJSON_Print(doc);
	if (!s)
		die("out of memory");
	printf("%s\n", s);
	free(s);
	cJSON_Delete(doc);
}

struct opt *ls_opts_rows(struct ls_opts *o)
{
	static const char *const outputs[] = {[LS_TEXT] = "text", [LS_JSON] = "json", NULL};
	const struct opt rows[] = {
	    OPT_STRVEC('F', "filter", &o->filters, "PATTERN",
		       "only packages matching PATTERN (as vx run's --filter)"),
	    OPT_CALLBACK(0, "affected", o, "REF", true, affected_cb,
			 "only packages changed since REF (default: the merge base\n"
			 "with main) and their dependents"),
	    OPT_ENUM(0, "output", &o->output, outputs, "FORMAT", "text or json (default text)"),
	    OPT_HELP(),
	    OPT_END(),
	};
	return parseopt_copy(rows);
}

int ls_main(int argc, char **argv)
{
	struct ls_opts o = {.output = LS_TEXT};
	struct opt *rows = ls_opts_rows(&o);
	struct strvec names = STRVEC_INIT;
	int rc = parseopt(argc, argv, rows, &ls_usage, &names, NULL);
	free(rows);
	if (rc) {
		strvec_clear(&names);
		strvec_clear(&o.filters);
		free(o.affected_ref);
		return rc > 0 ? 0 : 2;
	}
	char *cwd = path_absolute(".");
	struct workspace *ws = workspace_load(cwd);
	if (!ws) {
		free(cwd);
		return 2;
	}
	size_t np = ws->projects.n;
	bool *selected = xcalloc(np + 1, 1);
	struct filter *filters = xcalloc(o.filters.n + 1, sizeof *filters);
	size_t nf = 0;
	rc = 0;
	for (; nf < o.filters.n && !rc; nf++)
		rc = filter_parse(o.filters.v[nf], ws, cwd, &filters[nf]);
	if (!rc)
		rc = filter_select(ws, filters, nf, selected);
	if (!rc && o.affected)
		rc = filter_affected(ws, o.affected_ref, selected);
	const struct project **pkgs = xcalloc(np + 1, sizeof *pkgs);
	size_t n = 0;
	for (size_t i = 0; !rc && i < names.n; i++) {
		long at = -1;
		for (size_t k = 0; k < np && at < 0; k++)
			if (!strcmp(ws->projects.v[k]->name, names.v[i]))
				at = (long)k;
		if (at < 0) {
			error("no package of the workspace is named \"%s\"", names.v[i]);
			rc = -1;
		} else {
			pkgs[n++] = ws->projects.v[at];
		}
	}
	if (!rc && !names.n)
		for (size_t i = 0; i < np; i++)
			if (selected[i] && !ws->projects.v[i]->is_root)
				pkgs[n++] = ws->projects.v[i];
	if (!names.n) /* named ones come in the order named, as turbo's */
		qsort(pkgs, n, sizeof *pkgs, by_name);
	bool json = o.output == LS_JSON;
	if (!rc && names.n)
		show_packages(ws, pkgs, n, json);
	else if (!rc)
		list_packages(ws, pkgs, n, json);
	for (size_t i = 0; i < nf; i++)
		filter_free(&filters[i]);
	free(filters);
	free(pkgs);
	free(selected);
	free(cwd);
	workspace_free(ws);
	strvec_clear(&names);
	strvec_clear(&o.filters);
	free(o.affected_ref);
	return rc ? 2 : 0;
}
