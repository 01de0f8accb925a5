/* envname.c - which environment variable names look like a credential. */
#include "util/envname.h"

#include <ctype.h>
#include <string.h>

/* Whether the len bytes at s, upper-cased, end in suffix. */
static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	if (len < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (toupper((unsigned char)s[len - n + i]) != suffix[i])
			return false;
	return true;
}

/* Whether the len bytes at s, upper-cased, are word. */
static bool is_word(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && ends_with(s, len, word);
}

/* Whether the len bytes at s, upper-cased, hold part. */
static bool holds(const char *s, size_t len, const char *part)
{
	for (size_t n = strlen(part); len >= n; s++, len--)
		if (ends_with(s, n, part))
			return true;
	return false;
}

bool envname_credential(const char *name, size_t len)
{
	static const char *const parts[] = {
	    "TOKEN",	  "SECRET",	"PASSWORD",	     "PASSWD",
	    "PASSPHRASE", "CREDENTIAL", "CONNECTION_STRING", "CONNECTIONSTRING",
	    NULL};
	/* PAT: a personal access token (GITHUB_PAT, AZURE_DEVOPS_EXT_PAT);
	 * PEM and PRIVATE: a key's text (GITHUB_APP_PEM, SSH_PRIVATE) */
	static const char *const words[] = {"JWT", "AUTH", "AUTHORIZATION", "PASS",
					    "PAT", "PEM",  "PRIVATE",	    NULL};
	for (const char *const *p = parts; *p; p++)
		if (holds(name, len, *p))
			return true;
	/* the rest as whole words, so VERCEL_GIT_COMMIT_AUTHOR_LOGIN is no
	 * AUTH, RUNNER_TRACKING_ID no KEY and KEYBOARD_LAYOUT none; a word
	 * ending in KEY or KEYS (APIKEY, PRIVKEY, DEPLOY_KEYS) is */
	for (size_t at = 0; at < len;) {
		const char *w = name + at;
		const char *end = memchr(w, '_', len - at);
		size_t wl = end ? (size_t)(end - w) : len - at;
		for (const char *const *p = words; *p; p++)
			if (is_word(w, wl, *p))
				return true;
		if (ends_with(w, wl, "KEY") || ends_with(w, wl, "KEYS"))
			return true;
		at += wl + 1;
	}
	/* MYSQL_PWD, DBPWD; the shell's PWD and OLDPWD are directories */
	return ends_with(name, len, "PWD") && !is_word(name, len, "PWD") &&
	       !is_word(name, len, "OLDPWD");
}

/* The remote cache's credentials are vx's, never a task's
 * (docs/remote-cache.md): no pattern, no spelled secret passes them. */
static const char *const vx_secrets[] = {
    "VX_REMOTE_CACHE_TOKEN",
    "TURBO_TOKEN",
    "VX_REMOTE_CACHE_SIGNATURE_KEY",
    "TURBO_REMOTE_CACHE_SIGNATURE_KEY",
    NULL,
};

bool envname_vx_secret(const char *entry)
{
	size_t n = strcspn(entry, "=");
	for (const char *const *s = vx_secrets; *s; s++)
		if (strlen(*s) == n && !strncmp(entry, *s, n))
			return true;
	return false;
}
