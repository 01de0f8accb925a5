/* workspace.h - the workspace root, its projects and their dependency edges
 * (SPEC §2: vx.yaml and package.json). */
#ifndef VX_CONFIG_WORKSPACE_H
#define VX_CONFIG_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/config.h"
#include "orchestrator/config/pkgmanager.h"
#include "util/readcache.h"
#include "util/spawn.h"
#include "util/strmap.h"
#include "util/vec.h"

struct framework;
struct listing; /* keys/listing.h's, known here only through workspace_loader */

struct project {
	char *name; /* unique; vx.yaml name, else package.json name, else rel ("//" for the root) */
	struct loc name_loc;	  /* where the name was written (or the project file's 1:1) */
	char *dir;		  /* absolute */
	char *rel;		  /* workspace-relative; "." for the root project */
	bool is_root;		  /* the workspace root itself */
	struct config *cfg;	  /* its vx.yaml, or NULL; the root project shares ws->cfg */
	struct config *turbo_cfg; /* its own turbo.json ("extends": ["//"]), or NULL */
	char *pkg_path;		  /* its package.json, or NULL */
	char *pkg_version;	  /* its package.json "version", or NULL */
	struct strvec script_names, scripts; /* package.json "scripts", parallel arrays */
	struct strvec pkg_deps;		     /* package.json dependency names of all four kinds */
	struct strvec pkg_dep_specs; /* and their specifiers ("^18.2.0", "workspace:*"), parallel */
	size_t pkg_peer_at;	     /* pkg_deps[pkg_peer_at..] are peerDependencies */
	const struct framework *framework; /* what its package.json's external dependencies
					    * say it is built with (framework.h), or NULL */
	VEC(size_t) deps;   /* indices of the projects this one depends on (workspace_load) */
	VEC(size_t) nested; /* indices of the projects whose directories lie inside this one's */
};

struct workspace {
	char *root;			/* absolute, links resolved */
	struct config *cfg;		/* the root vx.yaml (holds workspace:) */
	VEC(struct project *) projects; /* sorted by rel */
	struct strmap by_name;		/* project name -> index; keys borrowed from the projects */
	struct strvec project_globs;	/* the project patterns in effect (workspace.projects,
					 * else pnpm-workspace.yaml packages:, else package.json
					 * "workspaces"), root-relative */
	const char *projects_from;	/* which of those three (static text) */
	const char *root_from;		/* what made the root one: "vx.yaml workspace:",
					 * "turbo.json", "pnpm-workspace.yaml", "package.json
					 * workspaces" (static text) */
	char *pnpm_path;     /* the pnpm-workspace.yaml read, when it was (locs point here) */
	char *root_pkg_path; /* the root package.json (the locs of its workspaces point here) */
	struct package_manager pm; /* the root's (workspace_load) */
	bool single_package;	   /* Turborepo's single-package mode: the root package is
				    * the only project, turbo.json's plain tasks its own (a
				    * turbo.json, a package.json listing no workspaces; or
				    * --single-package) */
	struct cJSON *root_pkg;	   /* the root package.json, parsed once by the load;
				    * NULL when there is none or it is not JSON */
};

/* One load's working state, not a fact of the workspace: what the load
 * reads through and what it starts for the run after it. The caller makes
 * it (zeroed, the first three fields set), passes it to
 * workspace_load_with, and keeps it as long as the run reads through it
 * (run/runplan.c: the plan's keys and task cache); then
 * workspace_loader_release. */
struct workspace_loader {
	/* Set by the caller. start (when not NULL) is called the moment the
	 * root is known, with the root and the cache directory when a run
	 * kept its listings there (else NULL): the input walk (keys/listing.h)
	 * then runs while vx reads the configs. The walk is a higher room's,
	 * so config/ knows it only through start and stop. */
	struct listing *(*start)(const char *root, const char *kept_dir);
	void (*stop)(struct listing *); /* how workspace_loader_release drops it */
	bool single_package;		/* Turborepo's --single-package: the root package
					 * alone, whatever workspaces it lists */
	/* Set by the load. */
	struct readcache *reads; /* the kept config reads (util/readcache.h): loaded
				  * from the cache directory when it exists, else
				  * NULL; saved by the task cache's checkpoints */
	struct listing *listing; /* what start started, collected by inputs_init;
				  * NULL when not started */
};

/* Finds the workspace holding start_dir (the nearest ancestor whose vx.yaml
 * has workspace:), loads every project's vx.yaml and package.json, and
 * resolves project edges. Returns the workspace, or NULL after printing one
 * error line (a config error as "vx: FILE:LINE:COL: MESSAGE"). */
struct workspace *workspace_load(const char *start_dir);
/* workspace_load through ld (see struct workspace_loader), which keeps the
 * kept reads and the started listing after it, failed or not: the caller
 * releases ld either way. */
struct workspace *workspace_load_with(const char *start_dir, struct workspace_loader *ld);
/* Saves nothing: drops ld's reads and stops its listing (a second call
 * drops nothing). */
void workspace_loader_release(struct workspace_loader *ld);
void workspace_free(struct workspace *ws);

/* workspace_load from the current directory (after any -C). */
struct workspace *workspace_load_here(void);
/* Returns the cache directory, absolute: VX_CACHE_DIR when set, else the
 * workspace's cache.dir under its root. Caller frees. */
char *workspace_cache_dir(const struct workspace *ws);
/* Why the absolute directory dir cannot be ws's cache, or NULL when it
 * can (issue 57 item 7): "/" or a system directory (at or below /usr,
 * /etc, /bin, /sbin, /lib*, /boot, /dev, /proc, /sys; /var, /tmp, /home,
 * /root, /run, /opt, /srv, /mnt, /media themselves), the home directory
 * or one holding it, the workspace root or one holding it: `vx cache
 * clean` empties the cache directory, and what holds the workspace would
 * leave nothing to key. A directory inside the workspace is never a
 * system one. Links are followed as far as the path exists. */
const char *workspace_cache_dir_refused(const struct workspace *ws, const char *dir);
/* Makes the workspace's .vx directory (the cache's default home, the
 * sandbox's probe and stage) if it is not there, with a .gitignore of "*"
 * in it unless it has one: `git status` does not list it, `git add -A`
 * does not stage the cache, and Turborepo does not key it (issue 42, as
 * Python's virtualenvs do). Returns 0, or -1 with errno set when .vx cannot
 * be made (a .gitignore that cannot be is left out, quietly). */
int workspace_vx_dir(const struct workspace *ws);

/* Returns the project's index by name ("//" also names the root project), or -1. */
long workspace_find(const struct workspace *ws, const char *name);
/* Appends to out the canonical directory of each project linked into p's
 * node_modules or the root's (a link to a project's directory, as pnpm,
 * npm, Yarn and Bun workspaces make them; @scope/name too), then into the
 * node_modules of those, as pnpm links a package's own dependencies only
 * under it. External packages (pnpm's node_modules/.pnpm/…) are not
 * projects and are left out, as are p itself and a project holding it. */
void workspace_linked_projects(const struct workspace *ws, const struct project *p,
			       struct strvec *out);
/* Returns the package.json script named name of p, or NULL. */
const char *project_script(const struct project *p, const char *name);
/* Returns the project whose directory most closely holds the absolute or
 * workspace-relative path, or -1 when none does. */
long workspace_project_of(const struct workspace *ws, const char *path);
/* The vx.yaml a fix for one of p's tasks goes into, workspace-relative
 * (a new string): the project's own, or where it would be (a project of
 * package.json alone; the root's tasks), never a file every package
 * inherits (issue 54 item 1: a fix learned for one app, written into the
 * root's turbo.json entry, refused every other package's build). The
 * task-facts record's yaml (taskfacts_yaml) and `vx sandbox learn` both. */
char *workspace_fix_yaml(const struct workspace *ws, const struct project *p);
/* Adds to mark (ws->projects.n entries) every project reachable from the
 * ones in seed along project edges (reverse: dependents instead of
 * dependencies), directly or not. A seed is marked only when another seed
 * (or a cycle) reaches it. */
void workspace_closure(const struct workspace *ws, const bool *seed, bool reverse, bool *mark);

#endif
