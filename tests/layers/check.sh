#!/bin/bash
# The layering rule of docs/architecture.md, read from the includes: a room
# never includes a higher one's header. Prints each include that breaks it
# and fails; prints nothing and passes when every room flows one way.
cd "$(dirname "$0")/../../src" || exit 2
# The orchestrator's rooms live in orchestrator/ (the design card's top level).
rooms='orchestrator/\(config\|plan\|keys\|run\|watch\|cli\)'
o=orchestrator
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
# the keys, the plan and the config know no sandbox: what both need (which
# names look like a credential) lives in util (issue 58)
check $o/config $o/plan $o/keys -- 'sandbox\|violations'
check $o/config -- "$o/\\(plan\\|keys\\|run\\|watch\\|cli\\)"
check $o/plan -- "$o/\\(keys\\|run\\|watch\\|cli\\)"
check $o/keys -- "$o/\\(run\\|watch\\|cli\\)"
check $o/run -- "$o/\\(watch\\|cli\\)"
check $o/watch -- "$o/cli"
# Within util, no circle of modules: a.c including b.h makes a depend on b
# (issue 38: io.c -> path.c -> strbuf.c -> io.c).
if ! python3 - <<'PY'
import os, re, sys
deps = {}
for f in sorted(os.listdir("util")):
    m, ext = os.path.splitext(f)
    if ext not in (".c", ".h"):
        continue
    for inc in re.findall(r'#include "util/([a-z_]+)\.h"', open("util/" + f).read()):
        if inc != m:
            deps.setdefault(m, set()).add(inc)
state = {}
def visit(m, stack):
    if state.get(m) == 1:
        print("layers: util circle: " + " -> ".join(stack[stack.index(m):] + [m]))
        return False
    if state.get(m) == 2:
        return True
    state[m] = 1
    ok = all(visit(d, stack + [m]) for d in sorted(deps.get(m, ())))
    state[m] = 2
    return ok
sys.exit(0 if all(visit(m, []) for m in sorted(deps)) else 1)
PY
then bad=1; fi
# A thread is started only by util/thread.c, born with every signal blocked
# (a SIGINT taken by a hashing thread killed vx unannounced: CI, t0211).
if grep -rn "pthread_create(" --include=*.c . | grep -v "^./util/thread.c:"; then
	echo "layers: start threads with thread_start() (util/thread.h)"
	bad=1
fi
[ $bad = 0 ] && echo "layers: every room flows one way, util has no circle, threads start blocked"
exit $bad
