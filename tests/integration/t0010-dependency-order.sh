#!/bin/bash
# Tasks start only after every task they depend on has ended.
. "$(dirname "$0")/lib.sh"

# Each build appends its project's name to the log at the workspace root.
log_task='command: echo "$VX_PROJECT" >> "$VX_WORKSPACE_ROOT/log"'

test_expect_success 'a chain runs from its end: c, then b, then a' '
	ws_root <<-EOF &&
	tasks:
	  build:
	    dependsOn: ["^build"]
	EOF
	ws_project a a b <<-EOF &&
	  build: { $log_task }
	EOF
	ws_project b b c <<-EOF &&
	  build: { $log_task }
	EOF
	ws_project c c <<-EOF &&
	  build: { $log_task }
	EOF
	run_vx 0 run build -j4 &&
	printf "c\nb\na\n" >expect &&
	test_cmp expect log
'

test_expect_success 'a diamond: the bottom first, the top last, each once' '
	ws_root <<-EOF &&
	tasks:
	  build:
	    dependsOn: ["^build"]
	EOF
	ws_project top top left right <<-EOF &&
	  build: { $log_task }
	EOF
	ws_project left left bottom <<-EOF &&
	  build: { $log_task }
	EOF
	ws_project right right bottom <<-EOF &&
	  build: { $log_task }
	EOF
	ws_project bottom bottom <<-EOF &&
	  build: { $log_task }
	EOF
	run_vx 0 run build -j4 &&
	test_before log bottom left &&
	test_before log bottom right &&
	test_before log left top &&
	test_before log right top &&
	test $(wc -l <log) -eq 4
'

test_expect_success 'task-level edges: own task, and another project'"'"'s task by name' '
	ws_root </dev/null &&
	ws_project app app <<-EOF &&
	  codegen: { command: echo app-codegen >> ../log }
	  build:
	    dependsOn: ["codegen", "tools#gen"]
	    command: echo app-build >> ../log
	EOF
	ws_project tools tools <<-EOF &&
	  gen:
	    dependsOn: ["prep"]
	    command: echo tools-gen >> ../log
	  prep: { command: echo tools-prep >> ../log }
	EOF
	run_vx 0 run app#build -j4 &&
	test_before log app-codegen app-build &&
	test_before log tools-gen app-build &&
	test_before log tools-prep tools-gen &&
	test $(wc -l <log) -eq 4
'

test_expect_success 'package.json dependencies make the same edges as dependsOn' '
	write_file vx.yaml <<-EOF &&
	workspace:
	  projects: ["pkgs/*"]
	tasks:
	  build:
	    dependsOn: ["^build"]
	    command: echo "\$VX_PROJECT" >> "\$VX_WORKSPACE_ROOT/log"
	EOF
	write_file pkgs/web/package.json <<-EOF &&
	{"name": "@x/web", "dependencies": {"@x/lib": "workspace:*", "left-pad": "1"}}
	EOF
	write_file pkgs/lib/package.json <<-EOF &&
	{"name": "@x/lib", "devDependencies": {"@x/base": "workspace:*"}}
	EOF
	write_file pkgs/base/package.json <<-EOF &&
	{"name": "@x/base"}
	EOF
	run_vx 0 run build -j4 &&
	printf "@x/base\n@x/lib\n@x/web\n" >expect &&
	test_cmp expect log
'

test_expect_success '--only runs the named tasks and not what they depend on, and saves nothing they made' '
	ws_root <<-EOF &&
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["out.txt"]
	EOF
	ws_project a a b <<-EOF &&
	  build: { command: "echo \$VX_PROJECT >> ../log; echo a > out.txt" }
	EOF
	ws_project b b <<-EOF &&
	  build: { command: "echo \$VX_PROJECT >> ../log; echo b > out.txt" }
	EOF
	run_vx 0 run a#build --only &&
	echo a >expect &&
	test_cmp expect log &&
	run_vx 0 run a#build --only &&
	printf "a\na\n" >expect &&
	test_cmp expect log &&
	run_vx 0 run a#build &&
	printf "a\na\nb\na\n" >expect &&
	test_cmp expect log &&
	run_vx 0 run a#build --only &&
	test_cmp expect log &&
	test_grep "a#build: cache hit" "$OUT"
'

test_done
