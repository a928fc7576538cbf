#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unit tests and a few numabctl runs under valgrind; TAP output.
# Usage: tests/valgrind.sh UNIT_BINARY NUMABCTL_BINARY   (from tools/numab)
UNIT=$1 BIN=$2 FIX=tests/fixtures
n=0; failed=0
if ! command -v valgrind > /dev/null; then
	echo "ok 1 - valgrind # SKIP valgrind is not installed (apt-get install valgrind)"
	echo "1..1"; echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
vg() {
	d=$1; shift
	n=$((n + 1))
	if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$@" > /dev/null 2> "$LOG"; [ $? -ne 99 ] && ! grep -q '^==[0-9]*==' "$LOG"; then
		echo "ok $n - valgrind: $d"
	else
		failed=$((failed + 1)); echo "not ok $n - valgrind: $d"; sed 's/^/# /' "$LOG"
	fi
}
vg "unit tests" "$UNIT" "$FIX"
for fx in patched unpatched-6.12 no-numab single-node malformed per-process; do
	vg "status on $fx" "$BIN" --sysroot "$FIX/$fx" status -J
	vg "vmas on $fx" "$BIN" --sysroot "$FIX/$fx" vmas -o +WHY,SCANS,PIDBITS 4242
done
vg "vmas on an exiting process" "$BIN" --sysroot "$FIX/patched" vmas 4243
# streamed tables: libsmartcols' first chunk checked against fast_row(), then JSON chunks
NUMABCTL_CHUNK=2 vg "vmas streamed in chunks of 2" "$BIN" --sysroot "$FIX/patched" vmas -o +END,WHY 4242
NUMABCTL_CHUNK=2 NUMABCTL_FAST=0 vg "vmas streamed through libsmartcols only" "$BIN" --sysroot "$FIX/patched" vmas 4242
NUMABCTL_CHUNK=2 vg "vmas -J streamed in chunks of 2" "$BIN" --sysroot "$FIX/patched" vmas -J 4242
vg "filter" "$BIN" --sysroot "$FIX/patched" filter -J
vg "trace --input" "$BIN" --sysroot "$FIX/patched" trace 4242 -i "$FIX/trace-4242.txt"
vg "watch" "$BIN" --sysroot "$FIX/patched" watch 4242 -i 0.05 -n 2
# json-c documents, JSON lines, several processes, per-node columns, -x
vg "watch -J (one JSON object per sample)" "$BIN" --sysroot "$FIX/patched" watch 4242 -i 0.05 -n 2 -J
vg "vmas of two processes, -N, -z, -x NAME, JSON" "$BIN" --sysroot "$FIX/patched" vmas -N -z -x NAME -J 4242 4242
NUMABCTL_CHUNK=2 vg "vmas -J streamed (json-c checked) with -N" "$BIN" --sysroot "$FIX/patched" vmas -N -J -o +START,WHY 4242
vg "status -J=compact, -o" "$BIN" --sysroot "$FIX/patched" status --json=compact -o NODE,CLASS
vg "vmas on malformed tiers and numa_maps" "$BIN" --sysroot "$FIX/malformed" vmas -N 4242
vg "report -J" "$BIN" --sysroot "$FIX/patched" report 4242 -d 0 -J --trace-input "$FIX/trace-4242.txt"
vg "report on unpatched kernel" "$BIN" --sysroot "$FIX/unpatched-6.12" report 4242 -d 0
vg "report with its slow-tier causes as text" "$BIN" --sysroot "$FIX/patched" report 4242 -d 0 --no-trace
vg "report -J with nothing on the slow tier" "$BIN" --sysroot "$FIX/single-node" report 4242 -d 0 -J --no-trace
# the scan pace: the threads' CPU times sampled twice, a series without promo_slowdown
vg "report with the threads' CPU times (scan pace)" "$BIN" --sysroot "$FIX/idle" report 4242 -d 0.1 --no-trace
vg "report -J on a series without promo_slowdown" "$BIN" --sysroot "$FIX/no-promo-slowdown" report 4242 -d 0 -J --no-trace
# per-process filters, on a writable copy of the fixture
PP=$(mktemp -d); cp -a "$FIX/per-process/." "$PP"
trap 'rm -f "$LOG"; rm -rf "$PP"' EXIT
NUMABCTL_CHUNK=2 vg "vmas -J with the mm-line filters, in chunks of 2" "$BIN" --sysroot "$PP" vmas -J 4242
vg "filter --pid -J" "$BIN" --sysroot "$PP" filter --pid 4242 -J
vg "filter --pid set" "$BIN" --sysroot "$PP" filter --pid 4242 pid=inherit cpuset=on
vg "filter --pid of a kernel thread" "$BIN" --sysroot "$PP" filter --pid 2
vg "run per process" "$BIN" --sysroot "$PP" run --legacy -f pid=inherit -- true
NP=$(mktemp -d); cp -a "$FIX/no-promo-slowdown/." "$NP"
trap 'rm -f "$LOG"; rm -rf "$PP" "$NP"' EXIT
vg "filter --legacy without promo_slowdown" "$BIN" --sysroot "$NP" filter --legacy
vg "filter --pid --default without promo_slowdown" "$BIN" --sysroot "$NP" filter --pid 4242 --default
vg "run without numa_filters" "$BIN" --sysroot "$FIX/patched" run -f pid=1 -- true
vg "report -J with overrides" "$BIN" --sysroot "$PP" report 4242 -d 0 -J --no-trace
vg "vmas of several PIDs with their filters" "$BIN" --sysroot "$PP" vmas 4242 4243
vg "vmas -J of several PIDs with their filters" "$BIN" --sysroot "$PP" vmas -J 4242 4243
# output files written through (a symlink, a FIFO with its reader), a
# saved trace that is none, vmas -p, --numa-vmas with its filters
ln -s report.txt "$PP/link"
vg "report -w through a symlink" "$BIN" --sysroot "$FIX/patched" report 4242 -d 0 --no-trace -w "$PP/link"
mkfifo "$PP/fifo"
( timeout 60 cat "$PP/fifo" > /dev/null ) &
vg "filter --save to a FIFO" timeout 60 "$BIN" --sysroot "$FIX/patched" filter --save "$PP/fifo"
wait
printf 'root:x:0:0::/root:/bin/sh\n' > "$PP/notatrace"
vg "trace -i of a file that is no trace" "$BIN" --sysroot "$FIX/patched" trace 4242 -i "$PP/notatrace"
vg "vmas -p PID and a pattern" "$BIN" --sysroot "$FIX/patched" vmas -p 4242 -p nomatch
vg "vmas --numa-vmas --stranded --min-size" "$BIN" --sysroot "$FIX/patched" vmas --numa-vmas --stranded --min-size 1M 4242
vg "status -o with an unknown column" "$BIN" --sysroot "$FIX/patched" status -o NODE,BOGUS
# export: every process, the textfile directory, the failures
vg "export" "$BIN" --sysroot "$FIX/patched" export
vg "export with per-process filters" "$BIN" --sysroot "$PP" export
vg "export on unpatched kernel" "$BIN" --sysroot "$FIX/unpatched-6.12" export --top 0
mkdir "$PP/textfile"
vg "export --textfile-directory" "$BIN" --sysroot "$FIX/patched" export --textfile-directory "$PP/textfile"
vg "export of a process that exits" "$BIN" --sysroot "$FIX/patched" export --textfile-directory "$PP/textfile" 4243
vg "export without NUMA balancing" "$BIN" --sysroot "$FIX/no-numab" export -w "$PP/textfile/x.prom"
echo "1..$n"
echo "$((n - failed)) passed, $failed failed, 0 skipped"
[ $failed -eq 0 ]
