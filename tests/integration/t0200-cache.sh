#!/bin/bash
# The local cache as a user meets it (SPEC §6): hits restore and replay,
# changes miss exactly what they should, failures are never saved, a damaged
# entry is rebuilt, two runs at once agree, prune evicts to a size.
. "$(dirname "$0")/lib.sh"

# lib -> app; each build counts its runs in runs-<name> and writes dist/.
setup() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	ws_project lib lib <<-'EOF'
	  build:
	    command: 'echo run >> ../runs-lib; mkdir -p dist/empty; cat src/*.txt > dist/lib.txt; ln -sf lib.txt dist/link; chmod 755 dist/lib.txt; echo "lib says hi"'
	EOF
	ws_project app app lib <<-'EOF'
	  build:
	    command: 'echo run >> ../runs-app; mkdir -p dist; cat ../lib/dist/lib.txt src/*.txt > dist/app.txt; echo "app built"'
	    inputs:
	      env: [APP_MODE]
	EOF
	write_file lib/src/a.txt <<<"lib a"
	write_file app/src/main.txt <<<"app main"
}
runs() { if [ -f "runs-$1" ]; then wc -l <"runs-$1" | tr -d ' '; else echo 0; fi; }

test_expect_success 'a second run replays every task without running it' '
	setup &&
	run_vx 0 run build -j1 &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 1 && test "$(runs app)" = 1 &&
	test_grep "lib#build: cache hit, replaying output" "$OUT" &&
	test_grep "lib#build: lib says hi" "$OUT" &&
	test_grep "app#build: app built" "$OUT"
'

test_expect_success 'a hit restores deleted outputs exactly: content, mode, symlink, empty dir' '
	setup &&
	run_vx 0 run build -j1 &&
	cp lib/dist/lib.txt expect &&
	rm -rf lib/dist app/dist &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 1 &&
	test_cmp expect lib/dist/lib.txt &&
	test "$(stat -c %a lib/dist/lib.txt)" = 755 &&
	test "$(readlink lib/dist/link)" = lib.txt &&
	test -d lib/dist/empty &&
	test_path_is_file app/dist/app.txt
'

test_expect_success 'an input change misses that task and its dependents only' '
	setup &&
	run_vx 0 run build -j1 &&
	echo "more" >>app/src/main.txt &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 1 && test "$(runs app)" = 2 &&
	echo "lib b" >lib/src/b.txt &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 2 && test "$(runs app)" = 3
'

test_expect_success 'an env input: set, changed and unset each miss; the same value hits' '
	setup &&
	run_vx 0 run build -j1 &&
	APP_MODE=a run_vx 0 run build -j1 &&
	test "$(runs app)" = 2 &&
	APP_MODE=a run_vx 0 run build -j1 &&
	test "$(runs app)" = 2 &&
	APP_MODE= run_vx 0 run build -j1 &&
	test "$(runs app)" = 3 &&
	test "$(runs lib)" = 1
'

test_expect_success '-v names what changed since the last run' '
	setup &&
	run_vx 0 run build -j1 &&
	echo "more" >>lib/src/a.txt &&
	run_vx 0 run build -j1 -v &&
	test_grep "lib#build: cache miss since [0-9a-f]*: lib/src/a.txt changed" "$ERR" &&
	test_grep "app#build: cache miss since [0-9a-f]*: dependency lib#build changed" "$ERR" &&
	echo "again" >>lib/src/a.txt &&
	run_vx 0 run build --dry-run -v &&
	test_grep "lib#build: cache miss since [0-9a-f]*: lib/src/a.txt changed" "$ERR" &&
	test "$(runs lib)" = 2
'

test_expect_success 'a failing task is not saved' '
	setup &&
	ws_project lib lib <<-'\''EOF'\'' &&
	  build:
	    command: "echo run >> ../runs-lib; mkdir -p dist; echo x > dist/lib.txt; exit 3"
	EOF
	run_vx 1 run build -j1 &&
	run_vx 1 run build -j1 &&
	test "$(runs lib)" = 2
'

test_expect_success '--force runs and saves; --no-cache neither reads nor writes' '
	setup &&
	run_vx 0 run build -j1 --no-cache &&
	test_path_is_missing .vx/cache &&
	run_vx 0 run build -j1 --force &&
	test "$(runs lib)" = 2 &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 2 &&
	run_vx 0 run build -j1 --force &&
	test "$(runs lib)" = 3
'

test_expect_success 'cache: false and --dry-run: never cached; a dry run runs and writes nothing' '
	setup &&
	run_vx 0 run build --dry-run &&
	test_grep "lib#build: would run  key [0-9a-f]\{32\}  cache miss" "$OUT" &&
	test_path_is_missing .vx &&
	test "$(runs lib)" = 0 &&
	run_vx 0 run build -j1 &&
	run_vx 0 run build --dry-run=json &&
	test_grep "\"cache\":\"hit\"" "$OUT" &&
	ws_project lib lib <<-'\''EOF'\'' &&
	  build:
	    command: "echo run >> ../runs-lib"
	    cache: false
	EOF
	run_vx 0 run build -j1 && run_vx 0 run build -j1 &&
	test "$(runs lib)" = 3
'

# Entries are saved off the run's loop (cache/saver.c); a dependent still
# starts only once its dependency's outputs are archived, so what it does
# to them cannot leak into the dependency's entry.
setup_rewriter() {
	ws_root <<-'EOF'
	tasks:
	  build:
	    dependsOn: ["^build"]
	    outputs: ["dist/**"]
	EOF
	ws_project lib lib <<-'EOF'
	  build:
	    command: 'mkdir -p dist; head -c 40000000 /dev/urandom > dist/big; cksum < dist/big > ../lib-sum'
	EOF
	ws_project app app lib <<-'EOF'
	  build:
	    command: 'head -c 40000000 /dev/zero | tr "\\0" x 1<> ../lib/dist/big'
	    cache: false
	EOF
}

test_expect_success 'a dependent that rewrites its dependency'"'"'s output cannot change the saved entry' '
	setup_rewriter &&
	run_vx 0 run build -j2 &&
	cksum < lib/dist/big > rewritten-sum &&
	! cmp -s lib-sum rewritten-sum &&
	rm -rf lib/dist &&
	run_vx 0 run lib#build &&
	test_grep "lib#build: cache hit" "$OUT" &&
	cksum < lib/dist/big > restored-sum &&
	test_cmp lib-sum restored-sum
'

test_expect_success 'a damaged entry is one warning, a rebuild and a replacement' '
	setup &&
	run_vx 0 run build -j1 &&
	for f in .vx/cache/*/*.tar.zst; do printf "garbage" | dd of="$f" bs=1 seek=20 conv=notrunc 2>/dev/null; done &&
	rm -rf lib/dist &&
	run_vx 0 run build -j1 &&
	test_grep "warning: lib#build: cache entry [0-9a-f]* is damaged" "$ERR" &&
	test "$(runs lib)" = 2 &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 2 &&
	test_grep ! "damaged" "$ERR"
'

test_expect_success 'two runs at once both succeed and leave entries that hit' '
	setup &&
	for i in 1 2 3 4 5 6; do
		ws_project "p$i" "p$i" lib <<-EOF
		  build:
		    command: "mkdir -p dist; echo $i > dist/out.txt; sleep 0.1"
		EOF
	done &&
	{ "$VX" run build -j2 >out1 2>&1 & p1=$!; } &&
	{ "$VX" run build -j2 >out2 2>&1 & p2=$!; } &&
	rc1=0 && rc2=0 &&
	{ wait $p1 || rc1=$?; } && { wait $p2 || rc2=$?; } &&
	test "$rc1" = 0 && test "$rc2" = 0 &&
	run_vx 0 run build -j2 &&
	test "$(grep -c "cache hit" "$OUT")" = 8 &&
	test_path_is_missing .vx/cache/*/.tmp-*
'

# After a prune the outputs still in place may answer a hit without their
# entry (cache/inplace.h), so the prune check deletes them first; a clean
# forgets them too.
test_expect_success 'vx cache stats, prune to a size, clean' '
	setup &&
	run_vx 0 run build -j1 &&
	run_vx 0 run build -j1 &&
	run_vx 0 cache stats &&
	test_grep "^entries: 2$" "$OUT" &&
	test_grep "hit rate, last 2 runs: 50% (2 of 4 cacheable tasks)" "$OUT" &&
	run_vx 0 cache prune --max-size 1 &&
	test_grep "evicted 2 entries" "$OUT" &&
	run_vx 0 cache stats &&
	test_grep "^entries: 0$" "$OUT" &&
	rm -rf lib/dist app/dist &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 2 &&
	find . -exec touch -h -d "-30 seconds" {} + && run_vx 0 run build -j1 &&
	test_path_is_file .vx/cache/listings && test_path_is_file .vx/cache/configs &&
	run_vx 0 cache clean &&
	test_path_is_missing .vx/cache/listings && test_path_is_missing .vx/cache/configs &&
	test_path_is_missing .vx/cache/statcache &&
	run_vx 0 cache stats &&
	test_grep "^entries: 0$" "$OUT" &&
	run_vx 0 run build -j1 &&
	test "$(runs lib)" = 3
'

test_expect_success 'VX_CACHE_DIR moves the cache; a config error touches neither cache nor workspace' '
	setup &&
	VX_CACHE_DIR=$TEST_DIR/elsewhere run_vx 0 run build -j1 &&
	test_path_is_missing .vx/cache &&
	test -d "$TEST_DIR/elsewhere" &&
	echo "  oops: [" >>app/vx.yaml &&
	run_vx 2 run build -j1 &&
	test_path_is_missing .vx &&
	test "$(runs lib)" = 1
'

test_expect_success '--summarize writes the run: keys, inputs with hashes, cache status, exit codes' '
	setup &&
	run_vx 0 run build -j1 --summarize=sum.json &&
	test_grep "\"id\":.*\"lib#build\"" sum.json &&
	test_grep "\"src/a.txt\":.*\"[0-9a-f]\{32\}\"" sum.json &&
	test_grep "\"cacheStatus\":.*\"miss\"" sum.json &&
	test_grep "\"exitCode\":.*0" sum.json
'

test_expect_success 'a task'"'"'s outputs are never its inputs, whatever the globs say (files: ["**", ".env*"])' '
	ws_root </dev/null &&
	ws_project web web <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p .next && date +%s%N > .next/BUILD_ID && echo run >> ../runs-web"
	    inputs:
	      files: ["**", ".env*"]
	      workspaceFiles: ["web/**"]
	    outputs: [".next/**"]
	EOF
	echo x >web/page.js &&
	run_vx 0 run web#build &&
	run_vx 0 run web#build -v &&
	test_grep "web#build: cache hit" "$OUT" &&
	test "$(runs web)" = 1
'

test_expect_success 'default inputs: an output directory is not read, but a file "!" takes back is an input' '
	ws_root </dev/null &&
	ws_project web web <<-'\''EOF'\'' &&
	  build:
	    command: "mkdir -p dist/sub && echo out > dist/sub/o.txt && echo run >> ../runs-web"
	    outputs: ["dist/**", "!dist/keep.txt"]
	EOF
	echo x >web/page.js &&
	mkdir -p web/dist && echo kept >web/dist/keep.txt &&
	run_vx 0 run web#build &&
	run_vx 0 run web#build &&
	test "$(runs web)" = 1 &&
	echo other >web/dist/sub/o.txt &&
	run_vx 0 run web#build &&
	test "$(runs web)" = 1 &&
	echo changed >web/dist/keep.txt &&
	run_vx 0 run web#build &&
	test "$(runs web)" = 2
'

test_expect_success 'outside git, kept directory listings never answer stale: a file added (removed: the first key again), deep, renamed, a dir made a link' '
	ws_root </dev/null &&
	ws_project web web <<-'\''EOF'\'' &&
	  build:
	    command: "echo run >> ../runs-web"
	EOF
	mkdir -p web/src/deep/er elsewhere &&
	echo a >web/src/a.js &&
	run_vx 0 run web#build &&
	test_path_is_file .vx/cache/listings &&
	run_vx 0 run web#build && test "$(runs web)" = 1 &&
	echo new >web/src/new.js &&
	run_vx 0 run web#build && test "$(runs web)" = 2 &&
	run_vx 0 run web#build && test "$(runs web)" = 2 &&
	rm web/src/new.js &&
	run_vx 0 run web#build && test_grep "cache hit" "$OUT" && test "$(runs web)" = 2 &&
	echo deep >web/src/deep/er/x.js &&
	run_vx 0 run web#build && test "$(runs web)" = 3 &&
	mv web/src/deep/er/x.js web/src/deep/er/y.js &&
	run_vx 0 run web#build && test "$(runs web)" = 4 &&
	cp -r web/src/. elsewhere/ && rm -rf web/src && ln -s ../elsewhere web/src &&
	run_vx 0 run web#build -v && test "$(runs web)" = 5 &&
	test_grep "web/src/a.js removed" "$ERR"
'

test_expect_success 'a link to a directory is an input as git keys it (its text): pointed elsewhere, the task misses; back, it hits' '
	ws_root </dev/null &&
	ws_project web web <<-'\''EOF'\'' &&
	  build:
	    command: "echo run >> ../runs-web; cat conf/x > out.txt"
	    outputs: ["out.txt"]
	EOF
	mkdir -p web/confA web/confB &&
	echo A >web/confA/x && echo B >web/confB/x &&
	ln -s confA web/conf &&
	run_vx 0 run web#build && test "$(runs web)" = 1 &&
	rm web/conf && ln -s confB web/conf &&
	run_vx 0 run web#build -v && test "$(runs web)" = 2 &&
	test_grep "web/conf changed" "$ERR" &&
	test "$(cat web/out.txt)" = B &&
	rm web/conf && ln -s confA web/conf &&
	run_vx 0 run web#build && test "$(runs web)" = 2 &&
	test "$(cat web/out.txt)" = A
'

test_expect_success 'a link to a directory and a dangling link among the outputs are saved and restored as links' '
	ws_root </dev/null &&
	ws_project web web <<-'\''EOF'\'' &&
	  build:
	    command: "echo run >> ../runs-web; mkdir -p dist/v2; echo two > dist/v2/a.js; ln -sfn v2 dist/latest; ln -sfn missing.js dist/gone"
	    outputs: ["dist/**"]
	EOF
	run_vx 0 run web#build && test "$(runs web)" = 1 &&
	rm -rf web/dist &&
	run_vx 0 run web#build && test "$(runs web)" = 1 &&
	test "$(readlink web/dist/latest)" = v2 &&
	test "$(readlink web/dist/gone)" = missing.js &&
	test "$(cat web/dist/latest/a.js)" = two
'

# Sets every file and directory under the arguments 30 seconds back, so the
# kept reads keep what the next run reads (nothing is kept in the second a
# file last changed: the racy rule).
age() { find "$@" -exec touch -h -d "-30 seconds" {} +; }

test_expect_success 'kept config reads never answer stale: a config edited, added, a package turbo.json added, a project added and removed by a glob, a config and a project dir made links' '
	printf "{\"name\":\"r\",\"private\":true,\"workspaces\":[\"packages/*\"]}\n" >package.json &&
	printf "{\"tasks\":{\"build\":{\"outputs\":[]}}}\n" >turbo.json &&
	ws_project packages/a a <<-EOF &&
	  build:
	    command: "echo a-one"
	EOF
	mkdir -p packages/b &&
	printf "{\"name\":\"b\",\"scripts\":{\"build\":\"echo b-one\"}}\n" >packages/b/package.json &&
	run_vx 0 run build && age . &&
	run_vx 0 run build && test_grep "echo a-one" .vx/cache/configs &&
	run_vx 0 run build --force && test_grep "a-one" "$OUT" && test_grep "b-one" "$OUT" &&
	sed -i "s/a-one/a-two/" packages/a/vx.yaml && age packages &&
	run_vx 0 run build && test_grep "a-two" "$OUT" &&
	printf "tasks:\n  build:\n    command: \"echo b-yaml\"\n" >packages/b/vx.yaml && age packages &&
	run_vx 0 run build && test_grep "b-yaml" "$OUT" &&
	rm packages/b/vx.yaml && age packages &&
	run_vx 0 run build --force && test_grep "b-one" "$OUT" &&
	printf "{\"extends\":[\"//\"],\"tasks\":{\"build\":{\"env\":[\"KEPT_READS_VAR\"]}}}\n" >packages/b/turbo.json && age packages &&
	run_vx 0 run build --dry-run=json && test_grep "KEPT_READS_VAR" "$OUT" &&
	ws_project packages/c c <<-EOF &&
	  build:
	    command: "echo c-one"
	EOF
	age packages &&
	run_vx 0 run build && test_grep "c-one" "$OUT" &&
	rm -rf packages/c && age packages &&
	run_vx 0 run build --force && test_grep ! "c-one" "$OUT" &&
	mkdir -p elsewhere && printf "tasks:\n  build:\n    command: \"echo a-linked\"\n" >elsewhere/vx.yaml &&
	rm packages/a/vx.yaml && ln -s ../../elsewhere/vx.yaml packages/a/vx.yaml && age . &&
	run_vx 0 run build && test_grep "a-linked" "$OUT" &&
	mv packages/a gone-a && ln -s ../gone-a packages/a && age . &&
	run_vx 0 run build --force && test_grep ! "a#build" "$OUT"
'

test_expect_success 'a dry run closes no descriptor it does not hold (it closed fd 0 once per task)' '
	setup &&
	run_vx 0 run build -j1 &&
	if ! command -v strace >/dev/null && [ "${CI:-}" != true ]; then
		echo "# skipped: strace is not installed (scripts/install-deps.sh installs it)"
	else
		# (LeakSanitizer cannot run under ptrace: the ASan build says so)
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -e trace=close -e status=failed -o close.log "$VX" run build --dry-run \
			</dev/null >/dev/null 2>&1 &&
		test_grep ! "EBADF" close.log
	fi
'

# A stand-in toolchain on PATH: "tool" a script run by "fakenode" through
# "#!/usr/bin/env fakenode", as tsc is run by node.
toolchain_setup() {
	mkdir -p "$TEST_TMP/bin" &&
	printf '#!/bin/sh\nshift 0; exec sh "$@"\n# v1\n' >"$TEST_TMP/bin/fakenode" &&
	printf '#!/usr/bin/env fakenode\necho tool ran\n# v1\n' >"$TEST_TMP/bin/tool" &&
	chmod +x "$TEST_TMP/bin/fakenode" "$TEST_TMP/bin/tool" &&
	ws_root <<-'EOF' &&
	tasks:
	  build:
	    command: 'FLAG=1 tool --fast'
	  check:
	    command: 'echo checked'
	    inputs:
	      toolchain: [fakenode]
	EOF
	ws_project lib lib <<-'EOF'
	  other:
	    command: 'cd . && echo builtin first'
	EOF
	write_file lib/src/a.txt <<<"lib a"
}

test_expect_success 'the toolchain is keyed: a changed program or its #! interpreter misses, -v names it' '
	toolchain_setup &&
	export PATH="$TEST_TMP/bin:$PATH" &&
	run_vx 0 run build check &&
	test_grep "lib#build: tool ran" "$OUT" &&
	run_vx 0 run build check &&
	test_grep "Tasks: 0 succeeded, 2 cached" "$OUT" &&
	sed -i "s/# v1/# v2/" "$TEST_TMP/bin/fakenode" &&
	run_vx 0 run build check -v &&
	test_grep "Tasks: 2 succeeded" "$OUT" &&
	test_grep "lib#build: cache miss since [0-9a-f]*: toolchain $TEST_TMP/bin/fakenode changed" "$ERR" &&
	sed -i "s/# v1/# v2/" "$TEST_TMP/bin/tool" &&
	run_vx 0 run build check -v &&
	test_grep "Tasks: 1 succeeded, 1 cached" "$OUT" &&
	test_grep "lib#build: cache miss since [0-9a-f]*: toolchain $TEST_TMP/bin/tool changed" "$ERR" &&
	run_vx 0 run --explain-key lib#build &&
	test_grep "^lib#build: key [0-9a-f]\{32\}$" "$OUT" &&
	test_grep "^  toolchain $TEST_TMP/bin/tool  *[0-9a-f]\{32\}$" "$OUT" &&
	test_grep "^  toolchain $TEST_TMP/bin/fakenode  *[0-9a-f]\{32\}$" "$OUT" &&
	test_grep "^  file lib/src/a.txt  *[0-9a-f]\{32\}$" "$OUT" &&
	test_grep "^  command  *[0-9a-f]\{32\}$" "$OUT" &&
	run_vx 2 run --explain-key lib#nothing &&
	run_vx 0 run other &&
	run_vx 0 run other &&
	test_grep "Tasks: 0 succeeded, 1 cached" "$OUT"
'

# Issue 39, item 2: a kept record of the cache that is a link to
# /dev/zero read until 3.5 GB and "out of memory"; a FIFO hung vx. Each is
# refused (it is no regular file), costs its speed only, and the run is
# right; the time is bounded by a timeout, the memory by the child's RSS.
test_expect_success 'a cache record that is a FIFO or /dev/zero costs speed, not memory or a hang' '
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["out.txt"]
	EOF
	ws_project a a <<-'\''EOF'\'' &&
	  build: {command: "echo a > out.txt"}
	EOF
	run_vx 0 run build &&
	for f in statcache listings configs inplace ignores runs.log; do
		rm -f .vx/cache/$f && ln -s /dev/zero .vx/cache/$f || return 1
	done &&
	rm -f .vx/cache/.lockfile-closures && mkfifo .vx/cache/lockfile-closures &&
	rm a/out.txt &&
	python3 -c "import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=open(\"$OUT\", \"w\"), stderr=open(\"$ERR\", \"w\"), stdin=subprocess.DEVNULL, timeout=60)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(\"exit\", r.returncode, \"rss\", rss, \"KiB\")
sys.exit(0 if r.returncode == 0 and rss < 400 * 1024 else 1)" "$VX" run build &&
	test_grep "a#build: cache hit" "$OUT" &&
	test "$(cat a/out.txt)" = a &&
	test_grep "warning: cannot read stat cache .*/statcache: it is not a regular file; hashing every input" "$ERR" &&
	run_vx 0 cache stats
'

# Issue 39, item 8: a workspace ~4000 characters deep never cached: every
# save met "File name too long" (the entry's temporary file, the records,
# the workspace lock all took the workspace's absolute path past PATH_MAX).
test_expect_success 'a workspace 4080 characters deep caches, and says nothing' '
	deep=$(pwd -P) &&
	while [ ${#deep} -lt 3880 ]; do deep=$deep/$(printf "%0200d" 0); done &&
	deep=$deep/$(printf "%0$((4079 - ${#deep}))d" 0) &&
	test ${#deep} = 4080 &&
	mkdir -p "$deep" && cd "$deep" &&
	ws_root <<-'\''EOF'\'' &&
	tasks:
	  build:
	    outputs: ["out.txt"]
	EOF
	ws_project a a <<-'\''EOF'\'' &&
	  build: {command: "echo deep > out.txt"}
	EOF
	run_vx 0 run build &&
	test ! -s "$ERR" &&
	rm a/out.txt &&
	run_vx 0 run build &&
	test_grep "a#build: cache hit" "$OUT" &&
	test "$(cat a/out.txt)" = deep &&
	test ! -s "$ERR" &&
	test -s .vx/cache/statcache && test -s .vx/cache/runs.log && test -s .vx/cache/inplace
'

test_done
