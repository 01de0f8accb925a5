#!/bin/bash
# The .deb (issue 55 item 4, docs/install.md): the one scripts/release.sh
# makes, installed with `apt-get install ./vx_*.deb` in a clean Debian 12
# root, which pulls bubblewrap and strace in; a user there builds the
# bundled example (then all hits) and a sandboxed task's stray read is
# traced and reported with its fix; `apt-get remove --purge vx` then
# leaves none of the package's files. $VX (the build under test) is not
# used: the release's vx is.
. "$VX_SOURCE_DIR/tests/integration/lib.sh"
. "$VX_SOURCE_DIR/tests/unsafe/roots.sh"

roots_require
roots_release deb
DEB=$(ls "$TEST_TMP"/dist/vx_"$VERSION"-1_*.deb)

test_expect_success 'its control fields: version, section, maintainer, what vx runs and opens' '
	test "$(dpkg-deb -f "$DEB" Package)" = vx &&
	test "$(dpkg-deb -f "$DEB" Version)" = "$VERSION-1" &&
	test "$(dpkg-deb -f "$DEB" Architecture)" = "$(dpkg --print-architecture)" &&
	test "$(dpkg-deb -f "$DEB" Section)" = devel &&
	test "$(dpkg-deb -f "$DEB" Priority)" = optional &&
	dpkg-deb -f "$DEB" Maintainer | grep -E "^[^<]+ <[^@>]+@[^>]+>$" &&
	dpkg-deb -f "$DEB" Description >desc &&
	test "$(head -n1 desc)" = "build orchestrator for monorepos, with sandboxed and traced tasks" &&
	dpkg-deb -f "$DEB" Depends | tr "," "\n" | sed "s/^ *//; s/ .*//" >depends &&
	test_grep -x bubblewrap depends &&
	test_grep -x strace depends &&
	test_grep -x libc6 depends &&
	test_grep ! socat depends &&
	test "$(dpkg-deb -f "$DEB" Recommends)" = "libcurl4, libssl3"
'

test_expect_success 'it holds what cmake --install puts under /usr' '
	dpkg-deb -c "$DEB" | sed "s/.* \.//" >list &&
	for f in /usr/bin/vx /usr/libexec/vx/vx-sandbox-init /usr/share/man/man1/vx.1 \
		/usr/share/bash-completion/completions/vx /usr/share/zsh/vendor-completions/_vx \
		/usr/share/fish/vendor_completions.d/vx.fish /usr/share/doc/vx/README.md; do
		test_grep -x "$f" list || return 1
	done &&
	test_grep ! -v "^/usr/" list
'

# Debian 12, with the packages the .deb names, and those building vx needs
# (install-deps.sh build), downloaded into apt's cache: apt-get install
# resolves them as on any system, without the network.
pkgs=$(dpkg-deb -f "$DEB" Depends Recommends | sed 's/^[A-Za-z]*: //' | tr ',' '\n' |
	sed 's/^ *//; s/[ |(].*//' | sort -u | tr '\n' ' ')
build_pkgs=$(bash -c 'eval "$(sed -n "/^build=(/,/^)/p" "$1")"; echo "${build[*]}"' _ \
	"$VX_SOURCE_DIR/scripts/install-deps.sh")
R=$TEST_TMP/bookworm
roots_unpack bookworm "$R" --download "$pkgs $build_pkgs"
cp "$DEB" "$R/tmp/"
echo "# the .deb's packages: $pkgs"

test_expect_success 'Debian 12: apt-get install ./vx_*.deb pulls bubblewrap and strace in' '
	in_root "$R" dpkg -s bubblewrap >before 2>&1 || true &&
	test_grep "is not installed" before &&
	in_root "$R" sh -c "cd /tmp && apt-get install -y -q ./$(basename "$DEB")" >out 2>err &&
	in_root "$R" dpkg-query -W -f="\${Package} \${db:Status-Status}\n" vx bubblewrap strace libcurl4 >status &&
	test_grep -x "vx installed" status &&
	test_grep -x "bubblewrap installed" status &&
	test_grep -x "strace installed" status &&
	test_grep -x "libcurl4 installed" status &&
	in_root "$R" dpkg -L vx >"$TEST_TMP/files"
'

test_expect_success 'Debian 12: the packaged vx, from PATH: its init in /usr/libexec/vx, traced' '
	roots_example "$R" &&
	as_user "$R" "command -v vx && vx --version && vx info" >out 2>err &&
	test_grep -x /usr/bin/vx out &&
	test_grep -x "vx $VERSION" out &&
	test_grep "^sandbox init: /usr/libexec/vx/vx-sandbox-init$" out &&
	test_grep "^violation reports: available" out
'

test_expect_success 'Debian 12: the example builds, then every task is a hit' '
	as_user "$R" "cd example && vx run build && vx run build" >out 2>err &&
	test_grep "^Tasks: 7 succeeded, 0 cached, 0 failed" out &&
	test_grep "^Tasks: 0 succeeded, 7 cached, 0 failed" out
'

test_expect_success 'Debian 12: a sandboxed task'"'"'s stray read is a violation, traced, with its fix' '
	sed -i "s|^\( *\)sed .s/^/route /. src/routes.txt|\1cat ../../shared/banner.txt\n&|" \
		"$R/home/dev/example/apps/api/vx.yaml" &&
	rc=0 && as_user "$R" "cd example && vx run @acme/api#build" >out 2>err || rc=$? &&
	test "$rc" = 1 &&
	test_grep ! "untraced" err &&
	test_grep "^@acme/api#build: failed" out &&
	test_grep "^@acme/api#build: violation: read shared/banner.txt (openat ENOENT)$" err &&
	test_grep "^@acme/api#build: fix: add to apps/api/vx.yaml tasks.build.sandbox.allow.read: \[\"../../shared/banner.txt\"\]$" err
'

test_expect_success 'Debian 12: with libcurl (recommended), a remote cache is asked through it' '
	as_user "$R" "cd example && VX_REMOTE_CACHE_URL=http://127.0.0.1:9 vx run build --force --filter=@acme/tokens" >out 2>err &&
	test_grep ! "libcurl does not start" err &&
	test_grep "^vx: warning: remote cache: GET http://127.0.0.1:9/v8/artifacts/status: Couldn.t connect to server$" err &&
	test_grep "^Tasks: 1 succeeded, 0 cached, 0 failed" out
'

test_expect_success 'Debian 12: apt-get remove --purge vx leaves none of its files' '
	test -s "$TEST_TMP/files" &&
	in_root "$R" apt-get remove --purge -y -q vx >out 2>err &&
	in_root "$R" dpkg-query -W -f="\${db:Status-Status}" vx >status 2>&1 || true &&
	test_grep ! "^installed" status &&
	left= &&
	while read -r f; do
		if [ -L "$R$f" ] || { [ -e "$R$f" ] && [ ! -d "$R$f" ]; }; then
			left="$left $f"
		fi
	done <"$TEST_TMP/files" &&
	for d in /usr/libexec/vx /usr/share/doc/vx; do
		if [ -e "$R$d" ]; then left="$left $d"; fi
	done &&
	echo "left:$left" &&
	test -z "$left"
'

# Item 8 of issue 55: a CI job that only builds vx installs no clang. The
# same root, vx gone: install-deps.sh's build list, and the build.
test_expect_success 'Debian 12: install-deps.sh build'"'"'s packages build vx, and bring no clang' '
	in_root "$R" apt-get install -y -q --no-install-recommends $build_pkgs >out 2>err &&
	in_root "$R" dpkg-query -W -f="\${db:Status-Status}" clang >status 2>&1 || true &&
	test_grep ! "^installed" status &&
	mkdir -p "$R/tmp/vx-src" &&
	(cd "$VX_SOURCE_DIR" && git archive HEAD) | tar -C "$R/tmp/vx-src" -xf - &&
	chmod -R a+rwX "$R/tmp/vx-src" &&
	as_user "$R" "cd /tmp/vx-src && cmake -S . -B build >/dev/null && cmake --build build -j$(nproc) --target vx vx-sandbox-init vx-man >/dev/null && ./build/vx --version" >out 2>err &&
	test_grep -x "vx $VERSION" out
'
rm -rf "$R"

test_done
