#!/bin/bash
# vx graph prints the task graph a run would build, and runs nothing.
. "$(dirname "$0")/lib.sh"

# top -> left, right -> bottom; bottom's build has no command (a no-op).
setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	EOF
	ws_project top top left right <<-EOF
	  build: { command: touch ../ran-top }
	EOF
	ws_project left left bottom <<-EOF
	  build: { command: touch ../ran-left }
	EOF
	ws_project right right bottom <<-EOF
	  build: { command: touch ../ran-right }
	EOF
	ws_project bottom bottom </dev/null
}

test_expect_success '--format json: the nodes and edges, and nothing ran' '
	setup &&
	run_vx 0 graph build --format json &&
	if command -v python3 >/dev/null; then
		python3 - "$OUT" <<-\EOF
		import json, sys
		g = json.load(open(sys.argv[1]))
		nodes = {n["id"]: (n["project"], n["task"], n["command"]) for n in g["nodes"]}
		assert nodes == {
		    "top#build": ("top", "build", "touch ../ran-top"),
		    "left#build": ("left", "build", "touch ../ran-left"),
		    "right#build": ("right", "build", "touch ../ran-right"),
		    "bottom#build": ("bottom", "build", None),
		}, nodes
		edges = sorted((e["from"], e["to"]) for e in g["edges"])
		assert edges == [("left#build", "bottom#build"), ("right#build", "bottom#build"),
		                 ("top#build", "left#build"), ("top#build", "right#build")], edges
		EOF
	else
		for e in "top#build\",\"to\":\"left#build" "top#build\",\"to\":\"right#build" \
			"left#build\",\"to\":\"bottom#build" "right#build\",\"to\":\"bottom#build"; do
			test_grep -F "{\"from\":\"$e\"}" "$OUT" || exit 1
		done
		test $(grep -o "\"from\"" "$OUT" | wc -l) -eq 4
	fi &&
	test_path_is_missing ran-top && test_path_is_missing ran-left
'

test_expect_success 'every JSON report: "project" is the directory, "name" the project name' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	ws_project apps/web @acme/web <<-EOF &&
	  build: { command: "true" }
	EOF
	run_vx 0 graph build --format json && mv "$OUT" graph.json &&
	run_vx 0 run build --dry-run=json && mv "$OUT" dry.json &&
	run_vx 0 run build --no-cache --report json --summarize && mv "$OUT" report.json &&
	for f in graph.json dry.json report.json .vx/runs/*.json; do
		python3 - "$f" <<-\EOF || exit 1
		import json, sys
		d = json.load(open(sys.argv[1]))
		rows = d.get("nodes") or d.get("tasks")
		assert [(r["id"], r["project"], r["name"]) for r in rows] == \
		    [("@acme/web#build", "apps/web", "@acme/web")], (sys.argv[1], rows)
		EOF
	done
'

test_expect_success 'json is the default format' '
	setup &&
	run_vx 0 graph build &&
	mv "$OUT" default.json &&
	run_vx 0 graph build --format json &&
	test_cmp default.json "$OUT"
'

test_expect_success '--format dot: a digraph with every edge' '
	setup &&
	run_vx 0 graph build --format dot &&
	head -n 1 "$OUT" | grep "^digraph" &&
	tail -n 1 "$OUT" | grep -x "}" &&
	test_grep -F "\"top#build\" -> \"left#build\";" "$OUT" &&
	test_grep -F "\"top#build\" -> \"right#build\";" "$OUT" &&
	test_grep -F "\"left#build\" -> \"bottom#build\";" "$OUT" &&
	test_grep -F "\"right#build\" -> \"bottom#build\";" "$OUT" &&
	test $(grep -c -e "->" "$OUT") -eq 4
'

test_expect_success 'graph of one project#task holds only what it needs' '
	setup &&
	run_vx 0 graph left#build --format dot &&
	test_grep -F "\"left#build\" -> \"bottom#build\";" "$OUT" &&
	test_grep ! "top#build" "$OUT" &&
	test_grep ! "right#build" "$OUT"
'

test_expect_success 'graph refuses a bad format and a broken config (exit 2)' '
	setup &&
	run_vx 2 graph build --format yaml &&
	ws_project bottom bottom top <<-EOF &&
	  build: { command: "true" }
	EOF
	run_vx 2 graph build &&
	test_grep "dependency cycle" "$ERR"
'

test_done
