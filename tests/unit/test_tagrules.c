/* Unit tests for config/tagrules.c: turbo.json's boundaries and tags read
 * with their places (an absent allow list told from an empty one, null
 * as the key left out), and each malformed shape refused at its place,
 * through the loader vx boundaries uses and through turbo.json's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "orchestrator/config/tagrules.h"
#include "orchestrator/config/turbo.h"
#include "util/die.h"
#include "util/path.h"

static char dir[] = "/tmp/vx-test-tagrules.XXXXXX";

static void write_turbo(const char *text)
{
	char *p = path_join(dir, "turbo.json");
	FILE *f = fopen(p, "w");
	if (!f)
		die_errno("cannot write %s", p);
	fputs(text, f);
	fclose(f);
	free(p);
}

static void test_read(void)
{
	write_turbo("{\n"
		    "  // a comment, as turbo.json may hold\n"
		    "  \"tags\": [\"app\", \"public\"],\n"
		    "  \"boundaries\": {\n"
		    "    \"tags\": {\"app\": {\"dependencies\": {\"allow\": []}, "
		    "\"dependents\": {\"deny\": [\"x\"]}}},\n"
		    "    \"implicitDependencies\": [\"peer\"],\n"
		    "    \"dependencies\": {\"deny\": [\"lib\"]}\n"
		    "  }\n"
		    "}\n");
	struct tagrules r;
	CHECK(tagrules_load(dir, &r) == 1);
	CHECK(r.has_tags && r.tags.n == 2 && !strcmp(r.tags.v[1].s, "public"));
	CHECK(r.tags_loc.line == 3 && r.tags_loc.col == 11);
	CHECK(r.has_rules && r.rules_loc.line == 5 && r.rules_loc.col == 5);
	const struct tagrules_rule *app = tagrules_find(&r, "app");
	CHECK(app != NULL);
	if (app) {
		/* an empty allow list is written: it allows nothing */
		CHECK(app->dependencies.set && app->dependencies.allow.set &&
		      app->dependencies.allow.names.n == 0);
		CHECK(!app->dependencies.deny.set);
		CHECK(app->dependents.deny.names.n == 1 &&
		      app->dependents.deny.names.v[0].loc.line == 5);
		CHECK(app->tag.loc.line == 5 && app->tag.loc.col == 14);
	}
	CHECK(tagrules_find(&r, "public") == NULL);
	CHECK(r.implicit.n == 1 && !strcmp(r.implicit.v[0].s, "peer"));
	CHECK(r.dependencies.deny.set && !r.dependents.set);
	tagrules_release(&r);

	write_turbo("{\"tags\": null, \"boundaries\": null}");
	CHECK(tagrules_load(dir, &r) == 1);
	CHECK(!r.has_tags && !r.has_rules && r.path != NULL);
	tagrules_release(&r);

	char *p = path_join(dir, "turbo.json");
	unlink(p);
	free(p);
	CHECK(tagrules_load(dir, &r) == 0 && r.path == NULL);
	tagrules_release(&r);
}

static void test_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"{\"tags\": \"app\"}", "turbo.json:1:10: \"tags\" must be a list of strings"},
	    {"{\"tags\": [\"a\", true]}", "turbo.json:1:16: \"tags\" must be a list of strings"},
	    {"{\"boundaries\": []}",
	     "turbo.json:1:16: turbo.json \"boundaries\" must be an object"},
	    {"{\"boundaries\": {\"tag\": {}}}",
	     "turbo.json:1:17: unknown key \"tag\" in boundaries (did you mean \"tags\"?)"},
	    {"{\"boundaries\": {\"tags\": {\"a\": []}}}",
	     "turbo.json:1:31: a boundaries tag's rule must be an object"},
	    {"{\"boundaries\": {\"tags\": {\"a\": {\"dependants\": {}}}}}",
	     "turbo.json:1:32: unknown key \"dependants\" in boundaries (did you mean "
	     "\"dependents\"?)"},
	    {"{\"boundaries\": {\"tags\": {\"a\": {\"dependents\": {\"allow\": null}}}}}",
	     "turbo.json:1:56: boundaries \"allow\" must be a list of strings"},
	    {"{\"boundaries\": {\"dependencies\": {\"deny\": [1]}}}",
	     "turbo.json:1:43: boundaries \"deny\" must be a list of strings"},
	    {"{\"boundaries\": {\"implicitDependencies\": \"x\"}}",
	     "turbo.json:1:41: boundaries \"implicitDependencies\" must be a list of strings"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		write_turbo(cases[i].text);
		struct tagrules r;
		capture_begin();
		int rc = tagrules_load(dir, &r);
		const char *err = capture_end();
		CHECK(rc == -1);
		if (!strstr(err, cases[i].want))
			fprintf(stderr, "case %zu: %s\n  want: %s\n", i, err, cases[i].want);
		CHECK(strstr(err, cases[i].want) != NULL);
		tagrules_release(&r);
		/* turbo.json's own reader refuses it the same, for every verb */
		char *copy = xstrdup(cases[i].text);
		struct config *cfg = config_parse("/r/vx.yaml", "workspace: {}\n", 14);
		capture_begin();
		rc = turbo_parse("/r/turbo.json", copy, strlen(copy), cfg);
		err = capture_end();
		CHECK(rc < 0 && strstr(err, cases[i].want) != NULL);
		config_free(cfg);
		free(copy);
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		die_errno("mkdtemp");
	test_read();
	test_errors();
	char *p = path_join(dir, "turbo.json");
	unlink(p);
	free(p);
	rmdir(dir);
	return check_finish("tagrules");
}
