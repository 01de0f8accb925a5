/* Unit tests for util/yamledit.c: an addition lands where a person would
 * write it, every other byte stays, adding twice changes nothing, and what
 * cannot be edited in place is an error at its node. */
#include <string.h>

#include "check.h"
#include "util/yamledit.h"

#define PATH(...) ((const char *const[]){__VA_ARGS__})
#define N(...) (sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* text after adding values (nv 0: a mapping) at path; NULL on error. */
static char *add(const char *text, const char *const *path, size_t np, const char *const *v,
		 size_t nv, struct yamlload_error *err)
{
	struct strbuf out = STRBUF_INIT;
	bool changed;
	if (yamledit_add(text, strlen(text), path, np, v, nv, &out, &changed, err)) {
		strbuf_release(&out);
		return NULL;
	}
	/* again: nothing more to add */
	struct strbuf again = STRBUF_INIT;
	bool changed2 = true;
	CHECK(yamledit_add(out.buf, out.len, path, np, v, nv, &again, &changed2, err) == 0);
	CHECK(!changed2);
	CHECK_STR(again.buf, out.buf);
	strbuf_release(&again);
	CHECK(changed == (strcmp(out.buf, text) != 0));
	return strbuf_detach(&out, NULL);
}

static void expect(const char *text, const char *const *path, size_t np, const char *const *v,
		   size_t nv, const char *want)
{
	struct yamlload_error err;
	char *got = add(text, path, np, v, nv, &err);
	CHECK_STR(got, want);
	if (!got)
		fprintf(stderr, "  error %d:%d %s\n", err.line, err.col, err.message);
	free(got);
}

#define READ PATH("tasks", "build", "sandbox", "allow", "read"), 5

static void test_block(void)
{
	/* the whole path missing from an empty file, a comment-only one */
	expect("", READ, PATH("a/"), 1,
	       "tasks:\n  build:\n    sandbox:\n      allow:\n        read: [\"a/\"]\n");
	expect("# mine\n", READ, PATH("a/"), 1,
	       "# mine\ntasks:\n  build:\n    sandbox:\n      allow:\n        read: [\"a/\"]\n");
	/* a task with a command and a comment after it: the rest below, the
	 * comment kept where it was */
	expect("tasks:\n  build:\n    command: make # all\n\n# next\n  test:\n    command: t\n",
	       READ, PATH("x"), 1,
	       "tasks:\n  build:\n    command: make # all\n    sandbox:\n      allow:\n"
	       "        read: [\"x\"]\n\n# next\n  test:\n    command: t\n");
	/* a block list grows at its dash's column, an indentless one too */
	expect("tasks:\n  build:\n    sandbox:\n      allow:\n        read:\n          - a\n"
	       "          - 'b' # b\n",
	       READ, PATH("b", "c"), 2,
	       "tasks:\n  build:\n    sandbox:\n      allow:\n        read:\n          - a\n"
	       "          - 'b' # b\n          - \"c\"\n");
	expect("tasks:\n  build:\n    sandbox:\n      allow:\n        read:\n        - a\n", READ,
	       PATH("c"), 1,
	       "tasks:\n  build:\n    sandbox:\n      allow:\n        read:\n        - a\n"
	       "        - \"c\"\n");
	/* no newline at the end */
	expect("tasks:\n  build:\n    command: make", READ, PATH("x"), 1,
	       "tasks:\n  build:\n    command: make\n    sandbox:\n      allow:\n"
	       "        read: [\"x\"]\n");
	/* an empty value: the rest below the key; "~": in its place */
	expect("tasks:\n  build:\n    sandbox:\n  test: {}\n", READ, PATH("x"), 1,
	       "tasks:\n  build:\n    sandbox:\n      allow:\n        read: [\"x\"]\n  test: {}\n");
	expect("tasks:\n  build:\n    sandbox: ~\n", READ, PATH("x"), 1,
	       "tasks:\n  build:\n    sandbox: {allow: {read: [\"x\"]}}\n");
	expect("tasks:\n  build:\n    sandbox:\n      allow:\n        read:\n", READ, PATH("x"), 1,
	       "tasks:\n  build:\n    sandbox:\n      allow:\n        read: [\"x\"]\n");
	/* a mapping asked for */
	expect("tasks:\n  build:\n    command: make\n", PATH("tasks", "build", "sandbox"), 3, NULL,
	       0, "tasks:\n  build:\n    command: make\n    sandbox: {}\n");
	expect("tasks:\n  build:\n    sandbox: {}\n", PATH("tasks", "build", "sandbox"), 3, NULL, 0,
	       "tasks:\n  build:\n    sandbox: {}\n");
	/* a key that needs quotes */
	expect("", PATH("tasks", "build:ts", "inputs", "files"), 4, PATH("a b"), 1,
	       "tasks:\n  \"build:ts\":\n    inputs:\n      files: [\"a b\"]\n");
	/* a literal block scalar before the insertion point keeps its lines */
	expect("tasks:\n  build:\n    command: |\n      make\n      make install\n", READ,
	       PATH("x"), 1,
	       "tasks:\n  build:\n    command: |\n      make\n      make install\n    sandbox:\n"
	       "      allow:\n        read: [\"x\"]\n");
}

static void test_flow(void)
{
	/* into a flow mapping: flow, before its brace */
	expect("tasks:\n  build:\n    sandbox: {allow: {write: [\"dist/\"]}}\n", READ, PATH("../x"),
	       1,
	       "tasks:\n  build:\n    sandbox: {allow: {write: [\"dist/\"], read: [\"../x\"]}}\n");
	/* an empty flow mapping under a block one: unfolded, as a person writes it */
	expect("tasks:\n  build:\n    sandbox: {}  # on\n  test: {}\n", READ, PATH("x"), 1,
	       "tasks:\n  build:\n    sandbox:  # on\n      allow:\n        read: [\"x\"]\n"
	       "  test: {}\n");
	expect("tasks: {build: {sandbox: {}}}", READ, PATH("x"), 1,
	       "tasks: {build: {sandbox: {allow: {read: [\"x\"]}}}}");
	/* into a flow list: after its last item, or inside an empty one */
	expect("tasks: {build: {sandbox: {allow: {read: [a, \"b\" ]}}}}\n", READ, PATH("c", "a"), 2,
	       "tasks: {build: {sandbox: {allow: {read: [a, \"b\", \"c\" ]}}}}\n");
	expect("tasks:\n  build:\n    sandbox:\n      allow:\n        read: []  # none yet\n", READ,
	       PATH("x", "y"), 2,
	       "tasks:\n  build:\n    sandbox:\n      allow:\n        read: [\"x\", \"y\"]  # none "
	       "yet\n");
	/* a flow list across lines */
	expect("tasks:\n  build:\n    inputs:\n      files: [\n        \"src/**\",\n      ]\n",
	       PATH("tasks", "build", "inputs", "files"), 4, PATH("src/**", "tsup.config.ts"), 2,
	       "tasks:\n  build:\n    inputs:\n      files: [\n        \"src/**\", "
	       "\"tsup.config.ts\",\n      ]\n");
}

static void test_refused(void)
{
	struct yamlload_error err;
	/* a scalar where a mapping must be */
	CHECK(add("tasks:\n  build: make\n", READ, PATH("x"), 1, &err) == NULL);
	CHECK_INT(err.line, 2);
	CHECK_INT(err.col, 10);
	CHECK(strstr(err.message, "\"build\" must be a mapping") != NULL);
	/* a string where the list must be */
	CHECK(add("tasks: {build: {sandbox: {allow: {read: x}}}}\n", READ, PATH("y"), 1, &err) ==
	      NULL);
	CHECK(strstr(err.message, "must be a list") != NULL);
	/* an alias: editing it would edit every place that shares it */
	CHECK(add("x: &r [a]\ntasks: {build: {sandbox: {allow: {read: *r}}}}\n", READ, PATH("y"), 1,
		  &err) == NULL);
	CHECK(strstr(err.message, "alias") != NULL);
	/* no YAML */
	CHECK(add("tasks: [\n", READ, PATH("y"), 1, &err) == NULL);
	CHECK_INT(err.line, 2);
	/* the root a list */
	CHECK(add("- a\n", READ, PATH("y"), 1, &err) == NULL);
	CHECK(strstr(err.message, "must be a mapping") != NULL);
}

int main(void)
{
	test_block();
	test_flow();
	test_refused();
	return check_finish("yamledit");
}
