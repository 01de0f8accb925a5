#!/bin/bash
# vx's list of a git work tree's files against git's own. vx asks git for
# the tracked files only, walks for the untracked ones and asks `git
# check-ignore` about them, keeping the answers while the rules are
# unchanged (keys/listing.c, ignores.c; issue 20). Here random trees
# with random .gitignore files, info/exclude and core.excludesFile are
# listed by both after every random change, twice: once right after the
# change (the answers asked afresh) and once more with nothing changed,
# which must ask git nothing (the kept answers, checked by strace). A kept
# answer trusted after its rule changed shows as a difference.
. "$(dirname "$0")/lib.sh"

# The kept runs are checked to ask git nothing with strace; where strace
# cannot trace, the lists are still compared (never so in CI).
if strace -f -q -e trace=execve -o /dev/null true 2>/dev/null; then
	traced=1
elif [ "${VX_REQUIRE_SANDBOX:-0}" = 1 ]; then
	echo "not ok - strace cannot run here, and VX_REQUIRE_SANDBOX=1"
	echo "0 passed, 1 failed"
	exit 1
else
	traced=0
	echo "# strace cannot run here: the kept runs' asking nothing of git goes unchecked"
fi

# The root task's default inputs are every file of the root project.
setup() {
	write_file vx.yaml <<-'EOF'
	workspace:
	  projects: []
	tasks:
	  "//#build":
	    command: "true"
	EOF
	git init -q .
}

# vx's list, NUL-separated and sorted, into $1.
vx_list() {
	"$VX" run //#build --dry-run=json >"$TEST_DIR/json" 2>"$TEST_DIR/err" || {
		cat "$TEST_DIR/err"
		return 1
	}
	jq -j '.tasks[0].inputFiles[] + "\u0000"' "$TEST_DIR/json" | sort -z >"$1"
}

# git's list of what vx keys: no path through .git, node_modules or .vx.
git_list() {
	git ls-files -z --cached --others --exclude-standard |
		grep -zv -e '^\.vx/' -e '/\.vx/' -e '^node_modules/' -e '/node_modules/' |
		sort -zu | while IFS= read -r -d "" f; do
		# a tracked file deleted on disk is listed, and keys as gone
		if [ -e "$f" ] || [ -L "$f" ]; then printf "%s\0" "$f"; fi
	done >"$1"
}

same_lists() {
	vx_list "$TEST_DIR/vx.list" && git_list "$TEST_DIR/git.list" &&
		if ! cmp -s "$TEST_DIR/git.list" "$TEST_DIR/vx.list"; then
			echo "vx and git list different files ($1):"
			diff <(tr '\0' '\n' <"$TEST_DIR/git.list") <(tr '\0' '\n' <"$TEST_DIR/vx.list")
			return 1
		fi
}

# Sets back the times of everything changed in the last seconds, so that
# the kept listings and answers of the next run are trusted (the racy
# rule distrusts a file changed in the second it was looked at).
age() {
	local now old
	now=$(date +%s)
	old=$((now - 20))
	find "$TEST_TMP" \( -name .vx -o -path "*/.git/objects" \) -prune -o \
		-newermt "@$((now - 3))" -exec touch -h -d "@$old" {} + 2>/dev/null || true
}

# Lists after a change (the answers kept before it, those its rules
# dropped asked afresh; in a fresh clone, git's own walk), then runs the
# task twice (the first run of a cache lets git walk; the second walks and
# keeps what it was told), and lists again with nothing changed: that must
# ask git nothing.
check() {
	age &&
		same_lists "$1, right after" &&
		"$VX" run //#build >/dev/null 2>&1 &&
		"$VX" run //#build >/dev/null 2>&1 &&
		: >"$TEST_DIR/trace" &&
		if [ "$traced" = 1 ]; then
			# (LeakSanitizer cannot run under ptrace: off for this run)
			ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
				strace -f -qq -e trace=execve -o "$TEST_DIR/trace" \
				"$VX" run //#build --dry-run=json >/dev/null 2>&1
		fi &&
		if grep -q 'check-ignore' "$TEST_DIR/trace"; then
			echo "nothing changed, yet git was asked again ($1)"
			return 1
		fi &&
		same_lists "$1, kept"
}

test_expect_success 'fixed cases: nested ignores, negation, a tracked file in an ignored directory, links, odd names' '
	setup &&
	mkdir -p src/deep/er build logs sub "odd dir" &&
	printf "%s\n" "*.log" "!keep.log" "build/" "/top-only" "**/tmp" "\\#lit" > .gitignore &&
	printf "%s\n" "*.gen" "!deep/" > src/.gitignore &&
	echo a >src/a.ts && echo b >src/b.log && echo k >src/keep.log && echo g >src/deep/x.gen &&
	echo t >top-only && echo t >src/top-only && echo h >"#lit" &&
	mkdir -p src/deep/er/tmp && echo x >src/deep/er/tmp/f && echo y >src/deep/er/f &&
	echo forced >build/forced.txt && git add -f build/forced.txt && echo u >build/untracked.txt &&
	ln -s src link-to-dir && ln -s nowhere dangling && ln -s src/a.ts link-to-file &&
	mkfifo a-fifo &&
	printf "x\n" >"odd dir/sp ace" && printf "x\n" >"$(printf "odd dir/new\nline")" &&
	mkdir -p node_modules/pkg && echo m >node_modules/pkg/index.js &&
	mkdir -p empty/inner &&
	git add .gitignore src/a.ts &&
	check "fixed tree"
'

test_expect_success 'rules outside the tree: info/exclude, core.excludesFile, the default global file' '
	setup &&
	mkdir -p a b c &&
	echo 1 >a/x.one && echo 2 >b/x.two && echo 3 >c/x.three && echo 4 >c/x.four &&
	check "no rules" &&
	echo "*.one" >.git/info/exclude &&
	check "info/exclude" &&
	mkdir -p "$HOME/.config/git" && echo "*.two" >"$HOME/.config/git/ignore" &&
	check "the default global file" &&
	echo "*.three" >"$TEST_DIR/excl" &&
	git config core.excludesFile "$TEST_DIR/excl" &&
	check "core.excludesFile set" &&
	echo "*.four" >>"$TEST_DIR/excl" &&
	check "core.excludesFile edited" &&
	printf "[include]\n\tpath = %s\n" "$TEST_DIR/inc" >>"$HOME/.gitconfig" &&
	printf "[core]\n\texcludesFile = %s\n" "$HOME/.config/git/ignore" >"$TEST_DIR/inc" &&
	check "an included config file names another" &&
	git config --unset core.excludesFile &&
	check "the local setting gone: the included one rules" &&
	: >.git/info/exclude &&
	check "info/exclude emptied"
'

test_expect_success 'other repositories inside: a submodule and a clone never added are walked whole, by git'"'"'s walk and by vx'"'"'s' '
	setup &&
	git init -q "$TEST_DIR/upstream" &&
	echo s >"$TEST_DIR/upstream/s.txt" && echo "*.txt" >"$TEST_DIR/upstream/.gitignore" &&
	git -C "$TEST_DIR/upstream" add -A && git -C "$TEST_DIR/upstream" add -f s.txt &&
	git -C "$TEST_DIR/upstream" commit -qm up &&
	git -c protocol.file.allow=always submodule add -q "$TEST_DIR/upstream" sm &&
	echo l >sm/local.txt &&
	mkdir nested && git -C nested init -q && echo n >nested/n.txt &&
	mkdir -p nested/node_modules/x && echo m >nested/node_modules/x/i &&
	echo o >outer.txt &&
	age &&
	printf "%s\0" .gitmodules nested/n.txt outer.txt sm/.gitignore sm/local.txt sm/s.txt vx.yaml |
		sort -z >"$TEST_DIR/expect" &&
	for run in "fresh clone" "first kept" "kept"; do
		vx_list "$TEST_DIR/actual" &&
		if ! cmp -s "$TEST_DIR/expect" "$TEST_DIR/actual"; then
			echo "$run:" && tr "\0" "\n" <"$TEST_DIR/actual" && false
		fi &&
		test_grep ! "cannot hash" "$TEST_DIR/err" &&
		"$VX" run //#build >/dev/null 2>&1 || exit 1
	done
'

test_expect_success 'the walk'"'"'s thread blocks every signal: a Ctrl-C while it walks is vx'"'"'s to handle' '
	setup &&
	mkdir -p $(printf "d%d/e " $(seq 2000)) &&
	"$VX" run //#build >/dev/null 2>&1 && "$VX" run //#build >/dev/null 2>&1 &&
	seen=0 &&
	for try in $(seq 30); do
		rm -f .vx/cache/listings .vx/cache/ignores &&
		{ "$VX" run //#build --dry-run >/dev/null 2>&1 & } &&
		pid=$! &&
		while kill -0 $pid 2>/dev/null; do
			for t in /proc/$pid/task/*; do
				[ "${t##*/}" != "$pid" ] || continue
				blk=
				while read -r k v; do
					[ "$k" != SigBlk: ] || blk=$v
				done <"$t/status" 2>/dev/null || continue
				[ -n "$blk" ] || continue
				seen=$((seen + 1))
				if [ $((0x$blk & 2)) = 0 ]; then
					echo "thread ${t##*/} of vx does not block SIGINT (SigBlk $blk)"
					wait $pid
					exit 1
				fi
			done
		done
		wait $pid || true
		[ "$seen" -lt 3 ] || break
	done &&
	if [ "$seen" = 0 ]; then echo "never saw a thread of vx to check"; false; fi
'

# A random tree: directories up to three deep, files whose names the
# patterns below match in various ways.
names=(a b c build dist x.log keep.log y.tmp z.gen "sp ace" .env .env.local tmp out)
pats=("*.log" "!keep.log" "build/" "/dist" "**/tmp" "*.gen" "!z.gen" "b/" "/a/c" ".env*"
	"!.env" "out" "*.tmp" "c/**" "!c/a" "[xy].*" "a/**/b" "#comment" "sp\\ ace" "x.log/")

# They set globals, never print: a command substitution is a subshell,
# which bash gives a seed of its own, and a seed must say the whole run.
rand_path() { # -> $path
	local depth=$((RANDOM % 3)) d
	path=""
	for ((d = 0; d < depth; d++)); do
		path+="${names[RANDOM % ${#names[@]}]}/"
	done
	path+="${names[RANDOM % ${#names[@]}]}"
}

rand_gitignore() { # DIR
	local n=$((1 + RANDOM % 4)) i
	for ((i = 0; i < n; i++)); do
		printf '%s\n' "${pats[RANDOM % ${#pats[@]}]}"
	done >"$1/.gitignore"
}

rand_file() {
	rand_path
	mkdir -p "$(dirname "$path")" 2>/dev/null || return 0
	[ -d "$path" ] || echo "$RANDOM" >"$path" 2>/dev/null || true
}

# One random change -> $what.
mutate() {
	local pick=$((RANDOM % 9)) d
	rand_path
	d=$(dirname "$path")
	what="nothing"
	case $pick in
	0 | 1 | 2) rand_file && what="write $path" ;;
	3) if [ -d "$d" ]; then rand_gitignore "$d" && what="gitignore in $d"; fi ;;
	4) if [ -e "$path" ]; then rm -rf "$path" && what="remove $path"; fi ;;
	5) if [ -d "$d" ]; then rm -f "$d/.gitignore" && what="no gitignore in $d"; fi ;;
	6) if [ -f "$path" ]; then git add -f -- "$path" 2>/dev/null && what="track $path"; fi ;;
	7) git ls-files -z | head -zn1 | xargs -0r git rm -q --cached -- && what="untrack one" ;;
	8) printf '%s\n' "${pats[RANDOM % ${#pats[@]}]}" >.git/info/exclude && what="info/exclude" ;;
	esac
	return 0
}

for seed in 1 2 3 4 5 6; do
	test_expect_success "random trees, seed $seed: every change listed as git lists it" '
		RANDOM='"$seed"' &&
		setup &&
		for i in $(seq 25); do rand_file; done &&
		rand_gitignore . &&
		for i in 1 2 3; do rand_path; d=$(dirname "$path"); if [ -d "$d" ]; then rand_gitignore "$d"; fi; done &&
		{ git add -A 2>/dev/null || true; } &&
		check "seed tree" &&
		for step in $(seq 20); do
			mutate &&
			check "step $step: $what" || exit 1
		done
	'
done

test_done
