/* rootfiles.h - the workspace root's own files a task is shown (issue 40
 * item 5): the manifests, the lockfiles, the configs tools walk up to. */
#ifndef VX_SANDBOX_ROOTFILES_H
#define VX_SANDBOX_ROOTFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/vec.h"

/* Whether name is one of the workspace root's own files tools walk up to
 * (package.json, the lockfiles, pnpm-workspace.yaml, turbo.json[c],
 * .gitignore, .npmrc, tsconfig*.json, .env*): issue 40 item 5.
 * sandbox_root_files says which of them a task sees. */
bool sandbox_root_file(const char *name);
/* Whether name is a lockfile's (package-lock.json, npm-shrinkwrap.json,
 * pnpm-lock.yaml, yarn.lock, bun.lock, bun.lockb). */
bool sandbox_lockfile_name(const char *name);
/* The root's own files a task of project proj may read, absolute and
 * sorted, into out: regular files only (a link there is not followed out
 * of the workspace); a .env* file only when one of named (the task's own
 * inputs.workspaceFiles, workspace-relative globs) matches it; a .npmrc
 * only when its every line is blank, a comment or a setting on a list of
 * harmless ones (no `//host/:` line, no key, token, password, user or
 * certificate); none for the root project, which reads its own. Tools walk
 * up to them (Vite, Next, tsc's extends, ESLint's .gitignore, corepack's
 * packageManager); what a task reads of them is judged against its key
 * like any workspace file. One decision for bwrap's plan and the Seatbelt
 * profile. */
void sandbox_root_files(const char *ws, const char *proj, const char *const *named, size_t n_named,
			struct strvec *out);

#endif
