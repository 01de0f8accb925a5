#!/bin/bash
# Turborepo's single-package mode (issue 42 item 7): a repository with a
# turbo.json and one package.json that lists no workspaces is one package,
# whose scripts and turbo.json tasks are its own; --single-package makes a
# workspace that root package alone. Before, vx ran nothing there and said
# "0 tasks", exit 0. turbo 2.11.13 is the oracle of what runs, in what
# order (--dry=json's taskIds and dependencies).
. "$(dirname "$0")/lib.sh"

turbo_oracle

setup() {
	git init -q . &&
	cat >package.json <<-'EOF' &&
	{"name": "solo", "version": "1.0.0", "packageManager": "npm@10.0.0",
	 "scripts": {"build": "mkdir -p dist && cat src/a.txt > dist/out.txt && echo built",
	             "test": "cat dist/out.txt", "lint": "echo linted"}}
	EOF
	echo '{"tasks": {"build": {"outputs": ["dist/**"], "dependsOn": ["^build"]}, "test": {"dependsOn": ["build"]}}}' >turbo.json &&
	printf 'dist\n.vx\n' >.gitignore &&
	write_file src/a.txt <<<"one" &&
	echo '{"name": "solo", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "solo"}}}' >package-lock.json &&
	git add -A && git -c user.email=t@t -c user.name=t commit -qm init
}

# same TASK...: vx's --dry=json and turbo's run the same tasks with the same edges.
same() {
	"$turbo" run "$@" --dry=json 2>/dev/null | sed -n '/^{/,$p' |
		jq -S '[.tasks[] | {taskId, dependencies, command}] | sort_by(.taskId)' >turbo.ids &&
	"$VX" run "$@" --dry=json | jq -S '[.tasks[] | {taskId, dependencies, command}] | sort_by(.taskId)' >vx.ids &&
	test_cmp turbo.ids vx.ids
}

test_expect_success 'a single-package repository: its tasks run in order, then hit; the same graph as turbo' '
	setup &&
	run_vx 0 run test &&
	test_grep "solo#build: built" "$OUT" &&
	test_grep "solo#test: one" "$OUT" &&
	test_grep "Tasks: 2 succeeded, 0 cached" "$OUT" &&
	run_vx 0 run test &&
	test_grep "Tasks: 0 succeeded, 2 cached" "$OUT" &&
	echo two >src/a.txt &&
	run_vx 0 run test &&
	test_grep "solo#test: two" "$OUT" &&
	same test &&
	same build
'

test_expect_success 'a single-package repository: a script turbo.json does not name runs too, as turbo' '
	setup &&
	run_vx 0 run lint &&
	test_grep "solo#lint: linted" "$OUT" &&
	same lint &&
	run_vx 0 info &&
	test_grep "a single package: its package.json lists no workspaces" "$OUT"
'

test_expect_success '--single-package in a workspace: the root package alone, as turbo' '
	setup &&
	cat >package.json <<-'EOF' &&
	{"name": "root", "version": "1.0.0", "packageManager": "npm@10.0.0", "workspaces": ["packages/*"],
	 "scripts": {"build": "echo root-build"}}
	EOF
	write_file packages/a/package.json <<<"{\"name\": \"a\", \"scripts\": {\"build\": \"echo a-build\"}}" &&
	git add -A && git -c user.email=t@t -c user.name=t commit -qm ws &&
	run_vx 0 run build &&
	test_grep "a#build: a-build" "$OUT" && test_grep ! "root-build" "$OUT" &&
	run_vx 0 run build --single-package &&
	test_grep "root#build: root-build" "$OUT" && test_grep ! "a-build" "$OUT" &&
	same build --single-package
'

test_done
