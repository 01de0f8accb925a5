#!/bin/bash
# Configuration faults of issue 57 (items 2, 3, 4, 7): each class is one
# error naming its file (exit 2, nothing run), never taken silently. The
# catalogue of classes and their tests is docs/config.md "Fault catalogue".
. "$(dirname "$0")/lib.sh"

# An npm workspace: a root package.json listing p/*, projects a and b
# (b depends on a), and a root vx.yaml whose task defaults order them.
npm_ws() {
	write_file package.json <<-EOF &&
	{"name": "root", "private": true, "workspaces": ["p/*"]}
	EOF
	write_file p/a/package.json <<-EOF &&
	{"name": "a", "version": "1.0.0", "scripts": {"build": "echo built-a"}}
	EOF
	write_file p/b/package.json <<-EOF
	{"name": "b", "version": "1.0.0", "dependencies": {"a": "*"}, "scripts": {"build": "echo built-b"}}
	EOF
}

# --- item 2: a key repeated in one JSON object ------------------------------

test_expect_success 'a repeated key in a package.json is an error at the second (Node takes the last)' '
	npm_ws &&
	printf "{\"name\": \"a\", \"version\": \"1.0.0\", \"name\": \"zz\"}\n" >p/a/package.json &&
	run_vx 2 run build &&
	test_grep -x "vx: $(pwd -P)/p/a/package.json:1:35: duplicate key \"name\" (first at 1:2)" "$ERR" &&
	test_path_is_missing .vx
'

test_expect_success 'a repeated key deep in a package.json, at its line and column' '
	npm_ws &&
	write_file p/a/package.json <<-EOF &&
	{
	  "name": "a",
	  "scripts": {
	    "build": "echo one",
	    "test": "true",
	    "build": "echo two"
	  }
	}
	EOF
	run_vx 2 run build &&
	test_grep -x "vx: $(pwd -P)/p/a/package.json:6:5: duplicate key \"build\" (first at 4:5)" "$ERR"
'

test_expect_success 'a key spelled with an escape is the same key' '
	npm_ws &&
	printf "{\"name\": \"a\", \"n\\\\u0061me\": \"zz\"}\n" >p/a/package.json &&
	run_vx 2 run build &&
	test_grep "p/a/package.json:1:15: duplicate key \"name\" (first at 1:2)" "$ERR"
'

test_expect_success 'a repeated key in the root package.json is an error' '
	npm_ws &&
	printf "{\"workspaces\": [\"p/*\"], \"packageManager\": \"npm@10.0.0\", \"packageManager\": \"pnpm@9.0.0\"}\n" >package.json &&
	run_vx 2 run build &&
	test_grep "vx: $(pwd -P)/package.json:1:57: duplicate key \"packageManager\" (first at 1:25)" "$ERR"
'

test_expect_success 'a repeated key in a turbo.json task and in turbo.jsonc is an error at the second' '
	npm_ws &&
	write_file turbo.json <<-EOF &&
	{"tasks": {"build": {"outputs": [], "cache": false, "outputs": ["dist/**"]}}}
	EOF
	run_vx 2 run build &&
	test_grep "turbo.json:1:53: duplicate key \"outputs\"" "$ERR" &&
	rm turbo.json &&
	write_file turbo.jsonc <<-EOF &&
	// a comment
	{"tasks": {"build": {}}, "remoteCache": {"enabled": true, "enabled": false}}
	EOF
	run_vx 2 run build &&
	test_grep "turbo.jsonc:2:59: duplicate key \"enabled\"" "$ERR"
'

test_expect_success 'a repeated key in package-lock.json or bun.lock: the lockfile is not read, said at its place' '
	npm_ws &&
	write_file package-lock.json <<-EOF &&
	{"lockfileVersion": 3, "packages": {"": {"name": "root"}, "": {"name": "again"}}}
	EOF
	run_vx 0 run build --dry-run &&
	test_grep "package-lock.json: the lockfile is not read (1:59: duplicate key \"\" (first at 1:37))" "$ERR" &&
	rm package-lock.json &&
	write_file bun.lock <<-EOF &&
	{
	  // bun writes JSONC
	  "lockfileVersion": 1,
	  "workspaces": {},
	  "packages": {},
	  "workspaces": {},
	}
	EOF
	run_vx 0 run build --dry-run &&
	test_grep "bun.lock: the lockfile is not read (6:3: duplicate key \"workspaces\" (first at 4:3))" "$ERR"
'

test_expect_success 'a repeated key in vx.yaml stays an error, as it was' '
	npm_ws &&
	write_file vx.yaml <<-EOF &&
	tasks:
	  build: {}
	  build: {}
	EOF
	run_vx 2 run build &&
	test_grep "vx.yaml:3:3: duplicate key \"build\"" "$ERR"
'

# --- item 3: a configuration file that is there and cannot be read ----------

test_expect_success 'a root vx.yaml that is a FIFO beside package.json workspaces is an error naming it' '
	npm_ws &&
	mkfifo vx.yaml &&
	run_vx 2 run build &&
	test_grep -x "vx: cannot read $(pwd -P)/vx.yaml: it is not a regular file" "$ERR" &&
	test_grep ! built "$OUT"
'

test_expect_success 'a root turbo.json or pnpm-workspace.yaml that is a FIFO is an error naming it, once' '
	npm_ws &&
	mkfifo turbo.json &&
	run_vx 2 run build &&
	test_grep -x "vx: cannot read $(pwd -P)/turbo.json: it is not a regular file" "$ERR" &&
	test "$(wc -l <"$ERR")" -eq 1 &&
	rm turbo.json &&
	mkfifo pnpm-workspace.yaml &&
	run_vx 2 run build &&
	test_grep -x "vx: cannot read $(pwd -P)/pnpm-workspace.yaml: it is not a regular file" "$ERR"
'

test_expect_success 'a project vx.yaml that is a directory, and a FIFO lockfile, are named' '
	npm_ws &&
	mkdir p/a/vx.yaml &&
	run_vx 2 run build &&
	test_grep "p/a/vx.yaml: it is not a regular file" "$ERR" &&
	rmdir p/a/vx.yaml &&
	mkfifo package-lock.json &&
	run_vx 0 run build --dry-run &&
	test_grep "package-lock.json: cannot read the lockfile: it is not a regular file" "$ERR"
'

# --- item 7: vx's own state is never an input; a cache.dir vx cannot use --

# A vx.yaml workspace with project a (sources under src/) and cache.dir $1.
cache_ws() {
	write_file vx.yaml <<-EOF &&
	workspace:
	  projects: ["p/*"]
	  cache: { dir: "$1" }
	EOF
	write_file p/a/src/x.ts <<-EOF &&
	export const x = 1
	EOF
	ws_project p/a a <<-EOF
	  build: { command: "echo built >out.txt", outputs: [out.txt] }
	EOF
}

test_expect_success 'a cache directory inside a project is no input: the second run hits' '
	cache_ws p/a/src/cache &&
	run_vx 0 run build &&
	test_path_is_file p/a/src/cache/runs.log &&
	run_vx 0 run build -v &&
	test_grep "1 cached" "$OUT" &&
	test_grep ! "runs.log changed" "$ERR" &&
	echo "export const x = 2" >p/a/src/x.ts &&
	run_vx 0 run build &&
	test_grep "1 succeeded" "$OUT"
'

test_expect_success 'the same in a git work tree, where git lists the cache as untracked' '
	cache_ws p/a/src/cache &&
	git init -q . && git add -A && git commit -qm init &&
	run_vx 0 run build &&
	run_vx 0 run build &&
	test_grep "1 cached" "$OUT" &&
	run_vx 0 run build --dry-run=json &&
	test_grep ! "src/cache" "$OUT"
'

test_expect_success 'a cache.dir that is /, a system directory, home, or holds the workspace is refused' '
	for d in / /usr/lib/vx-cache /etc /tmp "$HOME" .. .; do
		cache_ws "$d" &&
		run_vx 2 run build &&
		test_grep "vx.yaml:3:17: cache.dir \"$d\" (.*) cannot be the cache directory: it " "$ERR" &&
		test_path_is_missing p/a/out.txt || return 1
	done &&
	test_grep "it is or holds the workspace" "$ERR" &&
	cache_ws .vx/cache &&
	VX_CACHE_DIR=/ run_vx 2 run build &&
	test_grep -x "vx: VX_CACHE_DIR=/ cannot be the cache directory: it is the file system.s root" "$ERR" &&
	run_vx 2 run build --cache-dir /proc/vx &&
	test_grep -x "vx: --cache-dir /proc/vx cannot be the cache directory: it is a system directory" "$ERR" &&
	test_path_is_missing p/a/out.txt
'

test_expect_success '--summarize=PATH makes missing directories inside the workspace only' '
	cache_ws .vx/cache &&
	run_vx 0 run build --summarize=reports/deep/s.json &&
	test_path_is_file reports/deep/s.json &&
	run_vx 0 run build --summarize="$TEST_DIR/nowhere/deep/s.json" &&
	test_grep "cannot write the run summary .*nowhere/deep: No such file or directory (vx makes a summary.s directory only inside the workspace)" "$ERR" &&
	test_path_is_missing "$TEST_DIR/nowhere" &&
	mkdir "$TEST_DIR/there" &&
	run_vx 0 run build --summarize="$TEST_DIR/there/s.json" &&
	test_path_is_file "$TEST_DIR/there/s.json" &&
	# a link inside the workspace leads outside it (a task can leave one
	# among its outputs): judged where it leads, not by its spelling
	ln -s "$TEST_DIR/elsewhere" out-link && mkdir "$TEST_DIR/elsewhere" &&
	run_vx 0 run build --summarize=out-link/deep/s.json &&
	test_grep "cannot write the run summary .*out-link/deep: .*(vx makes a summary.s directory only inside the workspace)" "$ERR" &&
	test_path_is_missing "$TEST_DIR/elsewhere/deep" &&
	mkdir -p in/real && ln -s in/real in-link &&
	run_vx 0 run build --summarize=in-link/deep/s.json &&
	test_path_is_file in/real/deep/s.json
'

# --- item 4: a configuration's size is bounded --------------------------------

test_expect_success 'a turbo.json larger than 4 MiB is refused with its reason, nothing run' '
	npm_ws &&
	{
		printf "{\"tasks\": {\"build\": {}}, \"globalDependencies\": [\"g/0.txt\""
		i=1
		while [ $i -lt 300000 ]; do printf ", \"g/%d.txt\"" $i; i=$((i + 1)); done
		printf "]}\n"
	} >turbo.json &&
	size=$(wc -c <turbo.json) &&
	run_vx 2 run build &&
	test_grep -x "vx: $(pwd -P)/turbo.json: $size bytes, more than 4 MiB, the most a configuration file may hold" "$ERR" &&
	test_grep ! built "$OUT"
'

test_expect_success 'a package.json or vx.yaml past the bound is refused the same way' '
	npm_ws &&
	{ printf "{\"name\": \"a\", \"description\": \""; head -c 4200000 /dev/zero | tr "\0" x; printf "\"}\n"; } >p/a/package.json &&
	run_vx 2 run build &&
	test_grep "p/a/package.json: [0-9]* bytes, more than 4 MiB, the most a configuration file may hold" "$ERR" &&
	npm_ws &&
	{ printf "tasks:\n  build: {}\n# "; head -c 4200000 /dev/zero | tr "\0" x; echo; } >vx.yaml &&
	run_vx 2 run build &&
	test_grep "vx.yaml: [0-9]* bytes, more than 4 MiB" "$ERR"
'

test_done
