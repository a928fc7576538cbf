#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tolerance of the BPF-against-numa_vmas cross-check
# (tests/vm/bpf_crosscheck.c --judge), with no guest: three saved reads,
# A = numa_vmas, B = the BPF read, C = numa_vmas again. What the scanner
# can do between the reads passes (a counter between A and C, a scan
# offset between them, pids after a window reset and new faults, a flag
# that flipped and flipped back while the VMA was visited); a BPF read
# that is wrong fails (a pids bit in neither read, a counter past C or
# behind A, a field that differs where A and C agree, a VMA or a field
# missing, an offset outside A..C).
. "$(dirname "$0")/../../scripts/lib.sh"
. "$NUMAB_ROOT/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"

bin=$tmp/bpf_crosscheck
if ! ${CC:-gcc} -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE \
	-I"$NUMAB_ROOT/tests/lib" -o "$bin" "$NUMAB_ROOT/tests/vm/bpf_crosscheck.c" \
	2>"$tmp/cc"; then
	t "bpf_crosscheck builds on the host" 1 "$tmp/cc"
	echo "1..$n"
	exit 1
fi

# the VMA lines of a read: HEAP_PIDS HEAP_PTE HEAP_PREV HEAP_SKIP ANON_SKIP_PID OFFSET
read_of() {
	echo "mm scan_seq=412 scan_offset=$6 next_scan_ms=812"
	echo "55d0c2000000-55d0c2021000 filter=none state=ok start_seq=1 prev_seq=$3 promo_seq=0 pids=$1 pid_reset_ms=1200 next_scan_ms=-9000 promo_only=0 scans=40 promo_scans=0 pte_updates=$2 skip_delay=1 skip_seq=2 skip_pid=0 last_skip=$4 heap"
	echo "7f3a40000000-7f3a48000000 filter=none state=ok start_seq=2 prev_seq=300 promo_seq=1 pids=0x0,0x0 pid_reset_ms=-4000 next_scan_ms=-9000 promo_only=0 scans=3 promo_scans=0 pte_updates=98304 skip_delay=1 skip_seq=0 skip_pid=$5 last_skip=pid_inactive anon"
}

# case NAME WANT(pass|fail) A-ARGS / B-ARGS / C-ARGS
case_() {
	local name=$1 want=$2 rc
	shift 2
	local a=() b=() c=() which=a
	for x in "$@"; do
		if [ "$x" = / ]; then which=$([ $which = a ] && echo b || echo c); continue; fi
		eval "$which+=(\"\$x\")"
	done
	read_of "${a[@]}" >"$tmp/A"
	read_of "${b[@]}" >"$tmp/B"
	read_of "${c[@]}" >"$tmp/C"
	"$bin" --judge "$tmp/A" "$tmp/B" "$tmp/C" >"$tmp/out" 2>&1
	rc=$?
	if [ "$want" = pass ]; then
		t "passes: $name" "$([ $rc = 0 ] && echo 0 || echo 1)" "$tmp/out"
	else
		t "fails: $name" "$([ $rc = 1 ] && grep -q 'mismatched; first' "$tmp/out" && echo 0 || echo 1)" "$tmp/out"
	fi
}

P=0x1000000,0x1000001010000 O=0x7f3a40000000
case_ "three equal reads" pass \
	$P 33 411 seq_completed 109 $O / $P 33 411 seq_completed 109 $O / $P 33 411 seq_completed 109 $O
# the case a fresh CI run met: the window reset between A and C, then faults
case_ "pids after a window reset and new faults (equal to neither read)" pass \
	$P 33 411 seq_completed 109 $O / 0x1000001010000,0x1000000 40 411 seq_completed 109 $O / \
	0x1000001010000,0x1000001000000 50 411 seq_completed 109 $O
case_ "pids with a bit in neither read" fail \
	$P 33 411 seq_completed 109 $O / 0x1000001010002,0x1000000 40 411 seq_completed 109 $O / \
	0x1000001010000,0x1000001000000 50 411 seq_completed 109 $O
case_ "pids malformed" fail \
	$P 33 411 seq_completed 109 $O / 0xzz 40 411 seq_completed 109 $O / \
	0x1000001010000,0x1000001000000 50 411 seq_completed 109 $O
case_ "a counter between A and C" pass \
	$P 33 411 seq_completed 109 $O / $P 40 411 seq_completed 110 $O / $P 50 411 seq_completed 111 $O
case_ "a counter past C" fail \
	$P 33 411 seq_completed 109 $O / $P 60 411 seq_completed 109 $O / $P 50 411 seq_completed 109 $O
case_ "a counter behind A" fail \
	$P 33 411 seq_completed 109 $O / $P 33 411 seq_completed 108 $O / $P 33 411 seq_completed 111 $O
case_ "a field that differs where A and C agree" fail \
	$P 33 411 seq_completed 109 $O / $P 33 410 seq_completed 109 $O / $P 33 411 seq_completed 109 $O
case_ "last_skip flipped and back while the VMA was visited" pass \
	$P 33 411 seq_completed 109 $O / $P 40 411 pid_inactive 109 $O / $P 50 411 seq_completed 109 $O
case_ "last_skip different while the VMA was not visited" fail \
	$P 33 411 seq_completed 109 $O / $P 33 411 pid_inactive 109 $O / $P 33 411 seq_completed 109 $O
case_ "the scan offset between A and C" pass \
	$P 33 411 seq_completed 109 0x7f3a40000000 / $P 33 411 seq_completed 109 0x7f3a44000000 / \
	$P 33 411 seq_completed 109 0x7f3a48000000
case_ "the scan offset outside A..C" fail \
	$P 33 411 seq_completed 109 0x7f3a40000000 / $P 33 411 seq_completed 109 0x7f3a50000000 / \
	$P 33 411 seq_completed 109 0x7f3a48000000

# a VMA that both numa_vmas reads have and the BPF read lacks
read_of $P 33 411 seq_completed 109 $O >"$tmp/A"
cp "$tmp/A" "$tmp/C"
head -n 2 "$tmp/A" >"$tmp/B"
"$bin" --judge "$tmp/A" "$tmp/B" "$tmp/C" >"$tmp/out" 2>&1
t "fails: a VMA missing from the BPF read" "$([ $? = 1 ] && grep -q 'range' "$tmp/out" && echo 0 || echo 1)" "$tmp/out"
# a field missing from the BPF read
sed 's/ skip_pid=109//' "$tmp/A" >"$tmp/B"
"$bin" --judge "$tmp/A" "$tmp/B" "$tmp/C" >"$tmp/out" 2>&1
t "fails: a field missing from the BPF read" "$([ $? = 1 ] && grep -q 'skip_pid' "$tmp/out" && echo 0 || echo 1)" "$tmp/out"
# an unreadable read is an error, not a pass
"$bin" --judge "$tmp/A" "$tmp/nonexistent" "$tmp/C" >"$tmp/out" 2>&1
t "an unreadable read is an error (exit 2)" "$([ $? = 2 ] && echo 0 || echo 1)" "$tmp/out"

echo "1..$n"
exit $bad
