#!/bin/bash
# Real builds under the sandbox (issue 11): each tool with the grants a
# user would write has zero false violations, hits on the second run and
# restores its outputs byte for byte; one grant missing fails it with a fix
# that, merged into vx.yaml as printed, makes the next run pass.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

# Merges the JSON fix of task id $1 from $OUT (a --report json run) into
# DIR/vx.yaml's tasks.TASK.sandbox and .inputs, mechanically, as a user
# pasting it would: each list gains the entries it lacks.
apply_fix() {
	local id=$1 dir=$2 task=$3
	jq -e --arg id "$id" '.tasks[] | select(.id == $id) | .fix' "$OUT" >"$TEST_DIR/fix.json"
	python3 - "$dir/vx.yaml" "$task" "$TEST_DIR/fix.json" <<-'EOF'
	import json, sys, yaml
	path, task, fix = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
	doc = yaml.safe_load(open(path))
	t = doc["tasks"][task]
	for key, where in (("allow", t.setdefault("sandbox", {}).setdefault("allow", {})),
	                   ("ignore", t["sandbox"].setdefault("ignore", {})),
	                   ("inputs", t.setdefault("inputs", {}))):
	    for field, entries in (fix.get(key) or {}).items():
	        lst = where.setdefault(field, [])
	        lst.extend(e for e in entries if e not in lst)
	open(path, "w").write(yaml.safe_dump(doc, sort_keys=False))
	EOF
}

make_project() {
	ws_root <<-'EOF'
	EOF
	ws_project calc calc <<-EOF
	  build:
	    command: "make"
	    outputs: ["build/**"]
	    sandbox:
	      allow:
	        read: ["src/", "Makefile"]
	        write: [$1]
	EOF
	write_file calc/src/add.c <<-'EOF'
	int add(int a, int b) { return a + b; }
	EOF
	write_file calc/src/main.c <<-'EOF'
	#include <stdio.h>
	int add(int, int);
	int main(void) { printf("%d\n", add(2, 3)); return 0; }
	EOF
	printf '%s\n' \
		'build/calc: build/add.o build/main.o' \
		'	cc -o $@ build/add.o build/main.o' \
		'build/%.o: src/%.c' \
		'	@mkdir -p build' \
		'	cc -c -o $@ $<' >calc/Makefile
}

test_expect_success 'make + gcc: zero violations, all hits next, outputs restored byte for byte' '
	make_project "\"build/\"" &&
	run_vx 0 run calc#build &&
	test_grep ! "violation" "$ERR" &&
	test "$(calc/build/calc)" = 5 &&
	sum=$(cat calc/build/*.o calc/build/calc | md5sum) &&
	rm -rf calc/build &&
	run_vx 0 run calc#build &&
	test_grep "calc#build: cache hit" "$OUT" &&
	test "$(cat calc/build/*.o calc/build/calc | md5sum)" = "$sum"
'

# Issue 54 item 9: what a task declares it writes it may write. Before,
# each of these failed EROFS and asked for the grant its outputs named.
test_expect_success 'make + gcc with no write grant: its declared outputs are its grants' '
	make_project "" &&
	run_vx 0 run calc#build --report json &&
	jq -e ".tasks[0].violations == []" "$OUT" &&
	test_grep ! "violation" "$ERR" &&
	test "$(calc/build/calc)" = 5
'

test_expect_success 'cmake + ninja: zero violations, a hit next, the binary restored byte for byte' '
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
	    sandbox:
	      allow:
	        write: ["build/"]
	EOF
	run_vx 0 run calc#build &&
	test_grep ! "violation" "$ERR" &&
	test "$(calc/build/calc)" = 5 &&
	sum=$(md5sum <calc/build/calc) &&
	rm -rf calc/build &&
	run_vx 0 run calc#build &&
	test_grep "calc#build: cache hit" "$OUT" &&
	test "$(md5sum <calc/build/calc)" = "$sum"
'

# Real JavaScript tools come from npm (lib.sh realbuild_js_tools).
realbuild_js_tools

# A pnpm-style TypeScript workspace: packages/lib and packages/app (which
# references lib), a root tsconfig.base.json, each built by `tsc -b`.
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
	write_file packages/app/src/index.ts <<<"$1"
	mkdir -p node_modules/@t node_modules/.bin &&
	ln -s ../../packages/lib node_modules/@t/lib &&
	ln -s "$NPM_CACHE/node_modules/typescript" node_modules/typescript &&
	ln -s ../typescript/bin/tsc node_modules/.bin/tsc &&
	for p in lib app; do
		write_file packages/$p/vx.yaml <<-EOF
		tasks:
		  build:
		    command: "tsc -b"
		    inputs:
		      workspaceFiles: ["tsconfig.base.json"]
		    sandbox:
		      allow:
		        read: ["../../tsconfig.base.json"]
		        write: [$2]
		EOF
	done
}

APP_TS='import { add } from "@t/lib"; export const five: number = add(2, 3);'

test_expect_success 'tsc -b with project references: zero violations, all hits next, outputs restored byte for byte' '
	test $have_npm = 1 || { echo "# skipped: no typescript"; exit 0; }
	ts_workspace "$APP_TS" "\"dist/\", \"tsconfig.tsbuildinfo\"" &&
	run_vx 0 run build &&
	test_grep ! "violation" "$ERR" &&
	test_grep "exports.five = (0, lib_1.add)(2, 3)" packages/app/dist/index.js &&
	sum=$(cat packages/*/dist/* packages/*/tsconfig.tsbuildinfo | md5sum) &&
	rm -rf packages/*/dist packages/*/tsconfig.tsbuildinfo &&
	run_vx 0 run build &&
	test_grep "@t/app#build: cache hit" "$OUT" &&
	test_grep "@t/lib#build: cache hit" "$OUT" &&
	test "$(cat packages/*/dist/* packages/*/tsconfig.tsbuildinfo | md5sum)" = "$sum"
'

# The buildinfo grant missing, not the outDir's: a tsbuildinfo kept from a
# run whose dist/ vx discarded would tell the next tsc -b that all is built
# (docs/sandbox.md, staging).
test_expect_success 'tsc -b with no tsbuildinfo grant: its declared outputs are its grants' '
	test $have_npm = 1 || { echo "# skipped: no typescript"; exit 0; }
	ts_workspace "$APP_TS" "\"dist/\"" &&
	run_vx 0 run @t/lib#build --report json &&
	jq -e ".tasks[] | select(.id == \"@t/lib#build\") | .violations == []" "$OUT" &&
	test_grep ! "violation" "$ERR" &&
	test_path_is_file packages/lib/dist/index.js &&
	test_path_is_file packages/lib/tsconfig.tsbuildinfo
'

# tsc probes with stat, which the trace does not see (docs/violations.md):
# the wall stops the read and tsc fails on it, with no note to name it.
test_expect_success 'tsc: a real undeclared read of a sibling'"'"'s source is still stopped' '
	test $have_npm = 1 || { echo "# skipped: no typescript"; exit 0; }
	ts_workspace "import { two } from \"../../other/src/x\"; export const four: number = two * 2;" "\"dist/\", \"tsconfig.tsbuildinfo\"" &&
	write_file packages/other/package.json <<<"{ \"name\": \"@t/other\" }" &&
	write_file packages/other/src/x.ts <<<"export const two = 2;" &&
	run_vx 1 run build &&
	test_grep "@t/app#build: failed" "$OUT" &&
	test_grep "error TS2307: Cannot find module .../../other/src/x." "$OUT" &&
	test_grep ! "cache hit" "$OUT"
'

# In a git work tree that ignores the outputs, as a real one does: the
# default inputs of one task then leave the others' outputs out. (jest's
# crawler reads every file of the project, ignored outputs too: it fails
# read-unkeyed, rightly, unless told where its tests are: --roots.)
# One ESM package linted by eslint (with and without --cache), bundled by
# tsup with clean: true and a tsup.config.ts (bundled to a random name
# beside it) and by vite, tested by vitest and jest.
js_package() {
	ws_root <<-'EOF'
	EOF
	mkdir -p node_modules &&
	for t in typescript eslint tsup vitest vite jest; do ln -s "$NPM_CACHE/node_modules/$t" node_modules/$t; done &&
	cp "$NPM_CACHE/package-lock.json" . && # what keys node_modules (lockfiles.md)
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
	write_file lib/vx.yaml <<-EOF
	tasks:
	  vite:
	    command: "vite build --outDir vdist"
	    outputs: ["vdist/**"]
	    sandbox:
	      allow:
	        write: ["vdist/", "node_modules/.vite/"]
	  jest:
	    command: "jest --ci --roots jtest --testMatch \"**/jest-check.cjs\""
	    sandbox: {}
	  lint:
	    command: "eslint src"
	    sandbox:
	      allow:
	        write: [$1]
	  lint-cache:
	    command: "eslint --cache src"
	    outputs: [".eslintcache"]
	    sandbox:
	      allow:
	        write: [".eslintcache"]
	  build:
	    command: "tsup"
	    outputs: ["dist/**"]
	    sandbox:
	      allow:
	        write: ["dist/", "tsup.config.bundled_*.mjs"]
	  test:
	    command: "vitest run"
	    sandbox:
	      allow:
	        write: ["node_modules/.vite/"]
	EOF
}

test_expect_success 'eslint (with and without --cache), tsup clean: true, vitest, vite build and jest: zero violations, hits next' '
	test $have_npm = 1 || { echo "# skipped: no npm tools"; exit 0; }
	js_package "\".eslintcache\"" &&
	run_vx 0 run lib#lint-cache lib#lint lib#build lib#test lib#vite lib#jest -j1 &&
	test_grep ! "violation" "$ERR" &&
	test_grep "lib#test: .*1 passed" "$OUT" &&
	test_grep "lib#vite: .*built in" "$OUT" &&
	test_grep "lib#jest: Tests: *1 passed" "$OUT" &&
	test_path_is_file lib/vdist/index.html &&
	test_path_is_file lib/dist/index.js &&
	test -z "$(ls lib | grep bundled)" &&
	sum=$(md5sum <lib/dist/index.js) &&
	rm -rf lib/dist &&
	run_vx 0 run lib#build lib#test &&
	test_grep "lib#build: cache hit" "$OUT" &&
	test_grep "lib#test: cache hit" "$OUT" &&
	test "$(md5sum <lib/dist/index.js)" = "$sum"
'

# Issue 54 item 3: a tool's own incremental cache, which it validates
# against the sources it reads (ESLint's .eslintcache, tsc's tsbuildinfo,
# .next/cache, node_modules/.cache, Vite's deps), is no leftover: the first
# rebuild after an edit failed read-unkeyed on it, and learn went round
# removing it. A file no such tool owns still is (t0332's .cache/tool).
test_expect_success 'a warm rebuild after an edit: a tool cache left by the last run passes, and the output has the edit' '
	test $have_npm = 1 || { echo "# skipped: no npm tools"; exit 0; }
	js_package "\".eslintcache\"" &&
	run_vx 0 run lib#lint-cache lib#build lib#test lib#vite -j1 &&
	test_path_is_file lib/.eslintcache &&
	echo "export const six = 6;" >>lib/src/index.js &&
	run_vx 0 run lib#lint-cache lib#build lib#test lib#vite -j1 --report json &&
	jq -e "[.tasks[] | .violations | length] == [0, 0, 0, 0]" "$OUT" &&
	test_grep "six" lib/dist/index.js
'
test_expect_success 'a warm tsc -b reads its tsbuildinfo after an edit: no violation, and the edit is built' '
	test $have_npm = 1 || { echo "# skipped: no typescript"; exit 0; }
	ts_workspace "$APP_TS" "\"dist/\", \"tsconfig.tsbuildinfo\"" &&
	run_vx 0 run @t/lib#build &&
	echo "export const seven = 7;" >>packages/lib/src/index.ts &&
	run_vx 0 run @t/lib#build &&
	test_grep ! "violation" "$ERR" &&
	test_grep "seven" packages/lib/dist/index.js &&
	echo "export const eight = 8;" >>packages/lib/src/index.ts &&
	run_vx 0 run @t/lib#build &&
	test_grep "eight" packages/lib/dist/index.js
'
# Issue 54 items 3 and 5: a tool that reads what its last run left in its
# outputs before it writes them (Tailwind's CLI reads dist/styles.css) made
# its result depend on no key: the first rebuild after an edit failed
# read-unkeyed, and learn's rounds took turns removing such leftovers. On a
# miss a sandboxed task starts without what its outputs match, as Bazel's
# actions do; a tool's own cache (.eslintcache, .next/cache) and another
# task's outputs stay.
test_expect_success 'on a miss a sandboxed task starts without its earlier outputs: reading them first is no violation' '
	ws_root </dev/null &&
	ws_project app app <<-'\''EOF'\'' &&
	  build:
	    command: "if test -f dist/styles.css; then echo saw-old; fi; test -f .next/cache/c && echo cache-kept; test -f dist/other.txt && echo other-kept; mkdir -p dist .next/cache; cat src/a.css > dist/styles.css; echo c > .next/cache/c"
	    outputs: ["dist/styles.css", ".next/**"]
	    sandbox: {allow: {read: ["src/"], write: ["dist/", ".next/"]}}
	  other:
	    command: "mkdir -p dist && echo o > dist/other.txt"
	    outputs: ["dist/other.txt"]
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
	write_file app/src/a.css <<<"a { color: red }" &&
	run_vx 0 run app#other app#build -j1 &&
	test_grep ! "app#build: saw-old" "$OUT" &&
	echo "b { color: blue }" >>app/src/a.css &&
	run_vx 0 run app#build --report json &&
	jq -e ".tasks | map(select(.id == \"app#build\"))[0].violations == []" "$OUT" &&
	run_vx 0 run app#build --force &&
	test_grep ! "app#build: saw-old" "$OUT" &&
	test_grep "app#build: cache-kept" "$OUT" &&
	test_grep "app#build: other-kept" "$OUT" &&
	test_grep "blue" app/dist/styles.css &&
	test_path_is_file app/dist/other.txt
'

test_expect_success 'eslint without --cache unlinks a .eslintcache it may not write: a violation, and the printed fix passes' '
	test $have_npm = 1 || { echo "# skipped: no npm tools"; exit 0; }
	js_package "" &&
	echo "[]" >lib/.eslintcache &&
	run_vx 1 run lib#lint --report json &&
	jq -e ".tasks[0].violations[0] == {op: \"write\", path: \"lib/.eslintcache\", syscall: \"unlink\", errno: \"EROFS\"}" "$OUT" &&
	jq -e ".tasks[0].fix.allow.write == [\".eslintcache\"]" "$OUT" &&
	apply_fix lib#lint lib lint &&
	echo "[]" >lib/.eslintcache &&
	run_vx 0 run lib#lint &&
	test_grep ! "violation" "$ERR"
'

# A Next.js app in a git work tree that ignores .next, as create-next-app
# makes it: telemetry off, no network, the build cache kept out of the
# outputs as Turborepo's docs spell it.
next_app() {
	ws_root <<-'EOF'
	EOF
	printf "node_modules\n.next\n.vx\n" >.gitignore &&
	ln -s "$NPM_CACHE/node_modules" node_modules &&
	cp "$NPM_CACHE/package-lock.json" . &&
	write_file web/package.json <<<'{ "name": "web", "version": "1.0.0", "private": true, "scripts": { "build": "next build" } }' &&
	write_file web/pages/index.js <<<'export default function Home() { return <h1>Hello</h1>; }' &&
	write_file web/vx.yaml <<-EOF &&
	tasks:
	  build:
	    outputs: [".next/**", "!.next/cache/**"]
	    env:
	      define: { NEXT_TELEMETRY_DISABLED: "1" }
	    sandbox:
	      allow:
	        write: [$1]
	EOF
	git init -q . && git add -A && git commit -qm init
}

test_expect_success 'next build: zero violations, a hit next, .next restored byte for byte' '
	test $have_npm = 1 || { echo "# skipped: no npm tools"; exit 0; }
	next_app "\".next/\"" &&
	run_vx 0 run web#build &&
	test_grep ! "violation" "$ERR" &&
	test_grep "web#build: .*Compiled successfully" "$OUT" &&
	sum=$(cd web/.next && find . -path ./cache -prune -o -type f -print | sort | xargs md5sum | md5sum) &&
	rm -rf web/.next &&
	run_vx 0 run web#build &&
	test_grep "web#build: cache hit" "$OUT" &&
	test "$(cd web/.next && find . -path ./cache -prune -o -type f -print | sort | xargs md5sum | md5sum)" = "$sum"
'

test_expect_success 'next build with no write grant: its declared outputs (.next/, less its cache) are its grants' '
	test $have_npm = 1 || { echo "# skipped: no npm tools"; exit 0; }
	next_app "" &&
	run_vx 0 run web#build --report json &&
	jq -e ".tasks[0].violations == []" "$OUT" &&
	test_grep ! "violation" "$ERR"
'

test_done
