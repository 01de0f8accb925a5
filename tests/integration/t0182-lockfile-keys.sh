#!/bin/bash
# Lockfile keys (issue 17): each project's tasks are keyed by the closure of
# its external dependencies in the workspace's lockfile. A bump in one app
# misses that app's tasks (and what depends on them) and nothing else; a
# reformat misses nothing; -v names the packages that changed; a lockfile
# vx cannot read keys by its whole content, with one warning; a run whose
# lockfile's stat is unchanged does not read it.
. "$(dirname "$0")/lib.sh"

fixtures=$VX_SOURCE_DIR/tests/unit/fixtures/lockfiles

# The fixture workspace (fixtures/lockfiles/README.md) with pnpm's lockfile:
# a -> ui (workspace), b, c; each build echoes its name.
setup() {
	for d in apps/a apps/b apps/c packages/ui; do
		n=${d#*/}
		mkdir -p "$d"
	done
	printf '{"name": "fixture-root", "private": true, "devDependencies": {"kleur": "4.1.5"}}\n' >package.json
	printf '{"name": "a", "version": "1.0.0", "scripts": {"build": "echo build-a"}, "dependencies": {"is-odd": "3.0.1", "ui": "workspace:*"}}\n' >apps/a/package.json
	printf '{"name": "b", "version": "1.0.0", "scripts": {"build": "echo build-b"}, "dependencies": {"left-pad": "1.3.0"}}\n' >apps/b/package.json
	printf '{"name": "c", "version": "1.0.0", "scripts": {"build": "echo build-c"}, "dependencies": {"ms": "2.1.3"}, "devDependencies": {"is-number": "6.0.0"}}\n' >apps/c/package.json
	printf '{"name": "ui", "version": "0.1.0", "scripts": {"build": "echo build-ui"}, "dependencies": {"is-number": "7.0.0"}}\n' >packages/ui/package.json
	printf 'packages:\n  - "apps/*"\n  - "packages/*"\n' >pnpm-workspace.yaml
	printf '{"tasks": {"build": {"dependsOn": ["^build"]}}}\n' >turbo.json
	cp "$fixtures/pnpm9/pnpm-lock.yaml" .
}

bump_left_pad() {
	sed -i -e 's/left-pad@1.3.0/left-pad@1.3.1/' -e 's/version: 1.3.0/version: 1.3.1/' \
		-e 's/XI5MPzVNApjAyhQzphX8BkmKsKUxD4Ld/ZZZZPzVNApjAyhQzphX8BkmKsKUxD4Ld/' pnpm-lock.yaml
}

test_expect_success 'a dependency bump in one app misses that app alone, and -v says which package' '
	setup &&
	run_vx 0 run build &&
	test_grep "Tasks: 4 succeeded" "$OUT" &&
	run_vx 0 run build &&
	test_grep "Tasks: 0 succeeded, 4 cached" "$OUT" &&
	bump_left_pad &&
	grep -q "left-pad@1.3.1" pnpm-lock.yaml &&
	run_vx 0 run build -v &&
	test_grep "Tasks: 1 succeeded, 3 cached" "$OUT" &&
	test_grep "b#build: running" "$OUT" &&
	test_grep "b#build: cache miss since [0-9a-f]*: external dependencies changed: left-pad 1.3.0 → 1.3.1" "$ERR"
'

test_expect_success 'a package of a linked workspace project misses it and its dependents; the root'"'"'s misses all' '
	setup &&
	run_vx 0 run build &&
	sed -i "s/41Cifkg6e8TylSpdtTpeLVMqvSBEVzTt/41CifkgXXXXXXXXXXXXXXXXXXXXXXXXX/" pnpm-lock.yaml &&
	run_vx 0 run build &&
	test_grep "Tasks: 2 succeeded, 2 cached" "$OUT" &&
	test_grep "ui#build: running" "$OUT" &&
	test_grep "a#build: running" "$OUT" &&
	sed -i "s/o+NO+8WrRiQEE4/o+NO+8XXXXXXXX/" pnpm-lock.yaml &&
	run_vx 0 run build &&
	test_grep "Tasks: 4 succeeded" "$OUT"
'

test_expect_success 'a reformatted lockfile (comments, quoting, order) misses nothing' '
	setup &&
	run_vx 0 run build &&
	{ echo "# a comment pnpm never writes"; sed -e "s/^lockfileVersion: .9.0./lockfileVersion: \"9.0\"/" \
		-e "s/^  left-pad@1.3.0:/  \"left-pad@1.3.0\":/" pnpm-lock.yaml; } >lock.tmp &&
	mv lock.tmp pnpm-lock.yaml &&
	run_vx 0 run build -v &&
	test_grep "Tasks: 0 succeeded, 4 cached" "$OUT"
'

test_expect_success 'a lockfile vx cannot read is one warning, and keys every task by its content' '
	setup &&
	run_vx 0 run build &&
	printf "lockfileVersion: 5.4\n" >pnpm-lock.yaml &&
	run_vx 0 run build &&
	test_grep "pnpm-lock.yaml: the lockfile is not read (lockfileVersion 5.4 is not read (6.0 to 9.0 are)): every task is keyed by its whole content instead" "$ERR" &&
	test $(grep -c "the lockfile is not read" "$ERR") = 1 &&
	test_grep "Tasks: 4 succeeded" "$OUT" &&
	run_vx 0 run build &&
	test_grep "Tasks: 0 succeeded, 4 cached" "$OUT" &&
	printf "lockfileVersion: 5.4\n# edited\n" >pnpm-lock.yaml &&
	run_vx 0 run build &&
	test_grep "Tasks: 4 succeeded" "$OUT"
'

test_expect_success 'npm, Yarn classic, Yarn berry and Bun lockfiles key the same way' '
	for f in npm/package-lock.json yarn1/yarn.lock berry/yarn.lock bun/bun.lock; do
		rm -rf ./* .vx && setup && rm pnpm-lock.yaml pnpm-workspace.yaml &&
		sed -i "s/\"private\": true,/\"private\": true, \"workspaces\": [\"apps\/*\", \"packages\/*\"],/" package.json &&
		cp "$fixtures/$f" . &&
		run_vx 0 run build &&
		run_vx 0 info && test_grep "package manager: " "$OUT" &&
		name=${f#*/} &&
		case $f in
		npm/*) sed -i "s/XI5MPzVNApjAyhQzphX8BkmKsKUxD4Ld/ZZZZPzVNApjAyhQzphX8BkmKsKUxD4Ld/" $name ;;
		yarn1/*) sed -i "s/XI5MPzVNApjAyhQzphX8BkmKsKUxD4Ld/ZZZZPzVNApjAyhQzphX8BkmKsKUxD4Ld/" $name ;;
		berry/*) sed -i "/^\"left-pad@npm:1.3.0\":/,/^$/s/checksum: 10c0\/../checksum: 10c0\/ZZ/" $name ;;
		bun/*) sed -i "s/XI5MPzVNApjAyhQzphX8BkmKsKUxD4Ld/ZZZZPzVNApjAyhQzphX8BkmKsKUxD4Ld/" $name ;;
		esac &&
		run_vx 0 run build -v &&
		test_grep "Tasks: 1 succeeded, 3 cached" "$OUT" &&
		test_grep "b#build: cache miss since [0-9a-f]*: external dependencies changed: left-pad 1.3.0 (integrity changed)" "$ERR" || {
			echo "failed for $f"; cat "$OUT" "$ERR"; return 1; }
	done
'

test_expect_success 'a run whose lockfile and root package.json stats are unchanged does not read the lockfile' '
	command -v strace >/dev/null || { echo "strace is not installed"; test -z "${CI:-}"; exit 0; } &&
	# (LeakSanitizer cannot run under ptrace: an ASan build exits 1 there)
	setup &&
	touch -d "1 minute ago" pnpm-lock.yaml &&
	run_vx 0 run build &&
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o trace.txt "$VX" run build >/dev/null 2>&1 &&
	! grep "pnpm-lock.yaml\"" trace.txt &&
	grep -q "lockfile-closures" trace.txt &&
	touch -d "1 minute ago" package.json &&
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o trace.txt "$VX" run build >/dev/null 2>&1 &&
	grep -q "pnpm-lock.yaml\"" trace.txt &&
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o trace.txt "$VX" run build >/dev/null 2>&1 &&
	! grep "pnpm-lock.yaml\"" trace.txt &&
	touch pnpm-lock.yaml &&
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o trace.txt "$VX" run build >/dev/null 2>&1 &&
	grep -q "pnpm-lock.yaml\"" trace.txt
'

test_expect_success 'under vx watch, an install that bumps a package reruns the app that uses it, and no other' '
	setup &&
	watch_start build &&
	test_wait_lines "watching" 1 "$OUT" &&
	bump_left_pad &&
	test_wait_lines "watching" 2 "$OUT" &&
	watch_stop &&
	test $(grep -c "b#build: running" "$OUT") = 2 &&
	test $(grep -c "a#build: running" "$OUT") = 1 &&
	test $(grep -c "c#build: running" "$OUT") = 1 &&
	test $(grep -c "ui#build: running" "$OUT") = 1
'

test_done
