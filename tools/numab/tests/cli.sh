# SPDX-License-Identifier: GPL-2.0
# CLI tests, sourced by tests/check.sh (uses its helpers).
DOC=$(pwd)/Documentation/numabctl.rst
P=$FIX/patched U=$FIX/unpatched-6.12 N=$FIX/no-numab S=$FIX/single-node M=$FIX/malformed
pf_is() { [ "$(cat "$1/proc/$2/numa_filters")" = "$3" ] || { echo "# numa_filters of $2: '$(cat "$1/proc/$2/numa_filters")', expected '$3'"; return 1; }; }

# --- help and usage ----------------------------------------------------------
nx "$P" help
t "help lists every command" eval 'rc 0 && has status && has vmas && has filter && has run && has watch && has trace && has report'
nx "$P" vmas --help
t "vmas --help lists the columns" eval 'rc 0 && has VERDICT && has PIDBITS && has .-stranded'
nx "$P" nosuch
t "unknown command: exit 1" rc 1
nx "$P" vmas
t "vmas without PID: exit 1" rc 1
nx "$P" vmas 4242 -o START,NOPE
t "unknown column: exit 1, named" eval 'rc 1 && has NOPE err'
nx "$P" vmas abc
t "invalid PID: exit 1" rc 1

# --- status --------------------------------------------------------------------
nx "$P" status
t "status patched: golden" eval 'rc 0 && golden status-patched.txt && lines 0 err'
nx "$P" status -J
t "status -J patched: golden" eval 'rc 0 && golden status-patched.json'
nx "$P" status -r
t "status: the promo_backoff skip counter" has "^numa_vma_skip_promo_backoff 31$"
nx "$U" status
t "status unpatched: one line says what is missing" eval 'rc 0 && lines 1 err && has "numab series" err && has "filter_sysctls  *0/6"'
nx "$N" status
t "status without NUMA: one line, still prints support" eval 'rc 0 && lines 1 err && has CONFIG_NUMA err && has "numa_balancing  *unsupported"'
nx "$S" status -r -n -o NODE,CPUS,TIER,CLASS
t "status single node: one fast node" eval 'rc 0 && has "^0 true 4 fast$" && hasnt "^1 "'
nx "$M" status -r
t "status malformed: survives" eval 'rc 0 && has "shared_ro 7 invalid" && has "shared_folio 3 invalid"'

# --- vmas ------------------------------------------------------------------------
nx "$P" vmas 4242
t "vmas patched: golden" eval 'rc 0 && golden vmas-patched.txt && lines 0 err'
nx "$P" vmas -J -o START,END,SIZE,NAME,FAST,SLOW,SEQS,SCANS,VERDICT,WHY 4242
t "vmas -J patched: golden" eval 'rc 0 && golden vmas-patched.json'
nx "$P" vmas --stranded -r -n -o START,VERDICT 4242
t "vmas --stranded: exactly the two stranded VMAs" eval 'rc 0 && lines 2 && has "7f3a40000000 stranded" && has "7f3a4a000000 stranded"'
nx "$P" vmas --stranded --stale 200 -r -n -o START 4242
t "vmas --stale 200: stale VMA no longer stranded" eval 'rc 0 && lines 1 && has 7f3a4a000000'
nx "$P" vmas --min-size 100M -r -n -o START 4242
t "vmas --min-size 100M" eval 'rc 0 && lines 2 && has 7f3a00000000 && has 7f3a40000000'
nx "$P" vmas --sort slow -r -n -o START 4242
t "vmas --sort slow: most slow memory first" eval 'rc 0 && [ "$(head -1 "$TMP/out")" = 7f3a00000000 ] && [ "$(sed -n 2p "$TMP/out")" = 7f3a40000000 ]'
nx "$P" vmas --sort bogus 4242
t "vmas --sort bogus: exit 1" rc 1
nx "$P" vmas -b -r -n -o START,SIZE,SLOW 4242
t "vmas -b: sizes in bytes" has "7f3a40000000 134217728 134217728"
# a process that has not begun a scan: WHY says what it waits for, with
# the CPU time of its busiest thread (task/TID/stat: 250 and 320 ms)
I=$FIX/idle
nx "$I" vmas -n -o START,VERDICT,WHY 4242
t "vmas, no scan begun: unscanned, WHY names the scan delay in CPU time and the busiest thread's 320 ms" eval 'rc 0 && has "^55d0c2000000 *unscanned *never scanned (state=none): the process has not begun a scan (scan_seq=0), which a task does once it has run scan_delay_ms of CPU time of its own; its busiest thread has run 320 ms$"'
cp -a "$I" "$TMP/idle-nostat"
rm "$TMP"/idle-nostat/proc/4242/task/*/stat
nx "$TMP/idle-nostat" vmas -n -o START,VERDICT,WHY 4242
t "... without the threads' stat files: the same WHY without a CPU time" eval 'rc 0 && has "^55d0c2000000 *unscanned *never scanned .* of CPU time of its own$"'
echo 0 > "$TMP/idle-nostat/proc/sys/kernel/numa_balancing"
nx "$TMP/idle-nostat" vmas -n -o START,VERDICT,WHY 4242
t "... with NUMA balancing off: WHY says so instead of what a scan waits for" eval 'rc 0 && has "^55d0c2000000 *unscanned *never scanned (state=none): the process has not begun a scan (scan_seq=0), and NUMA balancing is off$"'
nx "$P" vmas -n -o START,VERDICT,WHY 4242
t "... not where the process has scanned (scan_seq=412): a VMA without state is just never scanned" eval 'rc 0 && has "^7f3a50000000 *unscanned *never scanned (state=none)$"'
nx "$U" vmas 4242
t "vmas unpatched: residency shown, one line says why verdict unknown" eval 'rc 0 && golden vmas-unpatched.txt && lines 1 err && has "no .*numa_vmas" err'
nx "$N" vmas 4242 -r -n -o START,FAST,VERDICT
t "vmas without NUMA: ranges only, one line" eval 'rc 0 && lines 9 && lines 1 err && has CONFIG_NUMA err'
nx "$S" vmas --stranded -n 4242
t "vmas single node: nothing stranded" eval 'rc 0 && lines 0'
nx "$M" vmas -r -o START,FAST,VERDICT 4242
t "vmas malformed: bad lines skipped with a warning per file" eval 'rc 0 && lines 4 err && has "maps: 3 malformed" err && has "numa_maps: 3 malformed" err && has "numa_vmas: 7 malformed" err && has "memory_tier90/nodelist: malformed" err && has "7f3a40000000"'
nx "$P" vmas 4243
t "vmas on a process that exits mid-read: exit 5, names the file" eval 'rc 5 && has "4243/numa_maps" err && has "is gone" err'
nx "$P" vmas 31337
t "vmas on a missing process: exit 5" rc 5
# Big tables stream out in chunks (NUMABCTL_CHUNK rows, 0: one table): same
# bytes.  The rows after the first chunk skip libsmartcols when its layout of
# the first chunk matched (NUMABCTL_FAST=0: libsmartcols for every chunk);
# NUMABCTL_EMIT_DEBUG says how many rows did.
fast_rows() { sed -n 's/^numabctl: \([0-9]*\) rows after the first chunk.*/\1/p' "$TMP/err"; }
fast_took() {	# $1: rows expected on the fast path
	[ "$(fast_rows)" = "$1" ] || { echo "# fast rows: '$(fast_rows)', expected $1"; diag "$TMP/err"; return 1; }
}
for o in "" "-b -o +END,PERMS,PREV_SEQ,LAST_SKIP,NEXT_MS,WHY" "-r --sort size" "-r -o START,SLOW%,SEQS,VERDICT" "-n --stranded" "-o START,START,NAME" "-o FAST,NAME,VERDICT"; do
	NUMABCTL_CHUNK=0 nx "$P" vmas $o 4242; mv "$TMP/out" "$TMP/one"
	NUMABCTL_FAST=0 NUMABCTL_CHUNK=2 nx "$P" vmas $o 4242
	t "vmas $o in libsmartcols chunks of 2: same output as one table" eval 'rc 0 && cmp -s "$TMP/one" "$TMP/out"'
	NUMABCTL_EMIT_DEBUG=1 NUMABCTL_CHUNK=2 nx "$P" vmas $o 4242
	case $o in
	-n*) want=0 ;;			# 2 stranded rows: no chunk after the first
	"-r --sort size") want=0 ;;	# raw escapes the blank of a name: one table
	*) want=7 ;;			# 9 rows, the first 2 through libsmartcols
	esac
	t "vmas $o in chunks of 2, $want rows laid out without libsmartcols: same output" eval 'rc 0 && fast_took $want && cmp -s "$TMP/one" "$TMP/out"'
done
# JSON streams too: each chunk's rows spliced out of libsmartcols' document
for o in "-J" "-J -o START,NAME,WHY,SKIP_PID" "-J --stranded" "-J --sort size -b"; do
	for c in 1 2 4; do
		NUMABCTL_CHUNK=0 nx "$P" vmas $o 4242; mv "$TMP/out" "$TMP/one"
		NUMABCTL_CHUNK=$c nx "$P" vmas $o 4242
		t "vmas $o in chunks of $c: same JSON as one table" eval 'rc 0 && cmp -s "$TMP/one" "$TMP/out"'
	done
done
for fx in "$U" "$N"; do
	NUMABCTL_CHUNK=0 nx "$fx" vmas -J 4242; mv "$TMP/out" "$TMP/one"
	NUMABCTL_CHUNK=1 nx "$fx" vmas -J 4242
	t "vmas -J ${fx##*/} in chunks of 1: same JSON as one table" eval 'cmp -s "$TMP/one" "$TMP/out"'
done
for fx in "$U" "$N" "$M"; do
	NUMABCTL_CHUNK=0 nx "$fx" vmas 4242; mv "$TMP/out" "$TMP/one"
	NUMABCTL_EMIT_DEBUG=1 NUMABCTL_CHUNK=1 nx "$fx" vmas 4242
	t "vmas ${fx##*/} in chunks of 1, rows after the first without libsmartcols: same output as one table" eval '[ "$(fast_rows)" -gt 0 ] && cmp -s "$TMP/one" "$TMP/out"'
done

# a kernel without promo_seq: a VMA waiting after a promotion-only scan
# (last_skip=promo_backoff) is being scanned, not stranded
R=$(copy patched); sed -i '/^7f3a40000000/ { s/ promo_seq=[0-9]*//; s/last_skip=pid_inactive/last_skip=promo_backoff/; }' "$R/proc/4242/numa_vmas"
nx "$R" vmas -r -n -o START,PSEQS,LAST_SKIP,VERDICT 4242
t "vmas without promo_seq: last_skip=promo_backoff is not stranded" eval 'rc 0 && has "^7f3a40000000  promo_backoff ok$"'

# series v2: the per-VMA counters saturate; numabctl prints them as read
R=$(copy patched); sed -i '/^7f3a00000000/ { s/ promo_only=0/ promo_only=1/; s/ scans=37/ scans=65535/; s/ promo_scans=4/ promo_scans=65535/; s/ pte_updates=131072/ pte_updates=4294967295/; s/ skip_delay=1/ skip_delay=65535/; s/ skip_seq=3/ skip_seq=65535/; s/ skip_pid=0/ skip_pid=4294967295/; }' "$R/proc/4242/numa_vmas"
sat="^7f3a00000000 1 65535 65535 4294967295 65535 65535 4294967295 ok$"
nx "$R" vmas -r -n -o START,PONLY,SCANS,PSCANS,PTES,SKIP_DELAY,SKIP_SEQ,SKIP_PID,VERDICT 4242
t "vmas: saturated counters printed unchanged, verdict unchanged" eval 'rc 0 && has "$sat" && lines 0 err'
NUMABCTL_CHUNK=1 nx "$R" vmas -r -n -o START,PONLY,SCANS,PSCANS,PTES,SKIP_DELAY,SKIP_SEQ,SKIP_PID,VERDICT 4242
t "vmas: saturated counters unchanged on the streamed path too" eval 'rc 0 && has "$sat"'
nx "$R" vmas -J -o START,SCANS,PTES,SKIP_PID 4242
t "vmas -J: saturated counters are plain numbers" eval 'rc 0 && has "\"scans\": 65535," && has "\"ptes\": 4294967295," && has "\"skip_pid\": 4294967295"'
nx "$R" vmas --sort scans -r -n -o START 4242
t "vmas --sort scans: a saturated count sorts first" eval 'rc 0 && [ "$(head -1 "$TMP/out")" = 7f3a00000000 ]'
t "vmas --help and the man page say the counters saturate" eval '"$BIN" vmas --help | grep -q "SCANS.*stops at 65535" && grep -q "saturate" "$DOC" && grep -q "4294967295" "$DOC"'

R=$(copy patched); echo 0 > "$R/proc/sys/kernel/numa_balancing"
nx "$R" vmas -n -o START 4242
t "vmas with NUMA balancing off: warns how to enable" eval 'rc 0 && has "numa_balancing=2" err'

# permission errors need an unprivileged user
R=$(copy patched); chmod 000 "$R/proc/4242/numa_maps"
if [ "$(id -u)" != 0 ]; then
	nx "$R" vmas 4242
	t "vmas unreadable numa_maps: exit 3 with the fix" eval 'rc 3 && has "numa_maps: permission denied: run as root or with CAP_SYS_PTRACE" err'
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$BIN" 2>/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$R/proc/4242/maps" 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" --sysroot "$R" vmas 4242 > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "vmas unreadable numa_maps (as nobody): exit 3 with the fix" eval 'rc 3 && has CAP_SYS_PTRACE err'
else
	skip "vmas unreadable numa_maps: exit 3" "root, and nobody cannot reach the build tree"
fi

# --- filter --------------------------------------------------------------------
nx "$P" filter
t "filter: golden" eval 'rc 0 && golden filter-patched.txt'
nx "$P" filter cpuset -r -n -o NAME,SETTING
t "filter NAME shows that filter only" eval 'rc 0 && lines 1 && has "cpuset on"'
R=$(copy patched)
nx "$R" filter pid=skip shared_ro=1 cpuset=off
t "filter set by name and number" eval 'rc 0 && sysctl_is "$R" pid 1 && sysctl_is "$R" shared_ro 1 && sysctl_is "$R" cpuset 0 && sysctl_is "$R" scan_delay 1'
nx "$R" filter --save "$TMP/saved"
t "filter --save writes sysctl.conf syntax" eval 'rc 0 && grep -qx "kernel.numa_balancing_filter_pid = 1" "$TMP/saved"'
nx "$R" filter --default
t "filter --default" eval 'rc 0 && sysctl_is "$R" pid 2 && sysctl_is "$R" shared_ro 2 && sysctl_is "$R" cpuset 1'
nx "$R" filter --restore "$TMP/saved"
t "filter --restore" eval 'rc 0 && sysctl_is "$R" pid 1 && sysctl_is "$R" cpuset 0'
nx "$R" filter --legacy
t "filter --legacy: pid=1 shared_ro=1 scan_delay=1 cpuset=0 shared_folio=1 promo_slowdown=1" eval 'rc 0 && sysctl_is "$R" pid 1 && sysctl_is "$R" shared_ro 1 && sysctl_is "$R" scan_delay 1 && sysctl_is "$R" cpuset 0 && sysctl_is "$R" shared_folio 1 && sysctl_is "$R" promo_slowdown 1 && lines 0 err'
nx "$R" filter promo_slowdown -r -n -o NAME,VALUE,SETTING,DEFAULT,MEANING
t "filter promo_slowdown after --legacy: on, default off, promotions lengthen the period" eval 'rc 0 && lines 1 && has "^promo_slowdown 1 on off promotions\\\\x20lengthen\\\\x20the\\\\x20scan\\\\x20period\\\\x20like\\\\x20other\\\\x20remote\\\\x20faults\\\\x20(6.12)$"'
# by_name NAME A VA B VB BAD VALUES DEFAULT: filter NAME=A sets VA and shows
# it, NAME=B sets VB, NAME=BAD is refused (exit 1, naming VALUES) and
# --default puts DEFAULT back
by_name() {
	f=$1 a=$2 va=$3 b=$4 vb=$5 bad=$6 vals=$7 dv=$8
	nx "$R" filter "$f=$a" -r -n -o NAME,VALUE,SETTING
	t "filter $f=$a: set by name, shown" eval 'rc 0 && sysctl_is "$R" $f $va && has "^$f $va $a$" && lines 1'
	nx "$R" filter "$f=$b"
	t "filter $f=$b" eval 'rc 0 && sysctl_is "$R" $f $vb'
	nx "$R" filter "$f=$bad"
	t "filter $f=$bad: exit 1, names the values" eval 'rc 1 && sysctl_is "$R" $f $vb && has "$vals" err'
	nx "$R" filter --default
	t "filter --default: $f=$dv" eval 'rc 0 && sysctl_is "$R" $f $dv && sysctl_is "$R" pid 2 && lines 0 err'
}
by_name promo_slowdown off 0 on 1 tier "off|on" 0
by_name shared_folio tier 2 off 0 on "off|skip|tier" 2
nx "$R" filter nosuch=1
t "filter unknown name: the error lists every filter" eval 'rc 1 && has "NAME is one of pid, shared_ro, scan_delay, cpuset, shared_folio, promo_slowdown$" err'
nx "$R" filter --legacy
nx "$R" filter pid=0 cpuset=tier
t "filter invalid value: exit 1, nothing changed" eval 'rc 1 && sysctl_is "$R" pid 1 && has cpuset err'
printf 'pid=2\nbogus line\n' > "$TMP/bad"
nx "$R" filter --restore "$TMP/bad"
t "filter --restore of a bad file: exit 1, nothing changed" eval 'rc 1 && sysctl_is "$R" pid 1 && has "line 2" err'
nx "$R" filter --restore "$TMP/nonexistent"
t "filter --restore of a missing file: names it" eval 'rc 2 && has nonexistent err'
rm "$R/proc/sys/kernel/numa_balancing_filter_cpuset"; mkdir "$R/proc/sys/kernel/numa_balancing_filter_cpuset"
nx "$R" filter pid=2 cpuset=1
t "filter write failure rolls back the filters already set" eval '[ "$(cat "$TMP/rc")" != 0 ] && sysctl_is "$R" pid 1'
# a kernel of the first numab series: four filter sysctls, no shared_folio
R=$(copy patched); rm "$R/proc/sys/kernel/numa_balancing_filter_shared_folio"
nx "$R" filter -r -n -o NAME,VALUE,SETTING
t "filter without shared_folio: shown as absent" eval 'rc 0 && has "^shared_folio - absent$" && has "^cpuset 1 on$" && lines 0 err'
nx "$R" filter --legacy -r -n -o NAME,SETTING
t "filter --legacy without shared_folio: sets the others, says it left shared_folio out" eval 'rc 0 && sysctl_is "$R" pid 1 && sysctl_is "$R" shared_ro 1 && sysctl_is "$R" scan_delay 1 && sysctl_is "$R" cpuset 0 && sysctl_is "$R" promo_slowdown 1 && [ ! -e "$R/proc/sys/kernel/numa_balancing_filter_shared_folio" ] && lines 1 err && has "kernel.numa_balancing_filter_shared_folio is not on this kernel" err && has "^shared_folio absent$"'
nx "$R" filter --default
t "filter --default without shared_folio: sets the others" eval 'rc 0 && sysctl_is "$R" pid 2 && sysctl_is "$R" cpuset 1 && [ ! -e "$R/proc/sys/kernel/numa_balancing_filter_shared_folio" ] && has "^numabctl: --default: " err'
nx "$R" filter shared_folio=1
t "filter shared_folio=1 without the sysctl: exit 4, says series v2, nothing created" eval 'rc 4 && has "numa_balancing_filter_shared_folio: not found: this kernel lacks the shared_folio filter (numab kernel series v2)" err && [ ! -e "$R/proc/sys/kernel/numa_balancing_filter_shared_folio" ]'
printf 'kernel.numa_balancing_filter_pid = 1\nkernel.numa_balancing_filter_shared_folio = 1\n' > "$TMP/v2.conf"
nx "$R" filter --restore "$TMP/v2.conf"
t "filter --restore of a v2 file without shared_folio: exit 4, rolled back" eval 'rc 4 && sysctl_is "$R" pid 2 && has "series v2" err'
nx "$R" run --global --legacy -- sh -c "cat '$R/proc/sys/kernel/numa_balancing_filter_pid' '$R/proc/sys/kernel/numa_balancing_filter_cpuset'"
t "run --global --legacy without shared_folio: runs with the others, restores them" eval 'rc 0 && [ "$(tr "\n" " " < "$TMP/out")" = "1 0 " ] && sysctl_is "$R" pid 2 && sysctl_is "$R" cpuset 1 && has shared_folio err && [ ! -e "$R/proc/sys/kernel/numa_balancing_filter_shared_folio" ]'
nx "$R" status -r
t "status without shared_folio: 5/6 filter sysctls" eval 'rc 0 && has "filter_sysctls 5/6" && has "^shared_folio - absent"'
# a kernel of a numab series before promo_slowdown: five filter sysctls,
# numa_filters and the mm line without it
R=$(copy no-promo-slowdown)
nx "$R" filter -r -n -o NAME,VALUE,SETTING
t "filter on a series without promo_slowdown: shown as absent, the others as set" eval 'rc 0 && has "^promo_slowdown - absent$" && has "^shared_folio 2 tier$" && lines 0 err'
nx "$R" status -r
t "status on a series without promo_slowdown: 5/6 filter sysctls" eval 'rc 0 && has "^filter_sysctls 5/6$" && has "^promo_slowdown - absent off sysctl"'
nx "$R" filter --legacy
t "filter --legacy without promo_slowdown: sets the other five, says it left promo_slowdown out" eval 'rc 0 && sysctl_is "$R" pid 1 && sysctl_is "$R" shared_folio 1 && sysctl_is "$R" cpuset 0 && [ ! -e "$R/proc/sys/kernel/numa_balancing_filter_promo_slowdown" ] && lines 1 err && has "^numabctl: --legacy: kernel.numa_balancing_filter_promo_slowdown is not on this kernel (an older numab series): left out" err'
nx "$R" filter promo_slowdown=off
t "filter promo_slowdown=off without the sysctl: exit 4, says what the kernel lacks, nothing created" eval 'rc 4 && has "numa_balancing_filter_promo_slowdown: not found: this kernel lacks the promo_slowdown setting" err && [ ! -e "$R/proc/sys/kernel/numa_balancing_filter_promo_slowdown" ]'
nx "$R" filter --pid 4242 --legacy
t "filter --pid --legacy without promo_slowdown: the five it has, says it left promo_slowdown out" eval 'rc 0 && pf_is "$R" 4242 "pid=1 shared_ro=1 scan_delay=1 shared_folio=1 cpuset=0" && lines 1 err && has "^numabctl: --legacy: kernel.numa_balancing_filter_promo_slowdown is not on this kernel (an older numab series): left out" err && has "^promo_slowdown  *absent "'
echo "pid=inherit shared_ro=inherit scan_delay=inherit shared_folio=inherit cpuset=inherit" > "$R/proc/4242/numa_filters"
nx "$R" filter --pid 4242 pid=1 promo_slowdown=1
t "filter --pid promo_slowdown=1 without it in numa_filters: exit 4, says the kernel lacks it, nothing written" eval 'rc 4 && has "numa_filters: not set: this kernel lacks the promo_slowdown setting (the numab series. scan-period rule for promotions) (no kernel.numa_balancing_filter_promo_slowdown); nothing changed" err && pf_is "$R" 4242 "pid=inherit shared_ro=inherit scan_delay=inherit shared_folio=inherit cpuset=inherit"'
nx "$R" run --legacy -- cat "$R/proc/self/numa_filters"
t "run --legacy without promo_slowdown: CMD runs with the five, one line says promo_slowdown was left out" eval 'rc 0 && [ "$(cat "$TMP/out")" = "pid=1 shared_ro=1 scan_delay=1 shared_folio=1 cpuset=0" ] && lines 1 err && has promo_slowdown err'
nx "$R" filter --default 2> /dev/null
nx "$R" run --global --legacy -- cat "$R/proc/sys/kernel/numa_balancing_filter_shared_folio"
t "run --global --legacy without promo_slowdown: the others while CMD runs, restored" eval 'rc 0 && [ "$(cat "$TMP/out")" = 1 ] && sysctl_is "$R" shared_folio 2 && has promo_slowdown err && [ ! -e "$R/proc/sys/kernel/numa_balancing_filter_promo_slowdown" ]'
R=$(copy unpatched-6.12)
nx "$R" filter --legacy
t "filter --legacy on unpatched kernel: exit 4, nothing created" eval 'rc 4 && has "numab" err && [ -z "$(ls "$R/proc/sys/kernel" | grep filter_)" ]'
nx "$R" filter pid=1
t "filter set on unpatched kernel: exit 4, says why" eval 'rc 4 && has "numab" err'
nx "$R" filter --save "$TMP/x"
t "filter --save on unpatched kernel: exit 4" rc 4

# --- run -------------------------------------------------------------------------
R=$(copy patched)
nx "$R" run --global --filter pid=skip -f shared_ro=off -- sh -c "cat '$R/proc/sys/kernel/numa_balancing_filter_pid' '$R/proc/sys/kernel/numa_balancing_filter_shared_ro'; exit 3"
t "run: filters changed while CMD runs" eval '[ "$(cat "$TMP/out" | tr "\n" " ")" = "1 0 " ]'
t "run: exit status of CMD, filters restored" eval 'rc 3 && sysctl_is "$R" pid 2 && sysctl_is "$R" shared_ro 2'
t "run: lock released and cleared" eval '[ ! -s "$R/run/numabctl.lock" ]'
nx "$R" run --global --legacy -- cat "$R/proc/sys/kernel/numa_balancing_filter_shared_folio"
t "run --legacy: shared_folio=1 while CMD runs, restored afterwards" eval 'rc 0 && [ "$(cat "$TMP/out")" = 1 ] && sysctl_is "$R" cpuset 1 && sysctl_is "$R" pid 2 && sysctl_is "$R" shared_folio 2 && lines 0 err'
nx "$R" run --global -f shared_folio=off -- true
t "run -f shared_folio=off: accepted, restored" eval 'rc 0 && sysctl_is "$R" shared_folio 2'
nx "$R" run --global -f pid=1 -- /nonexistent/cmd
t "run of a missing command: 127, restored" eval 'rc 127 && sysctl_is "$R" pid 2'
nx "$R" run --global -f pid=9 -- true
t "run with an invalid filter: exit 1, CMD not run" eval 'rc 1 && sysctl_is "$R" pid 2'
nx "$R" run -f pid=1
t "run without CMD: exit 1" rc 1
"$BIN" --sysroot "$R" run --global -f pid=0 -- sleep 30 > /dev/null 2>&1 &
bg=$!
i=0; while [ "$(cat "$R/proc/sys/kernel/numa_balancing_filter_pid")" != 0 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
nx "$R" run --global -f pid=1 -- true
t "run while another run holds the filters: exit 6" eval 'rc 6 && has "another" err && sysctl_is "$R" pid 0'
nx "$R" filter pid=1
t "filter while a run holds the filters: exit 6" rc 6
kill -TERM $bg; wait $bg; st=$?
t "run killed by SIGTERM: restores and exits 143" eval '[ $st = 143 ] && sysctl_is "$R" pid 2'
"$BIN" --sysroot "$R" run --global -f cpuset=0 -- sleep 30 > /dev/null 2>&1 &
bg=$!
i=0; while [ "$(cat "$R/proc/sys/kernel/numa_balancing_filter_cpuset")" != 0 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $bg; wait $bg; st=$?
t "run interrupted by SIGINT: restores" eval '[ $st = 130 ] && sysctl_is "$R" cpuset 1'
# a run that died by SIGKILL left its saved values in the lock file
printf '# numabctl run pid 1\nkernel.numa_balancing_filter_pid = 2\n' > "$R/run/numabctl.lock"; echo 0 > "$R/proc/sys/kernel/numa_balancing_filter_pid"
nx "$R" run --global -f cpuset=0 -- true
t "run after a killed run: restores the values it left" eval 'rc 0 && sysctl_is "$R" pid 2 && has "died" err'
R=$(copy unpatched-6.12)
nx "$R" run --global -f pid=1 -- true
t "run --global on unpatched kernel: exit 4, CMD not run" rc 4

# --- per-process filters: /proc/PID/numa_filters ----------------------
PP=$FIX/per-process
nx "$PP" filter --pid 4242
t "filter --pid: golden (override, effective value, source, sysctl)" eval 'rc 0 && golden filter-pid.txt && lines 0 err'
nx "$PP" filter --pid 4242 -J
t "filter --pid -J: golden" eval 'rc 0 && golden filter-pid.json'
nx "$PP" filter -p 4242 cpuset -r -n -o NAME,OVERRIDE,VALUE,SOURCE,SYSTEM
t "filter --pid PID NAME: that filter only" eval 'rc 0 && lines 1 && has "^cpuset off:priv 0 process 1$"'
R=$(copy per-process)
nx "$R" filter --pid 4242 pid=inherit cpuset=on shared_folio=tier -r -n -o NAME,OVERRIDE,SOURCE
t "filter --pid set: writes the named filters in the kernel's order, sysctls untouched" eval 'rc 0 && pf_is "$R" 4242 "pid=inherit shared_folio=2 cpuset=1" && sysctl_is "$R" pid 2 && sysctl_is "$R" cpuset 1 && has "^cpuset on process$" && has "^pid inherit system$" && [ ! -e "$R/run/numabctl.lock" ]'
nx "$R" filter --pid 4242 --legacy
t "filter --pid --legacy: all six" eval 'rc 0 && pf_is "$R" 4242 "pid=1 shared_ro=1 scan_delay=1 shared_folio=1 cpuset=0 promo_slowdown=1" && sysctl_is "$R" pid 2 && lines 0 err'
nx "$R" filter --pid 4242 --inherit
t "filter --pid --inherit: all six inherit" eval 'rc 0 && pf_is "$R" 4242 "pid=inherit shared_ro=inherit scan_delay=inherit shared_folio=inherit cpuset=inherit promo_slowdown=inherit"'
nx "$R" filter --pid 4242 --default shared_ro=skip
t "filter --pid --default NAME=VALUE: the value on top of the preset" eval 'rc 0 && pf_is "$R" 4242 "pid=2 shared_ro=1 scan_delay=1 shared_folio=2 cpuset=1 promo_slowdown=0"'
nx "$R" filter --pid 4242 cpuset=inherit pid=7
t "filter --pid bad value: exit 1, names it, nothing written" eval 'rc 1 && has "value .7. for filter pid" err && pf_is "$R" 4242 "pid=2 shared_ro=1 scan_delay=1 shared_folio=2 cpuset=1 promo_slowdown=0"'
nx "$R" filter --pid 4242 nosuch=1
t "filter --pid unknown filter: exit 1, lists every filter" eval 'rc 1 && has "NAME one of pid, shared_ro, scan_delay, cpuset, shared_folio, promo_slowdown$" err'
nx "$R" filter --pid 4242 --save "$TMP/x"
t "filter --pid with --save: exit 1" rc 1
nx "$R" filter --inherit
t "filter --inherit without --pid: exit 1" rc 1
nx "$R" filter --pid 2
t "filter --pid of a kernel thread (empty numa_filters): exit 5, says why" eval 'rc 5 && has "kernel thread" err'
nx "$R" filter --pid 31337
t "filter --pid of a missing process: exit 5" eval 'rc 5 && has "is gone" err'
nx "$R" filter --pid abc
t "filter --pid abc: exit 1" rc 1
R=$(copy patched)
nx "$R" filter --pid 4242
t "filter --pid on a kernel without numa_filters: exit 7, says what is missing" eval 'rc 7 && has "no per-process filter overrides" err'
nx "$R" filter --pid 4242 pid=1
t "filter --pid set on a kernel without numa_filters: exit 7, nothing created" eval 'rc 7 && [ ! -e "$R/proc/4242/numa_filters" ] && sysctl_is "$R" pid 2'
# another user's process: EACCES at open (needs a user that is not root)
R=$(copy per-process); chmod 644 "$R/proc/4242/numa_filters"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$BIN" 2>/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$R/proc/4242/maps" 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" --sysroot "$R" filter --pid 4242 pid=1 > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "filter --pid set on another user's process: exit 3, says run as root / ptrace" eval 'rc 3 && has "not yours" err && has "run as root" err && pf_is "$R" 4242 "pid=1 shared_ro=inherit scan_delay=inherit shared_folio=inherit cpuset=0:priv promo_slowdown=inherit"'
	chmod 600 "$R/proc/4242/numa_filters"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" --sysroot "$R" filter --pid 4242 > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "filter --pid show of an unreadable process: exit 3, says ptrace" eval 'rc 3 && has "ptrace" err'
	chmod 644 "$R/proc/4242/numa_filters"; chmod 600 "$R/proc/4244/numa_filters"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" --sysroot "$R" status -r > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "status as another user: unreadable numa_filters counted, not reported one by one" eval 'rc 0 && has "^process_overrides 1$" && has "^process_overrides_unreadable 1$" && hasnt 4244 err && has "^4242 tiered-bench pid=skip,cpuset=off:priv$" && hasnt "^4244 "'
else
	skip "filter --pid on another user's process: exit 3" "needs root and setpriv to become nobody"
	skip "filter --pid show of an unreadable process: exit 3" "needs root and setpriv"
	skip "status as another user: unreadable counted" "needs root and setpriv"
fi

# run: per-process by default (numabctl writes <sysroot>/proc/self/numa_filters,
# here 4242's, and executes CMD in its place)
R=$(copy per-process)
nx "$R" run -f pid=skip --legacy -f cpuset=on -- sh -c "cat '$R/proc/self/numa_filters' '$R/proc/sys/kernel/numa_balancing_filter_pid'; exit 3"
t "run: per-process: CMD sees its overrides (-f on top of --legacy), sysctls unchanged, exit status of CMD" eval 'rc 3 && [ "$(tr "\n" " " < "$TMP/out")" = "pid=1 shared_ro=1 scan_delay=1 shared_folio=1 cpuset=1 promo_slowdown=1 2 " ] && sysctl_is "$R" pid 2 && sysctl_is "$R" cpuset 1 && lines 0 err'
t "run: per-process: no lock taken" eval '[ ! -e "$R/run/numabctl.lock" ]'
"$BIN" --sysroot "$R" run -f pid=1 -- sh -c 'echo $$' > "$TMP/out" 2> "$TMP/err" & bg=$!; wait $bg
t "run: per-process: CMD runs in numabctl's place (same PID, so \$! is the workload)" eval '[ "$(cat "$TMP/out")" = "$bg" ]'
nx "$R" run --inherit -f shared_folio=0 -- true
t "run --inherit: every filter inherits, -f on top" eval 'rc 0 && pf_is "$R" 4242 "pid=inherit shared_ro=inherit scan_delay=inherit shared_folio=0 cpuset=inherit promo_slowdown=inherit"'
nx "$R" run -f pid=inherit -- true
t "run -f pid=inherit: accepted per process" eval 'rc 0 && pf_is "$R" 4242 "pid=inherit"'
nx "$R" run -f pid=9 -- touch "$TMP/ran"
t "run per-process with an invalid value: exit 1, CMD not run" eval 'rc 1 && [ ! -e "$TMP/ran" ] && pf_is "$R" 4242 "pid=inherit"'
nx "$R" run --global -f pid=inherit -- true
t "run --global -f pid=inherit: exit 1 (no such sysctl value)" eval 'rc 1 && has "per-process" err'
nx "$R" run --global --inherit -- true
t "run --global --inherit: exit 1" rc 1
nx "$R" run -f pid=1 -- /nonexistent/cmd
t "run per-process of a missing command: 127" eval 'rc 127 && has nonexistent err'
nx "$R" run -- sh -c 'exit 4'
t "run without filters: just runs CMD" rc 4
echo "pid=inherit" > "$R/proc/4242/numa_filters"
nx "$R" run --global -f pid=1 -- cat "$R/proc/sys/kernel/numa_balancing_filter_pid"
t "run --global on a kernel with per-process filters: the old behaviour, numa_filters untouched" eval 'rc 0 && [ "$(cat "$TMP/out")" = 1 ] && sysctl_is "$R" pid 2 && pf_is "$R" 4242 "pid=inherit"'
rm -f "$R/proc/4242/numa_filters"; mkdir "$R/proc/4242/numa_filters"
nx "$R" run -f pid=1 -- touch "$TMP/ran"
t "run per-process: a failed write stops before CMD" eval '[ "$(cat "$TMP/rc")" != 0 ] && [ ! -e "$TMP/ran" ] && has numa_filters err'
R=$(copy patched)
nx "$R" run -f pid=1 --legacy -- touch "$TMP/ran"
t "run on patched (no numa_filters): exit 7, says what is missing and that --global changes every process" eval 'rc 7 && lines 1 err && has "proc/self/numa_filters not found" err && has "run --global" err && has "every process" err && [ ! -e "$TMP/ran" ] && [ ! -e "$R/run/numabctl.lock" ]'
R=$(copy unpatched-6.12)
nx "$R" run -f pid=1 --legacy -- touch "$TMP/ran"
t "run on unpatched-6.12 (no numa_filters, no sysctls): exit 7, the kernel lacks the series, no --global suggested" eval 'rc 7 && lines 1 err && has "proc/self/numa_filters not found" err && has "lacks the numab series" err && hasnt "run --global" err && [ ! -e "$TMP/ran" ] && [ ! -e "$R/run/numabctl.lock" ]'

R=$(copy patched)
nx "$R" run --global -f pid=1 -- cat "$R/proc/sys/kernel/numa_balancing_filter_pid"
t "run --global on a kernel without numa_filters: still works" eval 'rc 0 && [ "$(cat "$TMP/out")" = 1 ] && sysctl_is "$R" pid 2'

# the effective filters on the numa_vmas mm line
nx "$PP" vmas 4242
t "vmas: the effective filters and their source above the table" eval 'rc 0 && [ "$(head -1 "$TMP/out")" = "filters: pid=skip(process) shared_ro=tier(system) scan_delay=on(system) shared_folio=tier(system) cpuset=off(process) promo_slowdown=off(system)" ] && has "^START "'
nx "$PP" vmas -n -r -o START 4242
t "vmas -n: no filters line (rows only)" eval 'rc 0 && lines 9 && hasnt filters'
nx "$PP" vmas -J -o START 4242
t "vmas -J: the effective filters as an object" eval 'rc 0 && has "\"filters\": \[" && has "\"source\": \"process\"" && has "\"vmas\": \["'
if command -v python3 > /dev/null; then
	t "vmas -J with filters is valid JSON" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [f['value'] for f in d['filters']] == [1,2,1,2,0,0] and d['filters'][4]['source'] == 'process' and d['filters'][5] == {'name': 'promo_slowdown', 'value': 0, 'setting': 'off', 'source': 'system'} and len(d['vmas']) == 9" "$TMP/out"
else
	skip "vmas -J with filters is valid JSON" "python3 not installed"
fi
nx "$PP" vmas --json=compact -o START 4242
t "vmas --json=compact with filters: one line, both members" eval 'rc 0 && lines 1 && has "^{\"filters\":\[{\"name\":\"pid\",\"value\":1,\"setting\":\"skip\",\"source\":\"process\"}," && has "\],\"vmas\":\[{\"start\":\"55d0c0a00000\"}"'
nx "$PP" vmas -J 4242; mv "$TMP/out" "$TMP/one"
NUMABCTL_CHUNK=2 nx "$PP" vmas -J 4242
t "vmas -J with filters in chunks of 2: the same document" eval 'rc 0 && cmp -s "$TMP/one" "$TMP/out"'
nx "$PP" vmas -o PID,START 4242 4243
t "vmas with several PIDs: a filters line per process that has them" eval 'rc 5 && [ "$(head -1 "$TMP/out")" = "filters 4242: pid=skip(process) shared_ro=tier(system) scan_delay=on(system) shared_folio=tier(system) cpuset=off(process) promo_slowdown=off(system)" ] && has "^ *4242 55d0c0a00000"'
nx "$PP" vmas -J -o PID,START 4242 4243
if command -v python3 > /dev/null; then
	t "vmas -J with several PIDs: a filters table with the PID" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d['filters']; assert len(f) == 6 and f[0] == {'pid': 4242, 'name': 'pid', 'value': 1, 'setting': 'skip', 'source': 'process'} and len(d['vmas']) == 9" "$TMP/out"
else
	skip "vmas -J with several PIDs: a filters table" "python3 not installed"
fi
nx "$P" vmas -J -o PID,START 4242 4243
t "vmas -J with several PIDs, no mm-line filters: no filters member" eval 'hasnt "\"filters\"" && has "\"vmas\""'
nx "$P" vmas 4242
t "vmas on a kernel without the mm-line filters: no filters line" eval 'rc 0 && hasnt "^filters:"'
R=$(copy per-process); sed -i '1s/ filter_cpuset=0:process//; 1s/filter_pid=1:process/filter_pid=1:cgroup/' "$R/proc/4242/numa_vmas"
nx "$R" vmas 4242
t "vmas: a filter missing from the mm line or an unknown source is unknown, not system" eval 'rc 0 && has "^filters: pid=skip(unknown) .* cpuset=unknown promo_slowdown=off(system)$"'

# status and report list the overrides
nx "$PP" status -r
t "status: numa_filters supported, processes with overrides listed (kernel thread, gone and all-inherit ones not)" eval 'rc 0 && has "^numa_filters yes$" && has "^process_overrides 2$" && hasnt unreadable && has "^4242 tiered-bench pid=skip,cpuset=off:priv$" && has "^4244 batch-job shared_ro=skip$" && hasnt "^4245 " && hasnt "^2 kthreadd" && lines 0 err'
nx "$P" status -r
t "status on a kernel without numa_filters: says so, no list" eval 'rc 0 && has "^numa_filters no$" && hasnt process_overrides'
nx "$PP" report 4242 -d 0 --no-trace
t "report: the process's numa_filters and effective filters, and the processes with overrides" eval 'rc 0 && has "^Filters of process 4242" && has "^pid  *skip  *1 process  *2$" && has "^shared_ro  *inherit  *2 system  *2$" && has "^ *4244 batch-job *shared_ro=skip$"'
nx "$PP" report 4242 -d 0 --no-trace -J -w "$TMP/r.json"
if command -v python3 > /dev/null; then
	t "report -J: process_filters and overrides" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); pf={f['name']: f for f in d['process_filters']}; assert pf['cpuset']['override'] == 'off' and pf['cpuset']['effective'] == 0 and pf['cpuset']['source'] == 'process' and [o['pid'] for o in d['overrides']] == [4242, 4244]" "$TMP/r.json"
else
	skip "report -J: process_filters and overrides" "python3 not installed"
fi

# --- trace ---------------------------------------------------------------------
TR=$FIX/trace-4242.txt
nx "$P" trace 4242 --input "$TR"
t "trace --input: golden (per VMA and reason, other tasks dropped)" eval 'rc 0 && golden trace-patched.txt && has "1 malformed" err'
nx "$P" trace 4242 -i "$TR" -J -o START,REASON,COUNT
t "trace -J: counts per reason" eval 'rc 0 && has "\"reason\": \"pid_inactive\"" && has "\"count\": 3"'
cat "$TR" | "$BIN" --sysroot "$P" trace 4242 -i - -r -n -o START,REASON > "$TMP/out" 2> /dev/null
t "trace --input - reads stdin" eval 'lines 5 && has "7f3a50000000 scan_delay"'
nx "$P" trace --help
t "trace --help names the v2 reasons" eval 'rc 0 && has promo_backoff && has pid_inactive_promo_only && has shared_ro_promo_only'
grep -v sched_move "$TR" | sed 's/reason=scan_delay/reason=promo_backoff/; s/reason=seq_completed/reason=pid_inactive_promo_only/' > "$TMP/tr2"
nx "$P" trace 4242 -i "$TMP/tr2" -r -n -o START,REASON,COUNT
t "trace: promo_backoff and pid_inactive_promo_only counted per VMA" eval 'rc 0 && has "^7f3a50000000 promo_backoff 1$" && has "^7f3a00000000 pid_inactive_promo_only 1$"'
nx "$N" trace 4242 -d 0.1
t "trace without tracefs in the tree: exit 4, says it is not mounted" eval 'rc 4 && has "tracefs is not mounted" err'
R=$(copy patched); rm -rf "$R/sys/kernel/tracing/events/sched/sched_skip_vma_numa"
nx "$R" trace 4242 -d 0.1
t "trace without the tracepoint: exit 4, says what is missing" eval 'rc 4 && has "lacks the sched_skip_vma_numa tracepoint" err'
nx "$P" trace 4242 -d 0.1
t "trace where tracefs has no instances: exit 4" rc 4
nx "$P" trace 4243 -i "$TR"
t "trace on a gone process: exit 5" rc 5
nx "$P" trace 4242 -d -1
t "trace with a negative duration: exit 1" rc 1

# --- watch ---------------------------------------------------------------------
nx "$P" watch 4242 -i 0.05 -n 2 -r -o SAMPLE,WHAT,SEQ,SLOW,VERDICT
t "watch -n 2: two samples of process + top 3 VMAs" eval 'rc 0 && lines 9 && [ "$(grep -c "^2 " "$TMP/out")" = 4 ] && has "^2 7f3a40000000.*anon *128M stranded"'
nx "$P" watch 4242 -i 0.05 --count 1 --top 0 -J
t "watch -J --top 0: one process row in JSON" eval 'rc 0 && lines 1 && has "\"stranded\":134299648" && [ "$(grep -c "\"sample\":1," "$TMP/out")" = 1 ]'
R=$(copy patched)
"$BIN" --sysroot "$R" watch 4242 -i 1.5 -n 1 -r -o WHAT,PROMOTED,SLOW,dSLOW > "$TMP/out" 2>&1 &
bg=$!; sleep 0.6
sed -i 's/^pgpromote_success 8192/pgpromote_success 9192/' "$R/proc/vmstat"
sed -i 's/N1=32768/N0=16384 N1=16384/' "$R/proc/4242/numa_maps"
wait $bg
t "watch: deltas of promotion and slow residency" eval 'has "process\\\\x204242 1000 307M -64M"'
nx "$P" watch 4243 -n 1
t "watch on a gone process: exit 5" rc 5
nx "$P" watch 4242 -i 0
t "watch with interval 0: exit 1" rc 1

# --- report --------------------------------------------------------------------
nx "$P" report 4242 -d 0 --trace-input "$TR"
t "report: every section present" eval 'rc 0 && has "^Report:" && has "^Support:" && has "^Nodes:" && has "^Tunables:" && has "^Filters:" && has "^Counters over the interval" && has "^VMAs at start" && has "^VMAs at end" && has "^VMA skips traced" && has "^NUMA block" && has "^Cgroup"'
t "report: the filters include shared_folio" has "^shared_folio *2 tier"
t "report: the promo_backoff skip counter over the interval" has "^numa_vma_skip_promo_backoff *31 *31 *0$"
t "report: the scan pace: seq, next window and the period's start and ceiling for 1.1G in 256M windows" eval 'has "^Scan pace (numa_vmas mm line):$" && has "^source  *numa_vmas$" && has "^next_scan_ms_start *812$" && has "^scan_windows *5$" && has "^period_start_ms *1000$" && has "^period_ceiling_ms *12000$" && has "^note *-$"'
t "report: the scan pace names the rule in effect (promo_slowdown 0: the fix is on) and no cause" eval 'has "^promo_slowdown  *0$" && has "^promo_slowdown_source  *system$" && has "^fix  *on$" && has "^cause_period  *no$" && has "^cause_period_why  *the period is not long: the next scan window is 812 ms away, 0.8 times the period a task starts with (1000 ms; ceiling 12000 ms); this kernel.s scan-period rule for promotions is on (promotions shorten the period)$" && has "^cause_cpu_pacing  *no$" && has "^cause_hot_threshold  *no$"'
t "report: kernel, cmdline, sched and cpuset content" eval 'has "6.12.0-numab" && has "numa_balancing=enable" && has "mm->numa_scan_seq *412" && has "cpuset.mems.effective 0-1" && has "pid_inactive *3"'
nx "$P" report 4242 -d 0 -J -w "$TMP/report.json"
t "report -J -w FILE: written, stdout empty, no temp file left" eval 'rc 0 && lines 0 && [ -s "$TMP/report.json" ] && [ -z "$(ls "$TMP" | grep "report.json\\.")" ]'
t "report -J: one JSON object with every section" eval '(for s in report slow_summary slow_causes scan_pace support nodes tunables filters counters vmas_start vmas_end skips sched cgroup; do grep -q "^  \"$s\": \\[" "$TMP/report.json" || { echo "# no $s"; exit 1; }; done) && [ "$(head -c1 "$TMP/report.json")" = "{" ] && [ "$(tail -n1 "$TMP/report.json")" = "}" ]'
t "report -J: untraced interval says why" eval 'grep -q "not traced" "$TMP/report.json"'
if command -v python3 > /dev/null; then
	t "report -J is valid JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/report.json"
	"$BIN" --sysroot "$P" vmas --output-all -J 4242 > "$TMP/vmas-all.json" 2> /dev/null
	t "report -J: the VMA tables have every column of vmas --output-all but PID (the node ones too), in its order and with its values" python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); v = json.load(open(sys.argv[2]))["vmas"]
want = [{k: x[k] for k in x if k != "pid"} for x in v]
for s in ("vmas_start", "vmas_end"):
    got = r[s]
    if [list(x) for x in got] != [list(x) for x in want]:
        print("# %s: missing %s, extra %s" % (s, [k for k in want[0] if k not in got[0]], [k for k in got[0] if k not in want[0]]))
        sys.exit(1)
    if got != want:
        print("# %s: rows differ from vmas --output-all -J" % s)
        sys.exit(1)' "$TMP/report.json" "$TMP/vmas-all.json"
else
	skip "report -J is valid JSON" "python3 not installed"
fi
# the scan pace: a next window 9 starting periods away in tiering mode is a
# long period; who may be blamed depends on the scan-period rule in effect
# (copies of the fixtures with the mm line's next_scan_ms changed)
# pace_report FIXTURE NEXT_MS [SED]: report on a copy ($C) whose mm line
# has next_scan_ms=NEXT_MS (and the sed command SED)
pace_report() {
	C=$(copy "$1")
	sed -i "1s/next_scan_ms=812/next_scan_ms=$2/${3:+; 1$3}" "$C/proc/4242/numa_vmas"
	nx "$C" report 4242 -d 0 --no-trace
}
pace_report patched 9000
long="the next scan window is 9000 ms away, 9.0 times the period a task starts with (1000 ms; ceiling 12000 ms)"
t "report, promo_slowdown 0: a window 9000 ms away is a long period, and the fix being on, promotions are not blamed" eval 'rc 0 && has "^next_scan_ms_start *9000$" && has "^cause_period  *yes$" && has "^cause_period_why  *$long: this kernel.s scan-period rule for promotions is on (promotions shorten the period), so promotions did not lengthen it: faults that mostly did not promote (cold memory, the rate limit, failed migrations) or a period set before did; slow-tier pages no scan has marked wait" && hasnt "promotions are the likely cause" && has "^note  *promotion waits here for a long scan period (the cause rows say why)$"'
nx "$C" report 4242 -d 0 --no-trace -J
t "report -J: the causes are booleans, the rule and the numbers typed" json '(lambda s: s["cause_period"] is True and s["cause_cpu_pacing"] is False and s["cause_hot_threshold"] is False and s["fix"] == "on" and s["promo_slowdown"] == 0 and s["promo_slowdown_source"] == "system" and s["next_scan_ms_start"] == 9000 and s["period_at_least_ms"] == 9000 and s["numa_hint_faults_delta"] == 0 and s["scan_period_ms"] is None and s["promotion_held_by"] is None and s["source"] == "numa_vmas" and s["cause_period_why"].startswith("the next scan window is 9000 ms away"))({r["key"]: r["value"] for r in d["scan_pace"]})'
echo 1 > "$C/proc/sys/kernel/numa_balancing_filter_promo_slowdown"
nx "$C" report 4242 -d 0 --no-trace
t "report, promo_slowdown 1 (system): the long period is blamed on promotions, and how to switch the rule on" eval 'rc 0 && has "^promo_slowdown  *1$" && has "^fix  *off$" && has "^cause_period  *yes$" && has "^cause_period_why  *$long: promo_slowdown=1 (system): promotions lengthen the period as on stock; .numabctl filter promo_slowdown=off. (every process) or .numabctl filter --pid 4242 promo_slowdown=off. (this one) lets a scan sequence that mostly promotes shorten it, so promotions are the likely cause;"'
pace_report per-process 9000 s/filter_promo_slowdown=0:system/filter_promo_slowdown=1:process/
t "report, promo_slowdown=1 for the process (mm line): blamed on promotions, inherit suggested" eval 'rc 0 && has "^promo_slowdown  *1$" && has "^promo_slowdown_source  *process$" && has "^fix  *off$" && has "^cause_period_why  *$long: promo_slowdown=1 (process): .* .numabctl filter --pid 4242 promo_slowdown=inherit. (this one) .* so promotions are the likely cause;"'
pace_report no-promo-slowdown 9000
t "report on a kernel without the fix: the long period is the doubling of promotion-only sequences" eval 'rc 0 && has "^promo_slowdown  *-$" && has "^fix  *absent$" && has "^cause_period  *yes$" && has "^cause_period_why  *$long: this kernel lacks the fix (no kernel.numa_balancing_filter_promo_slowdown): each promotion-only scan sequence doubles the period, up to the ceiling, and nothing shortens it while promotions are the only faults, so promotions are the likely cause;"'
nx "$U" report 4242 -d 0 --no-trace
t "report without scan state: the section says so, the rule absent, the period unknown" eval 'rc 0 && has "^Scan pace (no scan state):$" && has "^source  *none$" && has "^fix  *absent$" && has "^cause_period  *-$" && has "^cause_period_why  *unknown: no scan state (no /proc/4242/numa_vmas, no BPF backend); this kernel lacks the fix" && has "^cause_cpu_pacing  *-$"'
nx "$N" report 4242 -d 0 --no-trace
t "report without NUMA balancing: no scan pace" eval 'rc 0 && hasnt "^Scan pace"'
# a window 9000 ms overdue says nothing of the period, and without the
# threads' CPU times nothing of the CPU pacing either
pace_report patched -9000
t "report: an overdue window with no CPU time known for the process: period and pacing unknown, no note" eval 'rc 0 && has "^next_scan_ms_end *-9000$" && has "^busiest_thread_cpu_ms_end *-$" && has "^cause_period  *-$" && has "^cause_period_why  *unknown: the next scan window is due (9000 ms overdue), which does not show how long the period is" && has "^cause_cpu_pacing  *-$" && has "^note *-$"'
pace_report patched 0
t "report: next_scan_ms 0 is no window scheduled yet, not one due now" eval 'rc 0 && has "^next_scan_ms_end  *-$" && has "^cause_period  *-$" && has "^cause_cpu_pacing_why  *unknown: when the next window is due at the end is unknown: the mm has no next scan window yet (none scheduled since it began)$"'
echo 0 > "$C/proc/sys/kernel/numa_balancing"
nx "$C" report 4242 -d 0 --no-trace
t "report with NUMA balancing off: nothing is promoted, no cause" eval 'rc 0 && has "^cause_period  *no$" && has "^cause_cpu_pacing_why  *not in memory-tiering mode (numa_balancing=disabled): nothing is promoted$" && has "^cause_hot_threshold  *no$"'
# Two samples: each report reads its copy at the start, sleeps 2 s, reads
# it again; the copies change 0.8 s in (sed -i replaces a file whole).
# pace: the window due 1500 ms at the end, the busiest thread (4243) ran
#   150 ms of CPU, less than the minimum period (200 ms): CPU pacing;
#   hinting faults 1000, candidates 100, promoted 50, DRAM short (512M
#   free of 7.8G): the hot threshold
# rate: the window due the whole interval (5000 ms); candidates 900,
#   promoted 100, DRAM near the bar (1.05G free): the rate limit
# room: as rate, but DRAM with room (1.9G free): neither
# ceil: the debugfs tunables unreadable, the window due 300 ms at the end
#   (300 ms ahead at the start), the busiest thread ran 1500 ms: more than
#   the period's lower bound, and its ceiling unknown
stat_line() { echo "$1 (tiered bench) S 1 4242 4242 0 -1 4194560 120 0 0 0 $2 $3 0 0 20 0 2 0 100 0 0"; }
set_sample() {	# DIR NEXT_MS CPU_4243 HINT CAND PROMOTED NODE0_FREE_KB
	sed -i "1s/next_scan_ms=[-0-9]*/next_scan_ms=$2/" "$1/proc/4242/numa_vmas"
	stat_line 4242 20 5 > "$1/proc/4242/task/4242/stat.new"
	stat_line 4243 "$3" 0 > "$1/proc/4242/task/4243/stat.new"
	mv "$1/proc/4242/task/4242/stat.new" "$1/proc/4242/task/4242/stat"
	mv "$1/proc/4242/task/4243/stat.new" "$1/proc/4242/task/4243/stat"
	sed -i "s/^numa_hint_faults [0-9]*/numa_hint_faults $4/; s/^pgpromote_candidate [0-9]*/pgpromote_candidate $5/; s/^pgpromote_success [0-9]*/pgpromote_success $6/" "$1/proc/vmstat"
	sed -i "s/MemFree: *[0-9]* kB/MemFree:         $7 kB/" "$1/sys/devices/system/node/node0/meminfo"
}
for c in pace rate room ceil; do
	rm -rf "$TMP/$c"; cp -a "$P" "$TMP/$c"
	case $c in
	pace) set_sample "$TMP/$c" 300 30 41000 9000 8192 524288 ;;
	ceil) set_sample "$TMP/$c" 300 30 41000 9000 8192 524288
		rm -r "$TMP/$c/sys/kernel/debug/sched/numa_balancing" ;;
	*) set_sample "$TMP/$c" -3000 30 41000 9000 8192 1101004 ;;
	esac
	[ $c = room ] && set_sample "$TMP/$c" -3000 30 41000 9000 8192 2031616
	"$BIN" --sysroot "$TMP/$c" report 4242 -d 2 --no-trace > "$TMP/$c.out" 2> "$TMP/$c.err" &
	eval "bg_$c=\$!"
done
sleep 0.8
set_sample "$TMP/pace" -1500 45 42000 9100 8242 524288
set_sample "$TMP/rate" -5000 45 42000 9900 8292 1101004
set_sample "$TMP/room" -5000 45 42000 9900 8292 2031616
set_sample "$TMP/ceil" -300 180 41000 9000 8192 524288
wait $bg_pace; wait $bg_rate; wait $bg_room; wait $bg_ceil
cp "$TMP/pace.out" "$TMP/out"; cp "$TMP/pace.err" "$TMP/err"
t "report over 2 s, the window due at the end, the busiest thread ran 150 ms: CPU pacing, with its numbers" eval 'has "^busiest_thread_ran_ms  *150$" && has "^busiest_thread  *4243$" && has "^interval_ms  *2[0-9][0-9][0-9]$" && has "^cause_cpu_pacing  *yes$" && has "^cause_cpu_pacing_why  *the window is due (1500 ms overdue) and the busiest thread (4243) ran 150 ms of CPU in the interval (2[0-9]* ms), less than the scan period (at least 300 ms): a thread starts a window only after running its scan period of CPU time since its last (task_tick_numa())"'
t "report over 2 s, 100 of 1000 hinting faults candidates, DRAM short: the hot threshold, said system-wide" eval 'has "^numa_hint_faults_delta  *1000$" && has "^pgpromote_candidate_delta  *100$" && has "^pgpromote_success_delta  *50$" && has "^cause_hot_threshold  *yes$" && has "^promotion_held_by  *hot_threshold$" && has "^cause_hot_threshold_why  *1000 hinting faults, 100 promotion candidates, 50 pages promoted in the interval (system-wide counters; .*): most faults did not become candidates: their pages were not touched again within the hot threshold (hot_threshold_ms 1000, .*); the kernel applies it only while the top tier is short of free memory (node 0: 512M free of 7.8G: short of it)$" && has "^note  *promotion waits here for CPU-time pacing, the hot threshold (the cause rows say why)$"'
cp "$TMP/rate.out" "$TMP/out"; cp "$TMP/rate.err" "$TMP/err"
t "report over 2 s, the window due all the interval: CPU pacing; 900 candidates, 100 promoted, DRAM near the bar: the rate limit" eval 'has "^cause_cpu_pacing  *yes$" && has "^cause_cpu_pacing_why  *the next window was due the whole interval (5000 ms overdue at its end) and no thread started it: the busiest (thread 4243) ran 150 ms" && has "^cause_hot_threshold  *yes$" && has "^promotion_held_by  *rate_limit$" && has "most candidates were not promoted: the promotion rate limit (kernel.numa_balancing_promote_rate_limit_MBps 65536) held them back, or their migrations failed (pgmigrate_fail +0); the kernel applies it only while the top tier is short of free memory (node 0: 1.0G free of 7.8G: near the bar"'
cp "$TMP/room.out" "$TMP/out"; cp "$TMP/room.err" "$TMP/err"
t "report over 2 s with DRAM room: neither the hot threshold nor the rate limit is named" eval 'has "^cause_hot_threshold  *no$" && has "the top tier had room at the end (node 0: 1.9G free of 7.8G): the kernel promotes regardless of the hot threshold and the rate limit then" && has "^promotion_held_by  *-$"'
cp "$TMP/ceil.out" "$TMP/out"; cp "$TMP/ceil.err" "$TMP/err"
t "report over 2 s, the debugfs tunables unreadable, the busiest thread ran 1500 ms: pacing unknown, the ceiling said unknown, not -1" eval 'has "^busiest_thread_ran_ms  *1500$" && has "^cause_cpu_pacing  *-$" && has "^cause_cpu_pacing_why  *unknown: the window is due (300 ms overdue) and the busiest thread (4243) ran 1500 ms of CPU in the interval, more than the period.s lower bound (300 ms), and its ceiling is unknown (the debugfs tunables are unreadable): whether that is a whole period is unknown (numa_vmas does not give a thread.s scan period)$" && hasnt "(-1 ms)"'

# the slow-tier memory by cause: the stranded VMAs, what holds them, what to do
nx "$P" report 4242 -d 0 --no-trace
t "report: the slow-tier causes come right after the header" eval 'rc 0 && [ "$(grep -n "^Slow-tier memory by cause (end of the interval, scan_seq 412):$" "$TMP/out" | cut -d: -f1)" -lt "$(grep -n "^Support:" "$TMP/out" | cut -d: -f1)" ]'
t "report: the sentence says how much is slow and stranded" has "^371M of the memory of process 4242 is on the slow tier (32.1% of 1.1G resident); 128M of it (34.5%) is stranded, in 2 VMAs"
t "report: the PID filter's stranded group, its share and its VMA named" has "^stranded pid  *128M  *34.5  *1 anon 128M$"
t "report: the shared_ro filter's stranded group names the libc VMA" has "^stranded shared_ro  *80K  *0.0  *1 /usr/lib/x86_64-linux-gnu/libc.so.6 80K$"
t "report: the stranded groups first, then the scanned ones" eval 'sed -n "/^VERDICT  *CAUSE/,/^\$/p" "$TMP/out" | sed -n "2,4p" | cut -d" " -f1 | tr "\n" " " | grep -qx "stranded stranded ok "'
t "report: a line on what each cause means and what to do" eval 'has "^stranded:shared_ro  *read-only file mappings (program text, libraries) are not scanned: .numabctl filter shared_ro=tier." && has "^stranded:pid  *the PID filter" && has "^ok:none  *scanned"'
nx "$P" report 4242 -d 0 --no-trace -b
t "report -b: the byte totals of the groups" eval 'rc 0 && has "^stranded pid  *134217728 " && has "^stranded shared_ro  *81920 " && has "^ok  *none  *254541824 "'
# the largest 3 of a group, by slow memory: no scan state puts all in one
nx "$U" report 4242 -d 0 --no-trace
t "report without scan state: one unknown group, its largest 3 in order" eval 'rc 0 && has "^unknown  *unknown  *371M  *100.0  *3 /memfd:big (deleted) 243M, anon 128M, /usr/lib/x86_64-linux-gnu/libc.so.6 80K$" && has "whether any of it is stranded is unknown"'
nx "$S" report 4242 -d 0 --no-trace
t "report on a host without a slow tier: a sentence, no empty table" eval 'rc 0 && has "^Nothing of process 4242 is on the slow tier: this host has none" && hasnt "^VERDICT  *CAUSE"'
# patched with the stranded VMAs on the fast node: slow memory, none of it stranded
C=$(copy patched)
sed -i 's/ N1=32768 / N0=32768 /; s/ N1=20 / N0=20 /' "$C/proc/4242/numa_maps"
nx "$C" report 4242 -d 0 --no-trace
t "report with slow memory but nothing stranded: says so" eval 'rc 0 && has "243M of the memory of process 4242 is on the slow tier .*; nothing of it is stranded\.$" && has "^ok  *none  *243M  *100.0  *1 /memfd:big (deleted) 243M$" && hasnt "^stranded"'
sed -i 's/ N1=62144 / N0=62144 /' "$C/proc/4242/numa_maps"
nx "$C" report 4242 -d 0 --no-trace
t "report with nothing on the slow tier: a sentence, no empty table" eval 'rc 0 && has "^Nothing of process 4242 is on the slow tier (1.1G resident, all on the fast tier): nothing to promote\.$" && hasnt "^VERDICT  *CAUSE"'
nx "$C" report 4242 -d 0 --no-trace -J
t "report -J with nothing on the slow tier: no causes, the sentence and slow 0" json 'd["slow_causes"] == [] and {r["key"]: r["value"] for r in d["slow_summary"]}["slow"] == 0 and {r["key"]: r["value"] for r in d["slow_summary"]}["summary"].startswith("Nothing of process 4242")'
nx "$P" report 4242 -d 0 --no-trace -J
t "report -J: the causes with numeric bytes, the stranded VMAs named" json 'd["slow_causes"][0]["verdict"] == "stranded" and d["slow_causes"][0]["cause"] == "pid" and d["slow_causes"][0]["slow"] == 134217728 and d["slow_causes"][0]["vmas"] == 1 and d["slow_causes"][0]["largest"] == [{"start": "7f3a40000000", "name": "anon", "slow": 134217728}] and d["slow_causes"][1]["cause"] == "shared_ro" and d["slow_causes"][1]["slow"] == 81920 and d["slow_causes"][1]["largest"][0]["name"] == "/usr/lib/x86_64-linux-gnu/libc.so.6"'
t "report -J: every byte count is a number, and the groups add up to the slow tier" json 'all(type(c["slow"]) is int and type(c["share%"]) is float and all(type(v["slow"]) is int for v in c["largest"]) for c in d["slow_causes"]) and sum(c["slow"] for c in d["slow_causes"]) == {r["key"]: r["value"] for r in d["slow_summary"]}["slow"] == 388841472 and {r["key"]: r["value"] for r in d["slow_summary"]}["stranded"] == 134299648'
t "report -J: each cause says what to do" json 'all(c["meaning"] for c in d["slow_causes"]) and "shared_ro=tier" in d["slow_causes"][1]["meaning"]'
nx "$U" report 4242 -d 0 --no-trace
t "report on unpatched kernel: says what is missing" eval 'rc 0 && has "kernel lacks the numab" && has "(--no-trace)" && lines 1 err'
nx "$P" report 4242 -d 0 -w /nonexistent/dir/r.txt
t "report to an unwritable place: error names the file" eval '[ "$(cat "$TMP/rc")" != 0 ] && has /nonexistent/dir err'
nx "$P" report 31337 -d 0
t "report on a missing process: exit 5" rc 5

# --- documentation, completion, install -------------------------------------------
DOC=$(pwd)/Documentation/numabctl.rst
# the examples in the man page are real output: compare them with the tool
doc_example() {	# $1: command line as shown after "$ "
	awk -v cmd="   \$ $1" '$0 == cmd { on = 1; next } on && /^$/ { exit } on { sub(/^   /, ""); print }' "$DOC" > "$TMP/doc"
	[ -s "$TMP/doc" ] && diff -u "$TMP/doc" "$TMP/out" > "$TMP/diff" || { diag "$TMP/diff"; return 1; }
}
nx "$P" vmas 4242
t "man page: the vmas example is current output" doc_example "numabctl vmas 4242"
nx "$P" vmas -J --stranded -o START,SIZE,SLOW,SEQS,VERDICT,WHY 4242
t "man page: the vmas -J example is current output" doc_example "numabctl vmas -J --stranded -o START,SIZE,SLOW,SEQS,VERDICT,WHY 4242"
nx "$P" filter
t "man page: the filter example is current output" doc_example "numabctl filter"
nx "$P" report -d 0 --no-trace 4242
sed -n '/^Slow-tier/,/^$/p' "$TMP/out" | sed '/^$/d' > "$TMP/section" && mv "$TMP/section" "$TMP/out"
t "man page: the report's slow-tier causes example is current output" doc_example "sed -n '/^Slow-tier/,/^\$/p' numab-report.txt"
t "man page documents every command" eval '(for c in status vmas filter run watch trace report; do grep -q "^$c" "$DOC" || exit 1; done)'
nx "$P" filter -r -n -o NAME
t "man page and bash completion name every filter" eval '(for f in $(cat "$TMP/out"); do grep -q "\`\`$f\`\`" "$DOC" && grep -q "$f=tier\|$f=on" bash-completion/numabctl || { echo "# $f"; exit 1; }; done)'
t "filter --help and run --help name every filter" eval '(for c in filter run; do "$BIN" $c --help > "$TMP/h" 2>&1; for f in $(cat "$TMP/out"); do grep -q "$f" "$TMP/h" || { echo "# $c: $f"; exit 1; }; done; done)'
t "man page documents every exit status" eval '(for c in 0 1 2 3 4 5 6 7; do grep -q "^$c\$" "$DOC" || exit 1; done)'
if command -v rst2man > /dev/null; then
	rst2man --halt=warning "$DOC" > "$TMP/numabctl.8" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "man page: docutils' rst2man converts it without a warning" eval 'rc 0 && lines 0 err && grep -q "^\.TH" "$TMP/numabctl.8" && grep -q "^\.SH EXIT STATUS" "$TMP/numabctl.8" && grep -q "^\.nf" "$TMP/numabctl.8"'
	t "man page: no fallback converter left" eval '[ ! -e Documentation/rst2man.sh ] && ! grep -q rst2man.sh Makefile'
else
	skip "man page: docutils' rst2man converts it" "rst2man is not installed (apt-get install python3-docutils; scripts/deps does)"
fi

COMP=$(pwd)/bash-completion/numabctl
t "bash completion: syntax" bash -n "$COMP"
mkdir -p "$TMP/bin"; ln -sf "$BIN" "$TMP/bin/numabctl"
PATH="$TMP/bin:$PATH" bash -c '. "$1"; _numabctl_columns vmas' _ "$COMP" > "$TMP/out" 2> "$TMP/err"
t "bash completion: column names come from --list-columns" eval 'lines $("$BIN" vmas --list-columns | wc -l) && has "^VERDICT$" && has "^PIDBITS$"'
if [ -r /usr/share/bash-completion/bash_completion ]; then
	PATH="$TMP/bin:$PATH" bash -c '. /usr/share/bash-completion/bash_completion; . "$1"
		COMP_WORDS=(numabctl vmas --so); COMP_CWORD=2; COMP_LINE="numabctl vmas --so"; COMP_POINT=${#COMP_LINE}
		_numabctl; printf "%s\n" "${COMPREPLY[@]}"
		COMP_WORDS=(numabctl fi); COMP_CWORD=1; COMP_LINE="numabctl fi"; COMP_POINT=${#COMP_LINE}; _numabctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" > "$TMP/out" 2>&1
	t "bash completion: options and commands" eval 'has "^--sort\$" && has "^filter\$"'
	PATH="$TMP/bin:$PATH" bash -c '. /usr/share/bash-completion/bash_completion; . "$1"
		COMP_WORDS=(numabctl run --gl); COMP_CWORD=2; COMP_LINE="numabctl run --gl"; COMP_POINT=${#COMP_LINE}
		_numabctl; printf "%s\n" "${COMPREPLY[@]}"
		COMP_WORDS=(numabctl filter --pi); COMP_CWORD=2; COMP_LINE="numabctl filter --pi"; COMP_POINT=${#COMP_LINE}; _numabctl; printf "%s\n" "${COMPREPLY[@]}"
		COMP_WORDS=(numabctl run -f cpuset=i); COMP_CWORD=3; COMP_LINE="numabctl run -f cpuset=i"; COMP_POINT=${#COMP_LINE}; _numabctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" > "$TMP/out" 2>&1
	t "bash completion: run --global, filter --pid, -f NAME=inherit" eval 'has "^--global\$" && has "^--pid\$" && has "inherit\$"'
else
	skip "bash completion: options and commands" "bash-completion is not installed"
	skip "bash completion: run --global, filter --pid" "bash-completion is not installed"
fi

make -s install DESTDIR="$TMP/inst" prefix=/usr > "$TMP/out" 2>&1
t "make install honours DESTDIR and prefix" eval '[ -x "$TMP/inst/usr/sbin/numabctl" ] && grep -q "^\.TH" "$TMP/inst/usr/share/man/man8/numabctl.8" && [ -s "$TMP/inst/usr/share/bash-completion/completions/numabctl" ] || { diag "$TMP/out"; false; }'

# --- the running kernel (read-only): real formats of maps, numa_maps, vmstat ---
sleep 60 & LIVE=$!
"$BIN" status > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
t "live: status on the running kernel, at most one line on stderr" eval 'rc 0 && has "^Support:" && [ "$(wc -l < "$TMP/err")" -le 1 ]'
"$BIN" vmas -o +PERMS,END $LIVE > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
t "live: vmas of a running process parses every line" eval 'rc 0 && has "\[stack\]" && hasnt malformed err'
"$BIN" report -d 0 --no-trace -J $LIVE > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
t "live: report of a running process" eval 'rc 0 && has "\"vmas_end\""'
if "$BIN" status 2> /dev/null | grep -q "^scan_state  *bpf"; then
	"$BIN" report -d 0 --no-trace $LIVE > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "live, BPF backend: the scan pace is labelled by its source and has the task's scan period" eval 'rc 0 && has "^Scan pace (BPF task_vma iterator):$" && has "^source  *bpf$" && has "^scan_period_ms  *[1-9][0-9]*$" && has "^scan_period_thread  *$LIVE$"'
else
	skip "live, BPF backend: the scan pace labelled by its source" "no BPF backend here (numabctl status: scan_state)"
fi
# a thread's ID (ps -L, /proc/PID/task) names its process on every backend
if command -v python3 > /dev/null; then
	python3 -c 'import threading, time
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
time.sleep(60)' & LT=$!
	LTID=
	for _ in $(seq 50); do
		LTID=$(ls "/proc/$LT/task" 2> /dev/null | grep -vx "$LT" | head -n 1)
		[ -n "$LTID" ] && break
		sleep 0.1
	done
	for b in auto numa_vmas bpf none; do
		"$BIN" vmas --backend $b -r -n -o PID "$LTID" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
		if [ $b = auto ] || [ "$(cat "$TMP/rc")" = 0 ] || ! grep -q "lacks\|not available\|not supported\|not built" "$TMP/err"; then
			t "live: vmas --backend $b TID (a thread of $LT): its process" eval 'rc 0 && [ -n "$LTID" ] && [ "$(sort -u "$TMP/out")" = "$LT" ]'
		else
			skip "live: vmas --backend $b TID" "$(head -n 1 "$TMP/err")"
		fi
	done
	kill $LT 2> /dev/null; wait $LT 2> /dev/null
else
	skip "live: vmas TID of a thread" "python3 is not installed"
fi
kill $LIVE 2> /dev/null; wait $LIVE 2> /dev/null
"$BIN" vmas $LIVE > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
t "live: vmas of a process that has exited: exit 5" eval 'rc 5 && has "is gone" err'
# per-process filters on the running kernel: only numabctl's own process (run) changes
if [ -e /proc/self/numa_filters ]; then
	"$BIN" run -f pid=skip -f cpuset=off -- cat /proc/self/numa_filters > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "live: run per process: CMD's own numa_filters has the overrides" eval 'rc 0 && has "^pid=1 .*cpuset=0$"'
	"$BIN" filter --pid $$ -r -n -o NAME,SOURCE > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "live: filter --pid of the test shell" eval 'rc 0 && lines 5'
else
	"$BIN" run -f pid=skip -- touch "$TMP/ran" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	if [ -e /proc/sys/kernel/numa_balancing_filter_pid ]; then
		t "live: run on a kernel without numa_filters: exit 7, CMD not run, --global suggested" eval 'rc 7 && [ ! -e "$TMP/ran" ] && has "run --global" err'
	else
		t "live: run on a kernel without the numab series: exit 7, CMD not run, says the kernel lacks it" eval 'rc 7 && [ ! -e "$TMP/ran" ] && has "lacks the numab series" err && hasnt "run --global" err'
	fi
	"$BIN" filter --pid $$ > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "live: filter --pid on a kernel without numa_filters: exit 7" eval 'rc 7 && has "no per-process filter overrides" err'
fi

t "every command has --help (exit 0)" eval '(for c in status vmas filter run watch trace report; do "$BIN" $c --help > "$TMP/out" 2>&1 && grep -q "^Usage: numabctl $c" "$TMP/out" || { echo "# $c"; exit 1; }; done)'
nx "$P" vmas --bogus-option 4242
t "unknown option: exit 1, says which, with a hint" eval 'rc 1 && has "unknown option .--bogus-option." err && has "^Try .numabctl vmas --help." err'

# --- scale and order ---------------------------------------------------------------
# the kernel prints in address order, but the join must not depend on it
R=$(copy patched)
{ head -1 "$P/proc/4242/numa_vmas"; tail -n +2 "$P/proc/4242/numa_vmas" | sort -r; } > "$R/proc/4242/numa_vmas"
sort -r "$P/proc/4242/numa_maps" > "$R/proc/4242/numa_maps"
sort -r "$P/proc/4242/maps" > "$R/proc/4242/maps"
nx "$R" vmas 4242
t "vmas: files in reverse order give the same table" eval 'rc 0 && golden vmas-patched.txt'
# 20000 VMAs and a trace with 20000 distinct (VMA, reason) pairs: the
# hash table grows many times, the merge join stays linear
R=$(copy patched)
awk -v p="$R/proc/4242" 'BEGIN {
	print "mm scan_seq=412 scan_offset=0x0 next_scan_ms=1" > (p "/numa_vmas")
	for (i = 0; i < 20000; i++) {
		s = sprintf("7f00%08x", i * 12288); e = sprintf("7f00%08x", i * 12288 + 8192)
		printf "%s-%s rw-p 00000000 00:00 0 \n", s, e > (p "/maps")
		printf "%s default anon=2 N0=1 N1=1 kernelpagesize_kB=4\n", s > (p "/numa_maps")
		printf "%s-%s filter=none state=ok prev_seq=%d anon\n", s, e, (i % 2 ? 412 : 100) > (p "/numa_vmas")
		for (r = 0; r < 3; r++)
			printf "x-4242 [000] ..... 1.0: sched_skip_vma_numa: numa_scan_offset=0 vm_start=%s vm_end=%s reason=%s\n", toupper(s), toupper(e), (i % 2 ? "pid_inactive" : "shared_ro") > (p "/../trace")
	}
}'
nx "$R" vmas --stranded -r -n -o START 4242
t "vmas on 20000 VMAs: every other one stranded" eval 'rc 0 && lines 10000'
nx "$R" trace 4242 -i "$R/proc/trace" -r -n -o START,REASON,COUNT
t "trace of 60000 events on 20000 VMAs: aggregated per VMA" eval 'rc 0 && lines 20000 && [ "$(grep -c " 3$" "$TMP/out")" = 20000 ]'
