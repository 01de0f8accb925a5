#!/bin/bash
# A sandboxed task's environment is strict whatever envMode (issue 53 item
# 7): with no turbo.json (loose mode) DATABASE_URL with a password,
# RAILS_MASTER_KEY, CI_JOB_JWT, GPG_PASSPHRASE, MYSQL_PWD and
# SLACK_WEBHOOK_URL all reached a sandboxed task, and a cached one that
# printed an undeclared variable replayed its old value after it changed.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"

require_sandbox strace

held="DATABASE_URL RAILS_MASTER_KEY CI_JOB_JWT GPG_PASSPHRASE MYSQL_PWD SLACK_WEBHOOK_URL GITHUB_TOKEN"

# vx with the issue's variables set, as a developer's shell or a CI job
# has them; each value holds "sekrit", which no task's output may show.
vx_secrets() {
	DATABASE_URL=postgres://app:sekrit-db@db/app \
		RAILS_MASTER_KEY=sekrit-rails CI_JOB_JWT=sekrit-jwt GPG_PASSPHRASE=sekrit-gpg \
		MYSQL_PWD=sekrit-mysql SLACK_WEBHOOK_URL=https://hooks.slack.example/sekrit \
		GITHUB_TOKEN=sekrit-gh VERCEL_URL=app.vercel.example \
		VERCEL_SIGNING_KEY=sekrit-vsk RUNNER_JWT=sekrit-rj LC_ALL=C \
		run_vx "$@"
}

# shown yes|no NAME...: whether each NAME is in app#build's output with its
# value.
shown() {
	local want=$1 n
	shift
	for n in "$@"; do
		if [ "$want" = yes ]; then
			test_grep "app#build: $n=.*sekrit" "$OUT" || return 1
		else
			test_grep ! "app#build: $n=" "$OUT" || return 1
		fi
	done
}

# PROJECT#build running COMMAND, with more lines under the task.
project() {
	local dir=$1 cmd=$2
	shift 2
	{
		printf '  build:\n    command: %s\n' "$cmd"
		for l in "$@"; do printf '    %s\n' "$l"; done
	} | ws_project "$dir" "$dir"
}

test_expect_success 'loose mode: none of them reaches a sandboxed task; PATH, HOME, the locale and VERCEL_URL do' '
	ws_root </dev/null &&
	project app env "cache: false" "sandbox: {}" &&
	vx_secrets 0 run app#build &&
	shown no $held VERCEL_SIGNING_KEY RUNNER_JWT &&
	test_grep ! "sekrit" "$OUT" &&
	test_grep "app#build: PATH=/" "$OUT" &&
	test_grep "app#build: HOME=/" "$OUT" &&
	test_grep "app#build: LC_ALL=C$" "$OUT" &&
	test_grep "app#build: VERCEL_URL=app.vercel.example" "$OUT"
'

test_expect_success 'loose mode: the same task unsandboxed still gets every one of them' '
	ws_root </dev/null &&
	project app env "cache: false" &&
	vx_secrets 0 run app#build &&
	shown yes $held VERCEL_SIGNING_KEY RUNNER_JWT
'

test_expect_success 'one the task names (inputs.env, env.passThrough) reaches it; a credential-looking one also in passThroughSecrets' '
	ws_root </dev/null &&
	project app env "cache: false" \
		"inputs: { env: [DATABASE_URL, RAILS_MASTER_KEY, CI_JOB_JWT, VERCEL_SIGNING_KEY] }" \
		"env: { passThrough: [GPG_PASSPHRASE, MYSQL_PWD, SLACK_WEBHOOK_URL, RUNNER_JWT, GITHUB_TOKEN], passThroughSecrets: [RAILS_MASTER_KEY, CI_JOB_JWT, VERCEL_SIGNING_KEY, GPG_PASSPHRASE, MYSQL_PWD, RUNNER_JWT, GITHUB_TOKEN] }" \
		"sandbox: {}" &&
	vx_secrets 0 run app#build &&
	shown yes $held VERCEL_SIGNING_KEY RUNNER_JWT
'

# Issue 58: the keys and the sandbox each had a rule of their own for what
# looks like a credential, and they disagreed: RAILS_MASTER_KEY, CI_JOB_JWT
# and MYSQL_PWD named by a task reached it, while AWS_REGION and GITHUB_SHA
# named by it were held back without a word. One rule now (util/envname.c),
# and a credential a task names without passThroughSecrets is refused with
# its line, never dropped in silence.
test_expect_success 'a credential named in inputs.env or env.passThrough alone is refused with its line, nothing run' '
	ws_root </dev/null &&
	project app "touch ran" "cache: false" \
		"inputs: { env: [DATABASE_URL, RAILS_MASTER_KEY] }" "sandbox: {}" "outputs: [ran]" &&
	vx_secrets 2 run app#build &&
	test_grep "vx: .*/app/vx.yaml:6:35: app#build: inputs.env .RAILS_MASTER_KEY. looks like a credential; a sandboxed task gets it only when spelled in env.passThroughSecrets too" "$ERR" &&
	test ! -e app/ran &&
	project app "touch ran" "cache: false" \
		"env: { passThrough: [SLACK_WEBHOOK_URL, CI_JOB_JWT] }" "sandbox: {}" "outputs: [ran]" &&
	vx_secrets 2 run app#build &&
	test_grep "app#build: env.passThrough .CI_JOB_JWT. looks like a credential" "$ERR" &&
	test ! -e app/ran &&
	project app "env; touch ran" "cache: false" \
		"inputs: { env: [\"!CI_JOB_JWT\", \"NODE_*\"] }" "sandbox: {}" "outputs: [ran]" &&
	vx_secrets 0 run app#build &&
	test -e app/ran &&
	test_grep ! "sekrit" "$OUT"
'

test_expect_success 'what names no credential reaches the task it names: AWS_REGION, GITHUB_SHA' '
	ws_root </dev/null &&
	project app env "cache: false" "inputs: { env: [AWS_REGION, GITHUB_SHA] }" "sandbox: {}" &&
	AWS_REGION=eu-west-3 GITHUB_SHA=0123abc AWS_SECRET_ACCESS_KEY=sekrit-aws \
		vx_secrets 0 run app#build &&
	test_grep "app#build: AWS_REGION=eu-west-3$" "$OUT" &&
	test_grep "app#build: GITHUB_SHA=0123abc$" "$OUT" &&
	test_grep ! "sekrit" "$OUT"
'

test_expect_success 'strict mode: a secret-looking name under an always-passed wildcard (VERCEL_*, RUNNER_*) stays out of a sandboxed task' '
	ws_root </dev/null &&
	project app env "cache: false" "sandbox: {}" &&
	vx_secrets 0 run app#build --env-mode strict &&
	test_grep ! "sekrit" "$OUT" &&
	test_grep "app#build: VERCEL_URL=app.vercel.example" "$OUT" &&
	project app env "cache: false" &&
	vx_secrets 0 run app#build --env-mode strict &&
	test_grep "app#build: VERCEL_SIGNING_KEY=sekrit-vsk" "$OUT"
'

test_expect_success 'a cached task that prints an undeclared variable never shows it: no stale value replayed' '
	ws_root </dev/null &&
	project app "echo \"u=[\$UNDECLARED]\"" "sandbox: {}" &&
	UNDECLARED=one run_vx 0 run app#build &&
	test_grep "app#build: u=\[\]" "$OUT" &&
	UNDECLARED=two run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	test_grep "app#build: u=\[\]" "$OUT" &&
	test_grep ! "u=\[one\]\|u=\[two\]" "$OUT"
'

test_expect_success 'a cached task that declares the variable misses when it changes' '
	ws_root </dev/null &&
	project app "echo \"d=[\$DECLARED]\"" "inputs: { env: [DECLARED] }" "sandbox: {}" &&
	DECLARED=one run_vx 0 run app#build &&
	test_grep "app#build: d=\[one\]" "$OUT" &&
	DECLARED=one run_vx 0 run app#build &&
	test_grep "app#build: cache hit" "$OUT" &&
	DECLARED=two run_vx 0 run app#build &&
	test_grep ! "cache hit" "$OUT" &&
	test_grep "app#build: d=\[two\]" "$OUT"
'

test_expect_success '-v names what was held back, once a run, never a value' '
	ws_root </dev/null &&
	project app true "cache: false" "inputs: { env: [DATABASE_URL] }" "sandbox: {}" &&
	project lib true "cache: false" "sandbox: {}" &&
	vx_secrets 0 run build -v &&
	test "$(grep -c "sandboxed tasks run with a strict environment" "$ERR")" = 1 &&
	line=$(grep "sandboxed tasks run with a strict environment" "$ERR") &&
	for n in $held VERCEL_SIGNING_KEY RUNNER_JWT; do
		case "$line" in *" $n"[,\ ]*) ;; *) echo "missing $n: $line"; return 1 ;; esac
	done &&
	case "$line" in *" VERCEL_URL"[,\ ]* | *" LC_ALL"[,\ ]* | *" PATH"[,\ ]* | *" HOME"[,\ ]* | *sekrit*) echo "$line"; return 1 ;; esac &&
	vx_secrets 0 run build &&
	test_grep ! "strict environment" "$ERR" &&
	project app true "cache: false" &&
	project lib true "cache: false" &&
	vx_secrets 0 run build -v &&
	test_grep ! "strict environment" "$ERR"
'

test_done
