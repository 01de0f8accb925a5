#!/bin/bash
# Turborepo's git-range filters (issue 42 item 6): --filter='[HEAD^1]',
# '...[origin/main]', 'pkg...[HEAD~3]' failed with "matches no project";
# they are how CI selects work. turbo 2.11.13 from npm is the oracle: on a
# repository with history (a -> b -> c, and d), each filter selects the same
# tasks in turbo --dry=json and vx --dry-run=json, with a clean tree, with
# an uncommitted edit, with an untracked file, and after a turbo.json edit.
# And package inference (item 5), on the same repository.
. "$(dirname "$0")/lib.sh"

turbo_oracle

setup() {
	echo '{"name": "root", "private": true, "workspaces": ["packages/*"], "packageManager": "npm@9.2.0"}' >package.json
	local p
	for p in a b c d; do
		mkdir -p packages/$p/src && echo $p >packages/$p/src/x.txt
	done
	echo '{"name": "a", "version": "1.0.0", "scripts": {"build": "echo a"}, "dependencies": {"b": "1.0.0"}}' >packages/a/package.json
	echo '{"name": "b", "version": "1.0.0", "scripts": {"build": "echo b"}, "dependencies": {"c": "1.0.0"}}' >packages/b/package.json
	echo '{"name": "c", "version": "1.0.0", "scripts": {"build": "echo c"}}' >packages/c/package.json
	echo '{"name": "d", "version": "1.0.0", "scripts": {"build": "echo d"}}' >packages/d/package.json
	echo '{"$schema": "https://turbo.build/schema.json", "tasks": {"build": {"dependsOn": ["^build"]}}}' >turbo.json
	node -e 'const l = {name: "root", lockfileVersion: 3, requires: true, packages: {"": {name: "root", workspaces: ["packages/*"]}}};
		const deps = {a: {b: "1.0.0"}, b: {c: "1.0.0"}, c: null, d: null};
		for (const [p, d] of Object.entries(deps)) {
			l.packages["node_modules/" + p] = {resolved: "packages/" + p, link: true};
			l.packages["packages/" + p] = d ? {version: "1.0.0", dependencies: d} : {version: "1.0.0"};
		}
		console.log(JSON.stringify(l))' >package-lock.json
	printf "node_modules/\n.turbo/\n.vx/\n*.out\n" >.gitignore
	git init -q && git add -A && git commit -qm one &&
	echo c2 >>packages/c/src/x.txt && git commit -qam "c changes"
}

# same FILTER...: each filter selects the same tasks in turbo and vx.
same() {
	local f bad=0 t v
	for f in "$@"; do
		t=$("$turbo" run build --dry=json --filter="$f" 2>/dev/null |
			node -e 'const d = JSON.parse(require("fs").readFileSync(0)); console.log(d.tasks.map((t) => t.taskId).sort().join(" "))') || t="(turbo failed)"
		v=$("$VX" run build --dry-run=json --filter="$f" 2>vx.err |
			node -e 'const d = JSON.parse(require("fs").readFileSync(0)); console.log(d.tasks.map((t) => t.id).sort().join(" "))') || v="(vx failed: $(cat vx.err))"
		if [ "$t" = "$v" ]; then
			echo "$f: $t"
		else
			echo "$f: turbo [$t], vx [$v]"
			bad=1
		fi
	done
	return $bad
}

filters=('[HEAD^1]' '...[HEAD^1]' '[HEAD^1]...' 'a...[HEAD^1]' 'b...[HEAD^1]' 'd...[HEAD^1]'
	'...a[HEAD^1]' '...c[HEAD^1]' '...^[HEAD^1]' '[HEAD^1]^...' '{./packages/c}[HEAD^1]'
	'[HEAD^1...HEAD]' '[HEAD~1...HEAD]' '!c[HEAD^1]' 'c[HEAD^1]' 'b[HEAD^1]' '[HEAD]')

test_expect_success 'on a clean tree, every git-range filter selects what turbo selects' '
	setup &&
	same "${filters[@]}"
'

test_expect_success 'an uncommitted edit and an untracked file count for [REF], not for [FROM...TO]' '
	setup &&
	echo d2 >>packages/d/src/x.txt &&
	echo new >packages/b/src/untracked.txt &&
	same "${filters[@]}"
'

test_expect_success 'a turbo.json edit selects every package, as in turbo' '
	setup &&
	echo "{\"tasks\": {\"build\": {\"dependsOn\": [\"^build\"], \"outputs\": []}}}" >turbo.json &&
	same "[HEAD]" "...[HEAD]" "d[HEAD]"
'

test_expect_success 'a bad range is an error at once (exit 2, nothing ran)' '
	setup &&
	run_vx 2 run build --filter="[]" &&
	test_grep "a git range is \[REF\] or \[FROM...TO\]" "$ERR" &&
	run_vx 2 run build --filter="[HEAD...]" &&
	run_vx 2 run build --filter="[no-such-ref]" &&
	test_grep "git diff failed" "$ERR" &&
	test_path_is_missing .vx
'

# Issue 42 item 5, package inference: run from packages/core, turbo ran
# that package's tasks (5) and vx the workspace's (15).
test_expect_success 'started in a package'"'"'s directory, a run selects that package, as turbo; a filter, PROJECT#TASK or a directory of no package does not' '
	setup &&
	for dir in packages/b packages/b/src packages .; do
		for args in "build" "build --filter=d" "d#build"; do
			t=$(cd $dir && "$turbo" run $args --dry=json 2>/dev/null |
				node -e "const d = JSON.parse(require(\"fs\").readFileSync(0)); console.log(d.tasks.map((t) => t.taskId).sort().join(\" \"))") &&
			v=$(cd $dir && "$VX" run $args --dry-run=json |
				node -e "const d = JSON.parse(require(\"fs\").readFileSync(0)); console.log(d.tasks.map((t) => t.id).sort().join(\" \"))") &&
			echo "in $dir, $args: turbo [$t], vx [$v]" &&
			test "$t" = "$v" || exit 1
		done
	done
'

test_done
