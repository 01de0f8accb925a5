#!/bin/bash
# A bad configuration is one line "vx: FILE:LINE:COL: MESSAGE" on stderr and
# exit 2, before any task runs (SPEC 2.3).
. "$(dirname "$0")/lib.sh"

# A workspace with a healthy project "ok" whose build would leave a marker;
# each test then adds a broken project "bad" (its build leaves one too).
setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	EOF
	ws_project ok ok <<-EOF
	  build: { command: touch ../ran-ok }
	EOF
}

# expect_error FILE:LINE:COL EXTENDED-REGEX [vx run args]: vx exits 2 with
# exactly one line on stderr, at that place, matching the regex; nothing ran.
expect_error() {
	local where=$1 re=$2
	shift 2
	[ $# -gt 0 ] || set -- build
	run_vx 2 run "$@" -j1 || return 1
	if [ "$(wc -l <"$ERR")" -ne 1 ]; then
		echo "wanted one line on stderr"
		return 1
	fi
	test_grep -E "^vx: $(pwd -P)/$where: $re\$" "$ERR" || return 1
	if ls ran-* 2>/dev/null; then
		echo "a task ran"
		return 1
	fi
	test_path_is_missing .vx
	test_grep ! "running:" "$OUT"
}

test_expect_success 'unknown key in a task, with the nearest key suggested' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    comand: touch ../ran-bad
	EOF
	expect_error bad/vx.yaml:4:5 "unknown key \"comand\" in task \"build\" \(did you mean \"command\"\?\)"
'

test_expect_success 'unknown key in the workspace file, with a suggestion' '
	setup &&
	write_file vx.yaml <<-EOF &&
	workspace:
	  projects: ["*"]
	  chache: { dir: .vx/cache }
	EOF
	expect_error vx.yaml:3:3 "unknown key \"chache\" .*\(did you mean \"cache\"\?\)"
'

test_expect_success 'unknown top-level key of a project, with a suggestion' '
	setup &&
	write_file bad/vx.yaml <<-EOF &&
	name: bad
	dependOn: [ok]
	EOF
	expect_error bad/vx.yaml:2:1 "unknown key \"dependOn\" .*\(did you mean \"dependsOn\"\?\)"
'

test_expect_success 'an output glob that leaves its project (a dependent would be shown a sibling)' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    outputs: ["dist/**", "{x,../ok}/**"]
	EOF
	expect_error bad/vx.yaml:5:26 "output \"\{x,\.\./ok\}/\*\*\" leaves the project; a task.s outputs lie in its own directory" &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    outputs: ["/etc/**"]
	EOF
	expect_error bad/vx.yaml:5:15 "output \"/etc/\*\*\" leaves the project; .*"
'

test_expect_success 'wrong type: a list where a string goes' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: [touch, ../ran-bad]
	EOF
	expect_error bad/vx.yaml:4:14 "command must be a string, not a list"
'

test_expect_success 'wrong type: a word where a boolean goes' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    persistent: sometimes
	EOF
	expect_error bad/vx.yaml:5:17 "persistent must be true or false, not \"sometimes\""
'

test_expect_success 'a duration that does not parse' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    timeout: 10x
	EOF
	expect_error bad/vx.yaml:5:14 "\"10x\" is not a duration.*"
'

test_expect_success 'a project dependsOn a project that does not exist' '
	setup &&
	ws_project bad bad nope <<-EOF &&
	  build: { command: touch ../ran-bad }
	EOF
	expect_error bad/vx.yaml:2:13 "dependsOn names \"nope\", which is no project of this workspace"
'

test_expect_success 'a task dependsOn a task of a project that does not exist' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    dependsOn: ["nope#build"]
	EOF
	expect_error bad/vx.yaml:5:17 "dependsOn \"nope#build\": no project is named \"nope\""
'

test_expect_success 'a task dependsOn a task its own project lacks' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    dependsOn: ["codegen"]
	EOF
	expect_error bad/vx.yaml:5:17 "dependsOn \"codegen\": project \"bad\" has no task \"codegen\""
'

test_expect_success 'a task dependsOn a task another project lacks' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    dependsOn: ["ok#lint"]
	EOF
	expect_error bad/vx.yaml:5:17 "dependsOn \"ok#lint\": project \"ok\" has no task \"lint\""
'

test_expect_success 'a cycle names every task on it, in order' '
	setup &&
	for p in a b c; do
		next=$(echo $p | tr abc bca)
		ws_project $p $p <<-EOF || exit 1
		  build:
		    command: touch ../ran-$p
		    dependsOn: ["$next#build"]
		EOF
	done &&
	run_vx 2 run build &&
	test $(wc -l <"$ERR") -eq 1 &&
	test_grep -E "^vx: $(pwd -P)/[abc]/vx.yaml:5:17: dependency cycle: " "$ERR" &&
	test_grep -E ": (a#build -> b#build -> c#build -> a#build|b#build -> c#build -> a#build -> b#build|c#build -> a#build -> b#build -> c#build)\$" "$ERR" &&
	test_path_is_missing ran-a && test_path_is_missing ran-b &&
	test_path_is_missing ran-c && test_path_is_missing ran-ok
'

test_expect_success 'two projects with the same name' '
	setup &&
	ws_project bad ok <<-EOF &&
	  build: { command: touch ../ran-bad }
	EOF
	expect_error ok/vx.yaml:1:7 "duplicate project name \"ok\" \(also bad\)"
'

test_expect_success 'a YAML syntax error' '
	setup &&
	write_file bad/vx.yaml <<-EOF &&
	name: bad
	tasks: [unclosed
	EOF
	expect_error "bad/vx.yaml:[0-9]+:[0-9]+" ".*flow sequence.*"
'

test_expect_success 'invalid JSON in a project package.json' '
	setup &&
	write_file bad/package.json <<-EOF &&
	{"name": "bad",
	 "scripts": {"build": "touch ../ran-bad"},,
	}
	EOF
	expect_error "bad/package.json:2:[0-9]+" "invalid JSON"
'

test_expect_success 'an unset ${VAR} in a value that expands' '
	setup &&
	unset VX_TEST_UNSET &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    env:
	      define: { WHERE: "\${VX_TEST_UNSET}/x" }
	EOF
	expect_error "bad/vx.yaml:6:[0-9]+" "environment variable VX_TEST_UNSET is not set \(used as \\$\{VX_TEST_UNSET\}\)"
'

test_expect_success 'depending on a persistent task' '
	setup &&
	ws_project bad bad <<-EOF &&
	  dev: { command: touch ../ran-dev, persistent: true }
	  build:
	    command: touch ../ran-bad
	    dependsOn: ["dev"]
	EOF
	expect_error bad/vx.yaml:6:17 "bad#build depends on bad#dev, which is persistent.*"
'

test_expect_success 'a network entry that is no host is an error at its column (exit 2, nothing ran)' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    sandbox:
	      allow:
	        network: ["registry.npmjs.org", "https://evil.example.com"]
	EOF
	expect_error bad/vx.yaml:7:41 "bad#build: network entry .https://evil.example.com. is a URL.*"
'

test_expect_success 'a bare *, a dotless name and a path are errors too' '
	for e in "\"*\"" intranet "example.com/x" "localhost"; do
		setup &&
		ws_project bad bad <<-EOF &&
		  build:
		    command: touch ../ran-bad
		    sandbox:
		      deny:
		        network: [$e]
		EOF
		expect_error bad/vx.yaml:7:19 "bad#build: network entry .*" || return 1
	done
'

test_expect_success 'port grants that cannot be built as written are refused before anything runs' '
	setup &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    sandbox:
	      allow:
	        localBinding: true
	EOF
	expect_error bad/vx.yaml:7:23 "bad#build: localBinding: true cannot be built on Linux.*list the ports the task listens on.*" &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    sandbox:
	      allow:
	        network: ["localhost:4173"]
	        localBinding: [4173]
	EOF
	expect_error bad/vx.yaml:8:24 "bad#build: port 4173 is both relayed in from the host.*" &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    sandbox:
	      allow:
	        network: ["registry.npmjs.org"]
	        localBinding: [3128]
	EOF
	expect_error bad/vx.yaml:8:24 "bad#build: port 3128 is where the task reaches its proxy.*" &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    sandbox:
	      allow:
	        unixSockets: true
	EOF
	expect_error bad/vx.yaml:7:22 "bad#build: unixSockets: true cannot be built.*list the socket paths"
'

test_expect_success 'an explicit project#task that does not exist (exit 2, nothing ran)' '
	setup &&
	run_vx 2 run ok#build ok#nope &&
	test_grep "project \"ok\" has no task \"nope\"" "$ERR" &&
	test_path_is_missing ran-ok &&
	run_vx 2 run nope#build &&
	test_grep "no project is named \"nope\"" "$ERR"
'

test_expect_success 'a task name no project of the workspace has is an error (a typo must not pass CI)' '
	setup &&
	run_vx 2 run biuld &&
	test_grep "no project of the workspace has a task \"biuld\"" "$ERR"
'

# Issue 37, item 9: a glob that can never match was accepted, so an input
# was silently not keyed (or an output not saved, a grant not granted).
test_expect_success 'a glob that can never match is an error at its entry, wherever it is a glob' '
	setup &&
	for g in "src/[z-a]" "src/[]" "src/[abc" "" "src/{a,b"; do
		ws_project bad bad <<-EOF &&
		  build:
		    command: touch ../ran-bad
		    inputs: {files: ["src/**", "$g"]}
		EOF
		expect_error bad/vx.yaml:5:32 "inputs.files \"$(printf "%s" "$g" | sed "s/[][{}.*]/\\\\&/g")\": .* \(docs/glob.md\)" || return 1
	done &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    outputs: ["dist/[b-a]*"]
	EOF
	expect_error bad/vx.yaml:5:15 "outputs \"dist/\[b-a\]\*\": reversed range in character class matches nothing \(docs/glob.md\)" &&
	ws_project bad bad <<-EOF &&
	  build:
	    command: touch ../ran-bad
	    sandbox: {allow: {read: ["src/{x"]}}
	EOF
	expect_error bad/vx.yaml:5:30 "sandbox.allow.read \"src/\{x\": unclosed \{ \(docs/glob.md\)"
'

# Issue 39, item 2: a project vx.yaml that was a FIFO hung vx forever; one
# that was a link to /dev/zero read until 3.5 GB and "out of memory".
test_expect_success 'a config that is no regular file is an error at once, naming it' '
	setup &&
	mkdir bad && mkfifo bad/vx.yaml &&
	rc=0 && timeout 20 "$VX" run build -j1 >"$OUT" 2>"$ERR" </dev/null || rc=$? &&
	test "$rc" = 2 &&
	test_grep "cannot read $(pwd -P)/bad/vx.yaml: it is not a regular file" "$ERR" &&
	rm bad/vx.yaml && ln -s /dev/zero bad/vx.yaml &&
	rc=0 && timeout 20 "$VX" run build -j1 >"$OUT" 2>"$ERR" </dev/null || rc=$? &&
	test "$rc" = 2 &&
	test_grep "cannot read $(pwd -P)/bad/vx.yaml: it is not a regular file" "$ERR" &&
	test_path_is_missing ran-ok
'

# Issue 39, item 3: libyaml's scanner costs the open depth on every
# token: [[[…]]] 100 000 deep took 22 s, a million more than 90. The depth
# is bounded (256), the error at the bracket that passes it, and 1 MB of
# nesting fails at once (the timeout guards a hang; no time is asserted).
test_expect_success 'nesting deeper than 256 levels is an error at its bracket, found at once' '
	setup &&
	mkdir -p bad &&
	{ printf "tasks: "; head -c 1000000 /dev/zero | tr "\0" "["; } >bad/vx.yaml &&
	rc=0 && timeout 60 "$VX" run build >"$OUT" 2>"$ERR" || rc=$? &&
	test "$rc" = 2 &&
	test_grep -x "vx: $(pwd -P)/bad/vx.yaml:1:263: nested deeper than 256 levels" "$ERR" &&
	test_path_is_missing ran-ok &&
	rm -rf bad &&
	{ printf "{\"tasks\": {\"build\": {\"env\": "; head -c 300000 /dev/zero | tr "\0" "["; } >turbo.json &&
	write_file package.json <<<"{\"name\": \"root\"}" &&
	rc=0 && timeout 60 "$VX" run build >"$OUT" 2>"$ERR" || rc=$? &&
	test "$rc" = 2 &&
	test_grep -x "vx: $(pwd -P)/turbo.json:1:282: turbo.json is not JSON: nested deeper than 256 levels" "$ERR"
'

# Issue 39, item 4: invalid UTF-8 and NUL bytes were reported at 1:1 (the
# bytes were at 2:24 and 5:12): libyaml gives a reader error a byte
# offset, not a mark.
test_expect_success 'invalid UTF-8 and a NUL in vx.yaml are errors at their byte' '
	setup &&
	mkdir -p bad &&
	printf "tasks:\n  build: {command: \"touch ../ran-\xff\"}\n" >bad/vx.yaml &&
	expect_error bad/vx.yaml:2:34 "invalid leading UTF-8 octet" &&
	printf "tasks:\n  build:\n    command: \"touch ../ran-bad\"\n    # a comment\n    env: [\"A\0\"]\n" >bad/vx.yaml &&
	expect_error bad/vx.yaml:5:13 "control characters are not allowed" &&
	printf "tasks:\n  build: {command: \"touch ../ran-\xc3\xa9\xc3\"}\n" >bad/vx.yaml &&
	expect_error bad/vx.yaml:2:35 "incomplete UTF-8 octet sequence|invalid trailing UTF-8 octet"
'

# Issue 39, item 4: a wrongly typed package.json field was reported at
# 1:1, invalid UTF-8 in a name blamed another project's vx.yaml, trailing
# garbage (or garbage after a NUL) was accepted, and "scripts": {"build":
# 42} silently became a task with no command. Each is an error at its byte.
test_expect_success 'a package.json error is at its byte' '
	setup &&
	mkdir -p bad &&
	printf "{\n  \"version\": \"1.0.0\",\n  \"name\": 5\n}\n" >bad/package.json &&
	expect_error bad/package.json:3:11 "package.json \"name\" must be a string" &&
	printf "{\n  \"name\": \"bad\",\n  \"dependencies\": [\"ok\"]\n}\n" >bad/package.json &&
	expect_error bad/package.json:3:19 "package.json \"dependencies\" must be an object" &&
	printf "{\n  \"name\": \"bad\",\n  \"devDependencies\": {\"a\": \"1\", \"b\": 2}\n}\n" >bad/package.json &&
	expect_error bad/package.json:3:38 "package.json \"devDependencies\" \"b\" must be a version string" &&
	printf "{\n  \"name\": \"bad\",\n  \"scripts\": {\n    \"build\": 42\n  }\n}\n" >bad/package.json &&
	expect_error bad/package.json:4:14 "package.json \"scripts\" \"build\" must be a command string" &&
	printf "{\n  \"name\": \"b\xe9d\"\n}\n" >bad/package.json &&
	expect_error bad/package.json:2:13 "invalid UTF-8: a package.json is UTF-8 JSON" &&
	printf "{\"name\": \"bad\"}\n}garbage\n" >bad/package.json &&
	expect_error bad/package.json:2:1 "text after the JSON object" &&
	printf "{\"name\": \"bad\"}\n\0garbage\n" >bad/package.json &&
	expect_error bad/package.json:2:1 "a NUL byte: a package.json is UTF-8 JSON" &&
	rm -r bad && mkdir zbad &&
	printf "{\"name\": \"ok\"}\n" >zbad/package.json &&
	expect_error zbad/package.json:1:10 "duplicate project name \"ok\" \(also ok\)"
'

test_expect_success 'a root package.json workspaces entry that is no string is an error at it' '
	rm -f vx.yaml &&
	printf "{\n  \"name\": \"root\",\n  \"workspaces\": [\"a\",\n    7]\n}\n" >package.json &&
	rc=0 && "$VX" run build >"$OUT" 2>"$ERR" || rc=$? &&
	test "$rc" = 2 &&
	test_grep -x "vx: $(pwd -P)/package.json:4:5: package.json \"workspaces\" entries must be strings" "$ERR"
'

test_done
