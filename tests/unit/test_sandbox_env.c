/* Unit tests for sandbox/env.c and sandbox/denies.c: the scrubbed
 * environment, the credential refusal, and the mandatory-deny table. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sandbox/denies.h"
#include "sandbox/env.h"

static char *joined(const struct strvec *v)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < v->n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", v->v[i]);
	return strbuf_detach(&sb, NULL);
}

int main(void)
{
	const char *host[] = {"PATH=/usr/bin",
			      "HOME=/root",
			      "GITHUB_TOKEN=ghp",
			      "AWS_SECRET_ACCESS_KEY=k",
			      "LC_ALL=C.UTF-8",
			      "NODE_ENV=prod",
			      "NODE_AUTH_TOKEN=n",
			      "RANDOM_VAR=1",
			      "TERM=xterm",
			      "NPM_TOKEN=t",
			      NULL};
	const char *define[] = {"MODE=ci"};
	const char *pass[] = {"NODE_*"};
	const char *vx[] = {"VX_TASK=a#build"};
	struct env_input in = {host, define, 1,		pass,	1,    NULL, 0,
			       vx,   1,	     "/home/u", "/tmp", NULL, 0};
	struct strvec out = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	CHECK_INT(env_build(&in, &out, &err), 0);
	char *s = joined(&out);
	/* what a plain task gets (host), but what authenticates (issue 40:
	 * only a shell's basics passed, so CI was dropped) */
	/* and the frameworks' telemetry off (issue 54 item 7) */
	CHECK_STR(s, "ASTRO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 GATSBY_TELEMETRY_DISABLED=1 "
		     "HOME=/home/u LC_ALL=C.UTF-8 MODE=ci NEXT_TELEMETRY_DISABLED=1 "
		     "NG_CLI_ANALYTICS=false NODE_ENV=prod NUXT_TELEMETRY_DISABLED=1 "
		     "PATH=/usr/bin RANDOM_VAR=1 STORYBOOK_DISABLE_TELEMETRY=1 TEMP=/tmp "
		     "TERM=xterm TMP=/tmp TMPDIR=/tmp TURBO_TELEMETRY_DISABLED=1 "
		     "VERCEL_TELEMETRY_DISABLED=1 VX_TASK=a#build");
	free(s);
	strvec_clear(&out);

	/* a task that says otherwise, in its environment or env.define, wins */
	{
		const char *host_on[] = {"PATH=/usr/bin", "DO_NOT_TRACK=0", NULL};
		const char *define_on[] = {"NEXT_TELEMETRY_DISABLED=0"};
		struct env_input on = {host_on, define_on, 1,	 NULL, 0,    NULL, 0,
				       NULL,	0,	   NULL, NULL, NULL, 0};
		CHECK_INT(env_build(&on, &out, &err), 0);
		char *t = joined(&out);
		CHECK(strstr(t, "DO_NOT_TRACK=0") && strstr(t, "NEXT_TELEMETRY_DISABLED=0") &&
		      !strstr(t, "DO_NOT_TRACK=1") && strstr(t, "ASTRO_TELEMETRY_DISABLED=1"));
		free(t);
		strvec_clear(&out);
	}

	/* A credential-looking passThrough name: refused unless a secret. */
	const char *pass2[] = {"NPM_TOKEN"};
	in.pass_through = pass2;
	CHECK_INT(env_build(&in, &out, &err), -1);
	CHECK(strstr(err.buf, "'NPM_TOKEN' looks like a credential") != NULL);
	/* The same rule alone names the entry, for the caller's FILE:LINE:COL. */
	const char *pass3[] = {"NODE_ENV", "GH_TOKEN", "NPM_TOKEN"};
	struct env_input only = {
	    .pass_through = pass3, .n_pass = 3, .pass_secrets = pass2, .n_secrets = 1};
	strbuf_reset(&err);
	const char *field = NULL;
	CHECK_INT(env_refused(&only, &field, &err), 1);
	CHECK(strstr(err.buf, "env.passThrough 'GH_TOKEN'") != NULL);
	CHECK(field && !strcmp(field, "env.passThrough"));
	only.n_pass = 1;
	CHECK_INT(env_refused(&only, NULL, &err), -1);
	/* a keyed one too (inputs.env): held back silently, a build failed
	 * with no word; an exclusion ("!X_TOKEN") widens nothing */
	const char *keyed[] = {"NODE_ENV", "!CI_JOB_JWT", "RAILS_MASTER_KEY", "NPM_TOKEN"};
	only.keyed = keyed;
	only.n_keyed = 4;
	strbuf_reset(&err);
	CHECK_INT(env_refused(&only, &field, &err), 2);
	CHECK(field && !strcmp(field, "inputs.env"));
	CHECK(strstr(err.buf, "inputs.env 'RAILS_MASTER_KEY' looks like a credential") != NULL);
	only.n_keyed = 2;
	CHECK_INT(env_refused(&only, NULL, &err), -1);
	const char *excluded[] = {"!GH_TOKEN"};
	only.pass_through = excluded;
	CHECK_INT(env_refused(&only, NULL, &err), -1);
	strvec_clear(&out);
	strbuf_reset(&err);
	in.pass_secrets = pass2;
	in.n_secrets = 1;
	CHECK_INT(env_build(&in, &out, &err), 0);
	CHECK(strvec_find(&out, "NPM_TOKEN=t") >= 0);
	strvec_clear(&out);
	strbuf_release(&err);

	/* The deny table: names and two-name paths, each with its reason. */
	CHECK(denies_match(".bashrc") != NULL);
	CHECK(denies_match("sub/.zshrc") != NULL);
	CHECK(denies_match("x/.git/hooks") != NULL);
	CHECK(denies_match(".git/config") != NULL);
	CHECK(denies_match("config") == NULL);
	CHECK(denies_match("x/.git/objects") == NULL);
	CHECK(denies_match("my.bashrc") == NULL);
	for (const struct deny_rule *r = denies_table; r->name; r++)
		CHECK(r->why && strlen(r->why) > 10);
	return check_finish("sandbox env");
}
