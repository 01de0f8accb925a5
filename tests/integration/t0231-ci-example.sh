#!/bin/bash
# examples/ci/github-actions.yml (issue 16) is a workflow GitHub accepts:
# checked against the workflow schema by action-validator (npm,
# @action-validator/cli 0.6.0; actionlint is in neither Debian nor npm),
# which must also refuse a broken copy; and every vx option it passes is
# one vx run has. Its build step runs for real (issue 41 item 8), as GitHub
# runs it, on a 4-job matrix against the real turborepo-remote-cache, and
# on a workspace without a test task.
. "$(dirname "$0")/lib.sh"

wf=$VX_SOURCE_DIR/examples/ci/github-actions.yml
npm_tool action-validator-0.6.0 @action-validator/cli@0.6.0 @action-validator/core@0.6.0
validator=$npm_tool_dir/node_modules/.bin/action-validator

test_expect_success 'the workflow passes the schema, and a broken copy does not' '
	"$validator" "$wf" &&
	sed "s/runs-on:/runz-on:/" "$wf" >broken.yml &&
	! "$validator" broken.yml >/dev/null
'

test_expect_success 'it runs a 4-shard matrix with the remote cache, --affected and a SARIF upload' '
	test_grep "shard: \[1, 2, 3, 4\]" "$wf" &&
	test_grep -- "--shard \"\${{ matrix.shard }}/4\"" "$wf" &&
	test_grep -- "--affected=" "$wf" &&
	test_grep "upload-sarif" "$wf" &&
	test_grep "VX_REMOTE_CACHE_TOKEN: \${{ secrets." "$wf" &&
	test_grep "turborepo-remote-cache@2.12" "$wf"
'

test_expect_success 'every option it gives vx run is one vx run has' '
	"$VX" run --help >help &&
	sed -n "/args=(/,/vx run /p" "$wf" >step &&
	grep -oE -- "--[a-z][a-z-]+" step | sort -u >vxopts &&
	test $(wc -l <vxopts) -ge 5 &&
	while read -r o; do
		grep -q -- "$o" help || { echo "vx run has no $o"; exit 1; }
	done <vxopts
'

# run-step.py: runs a step's run: script of the workflow as GitHub does
# (bash --noprofile --norc -eo pipefail), in the job's and the step's env,
# each ${{ EXPR }} replaced from the EXPR=VALUE arguments (one with no
# value is an error), then the ENV:NAME=VALUE arguments set over the env.
cat >"$TEST_TMP/run-step.py" <<'PY'
import os, re, subprocess, sys, yaml
wf, job, name, *args = sys.argv[1:]
job = yaml.safe_load(open(wf))["jobs"][job]
step = next(s for s in job["steps"] if s.get("name", "").startswith(name))
table = dict(a.split("=", 1) for a in args if not a.startswith("ENV:"))
def expand(text):
    def one(m):
        e = m.group(1).strip()
        if e not in table:
            sys.exit("run-step: no value for ${{ %s }}" % e)
        return table[e]
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))
env = dict(os.environ)
for k, v in list(job.get("env", {}).items()) + list(step.get("env", {}).items()):
    env[k] = expand(v)
for a in args:
    if a.startswith("ENV:"):
        k, v = a[4:].split("=", 1)
        env[k] = v
assert step.get("shell") == "bash", step.get("shell")
sys.exit(subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                          expand(step["run"])], env=env))
PY

remote_cache_start

# step DIR SHARD [ENV:NAME=VALUE...]: the workflow's build step, as the
# matrix job SHARD of a push would run it, in DIR.
step() {
	local dir=$1 shard=$2
	shift 2
	# the "Install vx" step puts vx on the PATH (GITHUB_PATH)
	(cd "$dir" && PATH=$(dirname "$VX"):$PATH python3 "$TEST_TMP/run-step.py" "$wf" build "Build and test" \
		"matrix.shard=$shard" "github.event_name=push" "github.base_ref=" \
		"secrets.VX_REMOTE_CACHE_TOKEN=$remote_token" "github.repository_owner=team1" \
		"ENV:VX_REMOTE_CACHE_URL=$VX_REMOTE_CACHE_URL" "$@")
}

setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	    command: "mkdir -p dist && cat src/*.txt > dist/out.txt"
	EOF
	local p
	for p in a b c d e f; do
		mkdir -p $p/src && echo "$p" >$p/src/x.txt
		ws_project $p $p <<-EOF
		  build: {}
		EOF
	done
}

with_tests() {
	cat >>vx.yaml <<-EOF
	  test:
	    dependsOn: ["build"]
	    command: "grep -q . dist/out.txt"
	EOF
}

test_expect_success 'its build step runs for real as a 4-job matrix: every job green, every SARIF valid, then all hits' '
	setup && with_tests &&
	for i in 1 2 3 4; do
		mkdir ../m$i && cp -a . ../m$i/ || exit 1
		(step ../m$i $i >../m$i.out 2>&1; echo $? >../m$i.rc) &
	done &&
	wait &&
	for i in 1 2 3 4; do
		cat ../m$i.out
		test "$(cat ../m$i.rc)" = 0 || exit 1
		jq -e ".version == \"2.1.0\"" ../m$i/vx.sarif >/dev/null || exit 1
		test -s ../m$i/vx-summary-$i.json || exit 1
	done &&
	mkdir ../m5 && cp -a . ../m5/ && cd ../m5 &&
	run_vx 0 run build test &&
	test_grep "Tasks: 0 succeeded, 12 cached" "$OUT"
'

test_expect_success 'on a workspace without a test task: exit 2 and no SARIF file to upload; with VX_TASKS set to its tasks, green' '
	setup &&
	{ step . 1; test $? = 2; } &&
	test_path_is_missing vx.sarif &&
	grep -q "if: always() && hashFiles(.vx.sarif.) != .." "$wf" &&
	step . 1 ENV:VX_TASKS=build &&
	jq -e ".version == \"2.1.0\"" vx.sarif >/dev/null
'

test_done
