/* envname.h - what an environment variable's name says about its value:
 * the one rule, for the keys and the sandbox alike, of which names look
 * like a credential, and the names of vx's own secrets. */
#ifndef VX_UTIL_ENVNAME_H
#define VX_UTIL_ENVNAME_H

#include <stdbool.h>
#include <stddef.h>

/* True when the name (len bytes of name; ASCII case ignored) looks like a
 * credential: it holds TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE,
 * CREDENTIAL or CONNECTION_STRING; one of its words (between '_') ends in
 * KEY or KEYS or is JWT, AUTH, AUTHORIZATION, PASS, PAT, PEM or PRIVATE; or it ends in PWD and is
 * neither PWD nor OLDPWD, the shell's directories. AWS_REGION, GITHUB_SHA, GIT_AUTHOR_NAME and
 * KEYBOARD_LAYOUT do not; AWS_ACCESS_KEY_ID, GITHUB_TOKEN, SSH_AUTH_SOCK, MYSQL_PWD and CI_JOB_JWT
 * do. */
bool envname_credential(const char *name, size_t len);

/* True when entry ("NAME" or "NAME=VALUE") is one of vx's own secrets: the
 * remote cache's token and signature key, under vx's and Turborepo's
 * names. */
bool envname_vx_secret(const char *entry);

#endif
