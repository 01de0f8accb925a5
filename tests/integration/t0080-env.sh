#!/bin/bash
# What a task's command sees in its environment.
. "$(dirname "$0")/lib.sh"

test_expect_success 'env.define values reach the command, ${VAR} in them expanded' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build:
	    command: printf "%s\n" "\$GREETING" "\$FROM_ENV" "\$PLAIN" > out
	    env:
	      define:
	        GREETING: "hello world"
	        FROM_ENV: "pre-\${VX_TEST_VALUE}-post"
	        PLAIN: "\$\${NOT_EXPANDED}"
	EOF
	VX_TEST_VALUE=v1 run_vx 0 run build &&
	printf "%s\n" "hello world" "pre-v1-post" "\${NOT_EXPANDED}" >expect &&
	test_cmp expect a/out
'

test_expect_success 'env.define overrides the caller'"'"'s value' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build:
	    command: echo "\$MODE" > out
	    env: { define: { MODE: production } }
	EOF
	MODE=development run_vx 0 run build &&
	echo production >expect &&
	test_cmp expect a/out
'

test_expect_success 'a workspace default env.define reaches every project'"'"'s task' '
	ws_root <<-EOF &&
	tasks:
	  build:
	    env: { define: { SHARED: from-root } }
	EOF
	ws_project a a <<-EOF &&
	  build: { command: echo "\$SHARED" > out }
	EOF
	run_vx 0 run build &&
	echo from-root >expect &&
	test_cmp expect a/out
'

test_expect_success 'a ${VAR} in a command is left for the shell' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { command: "X=shell; echo \${X} > out" }
	EOF
	run_vx 0 run build &&
	echo shell >expect &&
	test_cmp expect a/out
'

test_expect_success 'VX_TASK, VX_PROJECT and VX_WORKSPACE_ROOT, run from a subdirectory' '
	ws_root </dev/null &&
	ws_project libs/core "@x/core" <<-EOF &&
	  build:
	    command: printf "%s\n" "\$VX_TASK" "\$VX_PROJECT" "\$VX_WORKSPACE_ROOT" > out
	EOF
	mkdir -p libs/core/src &&
	(cd libs/core/src && run_vx 0 run build) &&
	printf "%s\n" "@x/core#build" "@x/core" "$(pwd -P)" >expect &&
	test_cmp expect libs/core/out
'

test_expect_success 'the caller'"'"'s environment passes through' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { command: echo "\$VX_TEST_CALLER" > out }
	EOF
	VX_TEST_CALLER=kept run_vx 0 run build &&
	echo kept >expect &&
	test_cmp expect a/out
'

# Issue 53 item 7 made a sandboxed task's environment strict; an
# unsandboxed task in loose mode (no turbo.json) keeps the whole of it.
test_expect_success 'loose mode: an unsandboxed task still gets every variable, secret-looking ones too' '
	ws_root </dev/null &&
	ws_project a a <<-EOF &&
	  build: { command: env, cache: false }
	EOF
	DATABASE_URL=postgres://app:pw@db/app RAILS_MASTER_KEY=k CI_JOB_JWT=j GPG_PASSPHRASE=g \
		MYSQL_PWD=m SLACK_WEBHOOK_URL=https://hooks.example/x GITHUB_TOKEN=t run_vx 0 run build &&
	for n in DATABASE_URL RAILS_MASTER_KEY CI_JOB_JWT GPG_PASSPHRASE MYSQL_PWD SLACK_WEBHOOK_URL GITHUB_TOKEN; do
		test_grep "a#build: $n=." "$OUT" || return 1
	done
'

test_done
