#!/bin/bash
# vx sandbox learn (issue 40 item 1): the sandbox turned on in one step.
# From a config with no sandbox: and no grants, learn runs the tasks
# traced, writes what each needs into the right vx.yaml (comments and
# layout kept) and prints the diff; then `vx run` passes with zero
# violations and the next run hits. Real tools: make + gcc, tsc -b with
# project references, eslint (with --cache), tsup, vitest, vite, jest.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

# learn, then a run with no violation, then all hits with the outputs
# gone. $1: the tasks; $2: a file whose bytes must come back.
learn_then_hit() {
	run_vx 0 sandbox learn $1 &&
	cp "$OUT" "$TEST_DIR/diff" &&
	test_grep "all passed with no violation" "$ERR" &&
	run_vx 0 run $1 &&
	test_grep ! "violation" "$ERR" &&
	sum=$(md5sum <"$2") &&
	rm -f "$2" &&
	run_vx 0 run $1 &&
	test_grep ! "violation" "$ERR" &&
	test_grep ! ": running:" "$OUT" &&
	test "$(md5sum <"$2")" = "$sum"
}

calc_project() {
	ws_root </dev/null
	ws_project calc calc <<-'EOF'
	  # the C build
	  build:
	    command: "make" # objects in build/
	    outputs: ["build/**"]
	EOF
	write_file calc/src/add.c <<<'int add(int a, int b) { return a + b; }'
	write_file calc/src/main.c <<-'EOF'
	#include <stdio.h>
	#include "../../include/shared.h"
	int add(int, int);
	int main(void) { printf("%d\n", add(2, SHARED)); return 0; }
	EOF
	write_file include/shared.h <<<'#define SHARED 3'
	printf '%s\n' \
		'build/calc: build/add.o build/main.o' \
		'	cc -o $@ build/add.o build/main.o' \
		'build/%.o: src/%.c' \
		'	@mkdir -p build' \
		'	cc -c -o $@ $<' >calc/Makefile
}

test_expect_success 'make + gcc from no sandbox at all: learn writes the grants and keys, the run passes, the next hits' '
	calc_project &&
	learn_then_hit calc#build calc/build/calc &&
	test "$(calc/build/calc)" = 5 &&
	cat calc/vx.yaml &&
	# the comments and the layout kept; the sandbox and the keys added
	test_grep "^  # the C build$" calc/vx.yaml &&
	test_grep "^    command: \"make\" # objects in build/$" calc/vx.yaml &&
	test_grep "^    sandbox:$" calc/vx.yaml &&
	# build/ is its declared output: granted by the declaration (issue 54)
	test_grep ! "write:" calc/vx.yaml &&
	test_grep "read: \[\"../include/shared.h\"\]" calc/vx.yaml &&
	test_grep "workspaceFiles: \[\"include/shared.h\"\]" calc/vx.yaml &&
	# the diff printed is what changed
	test_grep "^--- a/calc/vx.yaml$" "$TEST_DIR/diff" &&
	test_grep "^+    sandbox:$" "$TEST_DIR/diff" &&
	# the key holds the header: an edit of it misses (with build/ gone:
	# this Makefile does not know its objects depend on the header)
	echo "#define SHARED 4" >include/shared.h &&
	rm -rf calc/build &&
	run_vx 0 run calc#build &&
	test_grep "calc#build: running" "$OUT" &&
	test "$(calc/build/calc)" = 6
'

test_expect_success 'a leftover in a write grant learn made (no output names it): removed, never vouched for' '
	ws_root </dev/null &&
	echo shared >shared.txt &&
	ws_project app app <<-'EOF' &&
	  build:
	    command: "mkdir -p .cache/tool && cat .cache/tool/last 2>/dev/null; date > .cache/tool/last && cat ../shared.txt > out.txt"
	    outputs: ["out.txt"]
	EOF
	mkdir app/.cache && touch app/.cache/.keep &&
	printf "tool\n.vx\n" >.gitignore && git init -q . && # a tool cache git ignores
	run_vx 0 sandbox learn app#build &&
	test_grep "removed app/.cache/tool: an earlier round left it" "$ERR" &&
	test_grep "all passed with no violation" "$ERR" &&
	test_grep "write: \[\".cache/tool/\"\]" app/vx.yaml &&
	test_grep ! "ignore" app/vx.yaml
'

test_expect_success 'learn twice: the second writes nothing and passes in one round' '
	calc_project &&
	run_vx 0 sandbox learn calc#build &&
	cp calc/vx.yaml before.yaml &&
	run_vx 0 sandbox learn calc#build &&
	test_grep "learn round 1: 1 tasks ran, all passed" "$ERR" &&
	test_cmp before.yaml calc/vx.yaml &&
	test ! -s "$OUT"
'

test_expect_success 'a read of a project it does not depend on is not learned: learn stops and says the fix' '
	ws_root </dev/null &&
	ws_project other other <<<"" &&
	echo secret >other/notes.txt &&
	ws_project app app <<-'EOF'
	  build:
	    command: "cat ../other/notes.txt > out.txt"
	EOF
	run_vx 3 sandbox learn app#build &&
	test_grep "app#build: needs a person: add to app/vx.yaml tasks.build.sandbox.allow.read: \[\"../other/notes.txt\"\] (it reaches into project other, which it does not depend on: add the dependency" "$ERR" &&
	test_grep "what is left needs a person" "$ERR" &&
	test_grep "app#build: violation: read other/notes.txt (ENOENT)" "$ERR" &&
	test_grep ! "read:\|workspaceFiles" app/vx.yaml
'

test_expect_success 'what the walls keep is never learned: a read of .git stops learn with the run'"'"'s report' '
	ws_root </dev/null &&
	git init -q . &&
	ws_project app app <<-'EOF'
	  build:
	    command: "cat ../.git/HEAD"
	EOF
	run_vx 1 sandbox learn app#build &&
	test_grep "what is left needs a person" "$ERR" &&
	test_grep "app#build: failed" "$ERR" &&
	test_grep ! "allow" app/vx.yaml
'

test_expect_success 'a persistent task, --dry-run, --report: refused with the reason, nothing written' '
	ws_root </dev/null &&
	ws_project app app <<-'EOF'
	  dev:
	    command: "sleep 100"
	    persistent: true
	  build:
	    command: "true"
	EOF
	cp app/vx.yaml before.yaml &&
	run_vx 1 sandbox learn app#dev &&
	test_grep "app#dev is persistent" "$ERR" &&
	run_vx 2 sandbox learn build --dry-run &&
	test_grep "dry-run is not a learn option" "$ERR" &&
	run_vx 2 sandbox learn build --report json &&
	test_cmp before.yaml app/vx.yaml
'

# A turbo.json repository: learn writes the root vx.yaml overlay, and the
# inputs turbo.json gave are kept (a fix adds, never shrinks a key).
test_expect_success 'turbo.json: learn writes the root vx.yaml; the keys only grow' '
	echo "{\"name\": \"root\", \"private\": true, \"workspaces\": [\"packages/*\"], \"packageManager\": \"npm@10.0.0\"}" >package.json &&
	echo "{\"tasks\": {\"build\": {\"inputs\": [\"src/**\"], \"outputs\": [\"dist/**\"]}}}" >turbo.json &&
	echo "BASE" >base.txt &&
	for p in a b; do
		write_file packages/$p/package.json <<<"{\"name\": \"$p\", \"scripts\": {\"build\": \"mkdir -p dist && cat src/x ../../base.txt > dist/out\"}}" &&
		write_file packages/$p/src/x <<<"$p"
	done &&
	git init -q . && git add -A && git commit -qm i &&
	run_vx 0 run build --dry-run=json &&
	jq -r ".tasks[] | select(.id == \"a#build\") | .inputFiles[]" "$OUT" | sort >keys-before &&
	test_path_is_missing vx.yaml &&
	run_vx 0 sandbox learn build &&
	cat vx.yaml &&
	test_grep "^  build:$" vx.yaml &&
	run_vx 0 run build --dry-run=json &&
	jq -r ".tasks[] | select(.id == \"a#build\") | .inputFiles[]" "$OUT" | sort >keys-after &&
	comm -23 keys-before keys-after >lost &&
	test ! -s lost &&
	test_grep "^base.txt$" keys-after &&
	run_vx 0 run build &&
	test_grep ! "violation" "$ERR" &&
	test "$(cat packages/b/dist/out)" = "$(printf "b\nBASE")" &&
	rm -rf packages/*/dist &&
	run_vx 0 run build &&
	test_grep "a#build: cache hit" "$OUT" &&
	test_grep "b#build: cache hit" "$OUT"
'

test_expect_success 'cmake + ninja from no grants: its build tree, which no output names, is learned as its directory' '
	ws_root </dev/null &&
	write_file calc/CMakeLists.txt <<-'\''EOF'\'' &&
	cmake_minimum_required(VERSION 3.20)
	project(calc C)
	add_executable(calc src/main.c src/add.c)
	EOF
	write_file calc/src/add.c <<<"int add(int a, int b) { return a + b; }" &&
	printf "#include <stdio.h>\nint add(int, int);\nint main(void) { printf(\"%%d\\\\n\", add(2, 3)); return 0; }\n" >calc/src/main.c &&
	ws_project calc calc <<-'\''EOF'\'' &&
	  build:
	    command: "cmake -S . -B build -G Ninja && cmake --build build"
	    outputs: ["build/calc"]
	EOF
	printf "build\n.vx\n" >.gitignore && git init -q . &&
	learn_then_hit calc#build calc/build/calc &&
	test "$(calc/build/calc)" = 5 &&
	# the tree it made, as the directory (issue 54: not file by file)
	test_grep "write: \[\"build/\"\]" calc/vx.yaml &&
	test_grep ! "ignore" calc/vx.yaml
'

realbuild_js_tools

ts_workspace() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**", "tsconfig.tsbuildinfo"]
	EOF
	cat >tsconfig.base.json <<-'EOF'
	{ "compilerOptions": { "strict": true, "target": "es2020", "module": "commonjs",
	  "declaration": true, "composite": true } }
	EOF
	write_file packages/lib/package.json <<<'{ "name": "@t/lib", "version": "1.0.0", "main": "dist/index.js", "types": "dist/index.d.ts" }'
	write_file packages/lib/tsconfig.json <<<'{ "extends": "../../tsconfig.base.json", "compilerOptions": { "rootDir": "src", "outDir": "dist", "tsBuildInfoFile": "tsconfig.tsbuildinfo" }, "include": ["src"] }'
	write_file packages/lib/src/index.ts <<<'export function add(a: number, b: number): number { return a + b; }'
	write_file packages/app/package.json <<<'{ "name": "@t/app", "version": "1.0.0", "dependencies": { "@t/lib": "1.0.0" } }'
	write_file packages/app/tsconfig.json <<<'{ "extends": "../../tsconfig.base.json", "compilerOptions": { "rootDir": "src", "outDir": "dist", "tsBuildInfoFile": "tsconfig.tsbuildinfo" }, "include": ["src"], "references": [{ "path": "../lib" }] }'
	write_file packages/app/src/index.ts <<<'import { add } from "@t/lib"; export const five: number = add(2, 3);'
	mkdir -p node_modules/@t node_modules/.bin &&
	ln -s ../../packages/lib node_modules/@t/lib &&
	ln -s "$NPM_CACHE/node_modules/typescript" node_modules/typescript &&
	ln -s ../typescript/bin/tsc node_modules/.bin/tsc &&
	for p in lib app; do
		write_file packages/$p/vx.yaml <<-EOF
		tasks:
		  build:
		    command: "tsc -b"
		EOF
	done
}

test_expect_success 'tsc -b with project references and a base config, from no grants: learn, pass, hit' '
	test $have_npm = 1 || { echo "# skipped: no typescript"; exit 0; }
	ts_workspace &&
	learn_then_hit build packages/app/dist/index.js &&
	cat "$TEST_DIR/diff" &&
	test_grep "exports.five = (0, lib_1.add)(2, 3)" packages/app/dist/index.js
'

js_package() {
	ws_root </dev/null &&
	mkdir -p node_modules &&
	for t in typescript eslint tsup vitest vite jest; do ln -s "$NPM_CACHE/node_modules/$t" node_modules/$t; done &&
	cp "$NPM_CACHE/package-lock.json" . &&
	ln -s "$NPM_CACHE/node_modules/.bin" node_modules/.bin &&
	write_file lib/package.json <<<'{ "name": "lib", "version": "1.0.0", "type": "module" }' &&
	write_file lib/src/index.js <<<'export function add(a, b) { return a + b; }' &&
	write_file lib/src/index.test.js <<<'import { expect, test } from "vitest"; import { add } from "./index.js"; test("add", () => { expect(add(2, 3)).toBe(5); });' &&
	write_file lib/eslint.config.js <<<'export default [{ files: ["src/**/*.js"], rules: { "no-unused-vars": "error" } }];' &&
	write_file lib/tsup.config.ts <<<'import { defineConfig } from "tsup"; export default defineConfig({ entry: ["src/index.js"], format: ["esm"], clean: true, outDir: "dist" });' &&
	write_file lib/index.html <<<'<!doctype html><html><body><script type="module" src="/src/index.js"></script></body></html>' &&
	write_file lib/jtest/jest-check.cjs <<<'test("adds", () => { expect(1 + 2).toBe(3); });' &&
	printf "node_modules\ndist\nvdist\n.eslintcache\n.vx\n" >.gitignore &&
	git init -q . &&
	write_file lib/vx.yaml <<-'EOF'
	tasks:
	  vite:
	    command: "vite build --outDir vdist"
	    outputs: ["vdist/**"]
	  jest:
	    command: "jest --ci --roots jtest --testMatch \"**/jest-check.cjs\""
	  lint:
	    command: "eslint --cache src"
	    outputs: [".eslintcache"]
	  build:
	    command: "tsup"
	    outputs: ["dist/**"]
	  test:
	    command: "vitest run"
	EOF
}

test_expect_success 'eslint (with --cache), tsup, vitest, vite and jest from no grants: learn, pass, hit' '
	test $have_npm = 1 || { echo "# skipped: no npm tools"; exit 0; }
	js_package &&
	learn_then_hit "lib#lint lib#build lib#test lib#vite lib#jest -j1" lib/dist/index.js &&
	cat "$TEST_DIR/diff" &&
	# vitest made node_modules/.vite/vitest/ bottom up: never node_modules/ whole
	test_grep "write: \[\"node_modules/.vite/vitest/\"\]" lib/vx.yaml &&
	test_grep ! "\"node_modules/\"" lib/vx.yaml &&
	test_path_is_file lib/vdist/index.html &&
	test -z "$(ls lib | grep bundled)"
'

test_expect_success 'next build from no grants: learn, pass, hit' '
	test $have_npm = 1 || { echo "# skipped: no npm tools"; exit 0; }
	ws_root </dev/null &&
	printf "node_modules\n.next\n.vx\n" >.gitignore &&
	ln -s "$NPM_CACHE/node_modules" node_modules &&
	cp "$NPM_CACHE/package-lock.json" . &&
	write_file web/package.json <<<"{ \"name\": \"web\", \"version\": \"1.0.0\", \"private\": true, \"scripts\": { \"build\": \"next build\" } }" &&
	write_file web/pages/index.js <<<"export default function Home() { return <h1>Hello</h1>; }" &&
	write_file web/vx.yaml <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: [".next/**", "!.next/cache/**"]
	    env:
	      define: { NEXT_TELEMETRY_DISABLED: "1" }
	EOF
	git init -q . && git add -A && git commit -qm init &&
	learn_then_hit web#build web/.next/BUILD_ID &&
	cat "$TEST_DIR/diff" &&
	# .next/ is its declared output: granted by the declaration (issue 54)
	test_grep ! "write: \[.*\".next/\"\]" web/vx.yaml
'

# Issue 54 item 4: keys learned file by file gave a stale hit (27 public
# assets keyed one by one; a new one hit, and the restore lacked it).
test_expect_success 'files read from one directory are keyed as the directory: a new file there misses' '
	ws_root </dev/null &&
	for f in a b c; do write_file shared/public/$f.txt <<<"$f"; done &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat ../shared/public/*.txt > dist/all"
	    outputs: ["dist/**"]
	EOF
	run_vx 0 sandbox learn app#build &&
	cat app/vx.yaml &&
	test_grep "workspaceFiles: \[\"shared/public/\*\*\"\]" app/vx.yaml &&
	run_vx 0 run app#build &&
	test_grep "cache hit" "$OUT" &&
	echo d >shared/public/d.txt &&
	run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test "$(cat app/dist/all | wc -l)" = 4
'

# Issue 54 item 10: learn's own words. A task that passed is not one that
# "did not pass"; a user's own build is no earlier round; removing is not
# learning.
test_expect_success 'learn says what ran and what failed; a build before learn left outputs, which a miss starts without' '
	ws_root </dev/null &&
	echo shared >shared.txt &&
	ws_project lib lib <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist; cat dist/o 2>/dev/null; cat ../shared.txt > dist/o"
	    outputs: ["dist/**"]
	EOF
	ws_project app app lib <<-'\''EOF'\'' &&
	  build:
	    command: "true"
	EOF
	mkdir -p lib/dist && echo "the user built this" >lib/dist/o &&
	printf "dist\n.vx\n" >.gitignore && git init -q . &&
	run_vx 0 sandbox learn build &&
	test_grep "learn round 1: 2 tasks ran, 1 failed, 1 violations; 2 learned$" "$ERR" &&
	test_grep ! "leftover\|removed" "$ERR" &&
	test_grep ! "the user built this" "$OUT" && test_grep ! "the user built this" "$ERR" &&
	test_grep "learn round 2: 2 tasks ran, all passed" "$ERR"
'

# Issue 54 item 1: in a turbo.json repository every package's fixes went
# to the root's generic entry (each key then held the other packages'
# files), and where a package turbo.json overrides inputs they never
# applied. Each package's needs go to its own vx.yaml, the layer that wins.
test_expect_success 'turbo.json with a package override: each package learns in its own vx.yaml; an edit misses only its package' '
	echo "{\"name\": \"root\", \"private\": true, \"workspaces\": [\"packages/*\"], \"packageManager\": \"npm@10.0.0\"}" >package.json &&
	echo "{\"tasks\": {\"build\": {\"outputs\": [\"dist/**\"]}}}" >turbo.json &&
	mkdir -p shared && echo A >shared/a.txt && echo B >shared/b.txt &&
	for p in a b; do
		write_file packages/$p/package.json <<<"{\"name\": \"$p\", \"scripts\": {\"build\": \"mkdir -p dist && cat ../../shared/$p.txt src/x > dist/out\"}}" &&
		write_file packages/$p/src/x <<<"$p"
	done &&
	echo "{\"extends\": [\"//\"], \"tasks\": {\"build\": {\"inputs\": [\"src/**\"]}}}" >packages/b/turbo.json &&
	printf "dist\n.vx\n" >.gitignore && git init -q . && git add -A && git commit -qm i &&
	run_vx 0 sandbox learn build &&
	test_grep "^    sandbox: {}$" vx.yaml &&
	test_grep ! "shared" vx.yaml &&
	test_grep "workspaceFiles: \[\"shared/a.txt\"\]" packages/a/vx.yaml &&
	test_grep ! "b.txt" packages/a/vx.yaml &&
	test_grep "shared/b.txt" packages/b/vx.yaml &&
	test_grep ! "a.txt" packages/b/vx.yaml &&
	run_vx 0 run build &&
	test_grep "a#build: cache hit" "$OUT" && test_grep "b#build: cache hit" "$OUT" &&
	echo B2 >shared/b.txt &&
	run_vx 0 run build &&
	test_grep "a#build: cache hit" "$OUT" &&
	test_grep "b#build: running" "$OUT" &&
	test "$(head -n 1 packages/b/dist/out)" = B2
'

# Issue 54 item 2: a tool that deletes its own output root (Remix's
# build/, Nitro's .output/) under a deeper grant met EBUSY and failed with
# no violation and nothing to learn.
test_expect_success 'a tool that deletes its output root: a violation with the top-level grant, learned, and it passes' '
	ws_root </dev/null &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "rm -rf dist/esm && mkdir -p dist/esm && echo 1 > dist/esm/a"
	    outputs: ["dist/esm/**"]
	    sandbox: {}
	EOF
	mkdir -p app/dist/esm && echo old >app/dist/esm/old &&
	cp app/vx.yaml before.yaml &&
	run_vx 1 run app#build &&
	test_grep "violation: write app/dist/esm (unlinkat E[A-Z]*)" "$ERR" &&
	test_grep "fix: add to app/vx.yaml tasks.build.sandbox.allow.write: \[\"dist/\"\]" "$ERR" &&
	cp before.yaml app/vx.yaml &&
	run_vx 0 sandbox learn app#build &&
	test_grep "write: \[\"dist/\"\]" app/vx.yaml &&
	test "$(ls app/dist/esm)" = a &&
	run_vx 0 run app#build &&
	test_grep "cache hit" "$OUT"
'

# Issue 54's "done when" on a real shape: packages sharing a turbo.json,
# one with a package override, tsc with its build info under .cache/ (no
# output names it): learn from nothing, then an edit rebuilds sandboxed
# with no violation, and learning again takes one round.
test_expect_success 'tsc incremental in a turbo.json repository: learn, pass, hit; an edit rebuilds with no violation' '
	test $have_npm = 1 || { echo "# skipped: no typescript"; exit 0; }
	echo "{\"name\": \"root\", \"private\": true, \"workspaces\": [\"packages/*\"], \"packageManager\": \"npm@10.0.0\"}" >package.json &&
	ln -s "$NPM_CACHE/node_modules" node_modules &&
	cp "$NPM_CACHE/package-lock.json" . &&
	echo "{\"tasks\": {\"build\": {\"dependsOn\": [\"^build\"], \"outputs\": [\"dist/**\"]}}}" >turbo.json &&
	echo "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}}" >tsconfig.base.json &&
	for p in a b; do
		write_file packages/$p/package.json <<<"{\"name\": \"$p\", \"version\": \"1.0.0\", \"scripts\": {\"build\": \"tsc -p tsconfig.json\"}}" &&
		write_file packages/$p/tsconfig.json <<<"{\"extends\": \"../../tsconfig.base.json\", \"compilerOptions\": {\"outDir\": \"dist\", \"rootDir\": \"src\", \"incremental\": true, \"tsBuildInfoFile\": \".cache/tsbuildinfo.json\"}, \"include\": [\"src\"]}" &&
		write_file packages/$p/src/index.ts <<<"export const $p = 1;"
	done &&
	echo "{\"extends\": [\"//\"], \"tasks\": {\"build\": {\"outputs\": [\"dist/**\", \".cache/**\"]}}}" >packages/b/turbo.json &&
	printf "node_modules\ndist\n.cache\n.vx\n" >.gitignore && git init -q . && git add -A && git commit -qm i &&
	run_vx 0 sandbox learn build &&
	test_grep "a#build: its outputs now hold .cache/tsbuildinfo.json" "$ERR" &&
	test_grep "outputs: \[\"dist/\*\*\", \".cache/tsbuildinfo.json\"\]" packages/a/vx.yaml &&
	run_vx 0 run build &&
	test_grep "a#build: cache hit" "$OUT" &&
	echo "export const a2 = 2;" >>packages/a/src/index.ts &&
	echo "export const b2 = 2;" >>packages/b/src/index.ts &&
	run_vx 0 run build &&
	test_grep ! "violation" "$ERR" &&
	test_grep "a2" packages/a/dist/index.js && test_grep "b2" packages/b/dist/index.js &&
	run_vx 0 sandbox learn build &&
	test_grep "learn round 1: 2 tasks ran, all passed" "$ERR" &&
	test_grep ! "round 2" "$ERR"
'

test_done
