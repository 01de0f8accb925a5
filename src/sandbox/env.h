/* env.h - the scrubbed environment a sandboxed task runs with. */
#ifndef VX_SANDBOX_ENV_H
#define VX_SANDBOX_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/vec.h"

/* Filled by the orchestrator from the task's env: block and vx's own state. */
struct env_input {
	const char *const *host;   /* NULL-terminated "K=V": the strict environment
				    * keys/taskenv.c's task_env gives a sandboxed task */
	const char *const *define; /* "K=V", set as written; n_define of them */
	size_t n_define;
	const char *const *pass_through; /* names or globs ("NODE_*") copied from host */
	size_t n_pass;
	const char *const *pass_secrets; /* names the user spelled as secrets: allowed through */
	size_t n_secrets;
	const char *const *vx; /* "VX_…=V" vx sets for the task */
	size_t n_vx;
	const char *home;   /* HOME inside (NULL: the host's) */
	const char *tmpdir; /* exported as TMPDIR, TMP and TEMP */
};

/* True when name looks like a credential: *TOKEN*, *SECRET*, *PASSWORD*,
 * *PASSWD*, *CREDENTIAL*, *API_KEY*, *PRIVATE_KEY*, AWS_*, GITHUB_*, GH_*,
 * AZURE_*, NPM_TOKEN, … (case-insensitive). */
bool env_is_secret(const char *name);

/* True when entry ("NAME" or "NAME=VALUE") is one of vx's own secrets
 * (the remote cache's token and signature key, under vx's and Turborepo's
 * names): removed from every task's environment, sandboxed or not,
 * whatever passThrough or passThroughSecrets says. */
bool env_is_vx_secret(const char *entry);

/* The rule env_build enforces, alone and before anything runs: returns the
 * index of the first pass_through entry that looks like a credential and is
 * not in pass_secrets, with one line in err, or -1 when none is (the caller
 * points at that entry's FILE:LINE:COL). */
long env_refused(const struct env_input *in, struct strbuf *err);

/* Builds the environment into out ("K=V", sorted, one per name; later sources
 * win: host, define, vx's, HOME, TMPDIR): every host entry but vx's own
 * secrets and, unless spelled in passThroughSecrets, what looks like a
 * credential (env_is_secret). Returns 0, or -1 with one line in err when
 * env_refused refuses. */
int env_build(const struct env_input *in, struct strvec *out, struct strbuf *err);

/* "NAME=VALUE" for each framework's telemetry opt-out, set in every
 * sandboxed task that does not set the variable itself; NULL-terminated. */
extern const char *const env_telemetry_off[];

#endif
