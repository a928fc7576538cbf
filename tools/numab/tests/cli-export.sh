# SPDX-License-Identifier: GPL-2.0
# CLI tests of numabctl export: the metrics of the fixture trees (golden
# files, promtool's lint), label escaping, the textfile directory written
# whole or not at all, and each failure leaving the old file as it was.
# Sourced by tests/check.sh (its helpers).
P=$FIX/patched U=$FIX/unpatched-6.12
E=$TMP/export; rm -rf "$E"; mkdir -p "$E"
# the output without the one line that changes between runs
stable() { grep -v '^numab_export_duration_seconds \|^numab_export_last_success_timestamp_seconds ' "$TMP/out" > "$TMP/out.stable"; mv "$TMP/out.stable" "$TMP/out"; }
# the directory holds exactly the old file, as it was
untouched() { [ "$(ls -A "$1")" = numabctl.prom ] && cmp -s "$1/numabctl.prom" "$TMP/old.prom" || { echo "# $1: $(ls -A "$1" | tr '\n' ' ')"; return 1; }; }
promtool_ok() { promtool check metrics < "$1" > "$TMP/promtool" 2>&1 || { diag "$TMP/promtool"; return 1; }; }
printf 'numab_export_duration_seconds 1\n' > "$TMP/old.prom"

nx "$P" export
t "export: a patched kernel, scan state from numa_vmas (golden)" eval 'rc 0 && has "^numab_export_duration_seconds [0-9.]*$" && stable && golden export-patched.prom'
cp "$TMP/out" "$E/patched.prom"
nx "$P" export
t "export: numab_export_last_success_timestamp_seconds, a gauge, is the time of the export (Unix seconds)" eval 'rc 0 && has "^# TYPE numab_export_last_success_timestamp_seconds gauge$" && [ "$(awk -v now="$(date +%s)" "/^numab_export_last_success_timestamp_seconds / { d = now - \$2; print (d > -5 && d < 60) }" "$TMP/out")" = 1 ]'
if command -v promtool > /dev/null; then
	t "export: promtool check metrics accepts it" promtool_ok "$E/patched.prom"
else
	skip "export: promtool check metrics" "promtool is not installed (scripts/deps installs prometheus)"
fi
if command -v promtool > /dev/null; then
	(cd prometheus && promtool test rules numab-alerts.test.yml) > "$TMP/promtool" 2>&1; prc=$?
	t "promtool test rules: the example alerts, NumabExportStale from numab_export_last_success_timestamp_seconds" eval '[ $prc = 0 ] || { diag "$TMP/promtool"; false; }'
else
	skip "promtool test rules" "promtool is not installed (scripts/deps installs prometheus)"
fi
t "export: the hash table's 128M held by the PID filter is stranded, libc's 80K by shared_ro" eval 'has "^numab_process_slow_memory_bytes{pid=\"4242\",comm=\"tiered-bench\",backend=\"numa_vmas\",verdict=\"stranded\",filter=\"pid\"} 134217728$" && has "verdict=\"stranded\",filter=\"shared_ro\"} 81920$" && has "^numab_process_stranded_memory_bytes{pid=\"4242\",comm=\"tiered-bench\",backend=\"numa_vmas\"} 134299648$"'
t "export: the slow memory by verdict and filter adds up to the slow tier" eval '[ "$(awk "/^numab_process_slow_memory_bytes/ { s += \$NF } END { print s }" "$TMP/out")" = "$(awk "/^numab_process_memory_bytes.*tier=.slow/ { print \$NF }" "$TMP/out")" ]'
t "export: vmstat counters are counters ending in _total, the filters gauges" eval 'has "^# TYPE numab_vmstat_pgpromote_success_total counter$" && has "^numab_vmstat_numa_vma_skip_pid_total 109$" && has "^numab_filter_setting{filter=\"shared_folio\"} 2$" && hasnt "^# TYPE .*_total gauge"'

nx "$U" export
t "export: stock 6.12 without BPF (--sysroot): residency only, backend none, verdicts unknown (golden)" eval 'rc 0 && stable && golden export-unpatched.prom && has "backend=\"none\",verdict=\"unknown\",filter=\"unknown\"" && hasnt "numab_filter_setting" && hasnt "scan_sequences" && hasnt "^numab_process_stranded"'
nx "$FIX/per-process" export
t "export: per-process overrides counted and named" eval 'rc 0 && has "^numab_process_filter_overrides{pid=\"4242\",comm=\"[^\"]*\",backend=\"numa_vmas\"} [1-5]$" && has "^numab_process_filter_override{pid=\"4242\",.*,filter=\"pid\"} [0-2]$"'
"$BIN" --sysroot "$P" export 4242 2> "$TMP/err" | grep "^numab_process" > "$TMP/out"
t "man page: the export example is current output" doc_example "numabctl export 4242 | grep ^numab_process"
nx "$P" export --top 0
t "export --top 0: host metrics only" eval 'rc 0 && hasnt "^numab_process_" && has "^numab_stranded_memory_bytes 134299648$"'

# a process name with every byte that needs care; read from comm as it is
C=$(copy patched)
printf 'a"b\\c\nd\377\001\303\251\n' > "$C/proc/4242/comm"
nx "$C" export
t "export: comm escaped: \\\\ \\\" \\n, a byte that is no UTF-8 and a control character as \\\\xNN, UTF-8 kept" eval 'rc 0 && has "comm=\"a\\\\\"b\\\\\\\\c\\\\nd\\\\\\\\xff\\\\\\\\x01é\""'
if command -v promtool > /dev/null; then
	cp "$TMP/out" "$E/comm.prom"
	t "export: promtool accepts the escaped labels" promtool_ok "$E/comm.prom"
fi

# the textfile collector's directory: one file, written whole
D=$E/textfile; mkdir -p "$D"
( umask 022; "$BIN" --sysroot "$P" export --textfile-directory "$D" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc" )
t "export --textfile-directory: DIR/numabctl.prom, mode 0644 under umask 022, nothing else, nothing on stdout" eval 'rc 0 && [ "$(ls -A "$D")" = numabctl.prom ] && [ "$(stat -c %a "$D/numabctl.prom")" = 644 ] && [ ! -s "$TMP/out" ] && grep -q "^numab_exporter_info" "$D/numabctl.prom"'
cp "$TMP/old.prom" "$D/numabctl.prom"; chmod 640 "$D/numabctl.prom"
nx "$P" export --textfile-directory "$D"
t "export --textfile-directory: an old file is replaced, its mode kept" eval 'rc 0 && [ "$(stat -c %a "$D/numabctl.prom")" = 640 ] && grep -q "^numab_exporter_info" "$D/numabctl.prom" && [ "$(ls -A "$D")" = numabctl.prom ]'

# each failure: a clear message, its exit status, the old file as it was
cp "$TMP/old.prom" "$D/numabctl.prom"
nx "$FIX/no-numab" export --textfile-directory "$D"
t "export on a kernel without NUMA balancing: exit 4, says so, the old file stays" eval 'rc 4 && has "numa_balancing not found: the kernel has no NUMA balancing (CONFIG_NUMA_BALANCING off)" err && has "numabctl.prom: not written" err && untouched "$D"'
nx "$P" export --textfile-directory "$D" 4243
t "export of a named process that exits during the read: exit 5, says so, the old file stays" eval 'rc 5 && has "process 4243 is gone" err && untouched "$D"'
nx "$P" export --textfile-directory "$D" -p nosuchprocess
t "export -p without a match: exit 5, the old file stays" eval 'rc 5 && has "no process with an address space matches" err && untouched "$D"'
nx "$P" export --textfile-directory "$E/missing"
t "export into a missing directory: exit 2, says what to do, nothing created" eval 'rc 2 && has "missing: No such file or directory: create it" err && [ ! -e "$E/missing" ]'
nx "$P" export --textfile-directory "$D/numabctl.prom"
t "export into a file that is no directory: exit 2" eval 'rc 2 && has "not a directory" err && untouched "$D"'
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	chmod 755 "$TMP" "$E" "$D"; chmod 644 "$D/numabctl.prom"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$BIN" --sysroot "$P" export --textfile-directory "$D" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "export into a directory it may not write (nobody): exit 3, says why, the old file stays" eval 'rc 3 && has "cannot write into it: Permission denied: run as root" err && untouched "$D"'
	chmod 666 "$D/numabctl.prom"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$BIN" --sysroot "$P" export -w "$D/numabctl.prom" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "export -w a file it may write in a directory it may not: exit 3, never written in place" eval 'rc 3 && has "cannot write: Permission denied" err && has "left as it was" err && untouched "$D"'
	# the export service runs as root with the unit's capability bounding
	# set only: a numabctl.prom of another owner (node_exporter's, a
	# package's) is replaced, its owner kept, else the true cause is said
	ucaps=$(sed -n 's/^CapabilityBoundingSet=//p' systemd/numabctl-export.service.in | tr 'A-Z ' 'a-z,' | sed 's/cap_/+/g')
	chmod 755 "$D"; cp "$TMP/old.prom" "$D/numabctl.prom"; chown 65534:65534 "$D/numabctl.prom"; chmod 644 "$D/numabctl.prom"
	setpriv --inh-caps=-all --bounding-set=-all,"$ucaps" \
		"$BIN" --sysroot "$P" export --textfile-directory "$D" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "export under the service unit's capabilities: a numabctl.prom of another owner is replaced, owner and mode kept" eval 'rc 0 && [ "$(stat -c %u:%g:%a "$D/numabctl.prom")" = 65534:65534:644 ] && grep -q "^numab_exporter_info" "$D/numabctl.prom" && [ "$(ls -A "$D")" = numabctl.prom ]'
	cp "$TMP/old.prom" "$D/numabctl.prom"; chown 65534:65534 "$D/numabctl.prom"
	setpriv --inh-caps=-all --bounding-set=-all,"$(echo "$ucaps" | sed 's/,*+chown//')" \
		"$BIN" --sysroot "$P" export --textfile-directory "$D" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "export without CAP_CHOWN over a file of another owner: exit 3, names CAP_CHOWN and the owner, not CAP_DAC_OVERRIDE, the old file stays" eval 'rc 3 && has "CAP_CHOWN" err && has "65534" err && hasnt "CAP_DAC_OVERRIDE" err && untouched "$D"'
	chown 0:0 "$D/numabctl.prom"
elif [ "$(id -u)" != 0 ]; then
	chmod 555 "$D"
	nx "$P" export --textfile-directory "$D"
	t "export into a directory it may not write: exit 3, the old file stays" eval 'rc 3 && has "Permission denied" err && untouched "$D"'
	chmod 755 "$D"
else
	skip "export into an unwritable directory" "root without setpriv (util-linux) cannot be denied"
fi
if [ -w /dev/full ]; then
	nx "$P" export -w /dev/full
	t "export -w /dev/full: a write error, exit 2" eval 'rc 2 && has "No space left" err'
fi

# -w writes through to what is there, as the shell's '>' does
L=$(mktemp -d)
echo old > "$L/target"; ln -s "$L/target" "$L/link"
nx "$P" export -w "$L/link"
t "export -w a symbolic link: the link stays, its target is replaced" eval 'rc 0 && [ -L "$L/link" ] && grep -q "^numab_exporter_info" "$L/target"'
ln -s "$L/new" "$L/dangling"
nx "$P" export -w "$L/dangling"
t "export -w a dangling symbolic link: the link stays, its target is created" eval 'rc 0 && [ -L "$L/dangling" ] && grep -q "^numab_exporter_info" "$L/new"'
mkfifo "$L/fifo"
timeout 30 cat "$L/fifo" > "$L/read" & R=$!
nx "$P" export -w "$L/fifo"
wait $R
# the same export as the file's but for its own duration
grep -v "^numab_export_duration_seconds \|^numab_export_last_success_timestamp_seconds " "$L/read" > "$L/read.cmp"
grep -v "^numab_export_duration_seconds \|^numab_export_last_success_timestamp_seconds " "$L/target" > "$L/target.cmp"
t "export -w a FIFO: the reader gets the whole export, the FIFO stays" eval 'rc 0 && [ -p "$L/fifo" ] && [ -s "$L/read.cmp" ] && cmp -s "$L/read.cmp" "$L/target.cmp"'
rm -rf "$L"

# reading every process: one that exits meanwhile is counted, not an error
C=$(copy patched)
echo exiting > "$C/proc/4243/comm"
nx "$C" export
t "export of every process: one that exits during the read is counted as gone, exit 0" eval 'rc 0 && has "^numab_export_processes{result=\"gone\"} 1$" && has "^numab_export_processes{result=\"read\"} 1$" && [ ! -s "$TMP/err" ]'

# a scrape in between sees the old file or the new one, never a part
cp "$TMP/old.prom" "$D/numabctl.prom"
( i=0; while [ $i -lt 30 ]; do "$BIN" --sysroot "$P" export --textfile-directory "$D" || exit 1; i=$((i + 1)); done ) > /dev/null 2>&1 & W=$!
: > "$TMP/torn"
while kill -0 $W 2> /dev/null; do
	tail -n 1 "$D/numabctl.prom" | grep -q "^numab_export_duration_seconds [0-9.]*$" || echo torn >> "$TMP/torn"
done
wait $W; wrc=$?
t "export: a reader during 30 exports always sees a whole file" eval '[ $wrc = 0 ] && [ ! -s "$TMP/torn" ] && [ "$(ls -A "$D")" = numabctl.prom ]'

nx "$P" export -J
t "export -J: refused, the format is Prometheus text" eval 'rc 1 && has "cannot be used with it" err'
nx "$P" export -o NAME
t "export -o: refused, it has no columns" eval 'rc 1 && has "has no columns" err'
nx "$P" export --textfile-directory "$D" -w -
t "export --textfile-directory with -w: refused" eval 'rc 1 && has "cannot be used together" err'
nx "$P" export --top x
t "export --top x: a usage error" eval 'rc 1 && has "invalid --top" err'
