/* taskenv.h - the environment vx gives a task's command, sandboxed or not. */
#ifndef VX_KEYS_TASKENV_H
#define VX_KEYS_TASKENV_H

#include "orchestrator/plan/graph.h"
#include "orchestrator/config/workspace.h"
#include "util/vec.h"

/* Appends to delta, "NAME=VALUE" each, what vx sets for task t on top of
 * the environment it starts from and env.define (git's run-command keeps a
 * child's environment the same way, as one list of changes): VX_TASK,
 * VX_PROJECT, VX_WORKSPACE_ROOT; for a project with a package.json, its
 * node_modules/.bin and the root's first on PATH (every task, `command:`
 * too: issue 11's `vitest: not found`); for a package.json script, npm's
 * npm_package_name, npm_lifecycle_event and npm_package_json. The one list
 * both an unsandboxed task (task_env) and the sandbox's scrubbed
 * environment (env_build's vx entries) apply. */
void task_env_delta(const struct workspace *ws, const struct task_node *t, struct strvec *delta);

/* Fills env with task t's whole environment: vx's own, less the remote
 * cache's token and signature key (VX_REMOTE_CACHE_TOKEN, TURBO_TOKEN,
 * ..._SIGNATURE_KEY) and, in envMode strict, less what strict mode holds
 * back; then env.define, then task_env_delta, later entries replacing
 * earlier ones. A sandboxed task's (t->cfg->sandbox) is strict whatever
 * envMode, with the locale (LC_*, LANGUAGE) added and no name that looks
 * like a credential (util/envname.h) under an always-passed wildcard
 * unless its config names it (docs/turborepo.md, envMode). */
void task_env(const struct workspace *ws, const struct task_node *t, struct strvec *env);
/* Appends to names (unsorted; a name once per call) what vx's environment
 * holds that task t, sandboxed, does not get and would get unsandboxed
 * under the same envMode: what `-v` says was held back. Nothing for an
 * unsandboxed task. */
void task_env_held_back(const struct workspace *ws, const struct task_node *t,
			struct strvec *names);
/* The variables task t's key folds: names, those its inputs.env and the
 * workspace's name (sorted, once each; a "!NAME" entry takes away, it is
 * not a name); inferred, those its project's framework adds (framework.h:
 * NEXT_PUBLIC_API_URL for a Next app), set now, not taken away by a "!"
 * entry of either list nor named already; none under
 * --framework-inference=false. */
void task_env_keyed(const struct workspace *ws, const struct task_node *t, struct strvec *names,
		    struct strvec *inferred);
/* The framework task t's project is built with (framework.h), or NULL:
 * none, or --framework-inference=false. */
const struct framework *task_framework(const struct workspace *ws, const struct task_node *t);
/* The PATH task t's command sees (task_env_delta's, else vx's own); caller
 * frees. */
char *task_env_path(const struct workspace *ws, const struct task_node *t);

#endif
