#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# numabctl export on the tiered guest: the demo's database in miniature
# (dbsim) twice at once, "legacy" started by `numabctl run --legacy`
# (the stock 6.12 filters as per-process overrides) and "numab" with the
# system's default filters; once both have moved their hot regions to the
# slow tier and sampled for a while, one export of the dbsim processes
# (-p dbsim) is checked:
#  - legacy's hash table is stranded, held by the PID filter: its
#    numab_process_slow_memory_bytes{verdict="stranded",filter="pid"}
#    holds at least the hash table's slow-tier bytes, and `numabctl vmas`
#    judges that VMA stranded;
#  - numab's hash table is not: vmas judges it otherwise, and numab's
#    stranded bytes are less than the hash table;
#  - scan state from numa_vmas, legacy's 6 overrides, numab's none;
#  - the file is written whole into a textfile directory.
# Small regions and short runs: bounded for a TCG guest (well under the
# unit's timeout).
. "$(dirname "$0")/tap.sh"
D=/tmp/export; mkdir -p $D/textfile
echo "TAP version 13"

if [ ! -e /proc/self/numa_filters ]; then
	t "the kernel has /proc/<pid>/numa_filters" 1 "kernel without the per-process filter overrides"
	echo "1..$n"; exit 1
fi
numabctl filter --default >/dev/null

args="-P 64 -H 16 -A 2 -B 8 -t 200 -w 4 -T ${EX_SECONDS:-6} -U ${EX_UNTIL:-15} -i 1"
# legacy's state is read after both have finished: numab may take up to
# -U seconds more (the two warm-ups took 3.2 to 4.0 s in 2 runs
# measured, so their moves come close together), then the export and two
# vmas take 6.2 to 9.0 s (4 runs measured); legacy's dbsim stops early
# enough (-R) that its PID filter's fallback does not scan the hash table
# before that. At the 19 sequences a second the testbed reached, that is
# 16 + 19 x 26 = 510 sequences: 600 threads leave room for a warm-up of
# up to 90 (legacy's took 5 to 67 measured; dbsim warns when they do not)
numabctl run --legacy -- dbsim -l legacy -d $D/legacy.done $args -t 600 -R $((${EX_UNTIL:-15} + 10)) >$D/legacy.out 2>&1 &
pa=$!
dbsim -l numab -d $D/numab.done $args >$D/numab.out 2>&1 &
pb=$!
i=0
# bounded: dbsim's warm-up (at most 90 s) and -U
while [ $i -lt 240 ]; do
	[ -e $D/legacy.done ] && [ -e $D/numab.done ] && break
	kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null || break
	sleep 0.5; i=$((i + 1))
done
t "both dbsims finished their measurement (bounded wait, $((i / 2)) s)" \
	$([ -e $D/legacy.done ] && [ -e $D/numab.done ]; echo $?) "$(tail -3 $D/legacy.out; tail -3 $D/numab.out)"

t0=$(cut -d' ' -f1 /proc/uptime)
numabctl export -p dbsim --textfile-directory $D/textfile 2>$D/export.err
rc=$?
f=$D/textfile/numabctl.prom
t "export -p dbsim into the textfile directory: exit 0, one whole file" \
	$([ $rc = 0 ] && [ "$(ls -A $D/textfile)" = numabctl.prom ] && tail -n 1 $f | grep -q "^numab_export_duration_seconds "; echo $?) \
	"rc=$rc $(cat $D/export.err)"
# hash VMA of RUN (DBSIM_REGION: run name start bytes): its vmas row
hash_row() {
	h=$(awk -F'\t' -v r="$1" '$1 == "DBSIM_REGION" && $2 == r && $3 == "hash" { print $4; exit }' $D/$1.out)
	numabctl vmas -b -r -n -o START,SLOW,VERDICT "$2" 2>/dev/null | awk -v h="$h" '$1 == h'
}
# metric LINE-PREFIX: the value of the sample of pid $1 matching the rest
metric() { grep "^$2{pid=\"$1\",comm=\"dbsim\",backend=\"numa_vmas\"$3}" $f | awk '{ print $NF }'; }
ra=$(hash_row legacy $pa) rb=$(hash_row numab $pb)
grep -h -e "dbsim: warning" -e "warm-up" $D/legacy.out $D/numab.out | sed "s/^/# /"
echo "# export and vmas read $(awk -v a=$t0 -v b=$(cut -d' ' -f1 /proc/uptime) 'BEGIN { printf "%.1f", b - a }') s after both finished; $(grep -h 'stopped after' $D/legacy.out $D/numab.out)"
echo "# legacy ($pa) hash table: $ra"
echo "# numab ($pb) hash table: $rb"
set -- $ra; aslow=${2:-0} averdict=${3:-}
set -- $rb; bslow=${2:-0} bverdict=${3:-}
lpid=$(metric $pa numab_process_slow_memory_bytes ',verdict="stranded",filter="pid"')
t "legacy: the hash table is stranded ($aslow bytes on the slow tier)" \
	$([ "$averdict" = stranded ] && [ "$aslow" -gt 0 ]; echo $?) "row: $ra"
t "legacy: the export names it stranded, held by the PID filter (${lpid:-no} bytes >= $aslow)" \
	$([ -n "$lpid" ] && [ "$lpid" -ge "$aslow" ] && [ "$aslow" -gt 0 ]; echo $?) "$(grep "pid=\"$pa\"" $f)"
bstr=$(metric $pb numab_process_stranded_memory_bytes '')
hash_bytes=$((16 << 20))
t "numab: the hash table is not stranded (${bverdict:-none}), numab's stranded bytes (${bstr:-none}) are less than the hash table" \
	$([ -n "$bverdict" ] && [ "$bverdict" != stranded ] && [ -n "$bstr" ] && [ "$bstr" -lt $hash_bytes ]; echo $?) \
	"row: $rb; $(grep "pid=\"$pb\"" $f | grep -v filter_)"
t "legacy overrides 6 filters, numab none" \
	$([ "$(metric $pa numab_process_filter_overrides '')" = 6 ] && [ "$(metric $pb numab_process_filter_overrides '')" = 0 ]; echo $?) \
	"$(grep filter_overrides $f)"
t "the host's filters are numab's defaults, mode 2" \
	$(grep -q '^numab_filter_setting{filter="pid"} 2$' $f && grep -q '^numab_balancing_mode 2$' $f; echo $?) \
	"$(grep -E '^numab_(filter_setting|balancing_mode)' $f)"

kill -TERM $pa $pb 2>/dev/null
wait $pa; wait $pb
echo "# the export's per-process lines:"
grep "^numab_process_\(memory\|stranded\|slow\)" $f | sed 's/^/#   /'
echo "1..$n"
exit $bad
