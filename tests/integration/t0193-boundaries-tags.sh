#!/bin/bash
# vx boundaries' tag rules (issue 56 item 5): the root turbo.json's
# boundaries.tags (a tag's dependencies and dependents, allow and deny),
# each package's "tags" and its own boundaries.dependencies/dependents,
# checked as turbo boundaries 2.11.13 does (from npm, the oracle on the
# same repositories: which package's rule, which related package, which
# rule, which tag), each finding with its place and the edit that makes it
# pass; a malformed boundaries key refused with its place; and tsconfig
# "extends" followed for "paths", as tsc and turbo follow it.
. "$(dirname "$0")/lib.sh"

turbo_oracle

pkg() { # DIR NAME [JSON-MEMBERS]: DIR/package.json
	write_file "$1/package.json" <<<"{\"name\": \"$2\", \"version\": \"1.0.0\"${3:+, $3}}"
}

# web (app, public) -> ui (ui) -> core (internal) -devDependency-> secret;
# web's peer peerpkg (zzz) is no edge, as turbo's graph; admin depends on
# ui and has no turbo.json; docs -> ui, with its own rules.
setup() {
	git init -q . && git checkout -qb main &&
	echo '{"name": "root", "private": true, "packageManager": "npm@10.0.0", "workspaces": ["apps/*", "packages/*"]}' >package.json &&
	write_file turbo.json <<-'EOF' &&
	{
	  "tasks": {"build": {}},
	  "boundaries": {
	    "tags": {
	      "app": {"dependencies": {"allow": ["ui", "util"]}},
	      "ui": {"dependencies": {"deny": ["app"]}, "dependents": {"allow": ["app"]}},
	      "internal": {"dependents": {"deny": ["public"]}}
	    }
	  }
	}
	EOF
	pkg apps/web web '"dependencies": {"ui": "*"}, "peerDependencies": {"peerpkg": "*"}' &&
	echo '{"extends": ["//"], "tags": ["app", "public"]}' >apps/web/turbo.json &&
	pkg apps/admin admin '"dependencies": {"ui": "*"}' &&
	pkg apps/docs docs '"dependencies": {"ui": "*"}' &&
	write_file apps/docs/turbo.json <<-'EOF' &&
	{
	  "extends": ["//"],
	  "boundaries": {
	    "tags": {"x": {}},
	    "dependencies": {"deny": ["internal", "secret"]},
	    "dependents": {"allow": []}
	  }
	}
	EOF
	pkg packages/ui ui '"dependencies": {"core": "*"}' &&
	echo '{"extends": ["//"], "tags": ["ui"]}' >packages/ui/turbo.json &&
	pkg packages/core core '"devDependencies": {"secret": "*"}' &&
	echo '{"extends": ["//"], "tags": ["internal"]}' >packages/core/turbo.json &&
	pkg packages/secret secret &&
	pkg packages/peerpkg peerpkg &&
	echo '{"extends": ["//"], "tags": ["zzz"]}' >packages/peerpkg/turbo.json &&
	printf "node_modules\n.turbo\n.vx\n" >.gitignore &&
	git add -A && git commit -qm init
}

# "SOURCE PACKAGE RULE [TAG]" per finding, sorted: turbo's read from its
# messages (a package turbo.json's boundaries.tags from the file it points
# at), vx's from --report=json.
turbo_tags() {
	"$turbo" boundaries --no-color >"$TEST_DIR/turbo.out" 2>&1
	echo $? >"$TEST_DIR/turbo.rc"
	{
		sed -n -e 's/^  x Package `\(.*\)` found with tag listed in denylist for `\(.*\)`: `\(.*\)`$/\2 \1 tag-denied \3/p' \
			-e 's/^  x Package `\(.*\)` found without any tag listed in allowlist for `\(.*\)`$/\2 \1 tag-not-allowed/p' \
			-e 's/^  x Tag `\(.*\)` cannot share the same name as package `\(.*\)`$/\2 \2 tag-is-package-name \1/p' \
			"$TEST_DIR/turbo.out"
		grep -A1 '^  x Package boundaries rules cannot have `tags` key' "$TEST_DIR/turbo.out" |
			sed -n 's|^ *,-\[\(.*\)/turbo.json:.*|\1|p' | while read -r d; do
			n=$(jq -r .name "$d/package.json")
			echo "$n $n package-boundaries-tags"
		done
	} | sort >"$TEST_DIR/turbo.tags"
}
vx_tags() {
	jq -r '.findings[] | select(.source) | "\(.source) \(.package) \(.rule)" + (if .tag then " \(.tag)" else "" end)' "$OUT" | sort
}
same_as_turbo() {
	vx_tags >"$TEST_DIR/vx.tags"
	if ! cmp -s "$TEST_DIR/turbo.tags" "$TEST_DIR/vx.tags"; then
		echo "turbo boundaries and vx boundaries found other tag findings:"
		diff "$TEST_DIR/turbo.tags" "$TEST_DIR/vx.tags"
		cat "$TEST_DIR/turbo.out"
		return 1
	fi
}

test_expect_success 'tags: the same (rule package, related package, rule, tag) findings as turbo boundaries' '
	setup &&
	turbo_tags &&
	test "$(cat "$TEST_DIR/turbo.rc")" = 1 &&
	run_vx 1 boundaries --report=json &&
	same_as_turbo &&
	# transitive both ways, devDependencies count, peerDependencies do not
	grep -qx "web secret tag-not-allowed" "$TEST_DIR/vx.tags" &&
	grep -qx "core web tag-denied public" "$TEST_DIR/vx.tags" &&
	! grep -q peerpkg "$TEST_DIR/vx.tags" &&
	test "$(wc -l <"$TEST_DIR/vx.tags")" -ge 8
'

test_expect_success 'each tag finding at the dependency that makes the edge, with the edit that makes it pass' '
	setup &&
	run_vx 1 boundaries &&
	# web -> ui -> core -> secret: at web'"'"'s dependency on ui
	test_grep "^apps/web/package.json:1:[0-9]*: web depends on secret (web -> ui -> core -> secret), which has no tag in the \"allow\" of tag \"app\"'"'"'s \"dependencies\" (\"ui\", \"util\"; turbo.json:5:41)$" "$OUT" &&
	test_grep "^apps/web/package.json:1:[0-9]*: fix: create packages/secret/turbo.json as {\"extends\": \[\"//\"\], \"tags\": \[\"util\"\]}$" "$OUT" &&
	test_grep "fix: add \"util\" to \"tags\" in packages/core/turbo.json$" "$OUT" &&
	test_grep "^apps/web/package.json:1:[0-9]*: core is depended on by web (web -> ui -> core), whose tag \"public\" is in the \"deny\" of tag \"internal\"'"'"'s \"dependents\" (turbo.json:7:43)$" "$OUT" &&
	test_grep "fix: remove \"public\" from \"tags\" in apps/web/turbo.json, or from that \"deny\"$" "$OUT" &&
	test_grep "^turbo.json:6:7: tag \"ui\" is also the name of package ui" "$OUT" &&
	test_grep "^apps/docs/turbo.json:4:5: a package.s own \"boundaries\" cannot hold \"tags\"" "$OUT" &&
	# denied by its name: at docs'"'"' dependency on ui
	test_grep "^apps/docs/package.json:1:[0-9]*: docs depends on secret (docs -> ui -> core -> secret), which the \"deny\" of its own \"dependencies\" names (apps/docs/turbo.json:5:30)$" "$OUT" &&
	run_vx 1 boundaries --report=json &&
	jq -e "[.findings[] | select(.rule == \"tag-not-allowed\" and .source == \"web\" and .package == \"secret\")][0] | .via == [\"web\", \"ui\", \"core\", \"secret\"] and .direction == \"dependencies\" and .file == \"apps/web/package.json\"" "$OUT" &&
	run_vx 1 boundaries --report=sarif &&
	jq -e "[.runs[0].results[].ruleId] | index(\"vx/boundaries-tag-denied\") != null and index(\"vx/boundaries-tag-not-allowed\") != null" "$OUT" &&
	run_vx 1 boundaries --report=github &&
	test_grep "^::error file=apps/web/package.json,line=1,col=[0-9]*,title=vx boundaries::web depends on secret" "$OUT" &&
	# --filter takes the rules of the packages it selects, all packages related
	run_vx 1 boundaries --filter=core --report=json &&
	test "$(vx_tags)" = "core web tag-denied public"
'

test_expect_success 'clean tags: turbo boundaries and vx boundaries both pass' '
	setup &&
	write_file turbo.json <<-'"'"'EOF'"'"' &&
	{
	  "tasks": {"build": {}},
	  "boundaries": {
	    "tags": {
	      "app": {"dependencies": {"allow": ["shared", "internal"], "deny": ["app"]}},
	      "shared": {"dependents": {"deny": ["zzz"]}},
	      "internal": {"dependents": {"allow": ["app", "shared", "docs", "admin", "internal"]}}
	    }
	  }
	}
	EOF
	echo "{\"extends\": [\"//\"], \"tags\": [\"shared\"]}" >packages/ui/turbo.json &&
	echo "{\"extends\": [\"//\"], \"tags\": [\"internal\"]}" >packages/secret/turbo.json &&
	echo "{\"extends\": [\"//\"], \"tags\": [\"app\"]}" >apps/web/turbo.json &&
	echo "{\"extends\": [\"//\"], \"tags\": [\"app\"], \"boundaries\": {\"dependencies\": {\"deny\": [\"peerpkg\"]}}}" >apps/docs/turbo.json &&
	git add -A && git commit -qm clean &&
	turbo_tags &&
	test "$(cat "$TEST_DIR/turbo.rc")" = 0 &&
	run_vx 0 boundaries --report=json &&
	same_as_turbo &&
	test_grep "no findings" "$ERR"
'

test_expect_success 'a malformed boundaries or tags key: refused at its place, exit 2 (as turbo refuses it)' '
	setup &&
	sed -i "s/\"allow\": \[\"ui\", \"util\"\]/\"allow\": \"ui\"/" turbo.json &&
	! "$turbo" boundaries >/dev/null 2>&1 &&
	run_vx 2 boundaries &&
	test_grep "^vx: $PWD/turbo.json:5:41: boundaries \"allow\" must be a list of strings" "$ERR" &&
	test ! -e .vx/reads &&
	git checkout -q turbo.json &&
	sed -i "s/\"dependents\": {\"deny\"/\"dependents\": {\"dney\"/" turbo.json &&
	! "$turbo" boundaries >/dev/null 2>&1 &&
	run_vx 2 boundaries &&
	test_grep "^vx: $PWD/turbo.json:7:35: unknown key \"dney\" in boundaries (did you mean \"deny\"?)" "$ERR" &&
	# vx run refuses it as well: one reader of turbo.json
	run_vx 2 run build &&
	test_grep "^vx: $PWD/turbo.json:7:35: " "$ERR" &&
	git checkout -q turbo.json &&
	echo "{\"extends\": [\"//\"], \"tags\": [\"app\", 1]}" >apps/web/turbo.json &&
	run_vx 2 boundaries &&
	test_grep "^vx: $PWD/apps/web/turbo.json:1:37: \"tags\" must be a list of strings" "$ERR" &&
	echo "{\"extends\": [\"//\"], \"boundaries\": {\"tags\": []}}" >apps/web/turbo.json &&
	run_vx 2 boundaries &&
	test_grep "^vx: $PWD/apps/web/turbo.json:1:44: boundaries \"tags\" must be an object" "$ERR"
'

# tsconfig "extends": a relative file (".json" implied, as tsc) and a
# package specifier (its paths resolve against its own directory, the
# link into node_modules followed), the paths of the config that sets
# them, against the baseUrl of the config that sets it.
tsconfigs() {
	write_file tsconfig.base.json <<-'EOF' &&
	{"compilerOptions": {"baseUrl": ".", "paths": {"@shared/*": ["packages/ui/src/*"]}}}
	EOF
	write_file packages/ui/src/b.ts <<<'export const b = 1' &&
	write_file apps/web/tsconfig.json <<<'{"extends": "../../tsconfig.base", "compilerOptions": {"strict": true}}' &&
	write_file apps/web/src/a.ts <<<"import { b } from '@shared/b';" &&
	pkg packages/tsconfig @repo/tsconfig &&
	write_file packages/tsconfig/base.json <<<'{"compilerOptions": {"paths": {"~lib/*": ["./src/*"]}}}' &&
	write_file packages/tsconfig/src/b.ts <<<'export const b = 1' &&
	write_file packages/core/tsconfig.json <<<'{"extends": "@repo/tsconfig/base.json"}' &&
	mkdir -p node_modules/@repo && ln -s ../../packages/tsconfig node_modules/@repo/tsconfig &&
	write_file packages/core/src/c.ts <<<"import { b } from '~lib/b';"
}

test_expect_success 'tsconfig extends: paths from a relative and a package config, the same places as turbo' '
	setup && echo "{\"tasks\": {\"build\": {}}}" >turbo.json && tsconfigs &&
	git add -A && git commit -qm tsconfig &&
	"$turbo" boundaries --no-color >"$TEST_DIR/turbo.out" 2>&1 || true &&
	sed -n "s|^ *,-\[\(.*\)\]$|\1|p" "$TEST_DIR/turbo.out" | sed "s|^$PWD/||" | grep "\.ts:" | sort >"$TEST_DIR/turbo.places" &&
	run_vx 1 boundaries --report=json &&
	jq -r ".findings[] | select(.rule == \"leaves-package\") | \"\(.file):\(.line):\(.col)\"" "$OUT" | sort >"$TEST_DIR/vx.places" &&
	cat "$TEST_DIR/turbo.out" &&
	test_cmp "$TEST_DIR/turbo.places" "$TEST_DIR/vx.places" &&
	test "$(wc -l <"$TEST_DIR/vx.places")" = 2 &&
	jq -e "[.findings[] | select(.rule == \"leaves-package\") | .message] | index(\"import \`@shared/b\` leaves the package: it resolves to packages/ui/src/b, outside web\") != null" "$OUT" &&
	# an extends that goes round is refused with its place
	write_file apps/web/tsconfig.json <<<"{\"extends\": \"./other.json\"}" &&
	write_file apps/web/other.json <<<"{\"extends\": \"./tsconfig.json\"}" &&
	run_vx 2 boundaries &&
	test_grep "^vx: $PWD/apps/web/other.json:1:13: tsconfig \"extends\" goes round: apps/web/tsconfig.json, apps/web/other.json, apps/web/tsconfig.json" "$ERR" &&
	# each level extending the same parent twice doubles the reads (a
	# review: 18 levels took 7.5 s, 31 hours): refused past 256 reads
	for i in $(seq 0 19); do
		echo "{\"extends\": [\"./tc$((i + 1)).json\", \"./tc$((i + 1)).json\"]}" >apps/web/tc$i.json || exit 1
	done &&
	echo "{}" >apps/web/tc20.json &&
	write_file apps/web/tsconfig.json <<<"{\"extends\": \"./tc0.json\"}" &&
	run_vx 2 boundaries &&
	test_grep "tsconfig \"extends\" reads more than 256 configs" "$ERR"
'

test_done
