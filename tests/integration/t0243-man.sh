#!/bin/bash
# The man pages (issue 55 item 6): scdoc sources in docs/man/, one per main
# verb, that say every option the verb's --help lists; built by CMake where
# scdoc is, and rendered by man.
. "$(dirname "$0")/lib.sh"

build_dir=$(dirname "$VX")
man_src=$VX_SOURCE_DIR/docs/man

# options VX-ARGS...: the long options a verb's --help lists, one a line
options() {
	"$VX" "$@" --help | grep -oE "^ {2,6}(-[a-zA-Z], )?--[a-z-]+" | sed "s/.*--/--/" | sort -u
}

# documents PAGE: every option on stdin is in PAGE's source, as *--name*
documents() {
	local missing=0 o
	while read -r o; do
		if ! grep -qF -- "*$o*" "$man_src/$1.scd"; then
			echo "$1.scd does not say $o"
			missing=1
		fi
	done
	return $missing
}

test_expect_success 'vx-run(1) says every option vx run --help lists' '
	options run >opts && test -s opts &&
	documents vx-run.1 <opts
'

test_expect_success 'vx-watch(1) says --interrupt; vx-sandbox(1) and vx-cache(1) their options' '
	echo --interrupt | documents vx-watch.1 &&
	options sandbox show | documents vx-sandbox.1 &&
	options cache prune | documents vx-cache.1
'

test_expect_success 'vx(1) names every verb vx help lists, and each page it refers to exists' '
	"$VX" help | sed -n "s/^  \([a-z]*\) .*/\1/p" | grep -v "^$" | sort -u >verbs &&
	test -s verbs &&
	while read -r v; do
		grep -q "^\*$v\*" "$man_src/vx.1.scd" || { echo "vx.1.scd does not name $v"; exit 1; }
	done <verbs &&
	grep -oE "\*vx-[a-z]+\*\(1\)" "$man_src/vx.1.scd" | tr -d "*" | sed "s/(1)//" | sort -u >refs &&
	test -s refs &&
	while read -r p; do test_path_is_file "$man_src/$p.1.scd"; done <refs
'

# have_pages: the build made the man pages; a build without scdoc is a skip
# outside CI, a failure in it (.ci/run installs scdoc)
have_pages() {
	grep -q "^SCDOC:FILEPATH=.*-NOTFOUND" "$build_dir/CMakeCache.txt" || return 0
	echo "# the build found no scdoc: no man pages (scripts/install-deps.sh installs it)"
	[ -z "${CI:-}" ] || return 1
	echo "# skipped" && exit 0
}

test_expect_success 'each page is built from its source, and man renders it' '
	have_pages &&
	for src in "$man_src"/*.scd; do
		page=$(basename "$src" .scd) &&
		test_path_is_file "$build_dir/man/$page" &&
		MANPAGER=cat man -l "$build_dir/man/$page" >rendered 2>err &&
		! test -s err &&
		test_grep "^NAME" rendered &&
		test_grep "^ *${page%.1} - " rendered || exit 1
	done
'

test_done
