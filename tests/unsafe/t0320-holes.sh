#!/bin/bash
# The holes an attack on the sandbox found (issue 12), one test per class:
# each failed on the code before its fix.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

setup() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    outputs: ["dist/**"]
	EOF
	write_file app/src/a.txt <<<"app source"
	echo "outside secret" >"$TEST_DIR/secret.txt"
	: >"$TEST_DIR/victim.txt"
}

project() {
	ws_project app app <<-EOF
	  build:
	    command: '$1'
	    cache: false
	    $2
	EOF
}

# Lists the descriptors 3..255 the task's shell holds, then tries the
# two that vx's caller left open.
FDS='for i in $(seq 3 255); do [ -e /proc/$$/fd/$i ] && echo "fd-open-$i"; done; cat /proc/self/fd/47; echo forged >/proc/self/fd/48; echo end'

test_expect_success 'descriptors vx inherited reach no task, sandboxed or not' '
	setup &&
	project "$FDS" "sandbox: {allow: {write: [\"dist/\"]}}" &&
	run_vx 0 run app#build 47<"$TEST_DIR/secret.txt" 48>>"$TEST_DIR/victim.txt" &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "fd-open-[0-9]" "$OUT" &&
	test_grep ! "outside secret" "$OUT" &&
	test ! -s "$TEST_DIR/victim.txt" &&
	project "$FDS" "" &&
	run_vx 0 run app#build 47<"$TEST_DIR/secret.txt" 48>>"$TEST_DIR/victim.txt" &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "fd-open-[0-9]" "$OUT" &&
	test_grep ! "outside secret" "$OUT" &&
	test ! -s "$TEST_DIR/victim.txt"
'

# lib's build leaves links in its outputs; app depends on it and tries them.
dep_links() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	mkdir -p "$HOME/.ssh" && echo "PRIVATE KEY" >"$HOME/.ssh/id_rsa" &&
	echo "sibling secret" >"$TEST_DIR/ws/sib-secret.txt" &&
	mkdir -p sib && echo "sib secret" >sib/secret.txt && write_file sib/vx.yaml <<<"name: sib" &&
	ws_project lib lib <<-EOF &&
	  build:
	    command: "mkdir -p dist && echo ok > dist/ok.txt && ln -sf \$HOME/.ssh/id_rsa dist/key && ln -sf ../../sib/secret.txt dist/sib && ln -sfn \$HOME/.ssh dist/sshdir"
	    cache: false
	EOF
	ws_project app app lib <<-'EOF'
	  build:
	    command: "cat ../lib/dist/ok.txt; cat ../lib/dist/key; cat ../lib/dist/sib; ls ../lib/dist/sshdir/; cat ../lib/dist/sshdir/id_rsa; echo end"
	    cache: false
	    sandbox: {allow: {write: ["dist/"]}}
	EOF
}

test_expect_success 'a dependency'"'"'s outputs that are links lead nowhere the task may not read' '
	dep_links &&
	run_vx 0 run app#build &&
	test_grep "app#build: ok" "$OUT" &&
	test_grep "app#build: end" "$OUT" &&
	test_grep ! "PRIVATE KEY" "$OUT" &&
	test_grep ! "sib secret" "$OUT" &&
	run_vx 0 sandbox show app#build &&
	test_grep -x -- "--symlink" "$OUT"
'

test_done
