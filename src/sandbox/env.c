/* env.c - the sandboxed task's environment: what the host gives, scrubbed. */
#include "sandbox/env.h"

#include <stdlib.h>
#include <string.h>

#include "util/envname.h"

static size_t name_len(const char *kv)
{
	return strcspn(kv, "=");
}

/* Sets kv, replacing an entry of the same name. */
static void set(struct strvec *out, const char *kv)
{
	size_t n = name_len(kv);
	for (size_t i = 0; i < out->n; i++)
		if (name_len(out->v[i]) == n && !strncmp(out->v[i], kv, n)) {
			free(out->v[i]);
			out->v[i] = xstrdup(kv);
			return;
		}
	strvec_push(out, kv);
}

/* Set in out unless a variable of kv's name is there already. */
static void set_default(struct strvec *out, const char *kv)
{
	size_t n = name_len(kv);
	for (size_t i = 0; i < out->n; i++)
		if (name_len(out->v[i]) == n && !strncmp(out->v[i], kv, n))
			return;
	strvec_push(out, kv);
}

/* The frameworks' telemetry, off in a sandboxed task unless the task's
 * environment or env.define says otherwise (issue 54 item 7: Next's
 * telemetry was a network violation naming only the resolver, and no
 * build needs it). docs/network.md. */
const char *const env_telemetry_off[] = {
    "NEXT_TELEMETRY_DISABLED=1",
    "NUXT_TELEMETRY_DISABLED=1",
    "ASTRO_TELEMETRY_DISABLED=1",
    "GATSBY_TELEMETRY_DISABLED=1",
    "STORYBOOK_DISABLE_TELEMETRY=1",
    "NG_CLI_ANALYTICS=false",
    "TURBO_TELEMETRY_DISABLED=1",
    "VERCEL_TELEMETRY_DISABLED=1",
    "DO_NOT_TRACK=1",
    NULL,
};

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The first of names[0..n) that looks like a credential and is not spelled
 * in pass_secrets, or -1; an exclusion ("!NAME") never passes anything. */
static long first_unspelled(const char *const *names, size_t n, const struct env_input *in)
{
	for (size_t i = 0; i < n; i++)
		if (names[i][0] != '!' && envname_credential(names[i], strlen(names[i])) &&
		    !listed(in->pass_secrets, in->n_secrets, names[i]))
			return (long)i;
	return -1;
}

long env_refused(const struct env_input *in, const char **field, struct strbuf *err)
{
	static const char *const fields[] = {"env.passThrough", "inputs.env"};
	const char *const *lists[] = {in->pass_through, in->keyed};
	size_t ns[] = {in->n_pass, in->n_keyed};
	for (size_t l = 0; l < 2; l++) {
		long i = first_unspelled(lists[l], ns[l], in);
		if (i < 0)
			continue;
		if (field)
			*field = fields[l];
		strbuf_addf(err,
			    "%s '%s' looks like a credential; a sandboxed task gets it only "
			    "when spelled in env.passThroughSecrets too",
			    fields[l], lists[l][i]);
		return i;
	}
	return -1;
}

int env_build(const struct env_input *in, struct strvec *out, struct strbuf *err)
{
	if (env_refused(in, NULL, err) >= 0)
		return -1;
	/* host is the strict environment task_env gives a sandboxed task
	 * whatever envMode (issue 53); the sandbox takes all of it but what
	 * authenticates (issue 40: with only a shell's basics, CI was
	 * dropped and vitest hung in watch mode) */
	for (const char *const *h = in->host; h && *h; h++) {
		size_t n = name_len(*h);
		if (!(*h)[n] || envname_vx_secret(*h))
			continue;
		char *name = xstrndup(*h, n);
		if (!envname_credential(name, n) || listed(in->pass_secrets, in->n_secrets, name))
			set(out, *h);
		free(name);
	}
	for (const char *const *t = env_telemetry_off; *t; t++)
		set_default(out, *t);
	for (size_t i = 0; i < in->n_define; i++)
		set(out, in->define[i]);
	for (size_t i = 0; i < in->n_vx; i++)
		set(out, in->vx[i]);
	if (in->home) {
		char *kv = xasprintf("HOME=%s", in->home);
		set(out, kv);
		free(kv);
	}
	if (in->tmpdir)
		for (const char *const *t = (const char *const[]){"TMPDIR", "TMP", "TEMP", NULL};
		     *t; t++) {
			char *kv = xasprintf("%s=%s", *t, in->tmpdir);
			set(out, kv);
			free(kv);
		}
	strvec_sort(out);
	return 0;
}
