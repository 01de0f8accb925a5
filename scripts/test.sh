#!/usr/bin/env bash
# test.sh - every check vx has, as CI runs it (.ci/run):
#   build/       the normal build: ctest, every label (unit, integration, unsafe)
#   build-asan/  ASan+UBSan (and LeakSanitizer): the unit and integration labels
#   build-fuzz/  clang + libFuzzer: each fuzz_* for VX_FUZZ_SECONDS (default: a
#                budget of 300 s shared by the targets, at least 15 s each)
#   build-release-gcc/, build-release-clang/  Release builds of vx, which
#                must compile warning-free at -O2 with both compilers
# Every build is -DVX_WERROR=ON: warnings are errors here, not for users.
# Runs every suite even after one fails, then prints "N passed, N failed"
# over all of them and exits 1 when anything failed.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD

fuzz_seconds=${VX_FUZZ_SECONDS:-}
jobs=$(nproc)
# ctest runs tests one at a time unless told: the integration and unsafe tests
# spawn whole task graphs, and shared CI runners have few cores.
ctest_jobs=${VX_TEST_JOBS:-1}

# On CI a sandbox that cannot start must fail the unsafe tests, not skip them:
# a runner without user namespaces would otherwise pass by testing nothing.
if [ "${CI:-}" = true ]; then
	export VX_REQUIRE_SANDBOX=1
fi

passed=0
failed=0
failures=()

note_failure() {
	failed=$((failed + 1))
	failures+=("$1")
}

# Runs ctest in dir with the given arguments, adds its counts to the totals.
# ctest's summary line is "NN% tests passed, F tests failed out of T".
run_ctest() {
	local what=$1 dir=$2
	shift 2
	local log="$dir/ctest-summary.log" status=0
	echo "== ctest: $what"
	(cd "$dir" && ctest --output-on-failure -j"$ctest_jobs" "$@") 2>&1 | tee "$log" || status=$?
	local line total nfail=0
	line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		nfail=$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")
		total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
		passed=$((passed + total - nfail))
		failed=$((failed + nfail))
		if [ "$nfail" -gt 0 ]; then
			failures+=("$what: $nfail test(s)")
		fi
	fi
	# A ctest that failed without failing a test (no tests found under
	# --no-tests=error, a crash of ctest itself) still fails the run.
	if [ "$status" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		note_failure "$what: ctest exited $status"
	fi
}

# Configures and builds dir (the arguments after --target name what to
# build, else everything); returns non-zero (and records it) on failure so
# the caller skips that build's tests.
build_tree() {
	local dir=$1 configure=() targets=()
	shift
	while [ $# -gt 0 ]; do
		if [ "$1" = --target ]; then
			shift
			targets=(--target "$@")
			break
		fi
		configure+=("$1")
		shift
	done
	echo "== build: $dir ${configure[*]} ${targets[*]}"
	if cmake -S . -B "$dir" "${configure[@]}" && cmake --build "$dir" -j"$jobs" "${targets[@]}"; then
		return 0
	fi
	note_failure "build $dir"
	return 1
}

bash scripts/install-deps.sh

# The install tests' clean Debian roots (t0510, t0520, t0530, and
# release.sh's sysroot) each start from a debootstrap of their suite:
# minutes apiece on a fresh machine, where they made CI's run about 11
# minutes longer. Their bases are made now, in the background, while vx
# builds and the other tests run; a test that needs one before it is
# ready waits for it (debian-root.sh locks each), and one the background
# could not make is made again, and fails, where the test asks for it.
if [ "$(id -u)" = 0 ] && command -v debootstrap >/dev/null && command -v bwrap >/dev/null; then
	mkdir -p build
	bash scripts/debian-root.sh base bullseye bookworm trixie >build/roots-base.log 2>&1 &
fi

if build_tree build -DVX_WERROR=ON; then
	run_ctest "build (all labels)" build
fi

if build_tree build-asan -DVX_WERROR=ON -DVX_SANITIZE=ON; then
	run_ctest "build-asan (unit, integration)" build-asan -L "unit|integration"
fi

# CC alone is ignored once a build tree has cached its compiler, so name it.
# A Release build is what a packager makes (issue 39: GCC 12 at -O2 found
# what -O1 did not); vx and its helper are enough to see every warning.
for cc in gcc clang; do
	if build_tree build-release-$cc -DVX_WERROR=ON -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_COMPILER=$cc --target vx vx-sandbox-init; then
		passed=$((passed + 1))
	fi
done

if CC=clang build_tree build-fuzz -DVX_WERROR=ON -DVX_FUZZ=ON -DCMAKE_C_COMPILER=clang; then
	# The targets are the sources, not whatever binaries build-fuzz holds:
	# a fuzzer whose source was removed must not keep running (or failing).
	shopt -s nullglob
	fuzzers=()
	for src in tests/fuzz/fuzz_*.c; do
		f="build-fuzz/$(basename "$src" .c)"
		if [ -x "$f" ]; then
			fuzzers+=("$f")
		else
			echo "fuzz: $src built no $f"
			note_failure "fuzz $(basename "$src" .c): not built"
		fi
	done
	shopt -u nullglob
	if [ ${#fuzzers[@]} -eq 0 ]; then
		echo "== fuzz: no fuzz_* targets in tests/fuzz"
	fi
	# One budget for the whole search, so a new target does not lengthen
	# CI past its 15 minutes (the replays above come first, in full).
	if [ -z "$fuzz_seconds" ]; then
		fuzz_seconds=$((300 / (${#fuzzers[@]} > 0 ? ${#fuzzers[@]} : 1)))
		[ "$fuzz_seconds" -ge 15 ] || fuzz_seconds=15
	fi
	for f in "${fuzzers[@]}"; do
		name=$(basename "$f")
		corpus="build-fuzz/corpus/$name"
		artifacts="build-fuzz/artifacts/$name"
		mkdir -p "$corpus" "$artifacts"
		# A committed seed corpus, when there is one, is read but never
		# written: new inputs go to the first directory only.
		seeds=()
		if [ -d "tests/fuzz/corpus/$name" ]; then
			seeds+=("tests/fuzz/corpus/$name")
		fi
		dict=()
		if [ -f "tests/fuzz/$name.dict" ]; then
			dict+=("-dict=tests/fuzz/$name.dict")
		fi
		# Replay first, deterministically: every committed seed and every
		# finding in ../shared/findings named after this fuzzer. An old
		# finding then fails the same way on every run, never at random
		# in the middle of a timed search.
		replay=()
		if [ -d "tests/fuzz/corpus/$name" ]; then
			while IFS= read -r -d '' seed; do replay+=("$seed"); done \
				< <(find "tests/fuzz/corpus/$name" -type f -print0)
		fi
		for finding in ../shared/findings/"$name"-* ../shared/findings/"$name".*; do
			[ -f "$finding" ] && replay+=("$finding")
		done
		if [ ${#replay[@]} -gt 0 ]; then
			echo "== fuzz: $name replays ${#replay[@]} committed inputs"
			if ! timeout 300 "$f" -timeout=25 -rss_limit_mb=2048 "${replay[@]}" \
				>"build-fuzz/$name.replay.log" 2>&1; then
				tail -n 40 "build-fuzz/$name.replay.log"
				note_failure "fuzz $name: replay of a committed input"
				continue
			fi
			passed=$((passed + 1))
		fi
		echo "== fuzz: $name for ${fuzz_seconds}s"
		log="build-fuzz/$name.log"
		# The outer timeout only catches a fuzzer that ignores its own
		# clock; a slow input is already a failure through -timeout.
		if timeout $((fuzz_seconds + 120)) "$f" -max_total_time="$fuzz_seconds" \
			-timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$artifacts/" "${dict[@]}" \
			"$corpus" "${seeds[@]}" >"$log" 2>&1; then
			passed=$((passed + 1))
			grep -E '^stat::number_of_executed_units' "$log" || true
		else
			tail -n 60 "$log"
			echo "fuzz: $name failed; crashing inputs in $root/$artifacts, full log $root/$log"
			note_failure "fuzz $name"
		fi
	done
fi

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
