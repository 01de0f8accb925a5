#!/bin/bash
# Real builds under the sandbox (issue 11): each tool with the grants a
# user would write has zero false violations, hits on the second run and
# restores its outputs byte for byte; one grant missing fails it with a fix
# that, merged into vx.yaml as printed, makes the next run pass.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

# Merges the JSON fix of task id $1 from $OUT (a --report json run) into
# DIR/vx.yaml's tasks.TASK.sandbox and .inputs, mechanically, as a user
# pasting it would: each list gains the entries it lacks.
apply_fix() {
	local id=$1 dir=$2 task=$3
	jq -e --arg id "$id" '.tasks[] | select(.id == $id) | .fix' "$OUT" >"$TEST_DIR/fix.json"
	python3 - "$dir/vx.yaml" "$task" "$TEST_DIR/fix.json" <<-'EOF'
	import json, sys, yaml
	path, task, fix = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
	doc = yaml.safe_load(open(path))
	t = doc["tasks"][task]
	for key, where in (("allow", t.setdefault("sandbox", {}).setdefault("allow", {})),
	                   ("inputs", t.setdefault("inputs", {}))):
	    for field, entries in (fix.get(key) or {}).items():
	        lst = where.setdefault(field, [])
	        lst.extend(e for e in entries if e not in lst)
	open(path, "w").write(yaml.safe_dump(doc, sort_keys=False))
	EOF
}

make_project() {
	ws_root <<-'EOF'
	EOF
	ws_project calc calc <<-EOF
	  build:
	    command: "make"
	    outputs: ["build/**"]
	    sandbox:
	      allow:
	        read: ["src/", "Makefile"]
	        write: [$1]
	EOF
	write_file calc/src/add.c <<-'EOF'
	int add(int a, int b) { return a + b; }
	EOF
	write_file calc/src/main.c <<-'EOF'
	#include <stdio.h>
	int add(int, int);
	int main(void) { printf("%d\n", add(2, 3)); return 0; }
	EOF
	printf '%s\n' \
		'build/calc: build/add.o build/main.o' \
		'	cc -o $@ build/add.o build/main.o' \
		'build/%.o: src/%.c' \
		'	@mkdir -p build' \
		'	cc -c -o $@ $<' >calc/Makefile
}

test_expect_success 'make + gcc: zero violations, all hits next, outputs restored byte for byte' '
	make_project "\"build/\"" &&
	run_vx 0 run calc#build &&
	test_grep ! "violation" "$ERR" &&
	test "$(calc/build/calc)" = 5 &&
	sum=$(cat calc/build/*.o calc/build/calc | md5sum) &&
	rm -rf calc/build &&
	run_vx 0 run calc#build &&
	test_grep "calc#build: cache hit" "$OUT" &&
	test "$(cat calc/build/*.o calc/build/calc | md5sum)" = "$sum"
'

test_expect_success 'make + gcc with its write grant missing: the printed fix makes the next run pass' '
	make_project "" &&
	run_vx 1 run calc#build --report json &&
	apply_fix calc#build calc build &&
	cat calc/vx.yaml &&
	run_vx 0 run calc#build &&
	test_grep ! "violation" "$ERR" &&
	test "$(calc/build/calc)" = 5
'

test_done
