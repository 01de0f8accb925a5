#!/bin/bash
# The probes of bwrap and strace a sandboxed run needs are kept in
# WS/.vx/probe (issue 20): a run on an unchanged machine spawns no trial,
# and each thing the answer depends on asks again when it changes. The
# bwrap and strace on PATH are logging wrappers of the real ones.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

setup() {
	ws_root <<-'EOF'
	tasks: {}
	EOF
	ws_project app app <<-'EOF'
	  build:
	    command: "mkdir -p dist && cat src/a.txt > dist/out.txt"
	    outputs: ["dist/**"]
	    sandbox:
	      allow: { read: ["src/"], write: ["dist/"] }
	EOF
	write_file app/src/a.txt <<<"source"
	mkdir -p bin
	# strace runs inside the walls, where calls is read-only or hidden:
	# only its host runs (strace -V) are logged
	for tool in bwrap strace; do
		real=$(command -v $tool)
		printf '#!/bin/sh\n{ echo "%s $*" >>"%s/calls"; } 2>/dev/null\n[ -e "%s/broken" ] && exit 1\nexec %s "$@"\n' \
			"$tool" "$(pwd -P)" "$(pwd -P)" "$real" >bin/$tool
		chmod +x bin/$tool
	done
	export PATH="$(pwd -P)/bin:$PATH"
}

# probes: how many probe runs the calls since the last reset were: the two
# version queries, bwrap's trial, and the bwrap strace's trial runs inside
# (4), or none
probes() {
	grep -cE '^(bwrap --version|strace -V)$|/bin/true$' calls || true
}

test_expect_success 'the first run probes and keeps the answer; the next spawns no probe' '
	setup &&
	run_vx 0 run app#build &&
	test "$(probes)" = 4 &&
	test_path_is_file .vx/probe &&
	test_grep -x "bubblewrap .*" .vx/probe &&
	: >calls &&
	run_vx 0 run app#build &&
	test_grep "cache hit" "$OUT" &&
	test "$(probes)" = 0 &&
	: >calls &&
	rm app/dist/out.txt && echo changed >app/src/a.txt &&
	run_vx 0 run app#build &&
	test "$(probes)" = 0 &&
	test "$(cat app/dist/out.txt)" = changed
'

test_expect_success 'a binary replaced (a package upgrade) asks again' '
	setup &&
	run_vx 0 run app#build &&
	cp bin/strace bin/strace.new && mv bin/strace.new bin/strace &&
	: >calls &&
	run_vx 0 run app#build &&
	test "$(probes)" = 4
'

test_expect_success 'another kept answer (a kernel, a vx, a sysctl) is not taken' '
	setup &&
	run_vx 0 run app#build &&
	sed -i "s/^kernel .*/kernel 0.0-other/" .vx/probe &&
	: >calls &&
	run_vx 0 run app#build &&
	test "$(probes)" = 4 &&
	test_grep ! "0.0-other" .vx/probe
'

test_expect_success 'a failed probe is never kept: the task is refused, and the next run asks again' '
	setup &&
	printf "#!/bin/sh\necho \"bwrap \$*\" >>\"%s/calls\"\nexit 1\n" "$(pwd -P)" >bin/bwrap &&
	run_vx 2 run app#build &&
	test_grep "cannot give one" "$ERR" &&
	test_path_is_missing .vx/probe &&
	: >calls &&
	run_vx 2 run app#build &&
	test_grep -c "^bwrap " calls
'

test_expect_success 'a kept answer whose bwrap stopped working fails closed: the task does not run' '
	setup &&
	run_vx 0 run app#build &&
	rm app/dist/out.txt && echo again >app/src/a.txt &&
	touch broken &&
	run_vx 1 run app#build &&
	test_path_is_missing app/dist/out.txt &&
	test_grep "app#build: failed" "$OUT"
'

# Issue 55 item 5: a missing tool is one clear line with the command that
# installs it on this system (its /etc/os-release), and vx info lists each
# tool with its version and whether it works.
test_expect_success 'a missing bwrap or strace is one line naming the command that installs it here' '
	setup &&
	. /etc/os-release &&
	case " ${ID:-} ${ID_LIKE:-} " in
	*" debian "*|*" ubuntu "*) how="apt-get install" ;;
	*" fedora "*|*" rhel "*) how="dnf install" ;;
	*" arch "*) how="pacman -S" ;;
	*" alpine "*) how="apk add" ;;
	*) how="Debian/Ubuntu: apt-get install" ;;
	esac &&
	mkdir -p only && ln -sf "$(command -v sh)" only/sh &&
	PATH="$(pwd -P)/only" run_vx 2 run app#build &&
	test_grep "^vx: app#build declares sandbox:, and this machine cannot give one: bwrap is not installed (.*$how bubblewrap.*)$" "$ERR" &&
	test $(wc -l <"$ERR") = 1 &&
	test_path_is_missing app/dist/out.txt &&
	PATH="$(pwd -P)/only" run_vx 0 info &&
	test_grep "^bwrap: missing: bwrap is not installed (.*$how bubblewrap.*)$" "$OUT" &&
	test_grep "^strace: missing: strace is not installed (.*$how strace.*)$" "$OUT" &&
	run_vx 0 info &&
	test_grep "^bwrap: works (/.*/bwrap, bubblewrap [0-9.]*)$" "$OUT" &&
	test_grep "^strace: works (/.*/strace, strace -- version [0-9.]*)$" "$OUT"
'

test_done
