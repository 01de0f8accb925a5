#!/bin/bash
# vx prune (issue 42 item 8): the part of a workspace one app needs, with
# its lockfile cut down, laid out as turbo prune lays it out. Each package
# manager is the judge of its own lockfile: the pruned tree is installed
# with npm ci, pnpm install --frozen-lockfile, yarn install
# --frozen-lockfile (1.x) and --immutable (4.x, which compares the file
# byte for byte), bun install --frozen-lockfile, as a Dockerfile does
# (out/json, install, out/full over it), and then built with vx. turbo
# 2.11.13 is the oracle of the layout. Every tool comes from npm
# (npm_tool); the fixture's packages too, from the registry.
. "$(dirname "$0")/lib.sh"

turbo_oracle
npm_tool pnpm-9 pnpm@9
pnpm=$npm_tool_dir/node_modules/.bin/pnpm
npm_tool yarn-1 yarn@1.22.22
yarn1=$npm_tool_dir/node_modules/.bin/yarn
npm_tool yarn-4 @yarnpkg/cli-dist@4.5.3
yarn4=$npm_tool_dir/node_modules/@yarnpkg/cli-dist/bin/yarn.js
npm_tool bun-1 bun@1.2.23
bun=$npm_tool_dir/node_modules/.bin/bun
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 YARN_ENABLE_TELEMETRY=0 COREPACK_ENABLE_STRICT=0
fixtures=$VX_SOURCE_DIR/tests/unit/fixtures/lockfiles
registry=$(npm config get registry 2>/dev/null | sed 's:/$::')

# setup MANAGER: the lockfile fixture's workspace (fixtures/lockfiles/README.md)
# for MANAGER, its lockfile the one that manager wrote: a -> ui
# (workspace), is-odd; b -> left-pad; c -> ms; the root -> kleur. a's
# build requires what it depends on, so a tree missing one fails to build.
setup() {
	local ws_dep='"*"' pm
	case $1 in
	npm) pm=npm@11.19.1 lock=npm/package-lock.json ;;
	pnpm) pm=pnpm@9.15.9 lock=pnpm9/pnpm-lock.yaml ws_dep='"workspace:*"' ;;
	yarn1) pm=yarn@1.22.22 lock=yarn1/yarn.lock ;;
	berry) pm=yarn@4.5.3 lock=berry/yarn.lock ws_dep='"workspace:*"' ;;
	bun) pm=bun@1.2.23 lock=bun/bun.lock ws_dep='"workspace:*"' ;;
	esac
	git init -q . &&
	printf '{"name": "fixture-root", "private": true, "packageManager": "%s", "workspaces": ["apps/*", "packages/*"], "devDependencies": {"kleur": "4.1.5"}}\n' $pm >package.json &&
	write_file apps/a/package.json <<-EOF &&
	{"name": "a", "version": "1.0.0", "scripts": {"build": "node build.js"}, "dependencies": {"is-odd": "3.0.1", "ui": $ws_dep}}
	EOF
	write_file apps/a/build.js <<-'EOF' &&
	const odd = require("is-odd"), ui = require("ui");
	require("fs").writeFileSync("out.txt", `odd(3)=${odd(3)} ui=${ui}\n`);
	EOF
	write_file apps/b/package.json <<<'{"name": "b", "version": "1.0.0", "scripts": {"build": "echo b"}, "dependencies": {"left-pad": "1.3.0"}}' &&
	write_file apps/c/package.json <<<'{"name": "c", "version": "1.0.0", "scripts": {"build": "echo c"}, "dependencies": {"ms": "2.1.3"}, "devDependencies": {"is-number": "6.0.0"}}' &&
	write_file packages/ui/package.json <<<'{"name": "ui", "version": "0.1.0", "main": "index.js", "scripts": {"build": "echo ui"}, "dependencies": {"is-number": "7.0.0"}}' &&
	write_file packages/ui/index.js <<<'module.exports = "ui-" + require("is-number")(7);' &&
	echo '{"tasks": {"build": {"dependsOn": ["^build"], "outputs": ["out.txt"]}}}' >turbo.json &&
	printf 'node_modules\nout.txt\n' >.gitignore &&
	case $1 in
	pnpm) printf 'packages:\n  - "apps/*"\n  - "packages/*"\n' >pnpm-workspace.yaml ;;
	berry) printf 'nodeLinker: node-modules\nnpmRegistryServer: "%s"\nenableTelemetry: false\n' "$registry" >.yarnrc.yml ;;
	esac &&
	cp "$fixtures/$lock" . &&
	echo "secret" >apps/b/b-only.txt &&
	mkdir -p apps/a/node_modules/stale apps/a/dist && echo x >apps/a/node_modules/stale/x && echo x >apps/a/dist/x.js &&
	echo dist >apps/a/.gitignore &&
	echo "untracked, not ignored" >apps/a/notes.txt &&
	git add -A . ":!apps/a/notes.txt" && git -c user.email=t@t -c user.name=t commit -qm init
}

# install MANAGER DIR: the manager's own frozen install in DIR.
install() {
	(cd "$2" && case $1 in
	npm) npm ci --no-audit --no-fund --loglevel=error ;;
	pnpm) "$pnpm" install --frozen-lockfile --reporter=silent ;;
	yarn1) "$yarn1" install --frozen-lockfile --silent --non-interactive ;;
	berry) node "$yarn4" install --immutable ;;
	bun) "$bun" install --frozen-lockfile ;;
	esac)
}

# docker_build MANAGER: out/json, installed; out/full over it; vx run build.
docker_build() {
	mkdir image &&
	cp -a out/json/. image/ &&
	install "$1" image &&
	cp -a out/full/. image/ &&
	(cd image && "$VX" run build --filter=a) &&
	test "$(cat image/apps/a/out.txt)" = "odd(3)=true ui=ui-true"
}

for pm in npm pnpm yarn1 berry bun; do
	test_expect_success "vx prune a --docker ($pm): turbo's layout, the lockfile cut to a, ui and the root, installed frozen and built" '
		setup '$pm' && lock=$(basename $lock) &&
		run_vx 0 prune a --docker &&
		test_grep "^Generating pruned monorepo for a in .*/out$" "$OUT" &&
		test_grep "^ - Added a$" "$OUT" && test_grep "^ - Added ui$" "$OUT" &&
		test_grep ! "Added b" "$OUT" &&
		"$turbo" prune a --docker --out-dir turbo-out >/dev/null 2>&1 &&
		(cd out && find . -type f | sort) >vx.files &&
		(cd turbo-out && find . -type f | sort) >turbo.files &&
		test_cmp turbo.files vx.files &&
		test_grep "^./json/$lock$" vx.files && test_grep "^./$lock$" vx.files &&
		test_grep "^./full/apps/a/notes.txt$" vx.files &&
		test_grep ! "node_modules\|dist/\|apps/b\|apps/c" vx.files &&
		cmp out/$lock out/json/$lock &&
		test_grep ! "left-pad\|ms@\|apps/b\|apps/c" out/$lock &&
		test_grep "is-odd" out/$lock && test_grep "kleur" out/$lock &&
		cp out/json/$lock pruned.lock &&
		docker_build '$pm' &&
		cmp pruned.lock image/$lock
	'
done

test_expect_success 'vx prune a (no --docker): one tree, the lockfile in it, as turbo prune' '
	setup pnpm &&
	run_vx 0 prune a &&
	"$turbo" prune a --out-dir turbo-out >/dev/null 2>&1 &&
	(cd out && find . -type f | sort) >vx.files &&
	(cd turbo-out && find . -type f | sort) >turbo.files &&
	test_cmp turbo.files vx.files &&
	test_grep "^./pnpm-lock.yaml$" vx.files && test_grep "^./apps/a/build.js$" vx.files
'

test_expect_success 'vx prune: keeping every package changes no byte of the lockfile' '
	setup npm &&
	run_vx 0 prune a b c --out-dir all &&
	cmp package-lock.json all/package-lock.json
'

test_expect_success 'vx prune --use-gitignore=false: ignored files are copied too, never node_modules' '
	setup npm &&
	run_vx 0 prune a --use-gitignore=false &&
	test -f out/apps/a/dist/x.js && test ! -e out/apps/a/node_modules
'

test_expect_success 'vx prune: an unknown package, no package, a directory in use: exit 2, nothing written' '
	setup npm &&
	run_vx 2 prune nope &&
	test_grep "vx: prune: no package is named .nope. (vx ls lists them)" "$ERR" &&
	test ! -e out &&
	run_vx 2 prune &&
	test_grep "name the packages to keep" "$ERR" &&
	mkdir out && echo old >out/stale &&
	run_vx 2 prune a &&
	test_grep "vx: prune: .*/out is not empty (remove it, or name another with --out-dir)" "$ERR" &&
	test "$(ls out)" = stale
'

test_expect_success 'vx prune: a lockfile vx cannot read is an error naming it, exit 2' '
	setup npm &&
	echo "{\"lockfileVersion\": 1}" >package-lock.json &&
	run_vx 2 prune a &&
	test_grep "vx: prune: package-lock.json: not read (lockfileVersion 1 is not read" "$ERR" &&
	test ! -e out
'

test_expect_success 'vx prune in a single-package repository: exit 2, it has no part to keep' '
	echo "{\"name\": \"solo\", \"scripts\": {\"build\": \"true\"}}" >package.json &&
	echo "{\"tasks\": {\"build\": {}}}" >turbo.json &&
	run_vx 2 prune solo &&
	test_grep "vx: prune: .* is a single package" "$ERR" &&
	test ! -e out
'

test_expect_success 'vx prune: a link in a package is copied as a link, never followed out of the workspace' '
	setup npm &&
	echo "outside secret" >"$TEST_DIR/secret.txt" &&
	ln -s "$TEST_DIR/secret.txt" apps/a/escape &&
	ln -s ../../packages/ui apps/a/ui-link &&
	git add -A && git -c user.email=t@t -c user.name=t commit -qm links &&
	run_vx 0 prune a &&
	test -L out/apps/a/escape && test "$(readlink out/apps/a/escape)" = "$TEST_DIR/secret.txt" &&
	test -L out/apps/a/ui-link && test "$(readlink out/apps/a/ui-link)" = ../../packages/ui
'

test_done
