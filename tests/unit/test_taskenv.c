/* Unit tests for keys/taskenv.c's task_env_name_secret: which names under
 * the always-passed wildcards (GITHUB_*, RUNNER_*, VERCEL_*, TURBO_*,
 * NEXT_*, COREPACK_*) a sandboxed task gets only when its config names
 * them (issue 53 item 7). */
#include <string.h>

#include "check.h"
#include "orchestrator/keys/taskenv.h"

static bool secret(const char *entry)
{
	return task_env_name_secret(entry, strcspn(entry, "="));
}

int main(void)
{
	static const char *const yes[] = {
	    "GITHUB_TOKEN",
	    "VERCEL_OIDC_TOKEN",
	    "VERCEL_AUTOMATION_BYPASS_SECRET",
	    "RUNNER_PASSWORD",
	    "RUNNER_PASSWD",
	    "GPG_PASSPHRASE",
	    "CI_JOB_JWT",
	    "CI_JOB_JWT_V2",
	    "RAILS_MASTER_KEY",
	    "TURBO_REMOTE_CACHE_SIGNATURE_KEY",
	    "NPM_APIKEY",
	    "VERCEL_DEPLOY_KEYS",
	    "GITHUB_AUTH",
	    "RUNNER_AUTHORIZATION",
	    "MYSQL_PWD",
	    "DBPWD",
	    "DB_PASS",
	    "AZURE_CREDENTIALS",
	    "github_token",	 /* case-insensitive */
	    "MYSQL_PWD=hunter2", /* len stops at the '=' */
	    NULL,
	};
	static const char *const no[] = {
	    "PWD",
	    "OLDPWD",
	    "PATH",
	    "HOME",
	    "GITHUB_SHA",
	    "GITHUB_ACTIONS",
	    "GITHUB_EVENT_PATH",
	    "RUNNER_TRACKING_ID",
	    "RUNNER_TEMP",
	    "VERCEL_URL",
	    "VERCEL_GIT_COMMIT_AUTHOR_LOGIN",  /* AUTHOR is no AUTH */
	    "VERCEL_PROTECTION_BYPASS_HEADER", /* BYPASS is no PASS */
	    "KEYBOARD_LAYOUT",		       /* a word starting KEY is none */
	    "TURBO_TEAM",
	    "NEXT_PUBLIC_API_URL",
	    "COREPACK_ENABLE_STRICT",
	    "PWD=/work/app",
	    NULL,
	};
	for (const char *const *n = yes; *n; n++) {
		if (!secret(*n))
			fprintf(stderr, "%s should look like a credential\n", *n);
		CHECK(secret(*n));
	}
	for (const char *const *n = no; *n; n++) {
		if (secret(*n))
			fprintf(stderr, "%s should not look like a credential\n", *n);
		CHECK(!secret(*n));
	}
	/* only len bytes are read: a prefix of a secret-looking name */
	CHECK(!task_env_name_secret("GITHUB_TOKEN", 6));
	CHECK(task_env_name_secret("MYSQL_PWD_FILE", 9));
	return check_finish("test_taskenv");
}
