#!/bin/bash
# The error texts a user meets first (issue 56 items 2 and 6): an unknown
# flag is three lines naming the closest known one, not the 60-line usage; a
# task name that is no task names the closest task; Turborepo's verbs vx
# lacks say what vx does instead; FORCE_COLOR; the --graph legend; --profile
# in microseconds; a graph a person reads; the exit codes in --help.
. "$(dirname "$0")/lib.sh"

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	    command: "mkdir -p dist && echo built > dist/out.txt"
	  check: { dependsOn: ["^check"] }
	EOF
	ws_project apps/web @acme/web @acme/ui <<-EOF
	  test: { command: "true" }
	EOF
	ws_project packages/ui @acme/ui </dev/null
}

test_expect_success 'an unknown flag: the flag, the closest one, the usage line, where --help is; exit 2' '
	setup &&
	run_vx 2 run build --filtr=web &&
	cat >expect <<-\EOF &&
	vx: unknown option --filtr (did you mean --filter?)
	usage: vx run TASK... [options] [-- ARGS]
	`vx run --help` lists every option.
	EOF
	test_cmp expect "$ERR" &&
	run_vx 2 run build --frobnicate &&
	test $(wc -l <"$ERR") = 3 &&
	test_grep "^vx: unknown option --frobnicate (a task.s own options go after \"--\")$" "$ERR" &&
	run_vx 2 build --summarise &&
	test_grep "^vx: unknown option --summarise (did you mean --summarize?)$" "$ERR" &&
	test $(wc -l <"$ERR") = 3 &&
	run_vx 2 run build --dr &&
	test_grep "^vx: option --dr is ambiguous: --dry or --dry-run$" "$ERR" &&
	run_vx 2 run build --force=yes &&
	test_grep "^vx: option --force takes no argument$" "$ERR" &&
	run_vx 2 ls --outptu json &&
	test_grep "^vx: unknown option --outptu (did you mean --output?)$" "$ERR" &&
	test_grep "^\`vx ls --help\` lists every option.$" "$ERR" &&
	run_vx 2 cache prune --max-szie 1G &&
	test_grep "^\`vx cache prune --help\` lists every option.$" "$ERR" &&
	run_vx 2 run &&
	test $(wc -l <"$ERR") = 3 &&
	test_grep "^vx: name at least one task$" "$ERR"
'

test_expect_success 'options before the task are vx run'"'"'s, as turbo --filter=web build is turbo run' '
	setup &&
	run_vx 0 --filter=@acme/ui build &&
	test_grep "Tasks: 1 succeeded" "$OUT" &&
	run_vx 2 --hepl &&
	test_grep "^vx: unknown option --hepl (did you mean --help?)$" "$ERR" &&
	test $(wc -l <"$ERR") = 3
'

test_expect_success 'a task name that is no task names the closest task of every project' '
	setup &&
	run_vx 2 run biuld &&
	test_grep "^vx: no project of the workspace has a task \"biuld\" (did you mean \"build\"?)$" "$ERR" &&
	run_vx 2 tset &&
	test_grep "(did you mean \"test\"?)" "$ERR" &&
	run_vx 2 run @acme/web#tets &&
	test_grep "^vx: project \"@acme/web\" has no task \"tets\" (did you mean \"test\"?)$" "$ERR" &&
	run_vx 2 run web#build &&
	test_grep "^vx: no project is named \"web\" (in \"web#build\"; did you mean \"@acme/web\"?)$" "$ERR" &&
	run_vx 2 run zzzzzzzz &&
	test_grep ! "did you mean" "$ERR"
'

test_expect_success 'a verb turbo has and vx lacks says what vx does instead, unless it is a task' '
	setup &&
	for verb in gen generate query login logout link unlink telemetry daemon; do
		run_vx 2 $verb &&
		test_grep ! "no project of the workspace has a task" "$ERR" &&
		test_grep "^vx: vx has no \`$verb\`" "$ERR" || exit 1
	done &&
	run_vx 2 gen &&
	test_grep "code generator" "$ERR" &&
	run_vx 2 query &&
	test_grep "vx ls --output json" "$ERR" &&
	test_grep "vx graph TASK" "$ERR" &&
	run_vx 2 login &&
	test_grep "VX_REMOTE_CACHE_TOKEN" "$ERR" &&
	test_grep "workspace.cache.remote" "$ERR" &&
	run_vx 2 link &&
	test_grep "VX_REMOTE_CACHE_TEAM" "$ERR" &&
	run_vx 2 telemetry &&
	test_grep "no telemetry" "$ERR" &&
	cd .. && mkdir -p none && cd none &&
	run_vx 2 login &&
	test_grep "VX_REMOTE_CACHE_TOKEN" "$ERR" &&
	cd ../ws &&
	ws_project tools/gen gen <<-EOF &&
	  gen: { command: "echo generated" }
	EOF
	run_vx 0 gen &&
	test_grep "gen#gen: generated" "$OUT"
'

test_expect_success 'vx sandbox --help lists learn and show' '
	run_vx 0 sandbox --help &&
	test_grep "vx sandbox learn TASK" "$OUT" &&
	test_grep "vx sandbox show TASK" "$OUT" &&
	run_vx 2 sandbox lern &&
	test_grep "unknown command \"lern\" (did you mean \"learn\"?)" "$ERR"
'

test_expect_success 'FORCE_COLOR colours a pipe; FORCE_COLOR=0 and NO_COLOR do not' '
	setup &&
	esc=$(printf "\033") &&
	env -u NO_COLOR FORCE_COLOR=1 "$VX" run build --force >out 2>err &&
	grep -q "$esc\[" out &&
	env -u NO_COLOR FORCE_COLOR= "$VX" run build --force >out 2>err &&
	grep -q "$esc\[" out &&
	env -u NO_COLOR FORCE_COLOR=0 "$VX" run build --force >out 2>err &&
	! grep -q "$esc" out &&
	env -u NO_COLOR FORCE_COLOR=false "$VX" run build --force >out 2>err &&
	! grep -q "$esc" out &&
	env NO_COLOR=1 FORCE_COLOR=1 "$VX" run build --force >out 2>err &&
	! grep -q "$esc" out &&
	env -u NO_COLOR -u FORCE_COLOR "$VX" run build --force >out 2>err &&
	! grep -q "$esc" out
'

test_expect_success '--graph says what a dashed node is' '
	setup &&
	run_vx 0 run check --graph &&
	test_grep "style=dashed" "$OUT" &&
	test_grep "label=\"dashed: a task with no command" "$OUT" &&
	run_vx 0 graph build --format dot &&
	test_grep ! "style=dashed" "$OUT" &&
	test_grep ! "label=" "$OUT"
'

test_expect_success '--profile: ts and dur in microseconds, measured to the microsecond' '
	setup &&
	ws_project apps/web @acme/web @acme/ui <<-EOF &&
	  build: { command: "sleep 0.3 && mkdir -p dist && echo x > dist/out.txt" }
	EOF
	run_vx 0 run build --profile=p1.json &&
	run_vx 0 run build --profile=p2.json &&
	python3 - p1.json p2.json <<-\EOF
	import json, sys
	ev = []
	for path in sys.argv[1:]:
	    t = json.load(open(path))
	    ev += [e for e in t["traceEvents"] if e["ph"] == "X"]
	assert len(ev) == 4, ev
	web = [e for e in ev if e["name"] == "@acme/web#build" and e["args"]["cache"] == "miss"]
	assert web and web[0]["dur"] >= 300000, web  # sleep 0.3: 300000 us at least
	# a cache hit takes some microseconds, not 0 (at ms resolution it was 0)
	assert all(e["dur"] > 0 for e in ev if e["args"]["cache"] != "miss"), ev
	# microseconds measured, not milliseconds times 1000
	assert any(e["ts"] % 1000 or e["dur"] % 1000 for e in ev), ev
	EOF
'

test_expect_success 'vx graph --format text: the graph as a tree, each task above what it needs' '
	setup &&
	run_vx 0 graph build check --format text &&
	cat >expect <<-\EOF &&
	@acme/web#build
	└── @acme/ui#build
	@acme/web#check (no command)
	└── @acme/ui#check (no command)
	EOF
	test_cmp expect "$OUT" &&
	grep -q "graph build --format text" "$VX_SOURCE_DIR/scripts/demo.sh"
'

test_expect_success 'the tree shows a shared dependency once, marked (*) after' '
	ws_root <<-EOF &&
	tasks:
	  build: { dependsOn: ["^build"], command: "true" }
	EOF
	ws_project top top left right </dev/null &&
	ws_project left left bottom </dev/null &&
	ws_project right right bottom </dev/null &&
	ws_project bottom bottom base </dev/null &&
	ws_project base base </dev/null &&
	run_vx 0 graph build --format text &&
	cat >expect <<-\EOF &&
	top#build
	├── left#build
	│   └── bottom#build
	│       └── base#build
	└── right#build
	    └── bottom#build (*)
	(*) its dependencies are shown above
	EOF
	test_cmp expect "$OUT" &&
	ws_project base base </dev/null &&
	ws_project bottom bottom </dev/null &&
	run_vx 0 graph build --format text &&
	test_grep ! "(\*)" "$OUT"
'

test_expect_success 'an option that takes a word: any other is refused with its words, exit 2, nothing run' '
	setup &&
	run_vx 2 run build --ui=tty &&
	test_grep "^vx: --ui takes stream or tui, not \"tty\"$" "$ERR" &&
	test_path_is_missing apps/web/dist &&
	run_vx 2 run build --env-mode Strict &&
	test_grep "^vx: --env-mode takes strict or loose, not \"Strict\"$" "$ERR" &&
	run_vx 2 run build --framework-inference=no &&
	test_grep "^vx: --framework-inference takes true or false, not \"no\"$" "$ERR" &&
	run_vx 2 run build --report=yaml &&
	test_grep "^vx: --report takes text, json, sarif or github, not \"yaml\"$" "$ERR" &&
	run_vx 2 graph build --format=svg &&
	test_grep "^vx: --format takes dot, json or text, not \"svg\"$" "$ERR" &&
	run_vx 2 ls --output=yaml &&
	test_grep "^vx: --output takes text or json, not \"yaml\"$" "$ERR" &&
	run_vx 2 prune @acme/web --use-gitignore=yes &&
	test_grep "^vx: --use-gitignore takes true or false, not \"yes\"$" "$ERR" &&
	run_vx 2 boundaries --report=html &&
	test_grep "^vx: --report takes text, json, sarif or github, not \"html\"$" "$ERR" &&
	test_path_is_missing apps/web/dist &&
	test_path_is_missing out
'

test_expect_success 'the words taken: --format dot and json, --ui stream, --env-mode, --framework-inference' '
	setup &&
	run_vx 0 graph build --format=dot &&
	test_grep "^digraph" "$OUT" &&
	run_vx 0 graph build &&
	test_grep "^{" "$OUT" &&
	run_vx 0 graph build --format json &&
	test_grep "^{" "$OUT" &&
	run_vx 0 run build --ui=stream --env-mode=loose --framework-inference=false &&
	test_path_is_file apps/web/dist/out.txt
'

test_expect_success '--help says what exit statuses 0, 1, 2 and 130 mean' '
	run_vx 0 --help &&
	test_grep "^exit status: 0 " "$OUT" &&
	test_grep "1 a task failed" "$OUT" &&
	test_grep "2 a usage or configuration error" "$OUT" &&
	test_grep "130 interrupted" "$OUT" &&
	run_vx 0 run --help &&
	test_grep "^exit status: 0 " "$OUT" &&
	test_grep "1 a task failed" "$OUT" &&
	test_grep "130 interrupted" "$OUT"
'

test_done
