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
	const char *home;	  /* HOME inside (NULL: the host's) */
	const char *tmpdir;	  /* exported as TMPDIR, TMP and TEMP */
	const char *const *keyed; /* the task's inputs.env entries, as spelled */
	size_t n_keyed;
};

/* The rule env_build enforces, alone and before anything runs: a name that
 * looks like a credential (util/envname.h) reaches a sandboxed task only
 * when spelled in pass_secrets, so one spelled in pass_through or keyed
 * and not there is refused rather than silently held back. Returns the
 * index of the first such entry, with *field ("env.passThrough" or
 * "inputs.env": which list, when field is not NULL) and one line in err,
 * or -1 when none is (the caller points at that entry's FILE:LINE:COL).
 * An exclusion ("!NAME") is never refused. */
long env_refused(const struct env_input *in, const char **field, struct strbuf *err);

/* Builds the environment into out ("K=V", sorted, one per name; later sources
 * win: host, define, vx's, HOME, TMPDIR): every host entry but vx's own
 * secrets and, unless spelled in passThroughSecrets, what looks like a
 * credential (envname_credential). Returns 0, or -1 with one line in err when
 * env_refused refuses. */
int env_build(const struct env_input *in, struct strvec *out, struct strbuf *err);

/* "NAME=VALUE" for each framework's telemetry opt-out, set in every
 * sandboxed task that does not set the variable itself; NULL-terminated. */
extern const char *const env_telemetry_off[];

#endif
