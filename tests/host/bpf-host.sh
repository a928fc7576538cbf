#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# numabctl's BPF backend on the machine this runs on: its own
# kernel, which has no numa_vmas. The BPF task_vma iterator reads a test
# process: the same VMAs as /proc/PID/maps, the mm line, no absent field
# reported as a value; unprivileged it fails with exit 3 and says what is
# missing, --backend auto then degrades; valgrind finds nothing in the BPF
# path. Skips, saying why, when numabctl was built without BPF, the kernel
# has no BTF or this is not root.
#
# NUMABCTL=path tests that binary (default tools/numab/numabctl, built if
# missing). The cost of a BPF read is measured by 'make -C tools/numab
# bench-bpf' (tests/bench-bpf.sh), not here.
. "$(dirname "$0")/../../scripts/lib.sh"
nx=${NUMABCTL:-$NUMAB_ROOT/tools/numab/numabctl}
tmp=$(mktemp -d)
. "$NUMAB_ROOT/tests/lib/tap.sh"
pids=()
# NUMA balancing is switched for the tests that need it, and put back
. "$NUMAB_ROOT/tools/numab/tests/knobs.sh"
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; knobs_restore; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "TAP version 13"

need_numabctl "$nx" "$tmp"
"$nx" status >"$tmp/status" 2>&1
grep -qiE "^ *bpf_backend +(no|absent)" "$tmp/status" &&
	skip_all "numabctl was built without BPF (no clang, libbpf-dev or bpftool)"
[ -r /sys/kernel/btf/vmlinux ] || skip_all "this kernel ($(uname -r)) has no BTF (/sys/kernel/btf/vmlinux)"
[ "$(id -u)" = 0 ] || skip_all "not root: loading BPF needs CAP_BPF and CAP_PERFMON"

# a test process: a file mapping, anonymous memory, a PROT_NONE gap;
# started with balancing off, so that the scanner never set its
# mm->numa_next_scan
knobs_balancing 0 || skip_all "kernel.numa_balancing cannot be set (no CONFIG_NUMA_BALANCING?)"
sleep 600 &
pids+=($!)
p=$!
sleep 0.2
"$nx" vmas --backend bpf --numa-vmas "$p" >"$tmp/nv0" 2>"$tmp/nv0.err"
head -n 1 "$tmp/nv0" | grep -qE "^mm scan_seq=-?[0-9]+ scan_offset=0x[0-9a-f]+$"
t "--numa-vmas: a process never scanned has no next_scan_ms (not 0, 'due now')" $? "$tmp/nv0"

"$nx" vmas --backend bpf -r -n -o START,END "$p" >"$tmp/bpf" 2>"$tmp/bpf.err"
rc=$?
t "vmas --backend bpf exits 0 and says it used BPF" \
	$([ $rc = 0 ] && grep -q "BPF task_vma iterator" "$tmp/bpf.err"; echo $?) "$tmp/bpf.err"
# hex without leading zeros, the vsyscall gate VMA left out (no mm of its own)
awk '{ split($1, a, "-"); s = a[1]; e = a[2]; sub(/^0+/, "", s); sub(/^0+/, "", e)
	if (s != "ffffffffff600000") print s, e }' "/proc/$p/maps" >"$tmp/maps"
awk '{ s = $1; e = $2; sub(/^0+/, "", s); sub(/^0+/, "", e)
	if (s != "ffffffffff600000") print s, e }' "$tmp/bpf" >"$tmp/bpf.ranges"
t "the BPF read has the VMAs of maps ($(wc -l <"$tmp/maps"))" \
	$(cmp -s "$tmp/maps" "$tmp/bpf.ranges"; echo $?) "$(diff "$tmp/maps" "$tmp/bpf.ranges" | head -5)"

# a busy process with balancing on: the scanner visits it (numab_state,
# numa_next_scan), within a bounded wait
knobs_balancing 1 || skip_all "kernel.numa_balancing cannot be set to 1"
sh -c 'while :; do :; done' &
pids+=($!)
b=$!
for i in $(seq 1 100); do
	"$nx" vmas --backend bpf --numa-vmas "$b" >"$tmp/nv" 2>"$tmp/nv.err"
	grep -q " state=ok" "$tmp/nv" && break
	sleep 0.2
done
head -n 1 "$tmp/nv" | grep -qE "^mm scan_seq=-?[0-9]+ scan_offset=0x[0-9a-f]+ next_scan_ms=-?[0-9]+$"
t "--numa-vmas: the mm line in numa_vmas' format" $? "$tmp/nv"
# a kernel without the numab series has no promo_seq, scans, last_skip...:
# absent, never printed as 0
if ! grep -q "numa_vmas" /proc/self/maps 2>/dev/null && [ ! -e /proc/self/numa_vmas ]; then
	grep -qE " (promo_seq|scans|promo_scans|pte_updates|skip_pid|last_skip)=" "$tmp/nv"
	t "fields this kernel lacks are absent, not zero" $([ $? = 1 ]; echo $?) "$tmp/nv"
fi
awk 'NR > 1 && !/ filter=(none|unsuitable|shared_ro|shared_ro_promo_only|inaccessible) state=(ok|none)/' \
	"$tmp/nv" >"$tmp/nv.bad"
t "every VMA line has a filter and a state" $([ ! -s "$tmp/nv.bad" ]; echo $?) "$tmp/nv.bad"
if grep -q " state=ok" "$tmp/nv"; then
	awk '/ state=ok/ && !/ start_seq=-?[0-9]+ prev_seq=-?[0-9]+ .*pids=0x[0-9a-f]+,0x[0-9a-f]+/' \
		"$tmp/nv" >"$tmp/nv.bad"
	t "a scanned VMA has its numab_state fields" $([ ! -s "$tmp/nv.bad" ]; echo $?) "$tmp/nv.bad"
else
	t "a busy process with balancing on has a scanned VMA within 20 s" 1 "$tmp/nv"
fi

# the program's per-boot cache: written by the first load, used by the next
# (same output), ignored when it is not root's alone or does not fit
export NUMABCTL_BPF_CACHE=$tmp/bpf.cache
NUMABCTL_TIMING=1 "$nx" vmas --backend bpf -r -o START,END,FILTER,STATE "$p" >"$tmp/c1" 2>"$tmp/c1.err"
NUMABCTL_TIMING=1 "$nx" vmas --backend bpf -r -o START,END,FILTER,STATE "$p" >"$tmp/c2" 2>"$tmp/c2.err"
t "BPF cache: the first load through libbpf writes it (root's, 0600)" \
	$(! grep -q "from the cache" "$tmp/c1.err" && [ "$(stat -c %u:%a "$NUMABCTL_BPF_CACHE" 2>/dev/null)" = 0:600 ]; echo $?) "$tmp/c1.err"
t "BPF cache: the next load uses it, the same output" \
	$(grep -q "from the cache" "$tmp/c2.err" && cmp -s "$tmp/c1" "$tmp/c2"; echo $?) "$(cat "$tmp/c2.err"; diff "$tmp/c1" "$tmp/c2" | head -5)"
chmod 666 "$NUMABCTL_BPF_CACHE"
NUMABCTL_TIMING=1 "$nx" vmas --backend bpf -r -o START,END,FILTER,STATE "$p" >"$tmp/c3" 2>"$tmp/c3.err"
t "BPF cache: a cache others may write is not loaded" \
	$(! grep -q "from the cache" "$tmp/c3.err" && cmp -s "$tmp/c1" "$tmp/c3"; echo $?) "$tmp/c3.err"
head -c 100 "$NUMABCTL_BPF_CACHE" >"$tmp/short"; cat "$tmp/short" >"$NUMABCTL_BPF_CACHE"; chmod 600 "$NUMABCTL_BPF_CACHE"
NUMABCTL_TIMING=1 "$nx" vmas --backend bpf -r -o START,END,FILTER,STATE "$p" >"$tmp/c4" 2>"$tmp/c4.err"
NUMABCTL_TIMING=1 "$nx" vmas --backend bpf -r -o START,END,FILTER,STATE "$p" >"$tmp/c5" 2>"$tmp/c5.err"
t "BPF cache: a truncated cache is not loaded, and is replaced" \
	$(! grep -q "from the cache" "$tmp/c4.err" && grep -q "from the cache" "$tmp/c5.err" && cmp -s "$tmp/c1" "$tmp/c5"; echo $?) "$(cat "$tmp/c4.err" "$tmp/c5.err")"
unset NUMABCTL_BPF_CACHE

"$nx" vmas --backend bpf 999999999 >/dev/null 2>"$tmp/gone"
rc=$?
t "a missing process: exit 5" $([ $rc = 5 ]; echo $?) "rc $rc: $(cat "$tmp/gone")"

# unprivileged: exit 3 and what is missing, never a crash
if command -v setpriv >/dev/null; then
	U=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	"${U[@]}" sleep 600 &
	pids+=($!)
	q=$!
	sleep 0.2
	"${U[@]}" "$nx" vmas --backend bpf "$q" >/dev/null 2>"$tmp/unpriv"
	rc=$?
	t "unprivileged --backend bpf: exit 3, names CAP_BPF and CAP_PERFMON" \
		$([ $rc = 3 ] && grep -q "CAP_BPF and CAP_PERFMON" "$tmp/unpriv"; echo $?) "rc $rc: $(cat "$tmp/unpriv")"
	"${U[@]}" "$nx" vmas -r -n -o START,VERDICT "$q" >"$tmp/auto" 2>"$tmp/auto.err"
	rc=$?
	t "unprivileged auto: exit 0, degraded, says why not BPF" \
		$([ $rc = 0 ] && grep -q "no BPF backend: .*CAP_BPF" "$tmp/auto.err" && grep -q unknown "$tmp/auto"; echo $?) \
		"rc $rc: $(cat "$tmp/auto.err")"
else
	n=$((n + 1)); echo "ok $n unprivileged # SKIP no setpriv"
fi

if command -v valgrind >/dev/null; then
	# both loads: through libbpf (no cache), and from the cache it leaves
	rc=0
	: >"$tmp/vg"
	for c in off "$tmp/vg.cache" "$tmp/vg.cache"; do
		NUMABCTL_BPF_CACHE=$c valgrind -q --error-exitcode=9 --leak-check=full \
			--errors-for-leak-kinds=definite \
			--suppressions="$NUMAB_ROOT/tools/numab/tests/libbpf.supp" \
			"$nx" vmas --backend bpf "$p" >/dev/null 2>>"$tmp/vg" || rc=$?
	done
	grep -v "WARNING: unhandled eBPF command" "$tmp/vg" | grep "^==" >"$tmp/vg.errs"
	t "valgrind: the BPF path is clean, through libbpf and from the cache (libbpf's bpf_attr padding suppressed)" \
		$([ $rc = 0 ] && [ ! -s "$tmp/vg.errs" ]; echo $?) "$tmp/vg"
else
	n=$((n + 1)); echo "ok $n valgrind # SKIP no valgrind"
fi

echo "1..$n"
exit $bad
