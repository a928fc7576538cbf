#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-workload filters, guest side: two dbsim databases run side
# by side in one boot, with the system-wide filter sysctls at numab's
# defaults the whole time. "legacy" is started by `numabctl run --legacy`,
# which sets the legacy filters as per-process overrides
# (/proc/self/numa_filters) on itself and execs dbsim; "numab" is started
# plainly and follows the sysctls. Checked:
#  - the sysctls never change while both run (sampled every second);
#  - each process's numa_vmas mm line shows its own effective filters and
#    their source (legacy: process; numab: system);
#  - legacy's hot regions (hash table, arenas) stay on the slow tier and
#    numab's come back to the fast tier, in the same boot at the same time;
#  - the overrides are inherited across fork and execve, and the kernel
#    refuses bad values with EINVAL (numabctl: its usage exit code).
# Prints both workloads' fast-tier shares over time (DBSIM_ROW lines) for
# the closing note / Documentation.
. "$(dirname "$0")/tap.sh"
F=/proc/sys/kernel/numa_balancing_filter_
vals() { echo "$(cat ${F}pid) $(cat ${F}shared_ro) $(cat ${F}scan_delay) $(cat ${F}cpuset) $(cat ${F}shared_folio) $(cat ${F}promo_slowdown)"; }
D=/tmp/per-workload; mkdir -p $D
echo "TAP version 13"

if [ ! -e /proc/self/numa_filters ]; then
	t "the kernel has /proc/<pid>/numa_filters" 1 "kernel without the per-process filter overrides"
	echo "1..$n"; exit 1
fi

# ---- the ABI through numabctl and the shell ------------------------------
numabctl filter --default >/dev/null
sys=$(vals)
t "system filters at the defaults (2 2 1 1 2 0)" $([ "$sys" = "2 2 1 1 2 0" ]; echo $?) "values=$sys"

out=$(numabctl run -f pid=1 -- sh -c 'cat /proc/self/numa_filters'); rc=$?
t "run -f pid=1: a forked and exec'd grandchild inherits pid=1" \
	$([ $rc = 0 ] && [ "$out" = "pid=1 shared_ro=inherit scan_delay=inherit shared_folio=inherit cpuset=inherit promo_slowdown=inherit" ]; echo $?) "rc=$rc out=$out"
t "run -f pid=1 left the sysctls alone" $([ "$(vals)" = "$sys" ]; echo $?) "values=$(vals)"

out=$(sh -c 'echo pid=3 >/proc/self/numa_filters' 2>&1); rc=$?
t "the kernel refuses pid=3 (EINVAL)" $([ $rc != 0 ] && echo "$out" | grep -q -i "invalid"; echo $?) "rc=$rc out=$out"
out=$(sh -c 'echo "pid=1 cpuset=9" >/proc/self/numa_filters; cat /proc/self/numa_filters' 2>&1)
t "a write with one bad token changes nothing" $(echo "$out" | grep -q "^pid=inherit "; echo $?) "out=$out"

sleep 60 &
sp=$!
numabctl filter --pid $sp pid=1 cpuset=0 >/dev/null; rc=$?
got=$(cat /proc/$sp/numa_filters)
t "filter --pid sets another process's overrides" \
	$([ $rc = 0 ] && [ "$got" = "pid=1 shared_ro=inherit scan_delay=inherit shared_folio=inherit cpuset=0:priv promo_slowdown=inherit" ]; echo $?) "rc=$rc got=$got"
out=$(numabctl filter --pid $sp pid=7 2>&1); rc=$?
got=$(cat /proc/$sp/numa_filters)
t "filter --pid PID pid=7 fails and changes nothing" \
	$([ $rc != 0 ] && [ $rc -lt 128 ] && echo "$got" | grep -q "^pid=1 "; echo $?) "rc=$rc got=$got: $out"
out=$(su nobody -c "/numab/bin/numabctl filter --pid $sp pid=2" 2>&1); rc=$?
got=$(cat /proc/$sp/numa_filters)
t "unprivileged filter --pid on root's process fails, says why, changes nothing" \
	$([ $rc != 0 ] && [ $rc -lt 128 ] && echo "$out" | grep -qi "permission\|root\|ptrace" && echo "$got" | grep -q "^pid=1 "; echo $?) "rc=$rc got=$got: $out"
out=$(su nobody -c "sh -c 'echo pid=0 >/proc/self/numa_filters'" 2>&1); rc=$?
t "unprivileged: skipping less than the sysctl on itself is refused (EPERM)" \
	$([ $rc != 0 ] && echo "$out" | grep -qi "not permitted"; echo $?) "rc=$rc: $out"
kill $sp; wait $sp 2>/dev/null

# ---- two workloads side by side ---------------------------------------------
# PW_SECONDS after the move; numab goes on (-U) while a hot region is below
# 95% on the fast tier. Legacy's regions stay on the slow tier whatever the
# time (its PID filter lets them go after ~200 sequences; dbsim stops
# before that, with dbsim -R's default 2 s of reading): it stops at
# PW_SECONDS at the latest.
# Measured (series v3, 2 CPUs shared, load 4-6): numab's three regions
# >= 90% 2 to 9 s after the move in 5 runs, legacy's at 0%, 0%, 10%
# through 45 s.
args="-P 256 -H 32 -A 4 -B 16 -t 200 -w 4 -T ${PW_SECONDS:-20} -i 1"
rm -f $D/*.done
numabctl run --legacy -- dbsim -l legacy -d $D/legacy.done $args >$D/legacy.out 2>&1 &
pa=$!
dbsim -l numab -d $D/numab.done $args -U ${PW_UNTIL:-45} >$D/numab.out 2>&1 &
pb=$!
changed=0 i=0
# bounded: warm-up (up to 90 s) + until (45 s) + slack, on a slow TCG guest
while [ $i -lt 400 ]; do
	[ -e $D/legacy.done ] && [ -e $D/numab.done ] && break
	kill -0 $pa 2>/dev/null || break
	kill -0 $pb 2>/dev/null || break
	v=$(vals); [ "$v" = "$sys" ] || { changed=1; echo "# sysctls changed to $v"; }
	sleep 1; i=$((i + 1))
done
both=$([ -e $D/legacy.done ] && [ -e $D/numab.done ]; echo $?)
t "both workloads finished their measurement (bounded wait, ${i} s)" $both "$(tail -3 $D/legacy.out; tail -3 $D/numab.out)"
t "the filter sysctls never changed while both ran" $changed

# numabctl run execs dbsim in its own process: $pa is dbsim
da=$pa
ma=$(head -1 /proc/$da/numa_vmas 2>/dev/null)
mb=$(head -1 /proc/$pb/numa_vmas 2>/dev/null)
echo "# legacy ($da) mm line: $ma"
echo "# numab ($pb) mm line: $mb"
want_a="filter_pid=1:process filter_shared_ro=1:process filter_scan_delay=1:process filter_shared_folio=1:process filter_cpuset=0:process filter_promo_slowdown=1:process"
want_b="filter_pid=2:system filter_shared_ro=2:system filter_scan_delay=1:system filter_shared_folio=2:system filter_cpuset=1:system filter_promo_slowdown=0:system"
t "legacy's numa_vmas mm line: legacy filters set by the process" $(echo "$ma" | grep -q "$want_a"; echo $?) "$ma"
t "numab's numa_vmas mm line: default filters from the system" $(echo "$mb" | grep -q "$want_b"; echo $?) "$mb"
numabctl filter --pid $da >$D/legacy-filter.txt 2>&1
echo "# numabctl filter --pid $da:"; sed 's/^/#   /' $D/legacy-filter.txt
numabctl vmas --min-size 1M $da >$D/legacy-vmas.txt 2>&1
numabctl vmas --min-size 1M $pb >$D/numab-vmas.txt 2>&1
kill -TERM $da $pb 2>/dev/null
wait $pa; wait $pb

# last DBSIM_ROW: run t seq hash arenas binary pool ...
last() { grep "^DBSIM_ROW" $D/$1.out | tail -1; }
la=$(last legacy) lb=$(last numab)
echo "# legacy last sample: $la"
echo "# numab last sample: $lb"
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
set -- $la; ah=$5 aa=$6 ab=$7
set -- $lb; bh=$5 ba=$6 bb=$7
t "legacy's hash table and arenas stay on the slow tier (fast share < 0.5)" \
	$([ -n "$ah" ] && ! ge "$ah" 0.5 && ! ge "$aa" 0.5; echo $?) "hash=$ah arenas=$aa"
t "numab's hash table and arenas come back (fast share >= 0.9)" \
	$([ -n "$bh" ] && ge "$bh" 0.9 && ge "$ba" 0.9; echo $?) "hash=$bh arenas=$ba"
t "numab's binary comes back (fast share >= 0.9), legacy's does not (< 0.5)" \
	$([ -n "$bb" ] && ge "$bb" 0.9 && ! ge "$ab" 0.5; echo $?) "numab=$bb legacy=$ab"

echo "# fast-tier share over time (t s since the move; hash arenas binary)"
echo "# t    legacy: hash arenas binary    numab: hash arenas binary"
grep "^DBSIM_ROW" $D/legacy.out | awk '{ print $3, $5, $6, $7 }' >$D/a.txt
grep "^DBSIM_ROW" $D/numab.out | awk '{ print $3, $5, $6, $7 }' >$D/b.txt
# every legacy sample, numab's of the same second beside it
awk 'NR == FNR { b[int($1 + 0.5)] = $2 " " $3 " " $4; next }
     { k = int($1 + 0.5); printf "# %-4d  %s %s %s         %s\n", k, $2, $3, $4, (k in b ? b[k] : "- (done)") }' $D/b.txt $D/a.txt
for f in legacy-vmas.txt numab-vmas.txt; do echo "# $f:"; sed 's/^/#   /' $D/$f; done
echo "1..$n"
exit $bad
