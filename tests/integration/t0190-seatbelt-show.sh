#!/bin/bash
# `vx sandbox show TASK --platform darwin` prints the Seatbelt profile a task
# runs under on macOS, on any host (SPEC 3, issue 19), from the same request
# the bwrap argv is made from; the macOS-only keys (machLookup, systemInfo)
# are checked as config. tests/unit/test_seatbelt.c pins the profile's text.
. "$(dirname "$0")/lib.sh"

setup() {
	ws_root <<-EOF
	tasks: {}
	EOF
	ws_project lib lib <<-EOF
	  build: { command: "true", outputs: ["dist/**"] }
	EOF
	ws_project app app lib <<-EOF
	  build:
	    command: "true"
	    dependsOn: ["^build"]
	    sandbox:
	      allow:
	        read: ["src/**/*.ts", "../lib/package.json"]
	        write: ["dist/"]
	        network: ["registry.npmjs.org"]
	        localBinding: true
	        machLookup: ["com.apple.FontServer"]
	        systemInfo: ["kern.hostname"]
	EOF
	mkdir -p app/src lib/dist
}

test_expect_success 'the profile: deny default, the grants, the walls last' '
	setup &&
	run_vx 0 sandbox show app#build --platform darwin &&
	here=$(pwd -P) &&
	case $here in /tmp/* | /var/* | /etc/*) here=/private$here ;; esac &&
	test_grep -x "(deny default)" "$OUT" &&
	test_grep -F "(allow file-read* (subpath \"$here/app\")) ; the project" "$OUT" &&
	test_grep -F "/app/src/(.*/)?[^/]*[.]ts(/.*)?\$\")) ; allow.read: \"src/**/*.ts\"" "$OUT" &&
	test_grep -F "(allow file-read* (subpath \"$here/lib/package.json\"))" "$OUT" &&
	test_grep -F "(allow file-read* file-write* (subpath \"$here/app/dist\")) ; allow.write: \"dist/\"" "$OUT" &&
	test_grep -F "(global-name \"com.apple.FontServer\")) ; allow.machLookup" "$OUT" &&
	test_grep -F "(sysctl-name \"kern.hostname\")) ; allow.systemInfo" "$OUT" &&
	test_grep -F "(allow network-outbound (remote ip \"localhost:3128\")) ; the task" "$OUT" &&
	test_grep -F "(allow network-bind network-inbound (local ip \"localhost:*\"))" "$OUT" &&
	test_grep -F ";; note: on macOS localBinding opens every loopback port" "$OUT" &&
	walls=$(grep -n "^;; walls" "$OUT" | cut -d: -f1) &&
	grants=$(grep -n "; allow.write" "$OUT" | head -1 | cut -d: -f1) &&
	test "$walls" -gt "$grants" &&
	test_path_is_missing .vx/stage
'

test_expect_success 'localBinding: true is a Linux configuration error, not a macOS one' '
	setup &&
	run_vx 2 sandbox show app#build &&
	test_grep "localBinding: true cannot be built on Linux" "$ERR"
'

test_expect_success 'a machLookup entry that is no service name: FILE:LINE:COL' '
	setup &&
	sed -i "s/com.apple.FontServer/com.apple.\\\\\"x/" app/vx.yaml &&
	run_vx 2 sandbox show app#build --platform darwin &&
	test_grep -E "^vx: $(pwd -P)/app/vx.yaml:[0-9]+:[0-9]+: machLookup .* is no Mach service name" "$ERR"
'

test_expect_success 'a project under a directory named with [ is refused on macOS' '
	setup &&
	mkdir -p "odd[1]" && mv app "odd[1]/app" &&
	sed -i "s|\\[\"\\*\", \"\\*/\\*\"\\]|[\"lib\", \"odd*/app\"]|" vx.yaml &&
	run_vx 2 sandbox show app#build --platform darwin &&
	test_grep "lies under a directory whose name holds .\\[." "$ERR"
'

test_expect_success '--platform takes linux or darwin' '
	setup &&
	run_vx 2 sandbox show app#build --platform windows &&
	test_grep "takes linux or darwin" "$ERR"
'

test_done
