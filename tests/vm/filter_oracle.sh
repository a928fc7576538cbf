#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The filter numabctl shows against what the running kernel does. A
# process (filter_oracle) maps one VMA of each kind: private and shared
# anonymous memory, memfd, a file read-only private and shared, program
# text, mbind(BIND) anonymous and shared, PROT_NONE, a huge page if one
# can be reserved, next to its stack, heap, libraries, vDSO and vvar.
# With NUMA balancing on, the sched_skip_vma_numa tracepoint says why
# the scanner skipped each: numabctl's FILTER must be that reason
# (unsuitable, shared_ro, inaccessible, or none for a VMA it scans and
# only skips for dynamic reasons such as pid_inactive). FILTER may be
# "uncertain" before the kernel's rule for shmem without a policy is
# known, and then only for such a VMA; the trace teaches numabctl the
# rule, and after it no filter is uncertain.
#
# Runs in the testbed (tools/filter-oracle, tools/filter-oracle-stock) and
# on the host (host/filter-oracle). Needs root and a mounted tracefs;
# switches kernel.numa_balancing to 1 (and reserves one huge page) for its
# duration and puts both back on every way out. Every wait is bounded.
#
# Environment: FO_PROG (filter_oracle), NX (numabctl), FO_DIR (where the
# file mappings live, default /tmp), FO_TRACE (seconds per trace, 6),
# FO_BACKENDS (default: bpf, and numa_vmas where the kernel has it).
FO_PROG=${FO_PROG:-filter_oracle}
NX=${NX:-numabctl}
FO_DIR=${FO_DIR:-/tmp}
FO_TRACE=${FO_TRACE:-6}
. "$(dirname "$0")/tap.sh"
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
echo "TAP version 13"

[ "$(id -u)" = 0 ] || skip_all "not root: tracing and kernel.numa_balancing need root"
tfs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$tfs" ] && [ -e "$tfs/events/sched/sched_skip_vma_numa/format" ] ||
	skip_all "no mounted tracefs with sched_skip_vma_numa on $(uname -r)"
bal=/proc/sys/kernel/numa_balancing hp=/proc/sys/vm/nr_hugepages
old_bal=$(cat $bal 2>/dev/null) || skip_all "no kernel.numa_balancing (CONFIG_NUMA_BALANCING)"
old_hp=$(cat $hp 2>/dev/null)
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	echo "$old_bal" > $bal
	[ -n "$old_hp" ] && [ -w $hp ] && echo "$old_hp" > $hp 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo 1 > $bal || skip_all "cannot set kernel.numa_balancing"
[ -w $hp ] && [ "${old_hp:-0}" = 0 ] && echo 1 > $hp 2>/dev/null
# what numabctl learns from the trace is kept here, not for the machine
export NUMABCTL_KERNEL_RULES=$tmp/rules

"$FO_PROG" -d 300 -f "$FO_DIR" > "$tmp/fo" 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q "^READY" "$tmp/fo" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
grep -q "^READY" "$tmp/fo" || { t "filter_oracle started" 1 "$(cat "$tmp/fo")"; echo "1..$n"; exit 1; }
grep "^SKIP" "$tmp/fo" | sed 's/^/# not mapped: /'

backends=${FO_BACKENDS:-bpf}
[ -z "$FO_BACKENDS" ] && [ -e /proc/self/numa_vmas ] && backends="bpf numa_vmas"
filters() { # filters BACKEND FILE: START END FILTER of every VMA
	"$NX" vmas --backend "$1" -r -n -o START,END,FILTER "$pid" > "$2" 2> "$2.err"
}
filters bpf "$tmp/before"
t "vmas --backend bpf before the trace: exit 0" $? "$(cat "$tmp/before.err")"

# trace until every labelled VMA was reported on (at most 4 rounds)
: > "$tmp/trace"
for round in 1 2 3 4; do
	"$NX" trace -d "$FO_TRACE" -r -n -o START,END,REASON,COUNT "$pid" >> "$tmp/trace" 2>> "$tmp/trace.err"
	missing=$(awk 'NR == FNR { seen[$1] = 1; next } /^VMA / && !seen[$3] { print $2 }' \
		"$tmp/trace" "$tmp/fo")
	[ -z "$missing" ] && break
done
t "the tracepoint reported on every VMA of filter_oracle" "$([ -z "$missing" ]; echo $?)" \
	"never reported in $round rounds of $FO_TRACE s: $missing"
grep "learned from the tracepoint" "$tmp/trace.err" | sed 's/^/# /'

for b in $backends; do
	filters "$b" "$tmp/after-$b"
	t "vmas --backend $b after the trace: exit 0" $? "$(cat "$tmp/after-$b.err")"
done

# one line per VMA the tracepoint reported on: START LABEL EXPECTED REASONS
# EXPECTED: the static reason if there is one (unsuitable, shared_ro,
# inaccessible, shared_ro_promo_only), else none
awk 'NR == FNR { if ($1 == "VMA") label[$3] = $2; next }
	{ r[$1] = r[$1] (r[$1] == "" ? "" : ",") $3
	  if ($3 ~ /^(unsuitable|shared_ro|inaccessible|shared_ro_promo_only)$/) stat[$1] = $3 }
	END { for (s in r) print s, (s in label ? label[s] : "-"), (s in stat ? stat[s] : "none"), r[s] }' \
	"$tmp/fo" "$tmp/trace" | sort > "$tmp/want"

while read -r start label want reasons; do
	name=$label
	[ "$name" = - ] && name=$(grep -m1 "^0*$start-" /proc/$pid/maps 2>/dev/null | awk '{ print $6 }')
	[ "$name" = - ] || [ -z "$name" ] && name=anon
	# compared as strings: busybox awk takes a start such as 24e42000 for
	# a number (infinity), and inf == inf is false there
	b4=$(awk -v s="$start" '$1 "" == s "" { print $3 }' "$tmp/before")
	for b in $backends; do
		got=$(awk -v s="$start" '$1 "" == s "" { print $3 }' "$tmp/after-$b")
		t "$b: $name ($start): numabctl's filter '$got' is the kernel's ($reasons)" \
			"$([ "$got" = "$want" ]; echo $?)"
	done
	# before the rule was learned: right, or uncertain for shmem without a policy
	case $b4 in
	"$want") ;;
	uncertain)
		case $label in
		anon_shared | memfd_shared) ;;
		file_*) df -T "$FO_DIR" 2>/dev/null | grep -q tmpfs ||
			t "before the trace: $name ($start) is uncertain only if it is shmem" 1 "not on tmpfs" ;;
		*) t "before the trace: $name ($start) is uncertain only if it is shmem" 1 "$b4" ;;
		esac ;;
	*) t "before the trace: $name ($start): '$b4' is the kernel's '$want'" 1 ;;
	esac
done < "$tmp/want"
nb=$(awk '$3 == "uncertain"' "$tmp/before" | wc -l)
echo "# before the trace $nb VMA(s) had an uncertain filter; kernel $(uname -r)"
"$NX" status 2>/dev/null | grep "shmem_task_policy" | sed 's/^/# /'
echo "1..$n"
exit $bad
