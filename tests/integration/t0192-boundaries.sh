#!/bin/bash
# vx boundaries (issue 56 item 5): Turborepo's check that a package imports
# only what its package.json declares, with turbo 2.11.13's `turbo
# boundaries` from npm as the oracle on the same repositories (which file,
# line and column, which import), and beyond it: what a traced task read
# of another package no dependency declares, which no import shows and
# turbo cannot see.
. "$(dirname "$0")/lib.sh"

turbo_oracle

# A workspace of three packages: web declares ui and react, not lib.
setup() {
	git init -q . && git checkout -qb main &&
	echo '{"name": "root", "private": true, "packageManager": "npm@10.0.0", "workspaces": ["apps/*", "packages/*"]}' >package.json &&
	echo '{"tasks": {"build": {}}}' >turbo.json &&
	write_file apps/web/package.json <<<'{"name": "web", "version": "1.0.0", "scripts": {"build": "node build.js"}, "dependencies": {"ui": "*", "react": "^18.2.0"}, "devDependencies": {"@types/node": "*"}}' &&
	write_file packages/ui/package.json <<<'{"name": "ui", "version": "1.0.0", "dependencies": {"lodash": "^4.17.21"}}' &&
	write_file packages/ui/src/b.ts <<<'export const b = 1' &&
	write_file packages/lib/package.json <<<'{"name": "lib", "version": "1.0.0"}' &&
	write_file packages/lib/data.json <<<'{"x": 1}' &&
	cat >package-lock.json <<-'EOF' &&
	{"name": "root", "lockfileVersion": 3, "requires": true, "packages": {
	  "": {"name": "root", "workspaces": ["apps/*", "packages/*"]},
	  "apps/web": {"name": "web", "version": "1.0.0", "dependencies": {"ui": "*", "react": "^18.2.0"}},
	  "packages/ui": {"name": "ui", "version": "1.0.0", "dependencies": {"lodash": "^4.17.21"}},
	  "packages/lib": {"name": "lib", "version": "1.0.0"},
	  "node_modules/ui": {"resolved": "packages/ui", "link": true},
	  "node_modules/lib": {"resolved": "packages/lib", "link": true},
	  "node_modules/web": {"resolved": "apps/web", "link": true}}}
	EOF
	printf "node_modules\n.turbo\n.vx\ndist\n" >.gitignore
}

# Real undeclared imports, and what is none: comments, strings, templates,
# a regex, JSX text, builtins, declared packages, the package's own files.
imports() {
	write_file apps/web/src/a.ts <<-'EOF' &&
	import { x } from 'ui';
	import lib from 'lib';
	import 'lodash';
	import fp from 'lodash/fp';
	import { y } from '@acme/thing/sub';
	import fs from 'fs';
	import p from 'node:path';
	import r from 'react';
	import type { T } from 'typeonly';
	export { w } from 'exported';
	const d = import('dynamic');
	const q = require('required');
	import up from '../../../packages/ui/src/b';
	import ok from './ok';
	// import 'commented';
	/* import 'blocked'; */
	const s = "import 'instring'";
	const t = `${s} import 'intemplate' ${`${'nested'}`}`;
	const re = /import 'inregex'/g, half = 1 / 2 / 'x'.length;
	// @boundaries-ignore it is a peer of the host
	import peer from 'peer-dep';
	import alias from '@shared/b';
	EOF
	write_file apps/web/src/c.tsx <<-'EOF' &&
	import React from 'react';
	export const C = () => <p>Don't import 'jsx-text' here {require('jsxdep')}</p>;
	const f = <T,>(v: T) => v;
	import after from 'after-jsx';
	EOF
	write_file apps/web/src/b.js <<-'EOF' &&
	const a = require('cjsdep');
	import x from '../../lib';
	EOF
	write_file apps/web/src/ok.ts <<<'export default 1' &&
	write_file apps/web/dist/gitignored.js <<<'import "ignored-output"' &&
	write_file apps/web/tsconfig.json <<-'EOF'
	{
	  // comments, as tsc takes them
	  "compilerOptions": {"paths": {"@shared/*": ["../../packages/ui/src/*"]}},
	}
	EOF
}

# FILE:LINE:COL IMPORT-or-PACKAGE of each finding, sorted: turbo's from its
# report (the package in its message, the path in its source line), vx's
# from --report=json.
turbo_findings() {
	"$turbo" boundaries --no-color >"$TEST_DIR/turbo.out" 2>&1
	echo $? >"$TEST_DIR/turbo.rc"
	sed -n 's|^ *,-\[\(.*\)\]$|\1|p' "$TEST_DIR/turbo.out" | sed "s|^$PWD/||" | sort >"$TEST_DIR/turbo.places"
}
vx_places() {
	jq -r '.findings[] | select(.rule != "runtime-read") | "\(.file):\(.line):\(.col)"' "$OUT" | sort
}

test_expect_success 'an undeclared import: the same findings as turbo boundaries, file, line and column' '
	setup && imports && git add -A && git commit -qm init &&
	turbo_findings &&
	test "$(cat "$TEST_DIR/turbo.rc")" = 1 &&
	run_vx 1 boundaries --report=json &&
	vx_places >"$TEST_DIR/vx.places" &&
	# vx reads a bare require(...) statement and one inside JSX too, where
	# turbo takes only const x = require(...): those are vx'"'"'s alone
	grep -v "^apps/web/src/c.tsx:2:" "$TEST_DIR/vx.places" >"$TEST_DIR/vx.common" &&
	if ! cmp -s "$TEST_DIR/turbo.places" "$TEST_DIR/vx.common"; then
		echo "turbo boundaries and vx boundaries found other places:"
		diff "$TEST_DIR/turbo.places" "$TEST_DIR/vx.common"
		cat "$TEST_DIR/turbo.out"
		return 1
	fi &&
	test "$(wc -l <"$TEST_DIR/turbo.places")" -ge 12 &&
	jq -e ".findings[] | select(.file == \"apps/web/src/c.tsx\" and .line == 2) | .import == \"jsxdep\"" "$OUT" &&
	# each finding names its package and the edit that fixes it
	jq -e ".findings[] | select(.line == 2 and .file == \"apps/web/src/a.ts\") | .package == \"lib\" and .rule == \"undeclared\" and .fix == \"add \\\"lib\\\": \\\"*\\\" to \\\"dependencies\\\" in apps/web/package.json\"" "$OUT" &&
	jq -e ".findings[] | select(.import == \"lodash\") | .fix | test(\"\\\"lodash\\\": \\\"\\\\^4.17.21\\\"\")" "$OUT" &&
	jq -e "[.findings[] | select(.rule == \"leaves-package\") | .import] | sort == [\"../../../packages/ui/src/b\", \"../../lib\", \"@shared/b\"]" "$OUT" &&
	jq -e ".findings | map(.import) | index(\"jsx-text\") == null and index(\"after-jsx\") != null and index(\"peer-dep\") == null and index(\"ignored-output\") == null" "$OUT"
'

test_expect_success 'text, SARIF and GitHub reports: each finding with its file, line and fix; exit 1' '
	setup && imports && git add -A && git commit -qm init &&
	run_vx 1 boundaries &&
	test_grep "^apps/web/src/a.ts:2:17: cannot import package .lib.: web does not declare it$" "$OUT" &&
	test_grep "^apps/web/src/a.ts:2:17: fix: add \"lib\": \"\\*\" to \"dependencies\" in apps/web/package.json$" "$OUT" &&
	test_grep "^Checked 5 files in 3 packages: " "$OUT" &&
	run_vx 1 boundaries --report=sarif &&
	jq -e ".version == \"2.1.0\" and (.runs[0].results | length) > 10 and (.runs[0].results[0].locations[0].physicalLocation.region.startLine >= 1) and ([.runs[0].results[].ruleId] | index(\"vx/boundaries-undeclared\") != null)" "$OUT" &&
	run_vx 1 boundaries --report=github &&
	test_grep "^::error file=apps/web/src/a.ts,line=2,col=17,title=vx boundaries::cannot import package .lib.: web does not declare it. Fix: add" "$OUT"
'

test_expect_success 'declared, the check is clean for both; --filter narrows it; bad input exits 2' '
	setup && imports && git add -A && git commit -qm init &&
	run_vx 0 boundaries --filter=ui &&
	test_grep "Checked 1 file in 1 package: no findings" "$OUT" &&
	rm -r apps/web/src apps/web/tsconfig.json && git add -A && git commit -qm clean &&
	"$turbo" boundaries >/dev/null 2>&1 &&
	run_vx 0 boundaries &&
	run_vx 2 boundaries --report=yaml &&
	run_vx 2 boundaries --filter="[" &&
	test_grep "vx: " "$ERR"
'

# A review: an import's specifier, its escapes decoded, reached the
# terminal raw (an OSC 52 sequence writes the clipboard of whoever runs
# the check). Text output writes each control byte C-style.
test_expect_success 'a control byte an import names is written escaped, never raw' '
	setup &&
	write_file apps/web/src/esc.ts <<<"import x from \"../../../evil\\u001b]52;c;aGk=\\u0007\";" &&
	git add -A && git commit -qm esc &&
	run_vx 1 boundaries &&
	test_grep "esc.ts:1:" "$OUT" &&
	test_grep -F "\\033]52;c;aGk=" "$OUT" &&
	! grep -q "$(printf "\033")" "$OUT"
'

# Only a runtime read: web'"'"'s build reads lib'"'"'s data.json through fs,
# which no import names. turbo boundaries finds nothing; vx finds it where
# a traced run kept what the task read (.vx/reads, written at the verdict:
# tests/unsafe/t0353-boundaries-reads.sh makes it with a real traced run;
# here the record is written as the run writes it).
runtime() {
	write_file apps/web/build.js <<-'EOF'
	const fs = require('fs');
	const path = require('path');
	const data = fs.readFileSync(path.join(__dirname, '../../packages/lib/data.json'), 'utf8');
	fs.mkdirSync('dist', {recursive: true});
	fs.writeFileSync('dist/out.json', data);
	EOF
}

test_expect_success 'only a runtime read: turbo boundaries sees nothing, vx reads it from the traced run' '
	setup && runtime && git add -A && git commit -qm init &&
	"$turbo" boundaries --no-color >"$TEST_DIR/turbo.out" 2>&1 &&
	grep -q "no issues found" "$TEST_DIR/turbo.out" &&
	run_vx 0 boundaries &&
	mkdir -p .vx/reads &&
	printf "vx-reads 1\ntask web#build\nproject apps/web\nread packages/lib/data.json\nread packages/lib/package.json\nread packages/ui/src/b.ts\n" >.vx/reads/web%23build &&
	run_vx 1 boundaries --report=json &&
	jq -e ".findings | length == 1" "$OUT" &&
	jq -e ".findings[0] | .rule == \"runtime-read\" and .file == \"apps/web/package.json\" and .line == 1 and .package == \"lib\" and .read == \"packages/lib/data.json\"" "$OUT" &&
	jq -e ".findings[0].message == \"web#build read packages/lib/data.json and 1 more file of lib when it ran traced, but web does not declare lib\"" "$OUT" &&
	jq -e ".findings[0].fix == \"add \\\"lib\\\": \\\"*\\\" to \\\"dependencies\\\" in apps/web/package.json\"" "$OUT" &&
	# the fix made, the finding is gone
	write_file apps/web/package.json <<<"{\"name\": \"web\", \"version\": \"1.0.0\", \"dependencies\": {\"ui\": \"*\", \"lib\": \"*\"}}" &&
	run_vx 0 boundaries &&
	# a record of a package not asked about, or torn, is not read
	write_file apps/web/package.json <<<"{\"name\": \"web\", \"version\": \"1.0.0\"}" &&
	run_vx 0 boundaries --filter=ui &&
	printf "vx-reads 1\ntask web#build\nproject apps/web\nread packages/lib/da" >.vx/reads/web%23build &&
	run_vx 0 boundaries
'

test_done
