#!/bin/bash
# The cache inside a git work tree: a task's default inputs are the files git
# lists (tracked, and untracked but not ignored), asked once per run while
# vx reads the configs. Each change lands right after the previous run (the
# same second), as an editor's save after a build would.
. "$(dirname "$0")/lib.sh"

setup() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	ws_project app app <<-'EOF'
	  build:
	    command: 'echo run >> ../runs; mkdir -p dist; ls > dist/files.txt'
	EOF
	write_file app/src/a.txt <<<"a" &&
	printf 'dist/\n*.log\nruns\n.vx/\n' >.gitignore &&
	git init -q . &&
	git add -A &&
	git -c user.email=t@t -c user.name=t commit -qm init
}
runs() { wc -l <runs | tr -d ' '; }

test_expect_success 'untracked, ignored, un-ignored, deleted and staged files: each misses or hits as git sees them' '
	setup &&
	run_vx 0 run build && test "$(runs)" = 1 &&
	run_vx 0 run build && test "$(runs)" = 1 &&
	echo new >app/src/new.txt &&
	run_vx 0 run build && test "$(runs)" = 2 &&
	echo noise >app/debug.log &&
	run_vx 0 run build && test "$(runs)" = 2 &&
	printf "dist/\nruns\n.vx/\n" >.gitignore &&
	run_vx 0 run build && test "$(runs)" = 3 &&
	rm app/src/a.txt &&
	run_vx 0 run build && test "$(runs)" = 4 &&
	mkdir -p app/deep/er && echo x >app/deep/er/f.txt &&
	run_vx 0 run build && test "$(runs)" = 5 &&
	git add -A &&
	run_vx 0 run build && test "$(runs)" = 5
'

test_expect_success 'a workspace inside a directory an enclosing repository ignores: its files are walked, not taken as none' '
	printf "inner/\n" >.gitignore &&
	git init -q . &&
	git add -A &&
	git -c user.email=t@t -c user.name=t commit -qm outer &&
	mkdir inner && cd inner &&
	ws_root <<-EOF &&
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	ws_project app app <<-EOF &&
	  build:
	    command: "echo run >> ../runs; mkdir -p dist; cat src/* > dist/out.txt"
	EOF
	write_file app/src/a.txt <<<"a" &&
	run_vx 0 run build && test "$(runs)" = 1 &&
	run_vx 0 run build && test "$(runs)" = 1 &&
	echo b >>app/src/a.txt &&
	run_vx 0 run build && test "$(runs)" = 2
'

test_expect_success 'a tracked file replaced by a directory: its files are the inputs, an unchanged tree hits, the file back hits its first entry' '
	setup &&
	echo old >app/src/b.txt &&
	git add -A && git -c user.email=t@t -c user.name=t commit -qm b &&
	run_vx 0 run build && test "$(runs)" = 1 &&
	rm app/src/b.txt && mkdir app/src/b.txt && echo in >app/src/b.txt/c.txt &&
	run_vx 0 run build && test "$(runs)" = 2 &&
	test_grep ! "cannot hash" "$ERR" &&
	run_vx 0 run build && test "$(runs)" = 2 &&
	test_grep ! "cannot hash" "$ERR" &&
	echo more >>app/src/b.txt/c.txt &&
	run_vx 0 run build && test "$(runs)" = 3 &&
	run_vx 0 run build && test "$(runs)" = 3 &&
	rm -r app/src/b.txt && echo old >app/src/b.txt &&
	run_vx 0 run build && test "$(runs)" = 3 &&
	test_grep "cache hit" "$OUT" &&
	mkdir app/src/empty && rm app/src/b.txt && mkdir app/src/b.txt &&
	run_vx 0 run build && test "$(runs)" = 4 &&
	test_grep ! "cannot hash" "$ERR"
'

test_expect_success 'a config error while git is still listing: exit 2, nothing left running' '
	setup &&
	printf "tasks:\n  build: {comand: x}\n" >app/vx.yaml &&
	run_vx 2 run build &&
	test_grep "unknown key" "$ERR" &&
	! pgrep -f "git ls-files -z --cached" >/dev/null
'

test_done
