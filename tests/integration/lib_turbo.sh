# lib_turbo.sh - turbo 2.11.13 from npm as the oracle, and the repository
# both tools run in: sourced (after lib.sh) by t0187 (--dry=json) and
# t0191 (--summarize). Sets $turbo.

turbo_oracle

# A git repository of two packages (web depends on ui) and a root task,
# whose builds write dist/ (ignored, as built files are).
setup() {
	git init -q . && git checkout -qb main &&
	echo '{"name": "root", "private": true, "packageManager": "npm@10.0.0", "workspaces": ["apps/*", "packages/*"], "scripts": {"fmt": "echo fmt"}}' >package.json &&
	cat >turbo.json <<-'EOF' &&
	{"tasks": {
	  "build": {"dependsOn": ["^build"], "outputs": ["dist/**", "!dist/cache/**"], "inputs": ["src/**", "package.json"], "env": ["API_URL"]},
	  "test": {"dependsOn": ["build"], "passThroughEnv": ["CI_TOKEN"], "cache": false},
	  "//#fmt": {}
	}}
	EOF
	write_file apps/web/package.json <<<'{"name": "web", "version": "1.0.0", "scripts": {"build": "mkdir -p dist && echo web >dist/web.js", "test": "echo test"}, "dependencies": {"ui": "*"}}' &&
	write_file apps/web/src/a.ts <<<'export const a = 1' &&
	write_file packages/ui/package.json <<<'{"name": "ui", "version": "1.0.0", "scripts": {"build": "mkdir -p dist && echo ui >dist/ui.js && sleep 0.1"}}' &&
	write_file packages/ui/src/b.ts <<<'export const b = 1' &&
	write_file packages/ui/README.md <<<'not an input' &&
	cat >package-lock.json <<-'EOF' &&
	{"name": "root", "lockfileVersion": 3, "requires": true, "packages": {
	  "": {"name": "root", "workspaces": ["apps/*", "packages/*"]},
	  "apps/web": {"name": "web", "version": "1.0.0", "dependencies": {"ui": "*"}},
	  "packages/ui": {"name": "ui", "version": "1.0.0"},
	  "node_modules/ui": {"resolved": "packages/ui", "link": true},
	  "node_modules/web": {"resolved": "apps/web", "link": true}}}
	EOF
	printf "node_modules\n.turbo\n.vx\ndist\n" >.gitignore &&
	git add -A && git commit -qm init
}

# Every path of a document (jq: a value) with its value's type, but those
# under a map whose keys are data (a task's input files, the global files,
# the NAME=HASH lists), for the shape.
shape='[paths(true) as $p | {p: ($p | map(if type == "number" then "N" else . end) | join(".")), t: (getpath($p) | type)}] | unique | map(select(.p | test("^tasks\\.N\\.inputs\\.|^tasks\\.N\\.environmentVariables\\.(configured|inferred|passthrough)\\.|^globalCacheInputs\\.files\\.|^globalCacheInputs\\.environmentVariables\\.(configured|inferred|passthrough)\\.") | not))'

# agree WHAT TURBO VX: the two files are the same, else how vx's WHAT
# differs from turbo's.
agree() {
	cmp -s "$2" "$3" && return 0
	echo "$1 differs from turbo's:"
	diff "$2" "$3"
	return 1
}
