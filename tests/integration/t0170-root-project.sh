#!/bin/bash
# The workspace root is a project only when its vx.yaml names it (name:) or
# holds a root-only "//#task"; "//" names it on the command line.
. "$(dirname "$0")/lib.sh"

# The root's tasks: are defaults; its package.json build script would be
# the usual `vx run build` recursion if the root ran its defaults itself.
setup() {
	write_file vx.yaml <<-EOF
	workspace:
	  projects: ["*"]
	tasks:
	  build:
	    command: echo "\$VX_TASK" >> "\$VX_WORKSPACE_ROOT/log"
	EOF
	write_file package.json <<-EOF
	{"name": "@x/root", "scripts": {"build": "touch ran-root-script"}}
	EOF
	ws_project a a </dev/null
}

test_expect_success 'a root with neither name: nor //#task is no project' '
	setup &&
	run_vx 0 run build &&
	echo a#build >expect &&
	test_cmp expect log &&
	test_path_is_missing ran-root-script &&
	run_vx 2 run //#build
'

test_expect_success 'a //#task makes the root a project; its defaults still are not its tasks' '
	setup &&
	cat >>vx.yaml <<-EOF &&
	  "//#lint":
	    command: echo "root \$VX_TASK \$VX_PROJECT" >> "\$VX_WORKSPACE_ROOT/log"
	EOF
	run_vx 0 run build lint -j1 &&
	printf "%s\n" "a#build" "root @x/root#lint @x/root" | sort >expect &&
	sort log >actual &&
	test_cmp expect actual &&
	test_path_is_missing ran-root-script
'

test_expect_success '//#task on the command line runs the root'"'"'s task alone' '
	setup &&
	cat >>vx.yaml <<-EOF &&
	  "//#build":
	    command: echo "root \$VX_TASK" >> "\$VX_WORKSPACE_ROOT/log"
	EOF
	run_vx 0 run //#build &&
	echo "root @x/root#build" >expect &&
	test_cmp expect log &&
	run_vx 2 run //#nope &&
	test_grep "has no task \"nope\"" "$ERR"
'

test_expect_success 'name: in the root vx.yaml names the root project' '
	setup &&
	sed -i "1i name: top" vx.yaml &&
	cat >>vx.yaml <<-EOF &&
	  "//#lint": { command: echo "\$VX_TASK" >> "\$VX_WORKSPACE_ROOT/log" }
	EOF
	run_vx 0 run lint &&
	echo top#lint >expect &&
	test_cmp expect log &&
	run_vx 0 run top#lint
'

test_expect_success 'a project task may depend on a root task by //#task' '
	setup &&
	cat >>vx.yaml <<-EOF &&
	  "//#codegen": { command: echo "\$VX_TASK" >> "\$VX_WORKSPACE_ROOT/log" }
	EOF
	ws_project a a <<-EOF &&
	  build:
	    dependsOn: ["//#codegen"]
	EOF
	run_vx 0 run a#build &&
	printf "%s\n" "@x/root#codegen" "a#build" >expect &&
	test_cmp expect log
'

test_done
