#!/bin/bash
# vx completion bash|zsh|fish (issue 55 item 6): scripts written from the
# option tables the parsers read; the workspace's tasks and packages asked
# of vx (vx __complete) as the user types.
. "$(dirname "$0")/lib.sh"

# `vx` on PATH, as a user has it: the scripts run the vx being completed
mkdir -p "$TEST_TMP/bin" && ln -s "$VX" "$TEST_TMP/bin/vx"
export PATH=$TEST_TMP/bin:$PATH

setup() {
	ws_root </dev/null &&
	ws_project app app lib <<-EOF &&
	  build: { command: "true" }
	  "test:unit": { command: "true" }
	EOF
	ws_project lib lib <<-EOF
	  lint: { command: "true" }
	EOF
}

# complete WORDS...: bash's COMPREPLY for the command line WORDS (the
# last the one the cursor is in), one a line, in the file reply
complete_bash() {
	vx completion bash >vx.bash &&
	bash -c '
		source ./vx.bash &&
		COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) && _vx &&
		printf "%s\n" "${COMPREPLY[@]}"' complete "$@" >reply
}

test_expect_success 'vx __complete: the tasks, ids and packages of the workspace here' '
	setup &&
	run_vx 0 __complete tasks &&
	printf "build\nlint\ntest:unit\n" >want && test_cmp want "$OUT" &&
	run_vx 0 __complete ids &&
	printf "app#build\napp#test:unit\nlib#lint\n" >want && test_cmp want "$OUT" &&
	run_vx 0 __complete packages &&
	printf "app\nlib\n" >want && test_cmp want "$OUT"
'

test_expect_success 'vx __complete: nothing, and no error, where no workspace is' '
	run_vx 0 __complete tasks &&
	! test -s "$OUT" &&
	! test -s "$ERR"
'

test_expect_success 'bash: the verbs' '
	complete_bash vx "" &&
	for v in run watch graph info ls prune cache sandbox version completion; do
		grep -qx "$v" reply || { echo "no $v"; cat reply; exit 1; }
	done &&
	test_grep ! "__complete" reply &&
	complete_bash vx ca &&
	echo cache >want && test_cmp want reply &&
	complete_bash vx cache "" &&
	printf "stats\nclean\nprune\n" >want && test_cmp want reply &&
	complete_bash vx sandbox s &&
	echo show >want && test_cmp want reply
'

test_expect_success 'bash: the flags of run are those vx run --help lists' '
	complete_bash vx run --fo &&
	echo --force >want && test_cmp want reply &&
	complete_bash vx run -- &&
	sort reply >flags &&
	vx run --help | grep -oE "^ {2,6}(-[a-zA-Z], )?--[a-z-]+" | sed "s/.*--/--/" >usage &&
	echo --help >>usage &&
	sort usage >want && test_cmp want flags
'

test_expect_success 'bash: an option takes its values, from its table or the workspace' '
	setup &&
	complete_bash vx run --report "" &&
	printf "text\njson\nsarif\ngithub\n" >want && test_cmp want reply &&
	complete_bash vx run --report = s &&
	echo sarif >want && test_cmp want reply &&
	complete_bash vx run -F "" &&
	printf "app\nlib\n" >want && test_cmp want reply &&
	complete_bash vx run --explain-key l &&
	echo "lib#lint" >want && test_cmp want reply &&
	complete_bash vx cache prune --m &&
	echo --max-size >want && test_cmp want reply
'

test_expect_success 'bash: task names and ids of the workspace at hand, and under -C DIR' '
	setup &&
	complete_bash vx run b &&
	echo build >want && test_cmp want reply &&
	complete_bash vx run app# &&
	printf "app#build\napp#test:unit\n" >want && test_cmp want reply &&
	complete_bash vx watch "" &&
	printf "build\nlint\ntest:unit\n" >want && test_cmp want reply &&
	complete_bash vx ls "" &&
	printf "app\nlib\n" >want && test_cmp want reply &&
	mkdir ../elsewhere && cd ../elsewhere &&
	complete_bash vx -C ../ws run l &&
	echo lint >want && test_cmp want reply &&
	complete_bash vx l &&
	echo ls >want && test_cmp want reply
'

test_expect_success 'bash: a task with a colon, as bash splits the line' '
	setup &&
	vx completion bash >vx.bash &&
	bash -c "
		source ./vx.bash &&
		COMP_WORDS=(vx run test : u) COMP_CWORD=4 COMP_LINE=\"vx run test:u\" COMP_POINT=13 &&
		_vx && printf \"%s\n\" \"\${COMPREPLY[@]}\"" >reply &&
	echo unit >want && test_cmp want reply
'

# need SHELL: the shell, or (outside CI) a skip saying why
need() {
	command -v "$1" >/dev/null && return 0
	echo "# $1 is not installed (scripts/install-deps.sh installs it)"
	[ -z "${CI:-}" ] || return 1
	echo "# skipped" && exit 0
}

test_expect_success 'zsh: the script parses and defines _vx after compinit' '
	need zsh &&
	vx completion zsh >_vx &&
	zsh -n _vx &&
	zsh -fc "autoload -U compinit && compinit -u -D && source ./_vx && (( \$+functions[_vx] ))"
'

test_expect_success 'fish: the script parses, and completes verbs, flags and tasks' '
	need fish &&
	setup &&
	vx completion fish >vx.fish &&
	fish -n vx.fish &&
	fish -c "source vx.fish; complete -C \"vx ca\"; complete -C \"vx run --fo\"; complete -C \"vx run b\"; complete -C \"vx run --report j\"" |
		cut -f1 >reply &&
	printf "cache\n--force\nbuild\njson\n" >want && test_cmp want reply
'

test_expect_success 'vx completion refuses a shell it has no script for' '
	run_vx 2 completion tcsh &&
	test_grep "no script for \"tcsh\"" "$ERR"
'

test_done
