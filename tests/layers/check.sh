#!/bin/bash
# The layering rule of docs/architecture.md, read from the includes: a room
# never includes a higher one's header. Prints each include that breaks it
# and fails; prints nothing and passes when every room flows one way.
cd "$(dirname "$0")/../../src" || exit 2
rooms='config\|plan\|keys\|run\|watch\|cli'
bad=0
check() { # DIRS... -- PATTERN: no file of DIRS includes a header matching it
	local dirs=() pat
	while [ "$1" != -- ]; do dirs+=("$1"); shift; done
	pat=$2
	if grep -rn "#include \"\($pat\)/" "${dirs[@]}"; then bad=1; fi
}
check cache sandbox lockfile -- "$rooms\|violations"
check cache -- 'sandbox'
check sandbox -- 'cache'
check util -- "$rooms\|cache\|sandbox\|violations\|lockfile"
check violations -- "$rooms\|cache"
check config -- 'plan\|keys\|run\|watch\|cli'
check plan -- 'keys\|run\|watch\|cli'
check keys -- 'run\|watch\|cli'
check run -- 'watch\|cli'
check watch -- 'cli'
[ $bad = 0 ] && echo "layers: every room flows one way"
exit $bad
