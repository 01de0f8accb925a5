#!/bin/bash
# One task's network grant is that task's alone (issue 14): a task cannot
# dial another task's proxy socket, even where vx's TMPDIR (and so the run
# directory holding the sockets) lies outside the sandbox's own /tmp; two
# concurrent tasks with different lists each reach only their own host; a
# task with no grant reaches nothing while another task of the run has
# `network: true`.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace
command -v socat >/dev/null || { echo "socat is not installed (apt-get install socat)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not installed (apt-get install curl)" >&2; exit 1; }
command -v ss >/dev/null && command -v pgrep >/dev/null || { echo "ss or pgrep is not installed (apt-get install iproute2 procps)" >&2; exit 1; }

free_port port
printf 'HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nserved-ok\n' >"$TEST_TMP/resp"
socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork SYSTEM:"cat $TEST_TMP/resp; cat >/dev/null" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
export VX_TEST_RESOLVE="one.example.test=127.0.0.1,two.example.test=127.0.0.1"

# vx's own TMPDIR, outside /tmp: the sandbox's tmpfs over /tmp does not
# hide it, only the wall does.
vxtmp=$(mktemp -d /var/tmp/vx-it-run.XXXXXX)
trap 'kill $srv 2>/dev/null; rm -rf "$TEST_TMP" "$vxtmp"' EXIT

test_expect_success 'a task cannot reach another task'"'"'s proxy socket in a run dir outside /tmp' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	ws_project holder holder <<-EOF &&
	  build:
	    command: "sleep 4"
	    cache: false
	    sandbox:
	      allow:
	        network: ["one.example.test:$port"]
	EOF
	ws_project thief thief <<-EOF &&
	  build:
	    command: |
	      for i in \$(seq 30); do
	        s=\$(find $vxtmp -name "*.sock" 2>/dev/null | head -n 1)
	        [ -n "\$s" ] && break
	        sleep 0.1
	      done
	      echo "found=[\$s]"
	      if [ -n "\$s" ]; then
	        socat TCP-LISTEN:3999,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:\$s &
	        sleep 0.5
	        curl -sS -m 3 -x http://127.0.0.1:3999 http://one.example.test:$port/x
	      fi
	      exit 0
	    cache: false
	    sandbox: {}
	EOF
	TMPDIR=$vxtmp run_vx 0 run build -j2 &&
	test_grep "thief#build: found=\[\]" "$OUT" &&
	test_grep ! "served-ok" "$OUT"
'

# Each of two tasks fetches its own host and the other's; both run at once
# (-j2, each waits a moment so their proxies overlap).
two_tasks() {
	ws_root <<-EOF
	tasks:
	  build:
	EOF
	for me in one two; do
		other=$([ $me = one ] && echo two || echo one)
		ws_project $me $me <<-EOF
		  build:
		    command: "sleep 1; curl -fsS -m 5 http://$me.example.test:$port/ && echo $me-own-ok; curl -fsS -m 5 http://$other.example.test:$port/ && echo $me-other-ok; exit 0"
		    cache: false
		    sandbox:
		      allow:
		        network: ["$me.example.test:$port"]
		EOF
	done
}

test_expect_success 'two concurrent tasks with different lists each reach only their own host' '
	two_tasks &&
	grep -q "one.example.test:$port" one/vx.yaml && grep -q "two.example.test:$port" two/vx.yaml &&
	run_vx 1 run build -j2 --continue &&
	test_grep "one#build: one-own-ok" "$OUT" &&
	test_grep "two#build: two-own-ok" "$OUT" &&
	test_grep ! "one#build: one-other-ok" "$OUT" &&
	test_grep ! "two#build: two-other-ok" "$OUT" &&
	test_grep "one#build: violation: network two.example.test:$port (not in allow.network)" "$ERR" &&
	test_grep "two#build: violation: network one.example.test:$port (not in allow.network)" "$ERR"
'

test_expect_success 'a task with no grant reaches nothing while another task of the run has network: true' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	ws_project open open <<-EOF &&
	  build:
	    command: "sleep 3"
	    cache: false
	    sandbox:
	      allow:
	        network: true
	EOF
	ws_project closed closed <<-EOF &&
	  build:
	    command: "sleep 1; curl -fsS -m 3 -x http://127.0.0.1:3128 http://one.example.test:$port/ && echo closed-reached; curl -sS -m 3 http://127.0.0.1:$port/ && echo closed-direct; exit 0"
	    cache: false
	    sandbox: {}
	EOF
	run_vx 0 run build -j2 &&
	test_grep "closed#build: running" "$OUT" &&
	test_grep ! "closed#build: served-ok" "$OUT" &&
	test_grep ! "closed#build: closed-reached" "$OUT" &&
	test_grep ! "closed#build: closed-direct" "$OUT"
'

test_expect_success 'a task that dials its own netd control socket is turned away, and its grants still work' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	ws_project app app <<-EOF &&
	  build:
	    command: |
	      ls -l /tmp/.vx-net.sock
	      head -c 4096 /dev/urandom | socat -u - UNIX-CONNECT:/tmp/.vx-net.sock,type=5 && echo intruder-sent
	      curl -fsS -m 5 http://one.example.test:$port/ && echo still-served
	    cache: false
	    sandbox:
	      allow:
	        network: ["one.example.test:$port"]
	EOF
	run_vx 0 run app#build &&
	test_grep "app#build: still-served" "$OUT" &&
	test_grep "app#build: served-ok" "$OUT"
'

test_expect_success 'kill -9 of vx leaves no task, no netd inside, and (after the next run) no control socket' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	ws_project app app <<-EOF &&
	  build:
	    command: "exec sleep 4343"
	    cache: false
	    sandbox:
	      allow:
	        network: ["one.example.test:$port"]
	EOF
	mkdir -p "$TEST_DIR/tmp" &&
	{ TMPDIR=$TEST_DIR/tmp "$VX" run app#build >out 2>err & vx=$!; } &&
	for i in $(seq 100); do
		sock=$(find "$TEST_DIR/tmp" -name ctl.sock | head -n 1)
		[ -n "$sock" ] && pgrep -f "^sleep 4343" >/dev/null && break
		sleep 0.1
	done &&
	test -S "$sock" &&
	pgrep -f "^[^ ]*/\.vx-netd __netd" >/dev/null &&
	kill -9 $vx && { wait $vx || true; } &&
	for i in $(seq 50); do
		pgrep -f "^sleep 4343" >/dev/null || pgrep -f "exec sleep 4343" >/dev/null || pgrep -f "^[^ ]*/\.vx-netd __netd" >/dev/null || break
		sleep 0.1
	done &&
	! pgrep -f "^sleep 4343" &&
	! pgrep -fa "exec sleep 4343" &&
	! pgrep -f "^[^ ]*/\.vx-netd __netd" &&
	! ss -xl | grep -F "$sock" &&
	touch -d "2 minutes ago" "$(dirname "$(dirname "$sock")")" &&
	ws_project app app <<-EOF &&
	  build:
	    command: "true"
	    cache: false
	EOF
	TMPDIR=$TEST_DIR/tmp run_vx 0 run app#build &&
	test_path_is_missing "$sock"
'

test_done
