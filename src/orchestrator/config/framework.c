/* framework.c - Turborepo's framework table and its matching (framework.h). */
#include "orchestrator/config/framework.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util/die.h"

#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Vercel's and other hosts' names Nitro and Nuxt read at build time. */
#define NITRO_HOSTS                                                                                \
	"AWS_APP_ID", "INPUT_AZURE_STATIC_WEB_APPS_API_TOKEN", "CLEAVR", "CF_PAGES",               \
	    "FIREBASE_APP_HOSTING", "NETLIFY", "STORMKIT", "NOW_BUILDER", "ZEABUR", "RENDER"

/* turbo 2.11.13's table, in its order (the first match wins). */
static const struct framework frameworks[] = {
    {"astro", LIST("PUBLIC_*"), LIST("astro"), true, NULL, NULL, NULL},
    {"blitzjs", LIST("NEXT_PUBLIC_*"), LIST("blitz"), true, NULL, NULL, NULL},
    {"create-react-app", LIST("REACT_APP_*"), LIST("react-scripts", "react-dev-utils"), false, NULL,
     NULL, NULL},
    {"expo", LIST("EXPO_PUBLIC_*"), LIST("expo"), true, NULL, NULL, NULL},
    {"gatsby", LIST("GATSBY_*"), LIST("gatsby"), true, NULL, NULL, NULL},
    {"nextjs", LIST("NEXT_PUBLIC_*", "NEXT_DEPLOYMENT_ID"), LIST("next"), true,
     "VERCEL_SKEW_PROTECTION_ENABLED", "1", LIST("VERCEL_DEPLOYMENT_ID")},
    {"nitro", LIST("NITRO_*", "SERVER_*", NITRO_HOSTS),
     LIST("nitropack", "nitropack-nightly", "nitro", "nitro-nightly"), false, NULL, NULL, NULL},
    {"nuxtjs", LIST("NUXT_*", "NUXT_ENV_*", "NITRO_*", "SERVER_*", NITRO_HOSTS, "LAUNCH_EDITOR"),
     LIST("nuxt", "nuxt-edge", "nuxt3", "nuxt3-edge"), false, NULL, NULL, NULL},
    {"redwoodjs", LIST("REDWOOD_ENV_*"), LIST("@redwoodjs/core"), true, NULL, NULL, NULL},
    {"remix", LIST("REMIX_*"), LIST("@remix-run/dev", "@remix-run/react", "@remix-run/serve"),
     false, NULL, NULL, NULL},
    {"sanity", LIST("SANITY_STUDIO_*"), LIST("@sanity/cli"), true, NULL, NULL, NULL},
    {"solidstart", LIST("VITE_*"), LIST("solid-js", "solid-start"), true, NULL, NULL, NULL},
    {"sveltekit", LIST("VITE_*", "PUBLIC_*"), LIST("@sveltejs/kit"), true, NULL, NULL, NULL},
    {"vite", LIST("VITE_*"), LIST("vite"), true, NULL, NULL, NULL},
    {"vue", LIST("VUE_APP_*", "LAUNCH_EDITOR"), LIST("@vue/cli-service"), true, NULL, NULL, NULL},
};

const struct framework *framework_infer(const struct strvec *deps)
{
	for (size_t f = 0; f < sizeof frameworks / sizeof *frameworks; f++) {
		const struct framework *fw = &frameworks[f];
		bool all = true, any = false;
		for (const char *const *d = fw->deps; *d; d++) {
			bool h = strvec_find(deps, *d) >= 0;
			all &= h;
			any |= h;
		}
		if (fw->all ? all : any)
			return fw;
	}
	return NULL;
}

static bool matches(const char *const *pats, const char *name)
{
	for (; *pats; pats++)
		if (!fnmatch(*pats, name, 0))
			return true;
	return false;
}

static bool condition_holds(const struct framework *fw)
{
	const char *v = fw->when_name ? getenv(fw->when_name) : NULL;
	return v && !strcmp(v, fw->when_value);
}

bool framework_keys(const struct framework *fw, const char *name, size_t len)
{
	char *n = xstrndup(name, len);
	bool hit = matches(fw->env, n) || (condition_holds(fw) && matches(fw->when_env, n));
	free(n);
	return hit;
}

void framework_env_names(const struct framework *fw, char *const *environ_, struct strvec *out)
{
	size_t before = out->n;
	for (char *const *e = environ_; *e; e++) {
		size_t len = strcspn(*e, "=");
		if ((*e)[len] == '=' && framework_keys(fw, *e, len))
			strvec_push_nodup(out, xstrndup(*e, len));
	}
	if (out->n > before)
		strvec_sort_unique(out);
}
