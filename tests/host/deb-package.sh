#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package (debian/): dpkg-buildpackage -us -uc -b builds the
# numabctl binary package from a copy of the tree; lintian reports no
# error; it has the binary with its BPF backend, the man page, the bash
# completion, the numabctl-export service and timer and the example
# alerting rules (make install in that tree installs the units too, for
# its prefix); dpkg -i installs it without enabling or starting the
# timer; the installed numabctl runs (status, export); dpkg -r removes
# it and dpkg -P purges it, leaving none of its files; the build leaves
# nothing in the tree that git shows (its outputs are ignored). The
# package is removed on every way out. Skips, saying why, without root,
# the build tools, or when numabctl is already installed on this host
# (not replaced by a test).
. "$(dirname "$0")/../../scripts/lib.sh"
tmp=$(mktemp -d)
. "$NUMAB_ROOT/tests/lib/tap.sh"
installed=0
cleanup() {
	[ $installed = 1 ] && dpkg -P numabctl >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "TAP version 13"

[ "$(id -u)" = 0 ] || skip_all "not root: dpkg -i needs root"
for c in dpkg-buildpackage dh lintian dpkg-checkbuilddeps; do
	command -v $c >/dev/null || skip_all "$c is missing (scripts/deps installs debhelper, lintian)"
done
st=$(dpkg-query -W -f='${db:Status-Status}' numabctl 2>/dev/null)
[ -z "$st" ] || [ "$st" = not-installed ] || [ "$st" = config-files ] ||
	skip_all "a numabctl package is installed on this host ($st): not replaced by a test"
[ -e /usr/sbin/numabctl ] && skip_all "/usr/sbin/numabctl exists (not from a package): not replaced by a test"

# a copy of the tree as git has it (tracked and new files), without builds
src=$tmp/numabctl-src
mkdir -p "$src"
if git -C "$NUMAB_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$NUMAB_ROOT" && git ls-files -co --exclude-standard -z |
		rsync -a --from0 --files-from=- ./ "$src/")
else
	(cd "$NUMAB_ROOT" && tar --exclude=./build --exclude=./tools/numab/build\* \
		--exclude=./tools/numab/numabctl -cf - .) | tar -xf - -C "$src"
fi
rm -rf "$src/tools/numab/numabctl" "$src/tools/numab/build" "$src/tools/numab/build-san" \
	"$src/tools/numab/build-bpf"

# a git checkout of its own, to see what the build leaves in the tree
git -C "$src" init -q && git -C "$src" add -A &&
	git -C "$src" -c user.name=test -c user.email=test@localhost commit -qm tree ||
	{ echo "Bail out! git could not record the copy"; exit 1; }

(cd "$src" && dpkg-checkbuilddeps) >"$tmp/deps" 2>&1
t "Build-Depends are installed" $? "$tmp/deps"

start=$(now_s)
(cd "$src" && timeout 900 dpkg-buildpackage -us -uc -b) >"$tmp/build" 2>&1
rc=$?
deb=$tmp/numabctl_$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)_$(dpkg --print-architecture).deb
t "dpkg-buildpackage -us -uc -b builds the package ($(elapsed "$start") s)" \
	$([ $rc = 0 ] && [ -f "$deb" ]; echo $?) "$(tail -n 20 "$tmp/build")"
[ -f "$deb" ] || { echo "1..$n"; exit 1; }
git -C "$src" status --porcelain >"$tmp/untracked"
t "the build leaves no file git would show in the tree (git status --porcelain)" \
	$([ ! -s "$tmp/untracked" ]; echo $?) "$tmp/untracked"

lintian --info "$tmp"/numabctl_*.changes >"$tmp/lintian" 2>&1
grep -v "running with root privileges" "$tmp/lintian" >"$tmp/lintian.tags"
t "lintian: no error ($(grep -c '^E:' "$tmp/lintian.tags") errors, $(grep -c '^W:' "$tmp/lintian.tags") warnings)" \
	$(! grep -q '^E:' "$tmp/lintian.tags"; echo $?) "$tmp/lintian.tags"
grep -E '^(W|I):' "$tmp/lintian.tags" | sed 's/^/# lintian: /'

dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/sbin/numabctl /usr/share/man/man8/numabctl.8.gz \
	/usr/share/bash-completion/completions/numabctl \
	/lib/systemd/system/numabctl-export.service /lib/systemd/system/numabctl-export.timer \
	/usr/share/doc/numabctl/examples/numab-alerts.yml /usr/share/doc/numabctl/copyright; do
	grep -qx "$f" "$tmp/files" || echo "missing: $f"
done >"$tmp/missing"
t "the package has the binary, man page, completion, units and example rules" \
	$([ ! -s "$tmp/missing" ]; echo $?) "$tmp/missing"
grep -q "ExecStart=/usr/sbin/numabctl export --textfile-directory" \
	<(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./lib/systemd/system/numabctl-export.service)
t "the service runs /usr/sbin/numabctl export" $?

# make install from the built tree: the units too, for its prefix
make -s -C "$src/tools/numab" install DESTDIR="$tmp/mi" prefix=/usr/local >"$tmp/mi.log" 2>&1 &&
	[ -f "$tmp/mi/usr/local/lib/systemd/system/numabctl-export.timer" ] &&
	grep -q "^ExecStart=/usr/local/sbin/numabctl export " \
		"$tmp/mi/usr/local/lib/systemd/system/numabctl-export.service" &&
	[ -f "$tmp/mi/usr/local/share/doc/numabctl/examples/numab-alerts.yml" ]
t "make install puts the service (ExecStart in its bindir) and timer in \$(prefix)/lib/systemd/system" $? "$tmp/mi.log"

installed=1
dpkg -i "$deb" >"$tmp/install" 2>&1
t "dpkg -i installs it" $? "$tmp/install"
[ ! -e /etc/systemd/system/timers.target.wants/numabctl-export.timer ] &&
	! grep -qi "created symlink" "$tmp/install"
t "installing enables no unit" $?
/usr/sbin/numabctl status >"$tmp/status" 2>&1
t "the installed numabctl status exits 0" $? "$tmp/status"
grep -qE "^ *bpf_backend +(yes|no: (kernel|loading|lockdown))" "$tmp/status"
t "the installed numabctl has its BPF backend built in" $? "$tmp/status"
/usr/sbin/numabctl export --top 3 -w "$tmp/x.prom" >"$tmp/export" 2>&1 &&
	grep -q "^numab_exporter_info" "$tmp/x.prom"
t "the installed numabctl export writes metrics" $? "$tmp/export"
if command -v systemd-analyze >/dev/null; then
	(cd "$tmp" && systemd-analyze verify --man=no /lib/systemd/system/numabctl-export.service \
		/lib/systemd/system/numabctl-export.timer) >"$tmp/verify" 2>&1
	t "systemd-analyze verify accepts the installed units" $? "$tmp/verify"
fi
if command -v man >/dev/null; then
	man -l /usr/share/man/man8/numabctl.8.gz 2>/dev/null | grep -q "textfile-directory"
	t "the installed man page documents export" $?
fi

dpkg -r numabctl >"$tmp/remove" 2>&1
t "dpkg -r removes it" $? "$tmp/remove"
[ ! -e /usr/sbin/numabctl ] && [ ! -e /lib/systemd/system/numabctl-export.timer ]
t "after dpkg -r its files are gone" $?
dpkg -P numabctl >"$tmp/purge" 2>&1
t "dpkg -P purges it" $? "$tmp/purge"
st=$(dpkg-query -W -f='${db:Status-Status}' numabctl 2>/dev/null)
left=$(grep -v '/$' "$tmp/files" | while read -r f; do [ -e "$f" ] && echo "$f"; done)
t "after dpkg -P nothing of it is left" $([ -z "$left" ] && { [ -z "$st" ] || [ "$st" = not-installed ]; }; echo $?) "status '$st', left: $left"
installed=0

echo "1..$n"
exit $bad
