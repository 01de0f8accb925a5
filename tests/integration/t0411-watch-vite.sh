#!/bin/bash
# A real Vite dev server (vite 5 from npm) under vx watch (issue 41 item 4):
# an edit of the app's own source is Vite's to hot-reload, so the server
# keeps running (the same process serves the new module); a rebuild of the
# library it depends on restarts it, since Vite does not rebuild a
# dependency; neither a restart nor the final stop is said as a failure.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

npm_tool vite-5 vite@5
vite=$npm_tool_dir/node_modules/.bin/vite
free_port port

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	mkdir -p lib/src app/src
	echo "lib-1" >lib/src/msg.txt
	ws_project lib lib <<-EOF
	  build:
	    command: "mkdir -p dist && echo \"export const msg = '\$(cat src/msg.txt)';\" > dist/msg.js"
	EOF
	echo '<!doctype html><script type="module" src="/src/main.js"></script>' >app/index.html
	echo 'export const v = "app-1";' >app/src/main.js
	ws_project app app lib <<-EOF
	  dev:
	    dependsOn: ["^build"]
	    command: "exec $vite --port $port --strictPort --host 127.0.0.1"
	    persistent: true
	EOF
}

# serves PATH WORD: Vite answers PATH with a body that holds WORD.
serves() {
	local i body=""
	for i in $(seq 150); do
		body=$(curl -sS -m 2 "http://127.0.0.1:$port$1" 2>/dev/null) &&
			case "$body" in *"$2"*) return 0 ;; esac
		sleep 0.2
	done
	echo "127.0.0.1:$port$1 answered: $body"
	return 1
}

vite_pid() { pgrep -f "node $vite --port $port" | head -1; }

# edit FILE TEXT, then wait until Vite serves PATH with TEXT: written again
# every 5 s, for Vite's own watcher may not watch yet when "ready" is
# printed (under load its first change was missed, and it served the old
# module for 30 s: a CI flake of Vite's, not vx's, which saw the edit)
edit_served() {
	local file=$1 text=$2 path=$3 i j body
	for i in 1 2 3 4 5 6; do
		echo "export const v = \"$text\";" >"$file"
		for j in $(seq 25); do
			body=$(curl -sS -m 2 "http://127.0.0.1:$port$path" 2>/dev/null) &&
				case "$body" in *"$text"*) return 0 ;; esac
			sleep 0.2
		done
	done
	echo "127.0.0.1:$port$path answered: $body"
	return 1
}

test_expect_success 'Vite keeps running through an edit of its own source and serves it; a rebuilt dependency restarts it' '
	setup &&
	watch_start app#dev &&
	serves /src/main.js app-1 &&
	test_wait_lines "watching" 1 "$OUT" &&
	first=$(vite_pid) && test -n "$first" &&
	edit_served app/src/main.js app-2 /src/main.js &&
	test_wait_lines "watching" 2 "$OUT" &&
	test_grep "app#dev: running: only its own sources changed, which it reloads itself (restart: auto)" "$OUT" &&
	test "$(vite_pid)" = "$first" &&
	echo "lib-2" >lib/src/msg.txt &&
	test_wait_lines "app#dev restarted" 1 "$OUT" &&
	test_grep "app#dev: restarting: what it cannot reload itself changed" "$OUT" &&
	serves /src/main.js app-2 &&
	second=$(vite_pid) && test -n "$second" && test "$second" != "$first" &&
	test_grep "app#dev: stopped by vx watch in " "$OUT" &&
	watch_stop &&
	test_grep ! "failed (interrupted)" "$OUT" &&
	test_grep ! "app#dev: failed" "$OUT" &&
	! pgrep -f "node $vite --port $port"
'

test_done
