#!/bin/bash
# vx sandbox learn takes no orders from the task it holds (issue 53 items
# 1-5): a task that fails on purpose to be granted what it asks for gets
# nothing wider than its own project written; what would widen its reach is
# printed for a person (exit 3), never written.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

test_expect_success 'hostile: a write into a dependency'"'"'s sources is printed for a person, never written (item 1)' '
	ws_root </dev/null &&
	ws_project lib lib <<-'EOF' &&
	  build:
	    command: "true"
	EOF
	write_file lib/src/index.js <<<"export const x = 1" &&
	ws_project app app lib <<-'EOF' &&
	  build:
	    command: "echo pwned > ../lib/src/index.js || exit 1"
	    cache: false
	EOF
	run_vx 3 sandbox learn app#build &&
	test_grep "app#build: needs a person: add to app/vx.yaml tasks.build.sandbox.allow.write: \[\"../lib/src/\"\] (a write outside its own project)" "$ERR" &&
	test_grep ! "write:" app/vx.yaml &&
	test "$(cat lib/src/index.js)" = "export const x = 1"
'

test_expect_success 'hostile: a task that appends to its own vx.yaml gets no write grant over it (item 2)' '
	ws_root </dev/null &&
	ws_project app app <<-'EOF' &&
	  build:
	    command: "echo \"# planted\" >> vx.yaml || exit 1"
	    cache: false
	EOF
	run_vx 1 sandbox learn app#build &&
	test_grep "violation: write app/vx.yaml" "$ERR" &&
	test_grep "note: app/vx.yaml decides what vx runs" "$ERR" &&
	test_grep ! "app#build: needs a person" "$ERR" &&
	test_grep ! "write:" app/vx.yaml &&
	test_grep ! "^# planted" app/vx.yaml
'

test_expect_success 'hostile: a config rewritten during a round (a grant a person gave) stops learn, naming it (item 2)' '
	ws_root </dev/null &&
	ws_project app app <<-'EOF' &&
	  build:
	    command: "printf \"name: app\\ntasks:\\n  build:\\n    command: true\\n\" > vx.yaml; cat ../secret.txt"
	    cache: false
	    sandbox: {allow: {write: ["vx.yaml"]}}
	EOF
	echo secret >secret.txt &&
	run_vx 1 sandbox learn app#build &&
	test_grep "round 1: app/vx.yaml changed on disk during the round, and not by learn" "$ERR" &&
	test_grep ! "all passed" "$ERR" &&
	# nothing was written over what the task left: a person looks first
	test_grep ! "sandbox" app/vx.yaml
'

test_expect_success 'hostile: files named ${HOME} and ~ are granted as themselves, never as home (item 3)' '
	ws_root </dev/null &&
	ws_project app app <<-EOF &&
	  build:
	    command: "sh mk.sh"
	    cache: false
	EOF
	# the literal names \${HOME} and ~, then a plant in home if that were granted
	printf "%s\n" "echo a > \"\\\${HOME}\"" "echo b > \"~\"" \
		"echo alias ls=pwned > \"\$HOME/.bash_aliases\"" \
		"test -s \"\\\${HOME}\" && test -s \"~\"" >app/mk.sh &&
	cat app/mk.sh &&
	test_grep "^echo a > \"\\\\\${HOME}\"$" app/mk.sh &&
	run_vx 0 sandbox learn app#build &&
	cat app/vx.yaml &&
	test_grep -F "\"\$\\\\{HOME\\\\}\"" app/vx.yaml &&
	test_grep -F "\"./~\"" app/vx.yaml &&
	test_path_is_missing "$HOME/.bash_aliases" &&
	test "$(cat "app/\${HOME}")" = a && test "$(cat "app/~")" = b &&
	# what it wrote loads back as those very files: the next run passes
	run_vx 0 run app#build
'

test_expect_success 'hostile: a host the task prints is never learned; one the proxy refused is asked, an address not offered (item 4)' '
	ws_root </dev/null &&
	ws_project app app <<-'EOF' &&
	  build:
	    command: "echo getaddrinfo ENOTFOUND 169.254.169.254; echo getaddrinfo ENOTFOUND 0.0.0.0:8080; curl -sS -m 5 http://other.example.test/ ; curl -sS -m 5 http://10.0.0.7:8080/; exit 1"
	    cache: false
	    sandbox: {allow: {network: ["allowed.example.test"]}}
	EOF
	cp app/vx.yaml before.yaml &&
	run_vx 3 sandbox learn app#build &&
	test_cmp before.yaml app/vx.yaml &&
	test_grep "app#build: needs a person: add to app/vx.yaml tasks.build.sandbox.allow.network: \[\"other.example.test\"\]" "$ERR" &&
	test_grep "app#build: not offered: app/vx.yaml tasks.build.sandbox.allow.network: \"10.0.0.7:8080\" is an unspecified, loopback, private or link-local address" "$ERR" &&
	test_grep ! "needs a person: .*169.254.169.254" "$ERR" &&
	test_grep ! "needs a person: .*0.0.0.0" "$ERR"
'

# (a read under home is judged in tests/unit/test_learn_reach.c: this
# harness's home lies in /tmp, the task's own)
test_expect_success 'a secret-class file needs a person; the key and the own project are learned (item 5)' '
	ws_root </dev/null &&
	ws_project app app <<-EOF &&
	  build:
	    command: "cat ../shared/cfg.json > out.txt; cat ../shared/.env.production"
	EOF
	write_file shared/.env.production <<<"TOKEN=x" &&
	write_file shared/cfg.json <<<"{}" &&
	run_vx 3 sandbox learn app#build &&
	test_grep "needs a person: add to app/vx.yaml tasks.build.sandbox.allow.read: \[\"../shared/.env.production\"\] (it may hold a secret" "$ERR" &&
	test_grep "read: \[\"../shared/cfg.json\"\]" app/vx.yaml &&
	test_grep "workspaceFiles: \[\"shared/cfg.json\"\]" app/vx.yaml &&
	test_grep "write: \[\"out.txt\"\]" app/vx.yaml &&
	test_grep ! "read:.*\.env\|workspaceFiles:.*\.env" app/vx.yaml
'

# A key is a read grant too (declared inputs are readable, issue 54 item
# 9): files learned as their directory, or a directory listed, would show
# a secret that lies beside them. CI caught shared/** keyed (and read)
# with shared/.env.production in it.
test_expect_success 'hostile: a directory that holds a secret-class file is never keyed or granted whole' '
	ws_root </dev/null &&
	for f in a b c; do write_file shared/$f.txt <<<"$f"; done &&
	write_file shared/deep/.env.local <<<"TOKEN=x" &&
	ws_project app app <<-EOF &&
	  build:
	    command: "cat ../shared/a.txt ../shared/b.txt ../shared/c.txt > out.txt; ls ../shared > /dev/null; exit 1"
	EOF
	run_vx 1 sandbox learn app#build &&
	cat app/vx.yaml &&
	# the three files, each by name: not their directory
	test_grep "workspaceFiles: \[\"shared/a.txt\", \"shared/b.txt\", \"shared/c.txt\"\]" app/vx.yaml &&
	test_grep ! "shared/\*\*\|\"../shared/\"" app/vx.yaml &&
	# a directory listed: its read grant is a person'"'"'s call
	ws_project app app <<-EOF &&
	  build:
	    command: "cat ../shared/deep/*.txt"
	EOF
	run_vx 3 sandbox learn app#build &&
	test_grep "needs a person: add to app/vx.yaml tasks.build.sandbox.allow.read: \[\"../shared/deep/\"\] (it shows a directory that holds a secret-class file (shared/deep/.env.local))" "$ERR" &&
	test_grep ! "read:\|workspaceFiles:" app/vx.yaml
'

test_done
