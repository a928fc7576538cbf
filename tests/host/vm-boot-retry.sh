#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm boots a guest again when a kernel with jump labels died of
# an int3 (x86 text patching under QEMU TCG): up to 3 more times for
# deaths before the command started, once for one while it ran; it says
# so and keeps each such console log. Any other death, one more than
# that, or one of a kernel without jump labels (the test and debug
# kernels) fails the run as before.
# A stand-in qemu-system-x86_64 (first in PATH) writes the console and
# output the scenario asks for; no kernel is booted.
. "$(dirname "$0")/../../scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$NUMAB_ROOT/tests/lib/tap.sh"
echo "TAP version 13"
if ! command -v busybox >/dev/null && [ ! -x /bin/busybox ]; then
	echo "ok 1 # SKIP no /bin/busybox (scripts/deps installs busybox-static)"
	echo "1..1"
	exit 0
fi

mkdir -p "$tmp/bin" "$tmp/out/host"
# no kernel tree needed: an initramfs the stand-in never reads
printf '#!/bin/sh\ncat >/dev/null\n' >"$tmp/out/host/gen_init_cpio"
chmod +x "$tmp/out/host/gen_init_cpio"
: >"$tmp/bzImage"
# a Debian image's layout: its config next to it
echo CONFIG_JUMP_LABEL=y >"$tmp/config"
# The stand-in: boot number N (a counter file) writes console line set
# $SCENARIO's Nth word: ok (the command ran, exit 0), int3 (died of an
# int3 before the command), int3late (after it started), oops (another
# death before the command).
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
log= out=
while [ $# -gt 0 ]; do
	case "$1" in
	-serial) case "$2" in file:*) if [ -z "$log" ]; then log=${2#file:}; else out=${2#file:}; fi ;; esac; shift 2 ;;
	*) shift ;;
	esac
done
k=$(($(cat "$STANDIN_COUNT" 2>/dev/null || echo 0) + 1))
echo $k >"$STANDIN_COUNT"
what=$(echo "$SCENARIO" | cut -d' ' -f$k)
echo "[    0.000000] Linux version 6.12.117+deb12-amd64" >>"$log"
case "$what" in
ok)
	echo "[    1.400000] numab: userland up at 1.40 s" >>"$log"
	echo "[    1.500000] numab: command start" >>"$log"
	printf 'hello\nNUMAB_GUEST_SECONDS=0.1\nNUMAB_EXIT=0\n' >>"$out" ;;
int3)
	echo "[    1.322644] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" >>"$log"
	echo "[    1.323543] RIP: 0010:run_timer_softirq+0xd7/0xf0" >>"$log" ;;
int3late)
	echo "[    1.500000] numab: command start" >>"$log"
	echo "[    2.322644] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" >>"$log" ;;
oops)
	echo "[    1.322644] BUG: kernel NULL pointer dereference, address: 0000000000000008" >>"$log" ;;
esac
exit 0
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"

# run SCENARIO: scripts/vm with the stand-in; prints its status, boots
run() {
	rm -f "$tmp/count"
	PATH=$tmp/bin:$PATH NUMAB_OUT=$tmp/out SCENARIO=$1 STANDIN_COUNT=$tmp/count \
		"$NUMAB_ROOT/scripts/vm" --quiet --kernel "$tmp/bzImage" --name r --timeout 5 \
		-- true >"$tmp/stdout" 2>"$tmp/stderr"
	echo "$? $(cat "$tmp/count" 2>/dev/null)"
}

r=$(run "int3 ok")
t "an int3 death before the command: booted again, the command's status" \
	$([ "$r" = "0 2" ]; echo $?) "status, boots: $r; $(cat "$tmp/stderr")"
t "the second boot is said, with the first console log kept" \
	$(grep -q "booting again: the kernel (with jump labels) died of an int3 before the command started" "$tmp/stderr" &&
		grep -q "Oops: int3" "$tmp/out/vm/r.boot1.log" && ! grep -q "Oops" "$tmp/out/vm/r.log"; echo $?) \
	"$(cat "$tmp/stderr")"
r=$(run "int3 int3 int3 ok")
t "three int3 deaths before the command: a fourth boot, the command's status" \
	$([ "$r" = "0 4" ] && [ -e "$tmp/out/vm/r.boot3.log" ]; echo $?) "status, boots: $r"
r=$(run "int3 int3 int3 int3 ok")
t "a fourth int3 death before the command fails the run (no fifth boot)" \
	$([ "$r" = "124 4" ]; echo $?) "status, boots: $r"
r=$(run "int3late int3late ok")
t "a second int3 death while the command ran fails the run" $([ "$r" = "124 2" ]; echo $?) \
	"status, boots: $r"
r=$(run "int3late ok")
t "an int3 while the command ran: booted again, said so" \
	$([ "$r" = "0 2" ] && grep -q "died of an int3 while the command ran" "$tmp/stderr"; echo $?) \
	"status, boots: $r; $(cat "$tmp/stderr")"
r=$(run "oops ok")
t "another death before the command is not retried" $([ "$r" = "124 1" ]; echo $?) "status, boots: $r"
r=$(run "int3 ok")
echo "# CONFIG_JUMP_LABEL is not set" >"$tmp/config"
r2=$(run "int3 ok")
echo CONFIG_JUMP_LABEL=y >"$tmp/config"
t "no boot log of an earlier run is left as this one's first" \
	$([ "$r" = "0 2" ] && [ "$r2" = "124 1" ] && [ ! -e "$tmp/out/vm/r.boot1.log" ]; echo $?) "$r, $r2"
t "a kernel without jump labels is not booted again" $([ "$r2" = "124 1" ]; echo $?) "status, boots: $r2"
r=$(run "ok")
t "a clean boot boots once" $([ "$r" = "0 1" ] && ! grep -q "booting again" "$tmp/stderr"; echo $?) \
	"status, boots: $r"
echo "1..$n"
exit $bad
