/* Unit tests for config/framework.c: turbo 2.11.13's rules (all or any of
 * a row's packages, the first row wins) and the variables a framework keys
 * (its wildcards, its condition). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "orchestrator/config/framework.h"

static const char *slug(const char *a, const char *b, const char *c)
{
	struct strvec deps = STRVEC_INIT;
	const char *names[] = {a, b, c};
	for (size_t k = 0; k < 3; k++)
		if (names[k])
			strvec_push(&deps, names[k]);
	const struct framework *fw = framework_infer(&deps);
	strvec_clear(&deps);
	return fw ? fw->slug : "";
}

static void test_infer(void)
{
	CHECK_STR(slug("next", NULL, NULL), "nextjs");
	CHECK_STR(slug("left-pad", "vite", NULL), "vite");
	CHECK_STR(slug("react-dev-utils", NULL, NULL), "create-react-app"); /* some */
	CHECK_STR(slug("solid-js", NULL, NULL), "");			    /* all: half is none */
	CHECK_STR(slug("solid-start", "solid-js", NULL), "solidstart");
	CHECK_STR(slug("vite", "@sveltejs/kit", "next"), "nextjs"); /* the table's order */
	CHECK_STR(slug("vite", "@sveltejs/kit", NULL), "sveltekit");
	CHECK_STR(slug("nuxt3-edge", NULL, NULL), "nuxtjs");
	CHECK_STR(slug(NULL, NULL, NULL), "");
}

static void test_env(void)
{
	struct strvec deps = STRVEC_INIT;
	strvec_push(&deps, "next");
	const struct framework *fw = framework_infer(&deps);
	strvec_clear(&deps);
	char *env[] = {"NEXT_PUBLIC_B=1",
		       "NEXT_PUBLIC_A=2",
		       "NEXT_PUBLICX=3",
		       "NEXT_DEPLOYMENT_ID=4",
		       "VERCEL_DEPLOYMENT_ID=5",
		       "PATH=/bin",
		       NULL};
	struct strvec names = STRVEC_INIT;
	unsetenv("VERCEL_SKEW_PROTECTION_ENABLED");
	framework_env_names(fw, env, &names);
	CHECK_INT(names.n, 3);
	if (names.n == 3) {
		CHECK_STR(names.v[0], "NEXT_DEPLOYMENT_ID");
		CHECK_STR(names.v[1], "NEXT_PUBLIC_A");
		CHECK_STR(names.v[2], "NEXT_PUBLIC_B");
	}
	strvec_clear(&names);
	setenv("VERCEL_SKEW_PROTECTION_ENABLED", "1", 1);
	framework_env_names(fw, env, &names);
	CHECK_INT(names.n, 4);
	CHECK(framework_keys(fw, "VERCEL_DEPLOYMENT_ID=5", 20));
	CHECK(!framework_keys(fw, "PATH", 4));
	strvec_clear(&names);
	unsetenv("VERCEL_SKEW_PROTECTION_ENABLED");
	CHECK(!framework_keys(fw, "VERCEL_DEPLOYMENT_ID", 20));
}

int main(void)
{
	test_infer();
	test_env();
	return check_finish("framework");
}
