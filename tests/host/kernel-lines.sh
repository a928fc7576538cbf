#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel lines (kernel/mainline, kernel/6.12) as the scripts see them,
# without a kernel, a network or an apt change:
#  - scripts/lib.sh: the line's cache key, kernel name and folders; an
#    unknown NUMAB_KLINE is refused naming the lines;
#  - tests/run: the VM units say the kernel they boot (@7.3, @stock-7.3,
#    @debug-7.3); a row runs on mainline and on the lines its category
#    names (+6.12); --needs; a row it cannot read stops it, naming the line;
#  - scripts/fetch-debian, against a stand-in apt-get, apt-cache and
#    dpkg-deb and fixture apt sources: the mirror is the host's Debian
#    entry (deb822 or one-line), apt runs with the private configuration
#    only, a pinned version the archive no longer has fails naming the
#    versions it has;
#  - scripts/kernel-tree pin rewrites a copy of kernel/LINE/BASE.
. "$(dirname "$0")/../../scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

# ---- scripts/lib.sh --------------------------------------------------------
lib() { # lib LINE EXPR: EXPR evaluated after sourcing lib.sh for LINE
	NUMAB_KLINE=$1 NUMAB_CACHE=$tmp/cache bash -c ". '$NUMAB_ROOT/scripts/lib.sh'; $2" 2>&1
}
t "the default line is mainline" test "$(env -u NUMAB_KLINE bash -c ". '$NUMAB_ROOT/scripts/lib.sh'; echo \$NUMAB_KLINE")" = mainline
t "mainline's kernel is 7.3, 6.12's is 6.12" \
	test "$(lib mainline kline_short) $(lib 6.12 kline_short)" = "7.3 6.12"
t "mainline's cache key is its pinned version, made a file name" \
	test "$(lib mainline source_key)" = "$(base_var DEB_VERSION mainline | tr '~:/' '___')"
t "mainline's tree and build folders are keyed by it" \
	test "$(lib mainline 'kernel_tree; kernel_build_dir stock')" = \
	"$tmp/cache/src/linux-$(lib mainline source_key)
$tmp/cache/build/linux-$(lib mainline source_key)-stock"
t "each line has its series and guest folder" \
	test "$(lib 6.12 'patches_dir; guest_dir')" = "$NUMAB_ROOT/kernel/6.12/patches
$NUMAB_OUT/guest/6.12"
out=$(lib 7.3 true)
t "an unknown NUMAB_KLINE is refused, naming the lines" \
	grep -q "unknown kernel line '7.3'.*mainline 6.12" <<<"$out"
t "mainline is fetched (DEB_SUITE), 6.12 is not" \
	test "$(lib mainline 'kline_fetched && echo y'):$(lib 6.12 'kline_fetched || echo n')" = "y:n"

# ---- tests/run -------------------------------------------------------------
run=$NUMAB_ROOT/tests/run
l=$("$run" -l --kline all 2>&1)
t "a series row on mainline is NAME@7.3" grep -qx 'series/strand-pid@7.3' <<<"$l"
t "a row marked +6.12 runs on 6.12 too" grep -qx 'series/strand-rofile@6.12' <<<"$l"
t "an unmarked row does not run on 6.12" bash -c "! grep -q '^series/placement@6.12' <<<'$l'"
t "a TOPOLOGY@stock row says stock" grep -qx 'tools/bpf-stock@stock-7.3' <<<"$l"
t "a debug row says debug" grep -qx 'debug/debug-stress@debug-7.3' <<<"$l"
t "host units keep their names" grep -qx 'host/deps' <<<"$l"
t "the tiny builds run on the primary line only" \
	test "$(grep '^series/tiny-builds@' <<<"$l" | paste -sd,)" = series/tiny-builds@7.3
l=$("$run" -l --kline 6.12 -t testbed,series,tools,debug,stock,runner,bench,demo,servers 2>&1)
t "--kline 6.12: the rows marked +6.12, nothing else" \
	test "$(grep -vc '@6.12$' <<<"$l"):$(grep -c . <<<"$l")" = \
	"0:$(grep -c '^[a-z].*+6\.12' "$NUMAB_ROOT/tests/vm/TESTS")"
l=$("$run" -l --kline 6.12 --all-rows -t series 2>&1)
t "--all-rows: an unmarked row on 6.12" grep -qx 'series/placement@6.12' <<<"$l"
t "--all-rows: the tiny builds on 6.12" grep -qx 'series/tiny-builds@6.12' <<<"$l"
t "--needs: what the default 6.12 units boot, and mainline's" \
	test "$("$run" --needs --kline all -t testbed,series,debug,tools | paste -sd,)" = \
	"mainline tree,mainline test,mainline debug,mainline stock,mainline guest,6.12 tree,6.12 test,6.12 guest"
t "--needs: nothing for the host units" test -z "$("$run" --needs --kline all -t host,numabctl)"

# a copy of the runner with one row of its own
mkdir -p "$tmp/r/tests/vm" "$tmp/r/scripts"
cp "$run" "$tmp/r/tests/run"
cp "$NUMAB_ROOT/scripts/lib.sh" "$tmp/r/scripts/"
cp -r "$NUMAB_ROOT/kernel" "$tmp/r/"
row() { # row ROW: tests/run -l on a table of a comment and ROW
	printf '# a comment\n%s\n' "$1" >"$tmp/r/tests/vm/TESTS"
	NUMAB_OUT=$tmp/out "$tmp/r/tests/run" -l -t series --kline all 2>&1 | grep -v tiny-builds
}
t "a good row with every suffix" \
	test "$(row 'ok  series+6.12  tiered+a=1@stock  60  x; y' | paste -sd,)" = "series/ok@stock-7.3,series/ok@stock-6.12"
for c in "a series+7.3 tiered 60 x|unknown kernel line '7.3'" \
	"a serie tiered 60 x|unknown category 'serie'" \
	"a series+6.12+6.12 tiered 60 x|a line named twice" \
	"a series+mainline tiered 60 x|every row runs on mainline" \
	"A series tiered 60 x|a name is lower case" \
	"a series tired 60 x|unknown topology 'tired'" \
	"a series tiered@stok 60 x|unknown variant '@stok'" \
	"a series tiered 6s x|the timeout '6s' is not" \
	"a series tiered 60|no command"; do
	t "a bad row stops the runner: ${c#*|}" \
		grep -q "error: tests/vm/TESTS line 2 (.*): ${c#*|}" <<<"$(row "${c%%|*}")"
done
printf 'a series tiered 60 x\na testbed tiered 60 y\n' >"$tmp/r/tests/vm/TESTS"
t "a name used twice stops the runner" \
	grep -q "line 2 (a): the name is taken by line 1" <<<"$("$tmp/r/tests/run" -l -t series 2>&1)"
t "--kline refuses an unknown line" \
	grep -q "error: --kline: unknown kernel line 'x'" <<<"$("$tmp/r/tests/run" -l --kline x 2>&1)"

# ---- scripts/fetch-debian --------------------------------------------------
# stand-ins: apt-get records its arguments; update succeeds, download
# writes PKG_VERSION_amd64.deb; apt-cache madison answers from
# $tmp/versions; dpkg-deb -x unpacks a fixture tarball into place
mkdir -p "$tmp/bin" "$tmp/fx"
cat >"$tmp/bin/apt-get" <<FAKE
#!/bin/bash
echo "\$*" >>"$tmp/apt.calls"
for a in "\$@"; do
	case "\$a" in
	download) p=\${@: -1}; v=\${p#*=}; touch "\${p%%=*}_\${v//:/%3a}_amd64.deb" ;;
	esac
done
exit 0
FAKE
cat >"$tmp/bin/apt-cache" <<FAKE
#!/bin/bash
echo "\$*" >>"$tmp/apt.calls"
p=\${@: -1}
while read -r v; do echo "\$p | \$v | http://mirror.invalid/debian experimental/main amd64 Packages"; done <"$tmp/versions"
FAKE
cat >"$tmp/bin/dpkg-deb" <<FAKE
#!/bin/bash
[ "\$1" = -x ] || exit 2
mkdir -p "\$3/usr/src"
cp "$tmp/fx/linux-source-7.3.tar.xz" "\$3/usr/src/"
FAKE
chmod +x "$tmp/bin/"*
mkdir -p "$tmp/fx/linux-source-7.3"
printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 0\nEXTRAVERSION =\nNAME = x\n' >"$tmp/fx/linux-source-7.3/Makefile"
tar -cJf "$tmp/fx/linux-source-7.3.tar.xz" -C "$tmp/fx" linux-source-7.3

# fixture host apt folders: a deb822 one and a one-line one
mkdir -p "$tmp/apt822/sources.list.d" "$tmp/apt1/sources.list.d"
cat >"$tmp/apt822/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://other.invalid/nodesource
Suites: nodistro
Components: main

Types: deb
# a comment
URIs: http://mirror.invalid/debian
Suites: thisrelease thisrelease-updates
Components: main contrib
Signed-By: /usr/share/keyrings/fixture.gpg

Types: deb
URIs: http://mirror.invalid/debian-security
Suites: thisrelease-security
Components: main
EOF
cat >"$tmp/apt1/sources.list" <<'EOF'
# a comment
deb-src http://src.invalid/debian thisrelease main
deb [arch=amd64 signed-by=/usr/share/keyrings/one.gpg] http://one.invalid/debian thisrelease main
deb http://one.invalid/debian-security thisrelease-security main
EOF
echo 'VERSION_CODENAME=thisrelease' >"$tmp/os-release"
fd() { # fd HOST_APT ARGS...: fetch-debian with the stand-ins; output in $tmp/fd.out
	local a=$1
	shift
	rm -f "$tmp/apt.calls"
	PATH=$tmp/bin:$PATH NUMAB_CACHE=$tmp/cache NUMAB_KLINE=mainline NUMAB_HOST_APT=$a \
		NUMAB_OS_RELEASE=$tmp/os-release "$NUMAB_ROOT/scripts/fetch-debian" "$@" >"$tmp/fd.out" 2>&1
}
src=$tmp/cache/apt/experimental/sources.list.d/numab.sources
pin=$(base_var DEB_VERSION mainline)
printf '%s\n' 7.3-1~exp1 "$pin" >"$tmp/versions"
fd "$tmp/apt822" versions; rc=$?
t "versions: exit 0 ($rc), newest first" test "$rc:$(paste -sd, "$tmp/fd.out")" = "0:7.3-1~exp1,$pin"
t "deb822: the mirror is the host's Debian entry (its release, main)" grep -qx 'URIs: http://mirror.invalid/debian' "$src"
t "deb822: its keyring" grep -qx 'Signed-By: /usr/share/keyrings/fixture.gpg' "$src"
t "the private sources name the line's suite, main, Packages only" \
	test "$(grep -E '^(Suites|Components|Targets):' "$src" | paste -sd,)" = "Suites: experimental,Components: main,Targets: Packages"
t "apt-get update runs with the private configuration" \
	grep -q -- "-o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts=$tmp/cache/apt/experimental/sources.list.d .*-o Dir::State=$tmp/cache/apt/experimental/state -o Dir::State::status=/var/lib/dpkg/status -o Dir::Cache=$tmp/cache/apt/experimental/cache .* update$" "$tmp/apt.calls"
t "every apt call has the private sources" \
	test "$(grep -vc 'Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts=' "$tmp/apt.calls")" = 0
fd "$tmp/apt1" download linux-binary-7.3-amd64; rc=$?
t "one-line sources: the Debian deb line, its signed-by" \
	test "$(grep -E '^(URIs|Signed-By):' "$src" | paste -sd,)" = "URIs: http://one.invalid/debian,Signed-By: /usr/share/keyrings/one.gpg"
t "download: exit 0 ($rc), the .deb at the pinned version, in the cache" \
	test "$rc:$(grep -v downloading "$tmp/fd.out")" = "0:$tmp/cache/apt/debs/linux-binary-7.3-amd64_${pin}_amd64.deb"
t "download: apt-get download PKG=VERSION with the private configuration" \
	grep -q "Dir::Etc::sourcelist=/dev/null.* download linux-binary-7.3-amd64=$pin$" "$tmp/apt.calls"
fd "$tmp/apt1" download linux-binary-7.3-amd64
t "download again: the cached .deb, no apt at all" test ! -e "$tmp/apt.calls"
fd "$tmp/apt1" source; rc=$?
t "source: exit 0 ($rc), the tarball unpacked into the cache" \
	test "$rc:$(tail -n 1 "$tmp/fd.out")" = "0:$tmp/cache/debian/linux-source-7.3_$(lib mainline source_key)/usr/src/linux-source-7.3.tar.xz"
printf '%s\n' 7.3-1~exp1 7.3~rc8-1~exp1 >"$tmp/versions"
fd "$tmp/apt1" download linux-modules-7.3-amd64; rc=$?
t "a pin the archive no longer has: exit 1 ($rc), naming the versions it has and the command" \
	grep -q "error: linux-modules-7.3-amd64 $pin (kernel/mainline/BASE) is no longer in experimental, which has 7.3-1~exp1, 7.3~rc8-1~exp1. Move the pin with 'scripts/kernel-tree pin mainline'" "$tmp/fd.out"
: >"$tmp/versions"
fd "$tmp/apt1" download linux-modules-7.3-amd64
t "a package the archive does not have at all says so" grep -q "experimental has no linux-modules-7.3-amd64 at all" "$tmp/fd.out"
mkdir -p "$tmp/apt0"
fd "$tmp/apt0" versions; rc=$?
t "no Debian entry on the host: exit 1 ($rc), NUMAB_APT_URI named" grep -q "found no Debian archive.*NUMAB_APT_URI" "$tmp/fd.out"
rm -f "$tmp/apt.calls"
PATH=$tmp/bin:$PATH NUMAB_CACHE=$tmp/cache NUMAB_KLINE=6.12 "$NUMAB_ROOT/scripts/fetch-debian" versions >"$tmp/fd.out" 2>&1
t "a line from the host's archive is not fetched" grep -q "kernel/6.12/BASE has no DEB_SUITE" "$tmp/fd.out"

# ---- scripts/kernel-tree pin, on a copy --------------------------------------
mkdir -p "$tmp/k/scripts"
cp "$NUMAB_ROOT"/scripts/{lib.sh,kernel-tree,fetch-debian} "$tmp/k/scripts/"
cp -r "$NUMAB_ROOT/kernel" "$tmp/k/"
kt() { # kt ARGS...: the copy's kernel-tree with the stand-ins
	PATH=$tmp/bin:$PATH NUMAB_CACHE=$tmp/cache2 NUMAB_HOST_APT=$tmp/apt1 \
		NUMAB_OS_RELEASE=$tmp/os-release "$tmp/k/scripts/kernel-tree" "$@" >"$tmp/kt.out" 2>&1
}
printf '%s\n' 7.3-1~exp1 "$pin" >"$tmp/versions"
kt pin mainline; rc=$?
b=$tmp/k/kernel/mainline/BASE
t "pin mainline: exit 0 ($rc), DEB_VERSION the newest, KERNELVERSION from its Makefile" \
	test "$rc:$(grep -E '^(DEB_VERSION|KERNELVERSION)=' "$b" | paste -sd,)" = "0:DEB_VERSION=7.3-1~exp1,KERNELVERSION=7.3.0"
t "pin mainline: the rest of BASE as it was" \
	diff <(grep -v -e '^DEB_VERSION=' -e '^KERNELVERSION=' "$b") \
	<(grep -v -e '^DEB_VERSION=' -e '^KERNELVERSION=' "$NUMAB_ROOT/kernel/mainline/BASE")
t "pin mainline: says what comes next" grep -q "next: NUMAB_KLINE=mainline scripts/kernel-tree prepare" "$tmp/kt.out"
kt pin mainline
t "pin again: already the newest, nothing changed" grep -q "pins linux-source-7.3 7.3-1~exp1, the newest" "$tmp/kt.out"
printf '%s\n' 6.12.130-1~deb12u1 "$(base_var DEB_VERSION 6.12)" >"$tmp/versions"
kt pin 6.12; rc=$?
b=$tmp/k/kernel/6.12/BASE
t "pin 6.12: exit 0 ($rc), the version in DEB_VERSION, KERNELVERSION and the image's name" \
	test "$rc:$(grep -E '^(DEB_VERSION|KERNELVERSION|DISTRO_IMAGE)=' "$b" | paste -sd,)" = \
	"0:DEB_VERSION=6.12.130-1~deb12u1,KERNELVERSION=6.12.130,DISTRO_IMAGE=linux-image-6.12.130+deb12-amd64-unsigned"

[ $bad = 0 ] || sed 's/^/# /' "$tmp/fd.out" "$tmp/kt.out"
tap_end
