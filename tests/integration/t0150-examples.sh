#!/bin/bash
# The bundled example monorepo builds, tests and lints, in a copy.
. "$(dirname "$0")/lib.sh"

copy_examples() {
	cp -R "$VX_SOURCE_DIR/examples" ex
	# A copy made after a local run must not start with its outputs.
	find ex -name dist -type d -prune -exec rm -rf {} + -o -name .vx -prune -exec rm -rf {} +
}

test_expect_success 'vx run build test lint: exit 0, every dist file, in order' '
	copy_examples &&
	run_vx 0 -C ex run build test lint &&
	for f in packages/tokens/dist/tokens.txt packages/utils/dist/utils.txt \
		packages/ui/icons/dist/icons.txt packages/ui/dist/ui.txt \
		packages/ui/dist/ui.txt.map apps/web/dist/index.txt \
		apps/docs/dist/site.txt apps/api/dist/routes.txt; do
		test_path_is_file ex/$f || exit 1
	done &&
	test_grep -x "# @acme/tokens, theme light" ex/packages/tokens/dist/tokens.txt &&
	test_grep -x "# @acme/docs at /docs" ex/apps/docs/dist/site.txt &&
	test_grep -x "# @acme/web (development), built on:" ex/apps/web/dist/index.txt &&
	test_grep -x "#   ../../packages/ui/dist/ui.txt: # @acme/ui" ex/apps/web/dist/index.txt &&
	test_grep -x "# uses icons/dist/icons.txt (4 lines)" ex/packages/ui/dist/ui.txt &&
	test_grep -x "# @acme/api using # @acme/utils" ex/apps/api/dist/routes.txt &&
	test_grep "Tasks: [0-9]* succeeded, 0 cached, 0 failed, 0 skipped" "$OUT" &&
	test_grep -x "@acme/ui#build: running: .*" "$OUT" &&
	test_grep -x "@acme/utils#build: running: mkdir -p dist .*" "$OUT"
'

test_expect_success 'the next runs hit, warning of nothing (the kept configs and a traced task'"'"'s recorded reads share the cache directory)' '
	copy_examples &&
	run_vx 0 -C ex run build test lint &&
	find ex -exec touch -h -d "-30 seconds" {} + &&
	run_vx 0 -C ex run build test lint &&
	test_grep ! "warning" "$ERR" &&
	run_vx 0 -C ex run build test lint &&
	test_grep ! "warning" "$ERR" &&
	test_grep "Tasks: [0-9]* succeeded, [0-9]* cached, 0 failed" "$OUT" &&
	test_path_is_file ex/.vx/cache/configs &&
	test -d ex/.vx/cache/reads
'

test_expect_success 'vx run //#manifest: the root project lists what the apps shipped' '
	copy_examples &&
	run_vx 0 -C ex run //#manifest &&
	cat >expect <<-\EOF &&
	./apps/api/dist/routes.txt
	./apps/docs/dist/site.txt
	./apps/web/dist/index.txt
	EOF
	test_cmp expect ex/dist/manifest.txt &&
	test_grep -x "@acme/root#manifest: 3" "$OUT"
'

test_expect_success 'vx run manifest (no //#) runs the same root task' '
	copy_examples &&
	run_vx 0 -C ex run manifest &&
	test_path_is_file ex/dist/manifest.txt &&
	test_grep -x "@acme/root#manifest: running: .*" "$OUT"
'

test_expect_success 'APP_ENV reaches the web build' '
	copy_examples &&
	APP_ENV=production run_vx 0 -C ex run build -F @acme/web &&
	test_grep -x "# @acme/web (production), built on:" ex/apps/web/dist/index.txt
'

test_expect_success 'vx graph build matches the README edge list' '
	copy_examples &&
	run_vx 0 -C ex graph build --format dot &&
	grep -e "->" "$OUT" | tr -d "\t" | sort >actual &&
	sort >expect <<-\EOF &&
		"@acme/icons#build" -> "@acme/tokens#build";
		"@acme/ui#build" -> "@acme/tokens#build";
		"@acme/ui#build" -> "@acme/utils#build";
		"@acme/ui#build" -> "@acme/icons#build";
		"@acme/web#build" -> "@acme/ui#build";
		"@acme/web#build" -> "@acme/utils#build";
		"@acme/docs#build" -> "@acme/ui#build";
		"@acme/docs#build" -> "@acme/tokens#build";
		"@acme/docs#build" -> "@acme/icons#build";
		"@acme/api#build" -> "@acme/utils#build";
	EOF
	test_cmp expect actual
'

test_done
