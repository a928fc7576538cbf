#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# numabctl on the real kernel (guest): status reports what this kernel
# supports; filter and run --global change the kernel.numa_balancing_filter_*
# sysctls and put them back (also when the run is killed); bad values and
# unprivileged writes fail with numabctl's documented exit codes; run
# (per process) gives the command its own overrides and leaves the sysctls
# alone. On a kernel without the filter sysctls the filter tests are skipped and
# status must say that they are missing.
. "$(dirname "$0")/tap.sh"
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
F=/proc/sys/kernel/numa_balancing_filter_
vals() { echo "$(cat ${F}pid) $(cat ${F}shared_ro) $(cat ${F}scan_delay) $(cat ${F}cpuset) $(cat ${F}shared_folio) $(cat ${F}promo_slowdown)"; }
echo "TAP version 13"

out=$(numabctl status 2>&1); rc=$?
t "status exits 0" $rc "$out"
echo "$out" | grep -q "memory_tiering *yes"
t "status sees the memory tiers" $? "$out"

if [ ! -e ${F}pid ]; then
	echo "$out" | grep -q "filter_sysctls *0/6"
	t "status says the filter sysctls are missing" $? "$out"
	out=$(numabctl run --legacy -- true 2>&1); rc=$?
	t "run --legacy without per-process filters: exit 7, says so, CMD not run" \
		$([ $rc = 7 ] && echo "$out" | grep -q "numa_filters"; echo $?) "rc=$rc: $out"
	for x in "filter --legacy" "run restores" "bad value" "unprivileged"; do
		skip "$x" "no kernel.numa_balancing_filter_* (kernel without the numab series)"
	done
	echo "1..$n"; exit $bad
fi
echo "$out" | grep -q "filter_sysctls *6/6"
t "status finds the 6 filter sysctls" $? "$out"

numabctl filter --default >/dev/null
numabctl filter --legacy >/dev/null; rc=$?
v=$(vals)
t "filter --legacy sets pid=1 shared_ro=1 scan_delay=1 cpuset=0 shared_folio=1 promo_slowdown=1" $([ $rc = 0 ] && [ "$v" = "1 1 1 0 1 1" ]; echo $?) "rc=$rc values=$v"
numabctl filter pid=off shared_ro=tier >/dev/null
v=$(vals)
t "filter by value name (pid=off shared_ro=tier)" $([ "$v" = "0 2 1 0 1 1" ]; echo $?) "values=$v"
numabctl filter --default >/dev/null
v=$(vals)
t "filter --default restores 2 2 1 1 2 0" $([ "$v" = "2 2 1 1 2 0" ]; echo $?) "values=$v"

# per process (the default): the overrides of the command, not the sysctls
during=$(numabctl run --legacy -- sh -c "cat /proc/self/numa_filters; cat ${F}pid"); rc=$?
v=$(vals)
t "run --legacy: the command has the legacy filters as its own overrides" \
	$([ $rc = 0 ] && echo "$during" | grep -qx "pid=1 shared_ro=1 scan_delay=1 shared_folio=1 cpuset=0:priv promo_slowdown=1"; echo $?) "rc=$rc during=$during"
t "run --legacy: the sysctls stay at the defaults, during and after" \
	$(echo "$during" | tail -1 | grep -qx 2 && [ "$v" = "2 2 1 1 2 0" ]; echo $?) "during=$during values=$v"

# --global: the old behaviour, the sysctls for everyone while CMD runs
during=$(numabctl run --global --legacy -- cat ${F}pid); rc=$?
v=$(vals)
t "run --global --legacy: legacy while the command runs" $([ "$during" = 1 ] && [ $rc = 0 ]; echo $?) "during=$during rc=$rc"
t "run --global --legacy: defaults back after it exits" $([ "$v" = "2 2 1 1 2 0" ]; echo $?) "values=$v"

numabctl run --global --legacy -- sleep 30 &
rpid=$!
i=0; while [ "$(cat ${F}pid)" != 1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $rpid; wait $rpid; rc=$?
v=$(vals)
t "run --global killed by SIGTERM restores the filters" $([ "$v" = "2 2 1 1 2 0" ]; echo $?) "rc=$rc values=$v"

out=$(numabctl filter pid=7 2>&1); rc=$?
v=$(vals)
t "filter pid=7 fails, value unchanged" $([ $rc != 0 ] && [ "$v" = "2 2 1 1 2 0" ]; echo $?) "rc=$rc values=$v: $out"

out=$(su nobody -c "/numab/bin/numabctl filter --legacy" 2>&1); rc=$?
v=$(vals)
t "unprivileged filter --legacy: exit 3, values unchanged" $([ $rc = 3 ] && [ "$v" = "2 2 1 1 2 0" ]; echo $?) "rc=$rc values=$v: $out"
out=$(su nobody -c "/numab/bin/numabctl filter" 2>&1); rc=$?
t "unprivileged filter (show) works" $rc "$out"

# vmas verdicts on a read-only file mapping whose page cache is on node 1,
# in tiering mode: stranded with the legacy filters, promoted and not
# stranded with the defaults
D=/sys/kernel/debug/sched/numa_balancing
echo 2 >/proc/sys/kernel/numa_balancing
echo 100 >$D/scan_delay_ms; echo 100 >$D/scan_period_min_ms; echo 100 >$D/scan_period_max_ms
# verdict FILTERS PROG ARGS...: start the hold program PROG ARGS under
# FILTERS (pid $hp) and print the START,NAME,SLOW,VERDICT of the mapping it
# prints "ready PID ADDRESS" for, once the scanner has seen it
# ("unscanned" until then; polled every 0.5 s for at most 30 s)
verdict() {
	numabctl filter $1 >/dev/null
	shift
	"$@" >/tmp/hold.out &
	hp=$!
	i=0 v=
	while [ $i -lt 60 ] && kill -0 $hp 2>/dev/null; do
		sleep 0.5
		i=$((i + 1))
		a=$(sed -n 's/^ready [0-9]* 0x//p' /tmp/hold.out)
		[ -n "$a" ] || continue
		v=$(numabctl vmas -r -n -o START,NAME,SLOW,VERDICT $hp 2>/dev/null | grep "^$a ")
		case "$v" in "" | *unscanned) ;; *) break ;; esac
	done
	echo "$v"
}
verdict --legacy hold_rofile 60 >/tmp/verdict.out
kill $hp; wait $hp
v=$(cat /tmp/verdict.out)
t "vmas: legacy filters, read-only file on node 1 is stranded" $(echo "$v" | grep -q stranded; echo $?) "$v $(cat /tmp/hold.out)"
# The held process lives at least 10 s, for the verdict, and at most 60 s:
# it ends once every page is on node 0 and 10 s have passed. On an idle
# machine all 4096 pages were there 0.5 s after the start in 14 of 14
# runs; a loaded CI machine once had not placed them within a fixed 8 s,
# so the bound is the 60 s the test can afford, and the time it took is
# printed.
verdict --default hold_rofile -u 10 60 >/tmp/verdict.out
wait $hp
v=$(cat /tmp/verdict.out)
t "vmas: default filters, the same mapping is ok (promotion-only scans)" $(echo "$v" | grep -q " ok$"; echo $?) "$v $(cat /tmp/hold.out)"
grep -q "node0 4096 node1 0" /tmp/hold.out
t "the mapping was promoted under the default filters within 60 s" $? \
	"$(cat /tmp/hold.out; grep -E '^(numa_|pgpromote)' /proc/vmstat | tr '\n' ' ')"
echo "# every page on node 0 after: $(sed -n 's/^placed //p' /tmp/hold.out) s"

# A copy-on-write heap shared with a forked child, on node 1: the VMA is
# scanned (the PID filter's fallback admits a one-thread process every
# other sequence), but change_pte_range() passes over pages mapped by two
# processes under the legacy filters (shared_folio=skip, stock's rule).
# vmas names that page check, report groups the memory under it; the
# defaults (shared_folio=tier) promote the heap.
verdict --legacy hold_cow 60 >/tmp/verdict.out
v=$(cat /tmp/verdict.out)
why=$(numabctl vmas -P -o START,VERDICT,WHY $hp 2>/dev/null | grep "START=\"$(sed -n 's/^ready [0-9]* 0x//p' /tmp/hold.out)\"")
numabctl report -d 1 $hp >/tmp/report-cow.txt 2>&1
kill $hp; wait $hp
t "vmas: legacy filters, COW heap shared with a child on node 1 is stranded" \
	$(echo "$v" | grep -q " stranded$"; echo $?) "$v $(cat /tmp/hold.out)"
t "vmas WHY names the shared-page check and the setting" \
	$(echo "$why" | grep -q "mapped by more than one process.*shared_folio=skip"; echo $?) "$why"
t "report groups the heap under stranded / shared_folio" \
	$(grep -E "stranded +shared_folio" /tmp/report-cow.txt >/dev/null && grep -q "numabctl filter shared_folio=tier" /tmp/report-cow.txt; echo $?) \
	"$(grep -A12 -i "by cause" /tmp/report-cow.txt)"
verdict --default hold_cow -u 10 60 >/tmp/verdict.out
wait $hp
v=$(cat /tmp/verdict.out)
t "vmas: default filters, the same COW heap is ok" $(echo "$v" | grep -q " ok$"; echo $?) "$v $(cat /tmp/hold.out)"
grep -q "node0 4096 node1 0" /tmp/hold.out
t "the COW heap was promoted under the default filters within 60 s" $? "$(cat /tmp/hold.out)"
echo "# every page of the COW heap on node 0 after: $(sed -n 's/^placed //p' /tmp/hold.out) s"

# Promotion-only scans back off after one that marked no page: the next
# waits 2, then 4 sequences (promo_backoff). A read-only file mapping
# (scanned promotion-only under the defaults) is placed on node 0, kept
# there 10 s at a scan period of 1 s, so that its scans find nothing to
# mark, and then moved to node 1 (SIGUSR1 to hold_rofile) right after a
# backoff skip (at most 20 s more): vmas must say
# it is backing off while its pages wait, and they must come back. vmas is
# read every 0.25 s for at most 30 s after a move; a move right before
# the next scan can leave nothing to see, so up to 3 moves are tried, and
# how many it took is printed.
echo 1000 >$D/scan_period_min_ms; echo 1000 >$D/scan_period_max_ms
numabctl filter --default >/dev/null
hold_rofile 200 >/tmp/hold.out &
hp=$!
seen= tries=0 a= moves_ok=1
end=$(($(date +%s) + 60))
while [ "$(date +%s)" -lt $end ] && ! grep -q '^placed [0-9]' /tmp/hold.out; do sleep 0.5; done
a=$(sed -n 's/^ready [0-9]* 0x//p' /tmp/hold.out)
grep -q '^placed [0-9]' /tmp/hold.out || a=
while [ -n "$a" ] && [ -z "$seen" ] && [ $tries -lt 3 ] && kill -0 $hp 2>/dev/null; do
	tries=$((tries + 1))
	sleep 10
	# Scans that mark nothing come 1, 2, then 4 sequences apart: at 1 s a
	# sequence a move 10 s after placement fell on a due scan in one
	# run, and was promoted in 0.7 s with no wait to see. So the move
	# comes right after a backoff skip, one or two sequences after the
	# last scan (numa_vmas: last_skip, promo_seq, the mm's scan_seq).
	end=$(($(date +%s) + 20))
	while [ "$(date +%s)" -lt $end ]; do
		l=$(grep "^$a-" /proc/$hp/numa_vmas)
		sq=$(sed -n 's/^mm scan_seq=\([0-9]*\).*/\1/p' /proc/$hp/numa_vmas)
		pq=$(echo "$l" | sed -n 's/.* promo_seq=\([0-9]*\) .*/\1/p')
		case "$l" in
		*last_skip=promo_backoff*) [ -n "$sq" ] && [ -n "$pq" ] && [ $((sq - pq)) -le 2 ] && break ;;
		esac
		sleep 0.1
	done
	kill -USR1 $hp
	end=$(($(date +%s) + 30))
	while [ "$(date +%s)" -lt $end ] && [ "$(grep -c '^unmoved' /tmp/hold.out)" -lt $tries ]; do
		sleep 0.05
	done
	[ "$(grep '^unmoved' /tmp/hold.out | tail -n 1)" = "unmoved 0" ] || { moves_ok=0; break; }
	while [ "$(date +%s)" -lt $end ] && [ "$(grep -c '^back' /tmp/hold.out)" -lt $tries ]; do
		w=$(numabctl vmas -P -o START,SLOW,WHY $hp 2>/dev/null | grep "START=\"$a\"")
		case "$w" in *"backing off"*) [ -n "$seen" ] || seen="$w" ;; esac
		sleep 0.25
	done
done
kill $hp; wait $hp
t "a read-only mapping placed on node 0, then moved to node 1 with every page" \
	$([ -n "$a" ] && [ $tries -gt 0 ] && [ $moves_ok = 1 ]; echo $?) "tries=$tries $(cat /tmp/hold.out)"
t "vmas WHY: the mapping's promotion-only scans back off while its pages wait, and it says so" \
	$([ -n "$seen" ]; echo $?) "tries=$tries $(cat /tmp/hold.out)"
echo "# backing off seen after $tries move(s): $seen"
t "its pages came back to node 0 after each move, within 30 s" \
	$([ $tries -gt 0 ] && [ "$(grep -c '^back' /tmp/hold.out)" -ge "$tries" ]; echo $?) \
	"$(cat /tmp/hold.out)"
echo "# back on node 0 after each move, seconds: $(sed -n 's/^back //p' /tmp/hold.out | tr '\n' ' ')"
echo 100 >$D/scan_period_min_ms; echo 100 >$D/scan_period_max_ms

# report: every section, written atomically to -o, JSON parses by shape;
# as root, and as nobody for its own process (tracing degraded, said so)
hold_rofile 15 >/dev/null &
hp=$!
sleep 1
out=$(numabctl report -d 2 -w /tmp/report.txt $hp 2>&1); rc=$?
t "report -w exits 0" $rc "$out"
missing=
for sec in "Report:" "Support:" "Nodes:" "Tunables:" "Filters:" \
	"Counters over the interval (/proc/vmstat):" "VMAs at start" "VMAs at end" \
	"VMA skips" "NUMA block of /proc/PID/sched:" "Cgroup and memory policy:"; do
	grep -qF "$sec" /tmp/report.txt || missing="$missing [$sec]"
done
t "report has every section" $([ -z "$missing" ]; echo $?) "missing:$missing"
grep -q "numa_vma_skip_shared_ro" /tmp/report.txt
t "report has the series' vmstat counters" $? "$(grep numa_ /tmp/report.txt | head -5)"
ls /tmp/.report.txt* /tmp/report.txt.* >/dev/null 2>&1
t "report -w leaves no temporary file" $([ $? != 0 ]; echo $?) "$(ls -a /tmp)"
out=$(numabctl report -J -d 1 $hp 2>/dev/null)
echo "$out" | head -1 | grep -q '^{' && echo "$out" | tail -1 | grep -q '^}' &&
	echo "$out" | grep -q '"report": \[' && echo "$out" | grep -q '"cgroup": \['
t "report -J is one JSON object with the report and cgroup tables" $? "$(echo "$out" | head -5)"
out=$(su nobody -c "/numab/bin/numabctl vmas $hp" 2>&1); rc=$?
t "unprivileged vmas of root's process: exit 3 naming the fix" \
	$([ $rc = 3 ] && echo "$out" | grep -q "CAP_SYS_PTRACE"; echo $?) "rc=$rc: $out"
wait $hp
out=$(su nobody -c "/numab/tests/hold_rofile 4 >/dev/null & p=\$!; sleep 1; /numab/bin/numabctl report -d 1 \$p; r=\$?; wait; exit \$r" 2>&1); rc=$?
t "unprivileged report of its own process works" $rc "$out"
echo "$out" | grep -qi "trac.*\(root\|permission\|not\)"
t "unprivileged report says why skip reasons were not traced" $? "$(echo "$out" | grep -i trac)"
out=$(su nobody -c "/numab/bin/numabctl status" 2>&1); rc=$?
t "unprivileged status works" $rc "$out"
out=$(su nobody -c "/numab/bin/numabctl trace -d 1 1" 2>&1); rc=$?
t "unprivileged trace: exit 3 or 4 with a message" $([ $rc = 3 ] || [ $rc = 4 ]; echo $?) "rc=$rc: $out"

# A big table on real kernel data (5000 VMAs): the rows after the first
# chunk skip libsmartcols, and the bytes are those of one libsmartcols
# table.  The holder sleeps, so the scanner does not change its VMAs.
/numab/tests/vma_read_cost -H -r 1 5000 > /tmp/vrc 2>&1 &
vp=$!; i=0
while ! grep -q "^HOLD" /tmp/vrc && kill -0 $vp 2>/dev/null && [ $i -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
if grep -q "^HOLD" /tmp/vrc; then
	for o in "-o START,END,SIZE,PERMS,NAME,FAST,SLOW,SLOW%,FILTER,STATE,SEQS,PSCANS,VERDICT,WHY" \
		 "-r -o START,SIZE,FAST,SLOW,FILTER,STATE,SCANS,VERDICT"; do
		NUMABCTL_CHUNK=0 numabctl vmas $o $vp > /tmp/one 2>/dev/null
		NUMABCTL_EMIT_DEBUG=1 numabctl vmas $o $vp > /tmp/fast 2> /tmp/err; rc=$?
		fr=$(sed -n 's/^numabctl: \([0-9]*\) rows after.*/\1/p' /tmp/err)
		t "vmas $o on 5000 VMAs: $fr rows without libsmartcols, same bytes as one table" \
			$([ $rc = 0 ] && [ "${fr:-0}" -gt 4000 ] && cmp -s /tmp/one /tmp/fast; echo $?) \
			"rc=$rc fast=$fr lines=$(wc -l < /tmp/fast)/$(wc -l < /tmp/one) $(cmp /tmp/one /tmp/fast 2>&1)"
	done
else
	t "vma_read_cost holds 5000 VMAs" 1 "$(cat /tmp/vrc)"
fi
kill $vp 2>/dev/null; wait $vp 2>/dev/null

echo "1..$n"
exit $bad
