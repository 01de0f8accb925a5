#!/bin/bash
# vx run TASK -- ARGS: ARGS go, shell-quoted, to the requested tasks only.
. "$(dirname "$0")/lib.sh"

# Every test task runs args.sh, which records how many arguments it got and
# each one in <>, in ../args-PROJECT.
setup() {
	ws_root <<-EOF
	tasks:
	  test:
	    dependsOn: ["^test"]
	    command: ../args.sh
	EOF
	write_file args.sh <<-\EOF
	#!/bin/sh
	out="$VX_WORKSPACE_ROOT/args-$VX_PROJECT"
	echo "$#" > "$out"
	for a in "$@"; do printf "<%s>\n" "$a" >> "$out"; done
	EOF
	chmod +x args.sh
	ws_project app app lib </dev/null
	ws_project lib lib </dev/null
}

test_expect_success 'each argument arrives intact: spaces, quotes, $, empty' '
	setup &&
	run_vx 0 run app#test -- "a b" "it'"'"'s \"q\"" "\$HOME" "" "--flag" &&
	cat >expect <<-\EOF &&
	5
	<a b>
	<it'"'"'s "q">
	<$HOME>
	<>
	<--flag>
	EOF
	test_cmp expect args-app
'

test_expect_success 'the dependency of a requested task gets no arguments' '
	setup &&
	run_vx 0 run app#test -- "a b" &&
	echo 0 >expect &&
	test_cmp expect args-lib
'

test_expect_success 'every project'"'"'s requested task gets them' '
	setup &&
	run_vx 0 run test -- x &&
	printf "1\n<x>\n" >expect &&
	test_cmp expect args-app &&
	test_cmp expect args-lib
'

test_expect_success 'options before -- are vx'"'"'s, after it the task'"'"'s' '
	setup &&
	run_vx 0 run app#test -j1 -- -j1 --continue &&
	printf "2\n<-j1>\n<--continue>\n" >expect &&
	test_cmp expect args-app
'

test_expect_success 'with no -- the command gets no arguments' '
	setup &&
	run_vx 0 run app#test &&
	echo 0 >expect &&
	test_cmp expect args-app
'

test_done
