/* Unit tests for util/envname.c: the one rule of which environment names
 * look like a credential, for the keys' always-passed wildcards (GITHUB_*,
 * RUNNER_*, VERCEL_*, TURBO_*, NEXT_*, COREPACK_*: issue 53 item 7) and
 * the sandbox's scrub alike (issue 58: they were two rules that disagreed
 * on AWS_REGION, GITHUB_SHA, GPG_PASSPHRASE and CI_JOB_JWT). */
#include <string.h>

#include "check.h"
#include "util/envname.h"

static bool secret(const char *entry)
{
	return envname_credential(entry, strcspn(entry, "="));
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
	    /* what the sandbox's old scrub caught, and this rule too */
	    "my_api_key",
	    "DB_PASSWORD",
	    "AWS_ACCESS_KEY_ID",
	    "AWS_SECRET_ACCESS_KEY",
	    "AWS_SESSION_TOKEN",
	    "GH_TOKEN",
	    "NPM_TOKEN",
	    "NPM_CONFIG__AUTH",
	    "SSH_AUTH_SOCK",
	    "GOOGLE_APPLICATION_CREDENTIALS",
	    "DOCKER_PASSWORD",
	    "VAULT_TOKEN",
	    "PRIVATE_KEY",
	    "MY_APIKEYS",
	    /* a review: these reached every sandboxed task under GITHUB_*,
	     * or through a task's passThrough, once the prefix rule went */
	    "GITHUB_PAT",
	    "GITHUB_APP_PEM",
	    "AZURE_DEVOPS_EXT_PAT",
	    "AZURE_STORAGE_CONNECTION_STRING",
	    "SQLCONNECTIONSTRING",
	    "SSH_PRIVATE",
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
	    /* what the old scrub held back by prefix alone: CI metadata and
	     * settings, no secret */
	    "AWS_REGION",
	    "AWS_DEFAULT_REGION",
	    "GITHUB_REPOSITORY",
	    "GIT_AUTHOR_NAME",
	    "NODE_ENV",
	    "",
	    "GITHUB_PATH", /* a file of PATH entries: PAT only whole */
	    "PATH_INFO",
	    "PATTERN",
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
	CHECK(!envname_credential("GITHUB_TOKEN", 6));
	CHECK(envname_credential("MYSQL_PWD_FILE", 9));
	CHECK(!envname_credential("AUTHOR", 6)); /* "AUTH" is a word only whole */
	CHECK(envname_credential("X_AUTH_Y", 6));
	/* vx's own secrets, with or without a value */
	CHECK(envname_vx_secret("TURBO_TOKEN"));
	CHECK(envname_vx_secret("VX_REMOTE_CACHE_SIGNATURE_KEY=k"));
	CHECK(!envname_vx_secret("TURBO_TOKENS"));
	CHECK(!envname_vx_secret("TURBO_TEAM=t"));
	return check_finish("test_envname");
}
