#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deps against a fake apt (dpkg-query, apt-cache, apt-get first in
# PATH): linux-source-6.12, the source of the kernel line from the host's
# archive, is installed at kernel/6.12/BASE's version when the
# archive has it, even when apt-cache madison goes on writing after the
# matching line (a "madison | grep -q" under pipefail fails there with
# SIGPIPE); the newest, with a warning, when it does not; nothing is
# installed when nothing is missing; no service starts while it installs;
# a failed install says so and leaves no policy file behind.
. "$(dirname "$0")/../../scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
pkg=$(base_var DEB_PACKAGE 6.12) ver=$(base_var DEB_VERSION 6.12)

mkdir -p "$tmp/bin"
# dpkg-query: installed unless named in $tmp/missing
cat >"$tmp/bin/dpkg-query" <<FAKE
#!/bin/bash
p=\${@: -1}
grep -qxF "\$p" "$tmp/missing" 2>/dev/null && exit 1
echo installed
FAKE
# apt-cache madison: the versions in $tmp/versions, one line each, the
# first one first, then 3000 lines of other packages' noise
cat >"$tmp/bin/apt-cache" <<FAKE
#!/bin/bash
[ "\$1" = madison ] || exit 2
while read -r v; do
	echo "\$2 | \$v | http://mirror.invalid/debian bookworm/main amd64 Packages"
done <"$tmp/versions"
for i in \$(seq 3000); do echo "\$2 | 0.\$i | http://mirror.invalid/debian bookworm/main Sources"; done
FAKE
# apt-get: records its arguments and whether the policy file says 101
cat >"$tmp/bin/apt-get" <<FAKE
#!/bin/bash
echo "\$*" >>"$tmp/apt-get.calls"
if [ "\$1" = install ]; then
	if [ -x "$tmp/policy-rc.d" ]; then "$tmp/policy-rc.d"; echo "policy \$?" >>"$tmp/apt-get.calls"; fi
	[ -e "$tmp/fail" ] && exit 100
fi
exit 0
FAKE
chmod +x "$tmp/bin/"*

run() { # run [ARGS]: scripts/deps against the fakes; output in $tmp/out
	rm -f "$tmp/apt-get.calls" "$tmp/policy-rc.d"
	PATH=$tmp/bin:$PATH NUMAB_POLICY_RC_D=$tmp/policy-rc.d \
		"$NUMAB_ROOT/scripts/deps" "$@" >"$tmp/out" 2>&1
}
installed() { grep '^install ' "$tmp/apt-get.calls" 2>/dev/null; }

# the pin in the archive, among newer and older versions
printf '%s\n' "$pkg" memcached >"$tmp/missing"
printf '%s\n' 6.12.130-1~deb12u1 "$ver" 6.12.30-1~deb12u1 >"$tmp/versions"
run; rc=$?
t "the pin in the archive: exit 0 ($rc)" test $rc = 0
t "the pin in the archive: $pkg=$ver installed" grep -q " $pkg=$ver\( \|$\)" <<<"$(installed)"
t "the pin in the archive: the other missing package installed too" grep -q " memcached\( \|$\)" <<<"$(installed)"
t "the pin in the archive: no warning" bash -c "! grep -q warning '$tmp/out'"
t "no service may start while it installs (policy-rc.d exits 101)" grep -qx "policy 101" "$tmp/apt-get.calls"
t "the policy file it wrote is gone after" test ! -e "$tmp/policy-rc.d"

# the pin no longer in the archive
printf '%s\n' 6.12.130-1~deb12u1 6.12.30-1~deb12u1 >"$tmp/versions"
run; rc=$?
t "the pin not in the archive: exit 0 ($rc)" test $rc = 0
t "the pin not in the archive: the newest $pkg installed" grep -q " $pkg\( \|$\)" <<<"$(installed)"
t "the pin not in the archive: a warning names the version" grep -q "warning: $pkg $ver (kernel/6.12/BASE) is not in the" "$tmp/out"

# nothing missing: no apt at all
: >"$tmp/missing"
run; rc=$?
t "nothing missing: exit 0 and apt-get never runs" test $rc = 0 -a ! -e "$tmp/apt-get.calls"

# --check
echo memcached >"$tmp/missing"
run --check; rc=$?
t "--check with a package missing: exit 1 ($rc), names it, installs nothing" \
	test $rc = 1 -a ! -e "$tmp/apt-get.calls" -a "$(cat "$tmp/out")" = "missing: memcached"

# a failed install
touch "$tmp/fail"
run; rc=$?
t "a failed install: exit 1 ($rc)" test $rc = 1
t "a failed install: says which packages and apt-get's status" grep -q "error: apt-get install failed (exit 100): memcached" "$tmp/out"
t "a failed install: the policy file is gone" test ! -e "$tmp/policy-rc.d"

[ $bad = 0 ] || sed 's/^/# /' "$tmp/out"
tap_end
