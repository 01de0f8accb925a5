#!/bin/bash
# The README is true (issue 56 item 7): its links and the docs' resolve, its
# Quick start is the two commands CI runs, its command list is vx's verbs,
# its run options are options vx run takes, its example configuration runs.
. "$(dirname "$0")/lib.sh"

src=$VX_SOURCE_DIR

# links FILE: each relative markdown link target of FILE, one a line, as
# "FILE<TAB>TARGET" (code spans and fenced blocks left out)
links() {
	awk -v f="$1" '
		/^```/ { fence = !fence; next }
		fence { next }
		{
			line = $0
			gsub(/`[^`]*`/, "", line)
			while (match(line, /\]\([^) ]+\)/)) {
				t = substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
				if (t !~ /^(https?|mailto):/) print f "\t" t
			}
		}' "$1"
}

# slugs FILE: GitHub's anchor of each heading of FILE, one a line
slugs() {
	sed -n 's/^#\{1,6\} //p' "$1" | tr "A-Z" "a-z" |
		sed -e "s/[^a-z0-9 _-]//g" -e "s/ /-/g"
}

test_expect_success 'every relative link in README.md, docs/ and examples/ resolves, anchors too' '
	for f in "$src"/README.md "$src"/docs/*.md "$src"/examples/README.md; do
		links "$f"
	done >links &&
	test -s links &&
	bad=0 &&
	while IFS="	" read -r f t; do
		path=${t%%#*} anchor=
		case $t in *"#"*) anchor=${t#*#} ;; esac
		[ -n "$path" ] && target=$(dirname "$f")/$path || target=$f
		if [ ! -e "$target" ]; then
			echo "${f#"$src"/}: link to $t: no such file"
			bad=1
		elif [ -n "$anchor" ] && ! slugs "$target" | grep -qxF -- "$anchor"; then
			echo "${f#"$src"/}: link to $t: no such heading"
			bad=1
		fi
	done <links &&
	test $bad = 0
'

test_expect_success 'docs/README.md indexes every page in docs/' '
	bad=0 &&
	for f in "$src"/docs/*.md; do
		p=$(basename "$f")
		[ "$p" = README.md ] && continue
		grep -qF "]($p)" "$src/docs/README.md" || { echo "docs/README.md does not index $p"; bad=1; }
	done &&
	test $bad = 0
'

# section NAME: the README lines under "## NAME", up to the next "## "
section() {
	awk -v s="## $1" '$0 == s { on = 1; next } /^## / { on = 0 } on' "$src/README.md"
}

test_expect_success 'the Quick start is two commands, each a script here, and CI runs both' '
	section "Quick start" | awk "/^\`\`\`/ { f = !f; next } f" >commands &&
	test $(wc -l <commands) = 2 &&
	while read -r bash script; do
		test "$bash" = bash && test -f "$src/$script" || { echo "not a script: $bash $script"; exit 1; }
		grep -qxF "bash $script || rc=\$?" "$src/.ci/run" || { echo ".ci/run does not run $script"; exit 1; }
	done <commands
'

test_expect_success 'the Command line lists every verb vx help lists, and no other' '
	"$VX" help | sed -n "s/^  \([a-z]\{2,\}\) .*/\1/p" | sort -u >verbs &&
	test -s verbs &&
	section "Command line" | sed -n "s/^vx \([a-z]\{2,\}\).*/\1/p" | sort -u >listed &&
	test_cmp verbs listed
'

test_expect_success 'each option in the vx run table is one vx run --help lists' '
	"$VX" run --help >help &&
	section "Command line" | grep "^| \`-" | grep -oE "\`(-[a-zA-Z], )?--[a-z-]+" |
		sed "s/.*--/--/" | sort -u >options &&
	test $(wc -l <options) -gt 20 &&
	bad=0 &&
	while read -r o; do
		grep -qE -- "(^|[ ,])$o([ =[]|$)" help || { echo "vx run --help has no $o"; bad=1; }
	done <options &&
	test $bad = 0
'

test_expect_success 'the minimal workspace of the README plans: app#build, its command' '
	section "Command line" | awk "/^\`\`\`yaml/ { f = 1; n++; next } /^\`\`\`/ { f = 0 } f { print > (\"block\" n) }" &&
	test -s block1 && test -s block2 &&
	head -1 block1 | grep -q "at the root" && cp block1 vx.yaml &&
	head -1 block2 | grep -q "packages/app/vx.yaml" &&
	mkdir -p packages/app && cp block2 packages/app/vx.yaml &&
	run_vx 0 graph build --format json &&
	test_grep -F "app#build" "$OUT" &&
	test_grep -F "tsc -b" "$OUT"
'

test_done
