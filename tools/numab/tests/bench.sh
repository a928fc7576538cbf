#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a timed test): 'numabctl vmas' on a process with N VMAs
# (default 100000) against 'cat numa_vmas numa_maps maps' on the same
# synthetic sysroot.  Prints the times, their ratio (goal <= 2) and the
# peak RSS of numabctl: streamed in chunks (the default for big tables),
# as one libsmartcols table (NUMABCTL_CHUNK=0) and as JSON.
# Usage: tests/bench.sh NUMABCTL [N]   (KEEP=1 keeps the sysroot)
BIN=$1 N=${2:-100000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/numab-bench.XXXXXX")
[ -n "$KEEP" ] && echo "root: $TMP/root" || trap 'rm -rf "$TMP"' EXIT
R=$TMP/root; P=$R/proc/4242
cp -a "$(dirname "$0")/fixtures/patched/." "$R/"
awk -v n="$N" -v p="$P" 'BEGIN {
	print "mm scan_seq=412 scan_offset=0x7f3a40000000 next_scan_ms=812" > (p "/numa_vmas")
	for (i = 0; i < n; i++) {
		s = sprintf("7f00%08x", i * 12288); e = sprintf("7f00%08x", i * 12288 + 8192)
		printf "%s-%s rw-p 00000000 00:00 0 \n", s, e > (p "/maps")
		printf "%s default anon=2 dirty=2 N0=1 N1=1 kernelpagesize_kB=4\n", s > (p "/numa_maps")
		printf "%s-%s filter=none state=ok start_seq=2 prev_seq=%d promo_seq=3 pids=0x1,0x0 pid_reset_ms=1200 next_scan_ms=-9000 promo_only=0 scans=37 promo_scans=4 pte_updates=2 skip_delay=1 skip_seq=3 skip_pid=0 last_skip=seq_completed anon\n", s, e, 400 + i % 12 > (p "/numa_vmas")
	}
}'
now() { date +%s.%N; }
best() {	# best of 3 wall-clock runs of "$@"
	b=999
	for i in 1 2 3; do
		t0=$(now); "$@" > /dev/null 2>&1; t1=$(now)
		b=$(echo "$t1 $t0 $b" | awk '{ d = $1 - $2; print (d < $3 ? d : $3) }')
	done
	echo "$b"
}
rss() {	# peak RSS in KiB of "$@", or - without GNU time
	[ -x /usr/bin/time ] || { echo -; return; }
	/usr/bin/time -f %M "$@" 2>&1 > /dev/null | tail -1
}
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
tc=$(best cat "$P/numa_vmas" "$P/numa_maps" "$P/maps")
tn=$(best "$BIN" --sysroot "$R" vmas 4242)
t1=$(NUMABCTL_CHUNK=0 best "$BIN" --sysroot "$R" vmas 4242)
tj=$(best "$BIN" --sysroot "$R" vmas -J 4242)
echo "VMAs: $N (best of 3, wall clock; goal: ratio <= 2)"
echo "cat numa_vmas numa_maps maps: ${tc}s"
echo "numabctl vmas:                ${tn}s (ratio $(ratio "$tn" "$tc"), peak RSS $(rss "$BIN" --sysroot "$R" vmas 4242) KiB)"
echo "numabctl vmas, one table:     ${t1}s (ratio $(ratio "$t1" "$tc"), peak RSS $(NUMABCTL_CHUNK=0 rss "$BIN" --sysroot "$R" vmas 4242) KiB)"
echo "numabctl vmas -J:             ${tj}s (ratio $(ratio "$tj" "$tc"), peak RSS $(rss "$BIN" --sysroot "$R" vmas -J 4242) KiB)"
