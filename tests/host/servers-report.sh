#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/servers-report on made-up guest output (no guest): the share of a
# region's used memory is taken over at least 1 MiB of it, so a region the
# server uses less of per second (Redis's program text, about 600K) is
# judged over a few seconds' samples instead of never; a region used at
# 1 MiB a second or more is judged per sample as before, and one whose used
# pages stay on the slow tier still fails. A window must also add up to
# half of one busy sample (the 90th percentile of the region's per-sample
# used memory): a few seconds in which a stalled client touched less than
# that of a buffer pool do not decide its time to 90%, and a check takes
# that percentile only from the samples up to its bound. The rule tells a
# stall from busy seconds by volume alone: a stalled second that touched
# more than half of a busy one still counts. With servers.sh -H, the pages
# used on the slow tier are named: results.md gives, per run, their
# mappings over the last 20 s in KiB a second, a name with spaces whole,
# over the seconds the samples cover. A run that set debugfs tunables
# (servers.sh -a, -D) says which, and what they were.
. "$(dirname "$0")/../../scripts/lib.sh"
rep=$NUMAB_ROOT/scripts/servers-report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$NUMAB_ROOT/tests/lib/tap.sh"
echo "TAP version 13"

# 20 samples of one run, a second apart. Used (hot) memory per sample:
#   text   576K; 128K of it on the slow tier until t=4, none from t=5
#   heap   4096K; 30% slow until t=6, 5% from t=7
#   shared 512K, half of it slow at every sample
#   other  100K, all fast: 5 samples add up to 500K, never 1 MiB
for i in $(seq 0 20); do
	echo "SRV_SAMPLE label=numab.redis.fill/main t=$i.0 procs=1 seq_max=$i idle=1 numa_pte_updates=$((i * 100))"
	if [ "$i" -le 4 ]; then ts=128; else ts=0; fi
	if [ "$i" -le 6 ]; then hs=1228; else hs=204; fi
	hot() { [ "$i" -gt 0 ] && echo " hot_fast_kb=$1 hot_slow_kb=$2"; }
	echo "SRV_REGION label=numab.redis.fill/main t=$i.0 region=text fast_kb=1200 slow_kb=592$(hot $((576 - ts)) $ts)"
	echo "SRV_REGION label=numab.redis.fill/main t=$i.0 region=heap fast_kb=300000 slow_kb=1000$(hot $((4096 - hs)) $hs)"
	echo "SRV_REGION label=numab.redis.fill/main t=$i.0 region=shared fast_kb=1000 slow_kb=1000$(hot 256 256)"
	echo "SRV_REGION label=numab.redis.fill/main t=$i.0 region=other fast_kb=1000 slow_kb=0$(hot 100 0)"
done >"$tmp/guest.out"

check() { # check SPEC: exit status of servers-report --check SPEC, output in $tmp/check.out
	"$rep" --check "$1" "$tmp/out" "$tmp/guest.out" >"$tmp/check.out" 2>&1
}

mkdir -p "$tmp/out"
check "numab.redis.fill:text>=0.9@8"
t "a region used at 576K a second reaches 90% over 2-second windows (text by t=8)" $? "$tmp/check.out"
grep -q "reached after 6.0 s" "$tmp/check.out"
t "... at the end of the first window whose used memory is all fast (t=6)" $? "$tmp/check.out"
check "numab.redis.fill:text>=0.9@5"
[ $? = 1 ]
t "... and not before it: the windows up to t=4 hold slow pages" $? "$tmp/check.out"
check "numab.redis.fill:heap>=0.9@7"
t "a region used at 4 MiB a second is judged per sample (heap 95% at t=7)" $? "$tmp/check.out"
check "numab.redis.fill:heap>=0.9@6"
[ $? = 1 ]
t "... and not at t=6, where 30% of it was slow" $? "$tmp/check.out"
check "numab.redis.fill:shared>=0.9@20"
[ $? = 1 ]
t "a small region whose used pages stay half slow never reaches 90%" $? "$tmp/check.out"
grep -q "never in 20 s, end 50.0%" "$tmp/check.out"
t "... and says so with its share at the end (50%)" $? "$tmp/check.out"
check "numab.redis.fill:other>=0.9@20"
[ $? = 1 ] && grep -q "no such run" "$tmp/check.out"
t "a region whose last 5 samples never add up to 1 MiB is not judged" $? "$tmp/check.out"
grep -qE '^\| redis \|.*\| text \|([^|]*\|)* 6 s ' "$tmp/out/results.md"
t "results.md gives the text's time to 90% (6 s)" $? "$(grep text "$tmp/out/results.md")"

# A buffer pool whose busy samples used 8 or 16 MiB and once 24 MiB (the
# 90th percentile is 16 MiB, the median 8 MiB), 80% of it fast until t=19 and 95% from
# t=20, with a stall from t=5 to t=9 in which the client touched 1 MiB a
# second of it, 95% fast. Each stall sample alone is over 1 MiB, and the 5
# of them (5 MiB) are under half of a busy sample; 4 of them would be
# enough against half of the median. After t=30, a burst of 40 MiB
# samples: a check with a bound before it must not see it.
mib() { echo " hot_fast_kb=$(($1 * 1024 * $2 / 100)) hot_slow_kb=$(($1 * 1024 - $1 * 1024 * $2 / 100))"; }
for i in $(seq 0 40); do
	echo "SRV_SAMPLE label=numab.postgres.move/main t=$i.0 procs=5 seq_max=$i idle=1 numa_pte_updates=$((i * 100))"
	if [ "$i" -eq 0 ]; then hot=
	elif [ "$i" -eq 1 ]; then hot=$(mib 24 80)
	elif [ "$i" -le 4 ]; then hot=$(mib 16 80)
	elif [ "$i" -le 9 ]; then hot=$(mib 1 95)
	elif [ "$i" -gt 30 ]; then hot=$(mib 40 95)
	else
		v=$((i % 2 ? 16 : 8))
		if [ "$i" -lt 20 ]; then hot=$(mib $v 80); else hot=$(mib $v 95); fi
	fi
	echo "SRV_REGION label=numab.postgres.move/main t=$i.0 region=shared fast_kb=100000 slow_kb=162144$hot"
done >"$tmp/guest.out"
check "numab.postgres.move:shared>=0.9@19"
[ $? = 1 ] && grep -q "^not ok 1 " "$tmp/check.out"
t "a stall that touched 1 MiB a second of a buffer pool busy at 8 to 16 MiB a second does not reach 90% (95% fast at t=5..9)" $? "$tmp/check.out"
check "numab.postgres.move:shared>=0.9@20"
t "... the busy samples do, at t=20" $? "$tmp/check.out"
grep -q "reached after 20.0 s" "$tmp/check.out"
t "... and the time to 90% is theirs: at t=20 one sample of half the busy level (8 of 16 MiB) is judged alone" $? "$tmp/check.out"
grep -qE '^\| postgres \|.*\| shared \|([^|]*\|)* 21 s ' "$tmp/out/results.md"
t "results.md takes the busy level over the whole run (the 40 MiB burst after t=30): 21 s, when two samples add up to 20 MiB" $? "$(grep shared "$tmp/out/results.md")"

# Named slow pages (servers.sh -H): 31 samples a second apart (t=0..30);
# libc's followed page used at every sample, a stack page at every second
# one, a page of a SysV segment at the first 6 only, and one of the buffer
# pool, whose mapping's name holds a space, at the last. Over the last
# 20 s (the samples from t=11, counting from t=10): libc 64 KiB a second
# (one followed page stands for 16), the stack 32, the buffer pool 3, the
# SysV page none. A second run takes no sample from t=5 to t=25: its page
# used at t=25 is 64 KiB over those 20 s, 3 a second, not 64.
for i in $(seq 0 30); do
	echo "SRV_SAMPLE label=numab.postgres.move/main t=$i.0 procs=5 seq_max=$i idle=1"
	echo "SRV_REGION label=numab.postgres.move/main t=$i.0 region=other fast_kb=3000 slow_kb=3000 hot_fast_kb=2048 hot_slow_kb=64"
	echo "SRV_HOTSLOW label=numab.postgres.move/main t=$i.0 pfn=0x1000 region=other pid=7 comm=postgres off=0xf7000 map=/usr/lib/x86_64-linux-gnu/libc.so.6"
	[ $((i % 2)) = 0 ] && echo "SRV_HOTSLOW label=numab.postgres.move/main t=$i.0 pfn=0x2000 region=other pid=9 comm=postgres off=0x1e000 map=[stack]"
	[ "$i" -le 5 ] && echo "SRV_HOTSLOW label=numab.postgres.move/main t=$i.0 pfn=0x3000 region=shared pid=7 comm=postgres off=0x4000 map=/SYSV00000000 (deleted)"
	[ "$i" = 30 ] && echo "SRV_HOTSLOW label=numab.postgres.move/main t=$i.0 pfn=0x4000 region=shared pid=7 comm=postgres off=0x5000 map=/dev/zero (deleted)"
done >"$tmp/guest.out"
for i in 0 1 2 3 4 5 25; do
	echo "SRV_SAMPLE label=numab.redis.move/main t=$i.0 procs=1 seq_max=$i idle=1"
	echo "SRV_REGION label=numab.redis.move/main t=$i.0 region=heap fast_kb=3000 slow_kb=3000 hot_fast_kb=2048 hot_slow_kb=64"
	[ "$i" = 25 ] && echo "SRV_HOTSLOW label=numab.redis.move/main t=$i.0 pfn=0x5000 region=heap pid=3 comm=redis-server maps=2 off=0x0 map=anon"
done >>"$tmp/guest.out"
echo "SRV_INFO label=numab.redis.move tunable=fault_around_bytes value=4096 was=65536" >>"$tmp/guest.out"
echo "SRV_INFO label=numab.redis.move tunable=scan_period_max_ms value=1000 was=60000" >>"$tmp/guest.out"
rm -rf "$tmp/out"
"$rep" "$tmp/out" "$tmp/guest.out" >"$tmp/report.out" 2>&1
t "named slow pages do not break the report" $? "$tmp/report.out"
named=$(grep -A12 'by mapping' "$tmp/out/results.md")
grep -qE '^\| numab.postgres.move \| main \| other \| /usr/lib/x86_64-linux-gnu/libc.so.6 \| 64 \|$' "$tmp/out/results.md"
t "results.md names libc, used at every sample, at 64 KiB a second over the last 20 s" $? "$named"
grep -qE '^\| numab.postgres.move \| main \| other \| \[stack\] \| 32 \|$' "$tmp/out/results.md"
t "... the stack page, used every second sample, at 32" $? "$named"
grep -qE '^\| numab.postgres.move \| main \| shared \| /dev/zero \(deleted\) \| 3 \|$' "$tmp/out/results.md"
t "... the buffer pool by its whole name, spaces and all, at 3" $? "$named"
! grep -q 'SYSV' "$tmp/out/results.md"
t "... and not the page used before the last 20 s only" $? "$named"
grep -qE '^\| numab.redis.move \| main \| heap \| anon \| 3 \|$' "$tmp/out/results.md"
t "a page named after 20 s without a sample counts over those 20 s (3 KiB a second, not 64)" $? "$named"
grep -q "^Tunables set for the run (servers.sh -a, -D; .*): numab.redis.move: fault_around_bytes 4096 (was 65536), scan_period_max_ms 1000 (was 60000)\.$" "$tmp/out/results.md"
t "results.md names each tunable a run set, and what it was" $? "$(cat "$tmp/out/results.md")"
"$rep" --show --check "numab.postgres.move:other>=0.9@30" "$tmp/out" "$tmp/guest.out" >"$tmp/show.out" 2>&1
t "--show with --check on named pages: the check is judged (the other region, 97% fast)" $? "$tmp/show.out"
grep -q "^# show: numab.postgres.move/main used on the slow tier, last 20 s: other /usr/lib/x86_64-linux-gnu/libc.so.6 64 KiB/s, other \[stack\] 32 KiB/s, shared /dev/zero (deleted) 3 KiB/s$" "$tmp/show.out"
t "... and --show gives the three largest named mappings" $? "$tmp/show.out"
[ "$(grep -c '^| numab.postgres.move | main |' "$tmp/out/results.md")" = 4 ]
t "the named pages make no run of their own: one throughput row and three mapping rows" $? "$(cat "$tmp/out/results.md")"

echo "1..$n"
exit $bad
