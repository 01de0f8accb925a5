#!/bin/bash
# vx run --shard I/N (issue 16): a CI matrix splits one graph and shares
# every result through the remote cache (the real turborepo-remote-cache
# server from npm). Four shards at once build each of 40 tasks exactly once
# and a fifth machine then hits them all, with a one-machine run's outputs;
# the split is the same whatever the order of discovery; a shard whose
# upstream never arrives builds it itself.
. "$(dirname "$0")/lib.sh"

remote_cache_start

# 40 projects: 10 libs, 20 mids on two libs each, 10 apps on two mids
# each. A build concatenates its source and its dependencies' outputs, so
# an output holds the whole upstream: a wrong or missing one shows.
setup() {
	ws_root <<-EOF
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	    command: "sleep 0.2; mkdir -p dist && { cat src/x.txt; for d in \$DEPS; do cat ../\$d/dist/out.txt; done; } > dist/out.txt && echo built-\$(basename \$PWD)"
	EOF
	local i
	for i in $(seq -w 0 9); do
		mk l$i
		mk a$i m$((10#$i * 2 % 20 / 10))$((10#$i * 2 % 10)) m$(((10#$i * 2 + 1) % 20 / 10))$(((10#$i * 2 + 1) % 10))
	done
	for i in $(seq -w 0 19); do
		mk m$i l$((10#$i % 10)) l$(((10#$i + 3) % 10))
	done
}

# mk NAME [DEPS...]: a project whose build sees its dependencies in $DEPS.
mk() {
	local name=$1
	shift
	mkdir -p "$name/src"
	echo "src of $name" >"$name/src/x.txt"
	{
		printf 'name: "%s"\n' "$name"
		[ $# -gt 0 ] && printf 'dependsOn: [%s]\n' "$(printf '"%s", ' "$@" | sed 's/, $//')"
		printf 'tasks:\n  build:\n    env:\n      define: {DEPS: "%s"}\n' "$*"
	} >"$name/vx.yaml"
}

# clone DIR: the workspace's sources, no cache, no outputs.
clone() {
	rm -rf "$1" && mkdir -p "$1" && (cd "$TEST_DIR/ws" && tar cf - --exclude=.vx --exclude=dist .) |
		(cd "$1" && tar xf -)
}

# ids FILE STATUS: the ids of the summary's tasks with that status, sorted
# (those that started, and those that did not, listed beside).
ids() {
	node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1]));
		for (const t of [...s.tasks, ...s.tasksNotStarted])
			if (t.status === process.argv[2]) console.log(t.id)' "$1" "$2" | sort
}

test_expect_success 'the workspace has 40 build tasks' '
	setup &&
	run_vx 0 run build --dry-run --no-remote &&
	test_grep "^40 tasks" "$OUT"
'

test_expect_success '4 shards at once build each task exactly once; a fifth clone hits all 40 with a one-machine run'"'"'s outputs' '
	setup &&
	clone "$TEST_DIR/ref" && (cd "$TEST_DIR/ref" && "$VX" run build --no-remote >/dev/null) &&
	for i in 1 2 3 4; do
		clone "$TEST_DIR/c$i" || exit 1
		(cd "$TEST_DIR/c$i" && "$VX" run build --shard $i/4 -j2 --summarize=../s$i.json \
			>../out$i 2>../err$i; echo $? >../rc$i) &
	done &&
	wait &&
	for i in 1 2 3 4; do
		cat ../err$i
		test "$(cat ../rc$i)" = 0 || exit 1
	done &&
	cat ../s1.json ../s2.json ../s3.json ../s4.json >/dev/null &&
	for i in 1 2 3 4; do ids ../s$i.json succeeded; done | sort >../ran &&
	test $(wc -l <../ran) = 40 &&
	test -z "$(uniq -d ../ran)" &&
	for i in 1 2 3 4; do ids ../s$i.json failed; ids ../s$i.json skipped; done >../bad &&
	test ! -s ../bad &&
	grep -h "waiting for its upload" ../err? | head -3 &&
	clone "$TEST_DIR/c5" && cd "$TEST_DIR/c5" &&
	run_vx 0 run build &&
	test_grep "Tasks: 0 succeeded, 40 cached" "$OUT" &&
	for p in "$TEST_DIR"/ref/*/; do
		p=$(basename "$p")
		cmp "$TEST_DIR/ref/$p/dist/out.txt" "$p/dist/out.txt" || exit 1
	done
'

test_expect_success 'the split is the same whatever the order of discovery, and covers every task once' '
	setup &&
	for i in 1 2 3 4; do
		run_vx 0 run build --shard $i/4 --dry-run=json &&
		node -e "const d = JSON.parse(require(\"fs\").readFileSync(process.argv[1]));
			for (const t of d.tasks) if (t.owned) console.log(t.id, d.shard.index)" "$OUT" >>../owned-a || exit 1
	done &&
	mkdir ../rev && for p in $(ls -r); do cp -a "$p" ../rev/; done && cd ../rev &&
	for i in 1 2 3 4; do
		run_vx 0 run build --shard $i/4 --dry-run=json &&
		node -e "const d = JSON.parse(require(\"fs\").readFileSync(process.argv[1]));
			for (const t of d.tasks) if (t.owned) console.log(t.id, d.shard.index)" "$OUT" >>../owned-b || exit 1
	done &&
	sort ../owned-a >../a && sort ../owned-b >../b &&
	test_cmp ../a ../b &&
	test $(wc -l <../a) = 40 &&
	test -z "$(cut -d" " -f1 ../a | uniq -d)" &&
	for i in 1 2 3 4; do test $(grep -c " $i\$" ../a) = 10 || exit 1; done
'

test_expect_success 'timings from a run summary balance the split; every shard reads the same file' '
	setup &&
	run_vx 0 run build --no-remote --summarize=../timings.json &&
	run_vx 0 run build --shard 1/4 --shard-timings=../timings.json --dry-run=json &&
	test_grep "\"owned\":true" "$OUT" &&
	run_vx 2 run build --shard 1/4 --shard-timings=../nope.json --dry-run &&
	test_grep "cannot read" "$ERR" &&
	mkdir ../no-timings &&
	run_vx 0 run build --shard 1/4 --shard-timings=../no-timings --dry-run=json &&
	test_grep "\"owned\":true" "$OUT"
'

# skew FILE: timings for every task of the selected graph, far from equal
# (a run summary's shape), so a split by them is unlike the split by count.
skew() {
	run_vx 0 run build --dry-run=json --no-remote &&
	node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
		const tasks = d.tasks.map(t => ({id: t.id, status: "succeeded",
			durationMs: [...t.id].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 7919, 7) % 3000 + 1}));
		console.log(JSON.stringify({tasks}))' "$OUT" >"$1"
}

# owned I/N [OPTION]: the ids shard I/N builds by its own split (dry run);
# answered I/N [OPTION]: those it builds or makes sure of.
owned() {
	run_vx 0 run build --shard "$@" --dry-run=json &&
	node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
		for (const t of d.tasks) if (t.owned) console.log(t.id)' "$OUT"
}
answered() {
	run_vx 0 run build --shard "$@" --dry-run=json &&
	node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
		for (const t of d.tasks) if (t.owned || t.answered) console.log(t.id)' "$OUT"
}

# shards RUN I:OPTIONS...: shards I/N of one CI run at once, each in a clone
# of its own (d1, d2, ...) with its OPTIONS (a "-" for none), waiting at
# most 30 s for an upload; each shard's summary in ../kI.json, its stderr
# in ../keI, its exit status in ../krcI.
shards() {
	local run=$1 n=$(($# - 1)) i=0 opt
	shift
	for opt in "$@"; do
		i=$((i + 1))
		[ "$opt" != - ] || opt=
		clone "$TEST_DIR/d$i" || return 1
		(cd "$TEST_DIR/d$i" && VX_SHARD_RUN=$run "$VX" run build --shard $i/$n -j2 \
			--shard-wait 30 $opt \
			--summarize=../k$i.json >../ko$i 2>../ke$i; echo $? >../krc$i) &
	done
	wait
	for i in $(seq $n); do
		cat ../ke$i
		test "$(cat ../krc$i)" = 0 || return 1
	done
}

test_expect_success 'shards handed different timings build every task between them, and say they split unalike' '
	setup &&
	for p in */; do echo "unalike" >>"${p}src/x.txt"; done &&
	skew ../skew.json &&
	{ owned 1/3 --shard-timings=../skew.json && owned 2/3 && owned 3/3; } | sort -u >../claimed &&
	echo "the shards claim $(wc -l <../claimed) of 40 tasks" &&
	test $(wc -l <../claimed) -lt 40 &&
	{ answered 1/3 --shard-timings=../skew.json && answered 2/3 && answered 3/3; } |
		sort -u >../answered &&
	test $(wc -l <../answered) = 40 &&
	shards unalike --shard-timings=../skew.json - - &&
	for i in 1 2 3; do ids ../k$i.json succeeded; done | sort -u >../ran &&
	test $(wc -l <../ran) = 40 &&
	grep -h "split the graph unlike this one" ../ke? | head -2 &&
	! grep "did not upload it within" ../ke? &&
	clone "$TEST_DIR/c6" && cd "$TEST_DIR/c6" &&
	run_vx 0 run build &&
	test_grep "Tasks: 0 succeeded, 40 cached" "$OUT"
'

test_expect_success 'shards handed the same timings build each task exactly once' '
	setup &&
	for p in */; do echo "alike" >>"${p}src/x.txt"; done &&
	skew ../skew.json &&
	shards alike --shard-timings=../skew.json --shard-timings=../skew.json \
		--shard-timings=../skew.json &&
	for i in 1 2 3; do ids ../k$i.json succeeded; done | sort >../ran &&
	test $(wc -l <../ran) = 40 &&
	test -z "$(uniq -d ../ran)" &&
	! grep "split the graph unlike" ../ke? &&
	clone "$TEST_DIR/c7" && cd "$TEST_DIR/c7" &&
	run_vx 0 run build &&
	test_grep "Tasks: 0 succeeded, 40 cached" "$OUT"
'

test_expect_success 'an upstream its owner never uploads is built here after --shard-wait' '
	setup &&
	for p in l*; do echo "new $p" >$p/src/x.txt; done &&
	run_vx 0 run build --shard 4/4 --shard-wait 3 -j2 --summarize=../s.json &&
	test_grep "waiting up to 3s for its upload" "$ERR" &&
	test_grep "still waiting for [0-9]* uploads from other shards (l.#build, .*): at most [12]s longer" "$ERR" &&
	test_grep "did not upload it within 3s; building it here" "$ERR" &&
	test -z "$(ids ../s.json cached)" &&
	test_grep "^new l" */dist/out.txt
'

# until_said FILE TEXT: waits (at most a minute) for TEXT in FILE.
until_said() {
	local i
	for i in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "never said: $2" && cat "$1"
	return 1
}

# Issue 58 item 4: the waits are asked again on the run's pool, not by a
# loop timer; what they find reaches the loop as one event each.
test_expect_success 'a shard waiting before the other starts takes its uploads when they come' '
	setup &&
	for p in */; do echo "late" >>"${p}src/x.txt"; done &&
	clone "$TEST_DIR/w1" && clone "$TEST_DIR/w2"
	(cd "$TEST_DIR/w2" && VX_SHARD_RUN=late "$VX" run build --shard 2/2 -j2 --shard-wait 120 \
		--summarize=../w2.json >../wo2 2>../we2; echo $? >../wrc2) &
	until_said ../we2 "waiting up to 120s for its upload" &&
	(cd "$TEST_DIR/w1" && VX_SHARD_RUN=late "$VX" run build --shard 1/2 -j2 \
		--summarize=../w1.json >../wo1 2>../we1; echo $? >../wrc1) &&
	wait &&
	cat ../we2 &&
	test "$(cat ../wrc1)" = 0 && test "$(cat ../wrc2)" = 0 &&
	! grep "did not upload it within" ../we1 ../we2 &&
	ids ../w2.json cached >../took &&
	test -s ../took &&
	{ ids ../w1.json succeeded; ids ../w2.json succeeded; } | sort >../ran &&
	test $(wc -l <../ran) = 40 &&
	test -z "$(uniq -d ../ran)"
'

test_expect_success 'a wait of ten minutes ends with the run: ^C, or a failure of its own' '
	setup &&
	for p in */; do echo "never $p" >>"${p}src/x.txt"; done
	# a background job of a script ignores SIGINT unless job control is on
	set -m
	VX_SHARD_RUN=never "$VX" run build --shard 2/2 -j2 --shard-wait 600 >../io 2>../ie &
	vx=$!
	trap "kill $vx 2>/dev/null || :" EXIT
	until_said ../ie "waiting up to 600s for its upload" &&
	kill -INT $vx &&
	rc=0 && wait $vx || rc=$?
	set +m
	cat ../ie &&
	test "$rc" = 130 &&
	! grep "did not upload it within" ../ie &&
	mine=$(owned 2/2 | grep "^l" | head -1) &&
	sed -i "s/DEPS: \"\"/DEPS: \"nope\"/" "${mine%#build}/vx.yaml" &&
	rc=0 && VX_SHARD_RUN=never2 "$VX" run build --shard 2/2 -j2 --shard-wait 600 \
		>../fo 2>../fe || rc=$?
	cat ../fe &&
	test "$rc" = 1 &&
	test_grep "waiting up to 600s for its upload" ../fe &&
	! grep "did not upload it within" ../fe
'

test_expect_success 'without a remote cache a shard warns and builds what it needs' '
	setup &&
	unset VX_REMOTE_CACHE_URL VX_REMOTE_CACHE_TOKEN VX_REMOTE_CACHE_TEAM &&
	run_vx 0 run build --shard 2/4 &&
	test_grep "without a remote cache to read" "$ERR" &&
	! test_grep "waiting up to" "$ERR" &&
	skew ../skew.json &&
	run_vx 0 run build --shard 2/4 --shard-timings=../skew.json --dry-run=json &&
	test_grep "shard-timings is not used without a remote cache to read" "$ERR" &&
	! test_grep "\"answered\":true" "$OUT"
'

test_expect_success 'a bad --shard is an error before anything runs' '
	setup &&
	run_vx 2 run build --shard 5/4 &&
	test_grep "I must be between 1 and 4" "$ERR" &&
	run_vx 2 run build --shard 2 &&
	test_grep "expected I/N" "$ERR" &&
	run_vx 2 watch build --shard 1/2 &&
	test_grep "are for vx run" "$ERR" &&
	test ! -e .vx
'

test_done
