#!/bin/bash
# A sandboxed Vite dev server finds its workspace root (issue 41 item 5):
# Vite walks up for the workspace's package.json (or pnpm-workspace.yaml)
# to set server.fs.allow. With the root's files hidden it shrank the allow
# list to the app and answered 403 for a linked workspace package's files,
# with no word from vx (a server runs untraced). The root's own files are
# readable to every sandboxed task now (docs/sandbox.md): a real Vite 5
# from npm serves the linked package.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox
npm_tool vite-5 vite@5
vite=$npm_tool_dir/node_modules/.bin/vite
free_port port

test_expect_success 'a sandboxed Vite dev server serves a linked workspace package: it found the root' '
	ws_root <<-EOF &&
	tasks:
	  build:
	    dependsOn: ["^build"]
	EOF
	echo "{\"name\": \"root\", \"private\": true, \"workspaces\": [\"app\", \"lib\"]}" >package.json &&
	write_file lib/package.json <<<"{\"name\": \"@w/lib\", \"version\": \"1.0.0\", \"main\": \"index.js\"}" &&
	echo "export const msg = \"from-lib\";" >lib/index.js &&
	ws_project lib @w/lib <<-EOF &&
	  build:
	    command: "true"
	EOF
	write_file app/package.json <<<"{\"name\": \"app\", \"version\": \"1.0.0\", \"dependencies\": {\"@w/lib\": \"1.0.0\"}}" &&
	echo "<!doctype html><script type=\"module\" src=\"/main.js\"></script>" >app/index.html &&
	echo "import { msg } from \"@w/lib\"; console.log(msg);" >app/main.js &&
	mkdir -p node_modules/@w && ln -s ../../lib node_modules/@w/lib &&
	ws_project app app <<-EOF &&
	  dev:
	    dependsOn: ["^build"]
	    command: "exec $vite --port $port --strictPort --host 127.0.0.1"
	    persistent: true
	    sandbox:
	      allow:
	        localBinding: [$port]
	        write: ["node_modules/.vite/"]
	EOF
	ws=$(pwd -P) &&
	{ "$VX" run app#dev >out 2>err & vx=$!; } &&
	code="" &&
	for i in $(seq 150); do
		code=$(curl -s -o body -w "%{http_code}" -m 2 "http://127.0.0.1:$port/@fs$ws/lib/index.js" 2>/dev/null) &&
			[ "$code" != 000 ] && break
		sleep 0.2
	done &&
	kill -INT $vx && { wait $vx || true; } &&
	echo "HTTP $code" && cat body && cat out err &&
	test "$code" = 200 &&
	test_grep "from-lib" body
'

# Issue 54: Vite 6 bundles vite.config.* into the nearest
# node_modules/.vite-temp, the workspace root's in a hoisted repository:
# learn could only ask a person for allow.write ["../node_modules/"]. A
# sandboxed task gets a private tmpfs there: the build passes with no
# violation, and nothing of Vite's is left on the host.
test_expect_success 'a sandboxed vite build with a config file writes its bundled config in a private node_modules/.vite-temp' '
	ws_root <<-EOF &&
	tasks:
	  build:
	EOF
	echo "{\"name\": \"root\", \"private\": true, \"workspaces\": [\"app\"]}" >package.json &&
	mkdir -p node_modules &&
	write_file app/package.json <<<"{\"name\": \"app\", \"version\": \"1.0.0\"}" &&
	echo "<!doctype html><script type=\"module\" src=\"/main.js\"></script>" >app/index.html &&
	echo "console.log(\"hi\");" >app/main.js &&
	echo "export default { logLevel: \"warn\" };" >app/vite.config.mjs &&
	npm_tool vite-6 vite@6 &&
	ws_project app app <<-EOF &&
	  build:
	    command: "$npm_tool_dir/node_modules/.bin/vite build"
	    outputs: ["dist/**"]
	    inputs: {workspaceFiles: ["package.json"]}
	    sandbox: {}
	EOF
	run_vx 0 run app#build &&
	test_grep ! "violation" "$ERR" &&
	test_path_is_file app/dist/index.html &&
	test -z "$(ls -A node_modules/.vite-temp)"
'

test_done
