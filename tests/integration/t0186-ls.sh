#!/bin/bash
# vx ls (issue 42 item 8): the packages, or what one runs and depends on,
# as turbo ls prints them. turbo 2.11.13 from npm is the oracle: the JSON
# of each spelling is compared with its own, key for key.
. "$(dirname "$0")/lib.sh"

turbo_oracle

setup() {
	git init -q . && git checkout -qb main &&
	echo '{"name": "root", "private": true, "packageManager": "npm@10.0.0", "workspaces": ["apps/*", "packages/*"]}' >package.json &&
	echo '{"tasks": {"build": {"dependsOn": ["^build"]}, "lint": {}}}' >turbo.json &&
	write_file apps/web/package.json <<<'{"name": "web", "version": "1.0.0", "scripts": {"build": "echo web", "dev": "next dev"}, "dependencies": {"ui": "*", "cfg": "*"}}' &&
	write_file apps/docs/package.json <<<'{"name": "docs", "version": "1.0.0", "scripts": {"build": "echo docs"}, "dependencies": {"ui": "*"}}' &&
	write_file packages/ui/package.json <<<'{"name": "ui", "version": "1.0.0", "scripts": {"build": "echo ui", "lint": "eslint ."}, "devDependencies": {"cfg": "*"}}' &&
	write_file packages/cfg/package.json <<<'{"name": "cfg", "version": "1.0.0"}' &&
	cat >package-lock.json <<-'EOF' &&
	{"name": "root", "lockfileVersion": 3, "requires": true, "packages": {
	  "": {"name": "root", "workspaces": ["apps/*", "packages/*"]},
	  "apps/docs": {"name": "docs", "version": "1.0.0", "dependencies": {"ui": "*"}},
	  "apps/web": {"name": "web", "version": "1.0.0", "dependencies": {"cfg": "*", "ui": "*"}},
	  "packages/cfg": {"name": "cfg", "version": "1.0.0"},
	  "packages/ui": {"name": "ui", "version": "1.0.0", "devDependencies": {"cfg": "*"}},
	  "node_modules/cfg": {"resolved": "packages/cfg", "link": true},
	  "node_modules/docs": {"resolved": "apps/docs", "link": true},
	  "node_modules/ui": {"resolved": "packages/ui", "link": true},
	  "node_modules/web": {"resolved": "apps/web", "link": true}}}
	EOF
	git add -A && git commit -qm init
}

# same ARGS...: vx ls ARGS --output=json and turbo's say the same.
same() {
	"$turbo" ls "$@" --output=json 2>/dev/null | sed -n '/^[{[]/,$p' | jq -S . >turbo.json.out &&
	"$VX" ls "$@" --output=json | jq -S . >vx.json.out &&
	if ! cmp -s turbo.json.out vx.json.out; then
		echo "vx ls $* differs from turbo's:"
		diff turbo.json.out vx.json.out
		return 1
	fi
}

test_expect_success 'vx ls: every package, by name, as turbo ls (text and JSON)' '
	setup &&
	run_vx 0 ls &&
	test_grep "^4 packages (npm)$" "$OUT" &&
	test "$(grep "^  " "$OUT")" = "$(printf "  cfg packages/cfg\n  docs apps/docs\n  ui packages/ui\n  web apps/web")" &&
	same
'

test_expect_success 'vx ls PACKAGE: its tasks and commands, what it depends on and what depends on it, as turbo ls' '
	setup &&
	same web &&
	same ui &&
	same cfg &&
	same web ui &&
	run_vx 0 ls web &&
	test_grep "^web depends on: cfg, ui$" "$OUT" &&
	test_grep "^  dev: next dev$" "$OUT" &&
	run_vx 0 ls cfg &&
	test_grep "^cfg depends on: <no packages>$" "$OUT" &&
	run_vx 2 ls nosuch &&
	test_grep "no package of the workspace is named \"nosuch\"" "$ERR"
'

test_expect_success 'vx ls --filter and --affected select as turbo ls does' '
	setup &&
	same --filter=ui &&
	same --filter=...ui &&
	same --filter="./apps/*" &&
	git checkout -qb feat &&
	echo x >packages/ui/x.txt && git add -A && git commit -qm x &&
	same --affected &&
	run_vx 0 ls --affected &&
	test_grep "^3 packages (npm)$" "$OUT" &&
	test_grep ! "cfg" "$OUT"
'

test_done
