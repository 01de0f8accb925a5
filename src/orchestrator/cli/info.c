#include "orchestrator/cli/info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "orchestrator/config/workspace.h"
#include "sandbox/initpath.h"
#include "sandbox/probe.h"
#include "violations/seatbelt_reader.h"
#include "util/die.h"

static void drop_line(const char *line, void *ctx)
{
	(void)line, (void)ctx;
}

/* The workspace here, if any: where its projects come from, and the
 * package manager its scripts are run as. */
static void print_workspace(void)
{
	report_to(drop_line, NULL); /* "no workspace found" is no error here */
	struct workspace *ws = workspace_load_here();
	report_to(NULL, NULL);
	if (!ws) {
		printf(
		    "workspace: none here (or its configuration does not load: vx run says why)\n");
		return;
	}
	const char *turbo = ws->cfg->turbo_path ? strrchr(ws->cfg->turbo_path, '/') : NULL;
	if (ws->single_package)
		printf("workspace: %s (its root by %s%s%s; a single package: its package.json "
		       "lists no workspaces)\n",
		       ws->root, ws->root_from, turbo ? ", configured by " : "",
		       turbo ? turbo + 1 : "");
	else
		printf("workspace: %s (its root by %s%s%s; %zu projects, from %s)\n", ws->root,
		       ws->root_from, turbo ? ", configured by " : "", turbo ? turbo + 1 : "",
		       ws->projects.n, ws->projects_from);
	printf("package manager: %s%s%s (%s)\n", ws->pm.name, *ws->pm.version ? " " : "",
	       ws->pm.version, ws->pm.source);
	workspace_free(ws);
}

int info_main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: vx info\n\nPlatform, sandbox and tracer availability, each with its "
		     "reason.");
		return 0;
	}
	struct utsname u;
	if (uname(&u) == 0)
		printf("platform: %s %s %s\n", u.sysname, u.release, u.machine);
	printf("vx: %s\nuser: uid %u%s\n", VX_VERSION, (unsigned)geteuid(),
	       geteuid() == 0 ? " (root)" : "");
#ifdef __APPLE__
	struct strbuf sb_why = STRBUF_INIT;
	int heard = seatbelt_probe(&sb_why);
	printf("seatbelt: %s: %s\n", heard < 0 ? "unavailable" : "works", sb_why.buf);
	strbuf_release(&sb_why);
#endif
	struct probe probes[2];
	probe_bwrap(&probes[0]);
	/* found as a run finds it: from vx's own binary, never from PATH */
	struct strbuf looked = STRBUF_INIT;
	char *init = initpath_find(&looked);
	if (init)
		printf("sandbox init: %s\n", init);
	else
		printf("sandbox init: missing: neither %s\n", looked.buf);
	strbuf_release(&looked);
	probe_strace(&probes[1], probes[0].works ? probes[0].path : NULL, init);
	free(init);
	for (int i = 0; i < 2; i++) {
		struct probe *p = &probes[i];
		printf("%s: ", p->tool);
		if (!p->path)
			printf("missing: %s\n", p->reason);
		else if (p->works)
			printf("works (%s, %s)\n", p->path,
			       p->version ? p->version : "version unknown");
		else
			printf("present but not working (%s, %s): %s\n", p->path,
			       p->version ? p->version : "version unknown", p->reason);
	}
	bool bwrap_works = probes[0].works, strace_works = probes[1].works;
	printf("sandboxed tasks: %s\n",
	       bwrap_works ? "available (bwrap)"
			   : "unavailable: a task with sandbox: is refused (exit 2)");
	if (!bwrap_works)
		printf("violation reports: unavailable (no sandbox)\n");
	else if (strace_works)
		printf(
		    "violation reports: available (strace traces each sandboxed task, which runs "
		    "in a pid namespace out of its tracer's reach)\n");
	else
		printf("violation reports: unavailable: sandboxed tasks run untraced (the walls "
		       "still hold; "
		       "no violation can be reported): %s\n",
		       probes[1].reason);
	if (bwrap_works)
		printf("persistent sandboxed tasks: run untraced (never cached; a server's trace "
		       "would grow without end): the walls hold, and a failure prints them\n");
	if (bwrap_works)
		printf("network grants: available (vx's own netd carries them across the "
		       "namespace wall; nothing else is needed)\n");
	for (int i = 0; i < 2; i++)
		probe_free(&probes[i]);
	print_workspace();
	return 0;
}
