/* pkgmanager.c - which package manager a workspace is run with, and
 * whether it runs a script's pre and post scripts (pkgmanager.h). */
#include "orchestrator/config/pkgmanager.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/path.h"

static bool known_pm(const char *name, size_t n)
{
	static const char *const names[] = {"npm", "pnpm", "yarn", "bun", NULL};
	for (const char *const *k = names; *k; k++)
		if (strlen(*k) == n && !strncmp(*k, name, n))
			return true;
	return false;
}

static bool yarn_lock_v1(const char *root);
static bool pnpm_pre_post(const char *root, const char *version);
static void pm_from_lockfile(const char *root, struct package_manager *pm);
void package_manager_detect(const char *root, const struct cJSON *pkg, struct package_manager *pm)
{
	memset(pm, 0, sizeof *pm);
	const cJSON *field = cJSON_GetObjectItemCaseSensitive(pkg, "packageManager");
	if (cJSON_IsString(field)) {
		/* "pnpm@9.1.0", "yarn@4.1.0+sha256.abc…" (corepack's form) */
		const char *v = field->valuestring, *at = strchr(v, '@');
		size_t n = at ? (size_t)(at - v) : strlen(v);
		if (known_pm(v, n) && n < sizeof pm->name) {
			memcpy(pm->name, v, n);
			if (at) {
				size_t vl = strcspn(at + 1, "+");
				if (vl < sizeof pm->version)
					memcpy(pm->version, at + 1, vl);
			}
			pm->source = "packageManager in package.json";
		}
	}
	if (!pm->source)
		pm_from_lockfile(root, pm);
	if (!strcmp(pm->name, "npm"))
		pm->pre_post = true;
	else if (!strcmp(pm->name, "yarn"))
		pm->pre_post = *pm->version ? !strncmp(pm->version, "1.", 2) : yarn_lock_v1(root);
	else if (!strcmp(pm->name, "pnpm"))
		pm->pre_post = pnpm_pre_post(root, pm->version);
}

/* Whether pnpm (version, "" when unknown) runs a script's pre and post
 * scripts: as enable-pre-post-scripts says, in the environment
 * (npm_config_enable_pre_post_scripts) or else the root's .npmrc (its last
 * line), else by default: on from pnpm 9, off before (pnpm 7.33 and 8.15
 * run neither, 9.15 and 10.34 both: checked with each). Without a
 * packageManager version, today's pnpm (the lockfile is not read for it:
 * a run whose lockfile did not change never reads it, t0182). */
static bool pnpm_pre_post(const char *root, const char *version)
{
	const char *env = getenv("npm_config_enable_pre_post_scripts");
	if (env && *env)
		return !strcmp(env, "true");
	bool on = !*version || atoi(version) >= 9;
	char *f = path_join(root, ".npmrc");
	FILE *fp = fopen(f, "re");
	free(f);
	char line[1024];
	while (fp && fgets(line, sizeof line, fp)) {
		char *k = line + strspn(line, " \t");
		if (*k == '#' || *k == ';')
			continue;
		char *eq = strchr(k, '=');
		if (!eq)
			continue;
		char *ke = eq;
		while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
			ke--;
		if ((size_t)(ke - k) != strlen("enable-pre-post-scripts") ||
		    strncmp(k, "enable-pre-post-scripts", (size_t)(ke - k)))
			continue;
		char *v = eq + 1 + strspn(eq + 1, " \t");
		v[strcspn(v, " \t\r\n")] = 0;
		on = !strcmp(v, "true");
	}
	if (fp)
		fclose(fp);
	return on;
}

/* Yarn classic's lockfile says so on its first lines; berry's is YAML
 * with __metadata:. */
static bool yarn_lock_v1(const char *root)
{
	char *f = path_join(root, "yarn.lock");
	FILE *fp = fopen(f, "re");
	free(f);
	if (!fp)
		return false;
	char line[256];
	bool v1 = false;
	for (int k = 0; k < 3 && fgets(line, sizeof line, fp); k++)
		v1 |= strstr(line, "yarn lockfile v1") != NULL;
	fclose(fp);
	return v1;
}

static void pm_from_lockfile(const char *root, struct package_manager *pm)
{
	static const struct {
		const char *file, *name;
	} locks[] = {{"pnpm-lock.yaml", "pnpm"},
		     {"package-lock.json", "npm"},
		     {"npm-shrinkwrap.json", "npm"},
		     {"yarn.lock", "yarn"},
		     {"bun.lock", "bun"},
		     {"bun.lockb", "bun"}};
	for (size_t k = 0; k < sizeof locks / sizeof *locks; k++) {
		char *f = path_join(root, locks[k].file);
		struct stat st;
		/* one there and no file is the package manager's all the same:
		 * externals.c says it cannot be read */
		bool here = lstat(f, &st) == 0;
		free(f);
		if (here) {
			strcpy(pm->name, locks[k].name);
			pm->source = locks[k].file;
			return;
		}
	}
	strcpy(pm->name, "npm");
	pm->source = "none found (npm assumed)";
}
