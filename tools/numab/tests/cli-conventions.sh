# SPDX-License-Identifier: GPL-2.0
# CLI tests: correct data, honest errors, the conventions of
# util-linux, numastat and bpftool.  Sourced by tests/check.sh (its helpers).
P=$FIX/patched U=$FIX/unpatched-6.12 M=$FIX/malformed
errs() {	# exactly $1 lines on stderr start with "numabctl:"
	[ "$(grep -c '^numabctl:' "$TMP/err")" = "$1" ] || { echo "# expected $1 numabctl: lines"; diag "$TMP/err"; return 1; }
}

# --- wrong data ----------------------------------------------------------------
nx "$P" status -J
t "status -J: CPUS is a boolean, false for the CPU-less node" json '[n["cpus"] for n in d["nodes"]] == [True, False]'
t "status -J: tunables and counters are numbers" json 'all(type(r["value"]) is int for r in d["tunables"] + d["counters"])'
t "status -J: the section is 'counters' as in text, no 'vmstat'" json '"counters" in d and "vmstat" not in d'
nx "$P" status --json=compact
t "--json=compact: one line" eval 'rc 0 && lines 1 && json "d[\"nodes\"][1][\"cpus\"] is False"'
nx "$P" watch 4242 -i 0.05 -n 1 -J
t "watch -J: type and id in their own members" json 'd["rows"][0]["type"] == "process" and d["rows"][0]["pid"] == 4242 and d["rows"][1]["type"] == "vma" and d["rows"][1]["start"] == "7f3a40000000" and "what" not in d["rows"][0]'
# JSON lines, written as each sample is taken (a reader sees the first
# while watch still runs); at most 3 s
"$BIN" --sysroot "$P" watch 4242 -i 0.2 -n 15 -J > "$TMP/stream" 2> /dev/null & wp=$!
i=0; while [ $i -lt 30 ] && [ ! -s "$TMP/stream" ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $wp 2> /dev/null; running=$?
kill $wp 2> /dev/null; wait $wp 2> /dev/null
head -1 "$TMP/stream" > "$TMP/out"
t "watch -J: each sample out on its own line while watch runs (for jq)" eval '[ $running = 0 ] && lines 1 && json "d[\"sample\"] == 1"'
nx "$U" watch 4242 -i 0.05 -n 1 -J --top 0
t "watch without numa_vmas: stranded is null in JSON" json 'd["rows"][0]["stranded"] is None'
nx "$U" watch 4242 -i 0.05 -n 1 -r -o WHAT,SLOW,STRANDED --top 0
t "watch without numa_vmas: STRANDED is '-' in text" eval 'rc 0 && has "^process\\\\x204242 [0-9.]*[KMG] -$" && hasnt " 0B$"'
nx "$M" vmas -r -o START,FAST,SLOW 4242
t "malformed: a 4K VMA with more pages than it holds shows no 16E" eval 'rc 0 && hasnt 16E && has "^7f3b00000000 *$"'
t "malformed: a garbage tier nodelist is reported once, FAST/SLOW not guessed" eval 'grep -c "memory_tier90/nodelist: malformed" "$TMP/err" | grep -qx 1 && hasnt "^7f3a40000000 [0-9]"'
nx "$M" status -r -o NODE,TIER,CLASS
t "malformed: node 1 of the garbage tier has class '-', not fast" eval 'rc 0 && has "^1 - -$"'
nx "$P" vmas -r -n -o +NAME 4242
t "-o +NAME with NAME shown: the second NAME column prints" eval 'rc 0 && has "^55d0c0a00000 .* /usr/bin/tiered-bench .* /usr/bin/tiered-bench$"'
nx "$P" vmas -J -o START,START 4242
t "-J -o START,START: both members have the value" eval 'rc 0 && [ "$(grep -c "\"start\": \"55d0c0a00000\"" "$TMP/out")" = 2 ] && hasnt null'
NUMABCTL_CHUNK=0 nx "$P" vmas -J -o START,START 4242
t "-J -o START,START (json-c for every row): both members" eval 'rc 0 && [ "$(grep -c "\"start\": \"55d0c0a00000\"" "$TMP/out")" = 2 ]'

# --- honest errors: absent, unreadable and malformed ------------------------------
R=$(copy patched)
rm "$R/proc/sys/kernel/numa_balancing_filter_cpuset"; mkdir "$R/proc/sys/kernel/numa_balancing_filter_cpuset"
echo bogus > "$R/proc/sys/kernel/numa_balancing_filter_shared_ro"
rm "$R/proc/sys/kernel/numa_balancing_filter_shared_folio"
nx "$R" filter -r -n -o NAME,VALUE,SETTING
t "filter: absent, unreadable and malformed sysctls told apart" eval 'rc 0 && has "^cpuset - unreadable$" && has "^shared_ro - malformed$" && has "^shared_folio - absent$"'
nx "$R" status -r
t "status: an unreadable sysctl is not 'not provided by this kernel'" eval 'rc 0 && has "^cpuset .*cannot.*read.*it" && has "filter_sysctls 5/6"'
R2=$(copy patched); rm "$R2/proc/vmstat"; mkdir "$R2/proc/vmstat"
nx "$R2" status -r
t "status: an unreadable /proc/vmstat is said once, counters not claimed absent" eval 'rc 0 && errs 1 && has "vmstat: cannot read" err && has "skip_counters unknown" && hasnt "^Counters:"'
nx "$P" filter --restore "$TMP/nonexist"
t "filter --restore of a missing file: the user's file, not the kernel's" eval 'rc 2 && has "nonexist: No such file" err && hasnt kernel err'
nx "$P" report 4242 -d 0 --no-trace -w /nonexist/x
t "report -w into a missing directory: the user's file" eval 'rc 2 && has "/nonexist/x: No such file" err && hasnt kernel err'
nx "$P" trace 4242 -i /nonexist
t "trace -i of a missing file: the user's file" eval 'rc 2 && has "/nonexist: No such file" err && hasnt kernel err'
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$BIN" 2> /dev/null; then
	mkdir -p "$TMP/ro"; chmod 755 "$TMP/ro"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" --sysroot "$P" filter --save "$TMP/ro/saved" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "filter --save into a directory the user cannot write: permission denied, no 'run as root'" eval 'rc 3 && has "Permission denied" err && hasnt "run as root" err'
else
	skip "filter --save into an unwritable directory" "needs root (to become nobody) and setpriv"
fi
nx /nonexistent status
t "--sysroot that does not exist: exit 1, said" eval 'rc 1 && has "sysroot /nonexistent: No such file" err'
R=$(copy patched); mkdir -p "$R/proc/2"; : > "$R/proc/2/maps"; echo kthreadd > "$R/proc/2/comm"
printf 'Name:\tkthreadd\nState:\tS (sleeping)\nKthread:\t1\n' > "$R/proc/2/status"
nx "$R" vmas 2
t "vmas of a kernel thread: named as one, no address space" eval 'rc 2 && has "process 2 (kthreadd) is a kernel thread: it has no address space" err && lines 0'
if [ -w /dev/full ]; then
	"$BIN" --sysroot "$P" status > /dev/full 2> "$TMP/err"; echo $? > "$TMP/rc"
	t "status > /dev/full: write error, exit 2 (close_stdout)" eval 'rc 2 && has "write error: No space left" err'
else
	skip "status > /dev/full" "no /dev/full"
fi

# --- conflicting and ignored options --------------------------------------------
nx "$P" vmas -J -r 4242
t "-J with -r: exit 1" eval 'rc 1 && lines 0 && has "cannot be used together" err'
nx "$P" vmas -J -P 4242
t "-J with -P: exit 1" rc 1
R=$(copy patched)
nx "$R" filter --save "$TMP/s" pid=1
t "filter --save with an assignment: exit 1, nothing written or set" eval 'rc 1 && [ ! -e "$TMP/s" ] && sysctl_is "$R" pid 2'
nx "$R" filter --legacy --default
t "filter --legacy --default: exit 1, nothing set" eval 'rc 1 && sysctl_is "$R" pid 2 && has "cannot be used together" err'
nx "$P" status -r -n -o NODE,CLASS
t "status -o: the node table has the columns asked for" eval 'rc 0 && has "^0 fast$" && has "^1 slow$"'
nx "$P" vmas -o "" 4242
t "empty -o: exit 1" eval 'rc 1 && has "needs a list of columns" err'
nx "$P" -o "$TMP/r" report 4242 -d 0 --no-trace
t "-o before report (no columns there): exit 1, no file" eval 'rc 1 && [ ! -e "$TMP/r" ] && has "no columns" err'
nx "$P" report -o "$TMP/r" 4242 -d 0 --no-trace
t "report -o FILE: -o is columns everywhere, report has none: exit 1" eval 'rc 1 && [ ! -e "$TMP/r" ]'
nx "$P" vmas -m 99999999999999999999 4242
t "vmas -m out of range: exit 1" eval 'rc 1 && has "invalid --min-size" err'

# --- error style -------------------------------------------------------------------
nx "$P" watch 4242 -i -1
t "watch -i -1: one message" eval 'rc 1 && errs 1'
nx "$P" vmas --bogus 4242
t "unknown option: one message and a Try hint, not the whole usage" eval 'rc 1 && errs 1 && has "unknown option .--bogus." err && has "^Try .numabctl vmas --help." err && hasnt "^Usage" err'
nx "$P" vmas --min-size 1.5M -r -n -o START 4242
t "vmas --min-size 1.5M: a fraction as lsblk takes it, the 2M VMA in, the 1M one out" eval 'rc 0 && lines 3 && has "^7f3a4b000000$" && hasnt "^7f3a50000000$"'
nx "$P" vmas --min-size 1.5MB -r -n -o START 4242
t "vmas --min-size 1.5MB: 1500000 bytes, the 1M VMA (1048576) out" eval 'rc 0 && lines 3 && hasnt "^7f3a50000000$"'
nx "$P" report 4242 -d 0 --no-trace -J
t "report -J: the /proc/PID/sched values that are numbers are JSON numbers" json 'all(isinstance(r["value"], (int, float)) for r in d["sched"] if r["key"] != "numa_faults") and {r["key"]: r["value"] for r in d["sched"]}["mm->numa_scan_seq"] == 412 and all(isinstance(r["value"], str) for r in d["sched"] if r["key"] == "numa_faults")'
# cgroup v1: cpuset.mems is not read, and the report says so
R=$(copy patched)
printf '12:cpu,cpuset:/numab\n11:memory:/numab\n0::/\n' > "$R/proc/4242/cgroup"
nx "$R" report 4242 -d 0 --no-trace
t "report on cgroup v1: cpuset.mems said not read (v1), not left out" eval 'rc 0 && has "^cpuset.mems  *not read: cgroup v1" && has "^Mems_allowed_list  *0-1"'
nx "$R" report 4242 -d 0 --no-trace -J
t "report -J on cgroup v1: cpuset.mems says not read" json '"not read: cgroup v1" in {r["key"]: r["value"] for r in d["cgroup"]}["cpuset.mems"]'
nx "$P" watch 4242 -i 0.05 -n 1 -x START
t "watch -x COL: refused, watch orders its rows itself (not ignored)" eval 'rc 1 && lines 0 && has "sort is not accepted" err'
nx "$P" watch 4242 -i 0.05 -n 1 --sort=SLOW
t "watch --sort=COL: refused" eval 'rc 1 && lines 0 && has "sort is not accepted" err'
nx "$P" watch 4242 4243
t "two PIDs where one is expected: says so" eval 'rc 1 && has "one PID expected" err'
nx "$P" vmas -o
t "option without its argument: says which" eval 'rc 1 && has "needs an argument" err'
R=$(copy patched)
nx "$R" filter pid=bad; cp "$TMP/err" "$TMP/err1"
nx "$R" run --global -f pid=bad -- true
t "filter pid=bad and run -f pid=bad: the same wording" eval 'rc 1 && grep -q "invalid value .bad. for filter pid (off|skip|tier or 0..2" "$TMP/err1" && has "invalid value .bad. for filter pid (off|skip|tier or 0..2" err'
R=$(copy patched); mkdir -p "$R/run"; : > "$R/run/numabctl.lock"
if command -v flock > /dev/null; then
	flock "$R/run/numabctl.lock" sleep 3 & fl=$!; sleep 0.3
	nx "$R" run --global -f pid=1 -- true
	t "run while the filters are held: exit 6, no option run lacks" eval 'rc 6 && hasnt "use --force" err && has "filter --force" err'
	kill $fl 2> /dev/null; wait $fl 2> /dev/null
else
	skip "run while the filters are held" "flock is not installed"
fi

# --- '-' is stdin or stdout ----------------------------------------------------------
R=$(copy patched)
(cd "$TMP" && "$BIN" --sysroot "$R" filter --save - > "$TMP/out" 2> "$TMP/err"); echo $? > "$TMP/rc"
t "filter --save -: to stdout, no file named -" eval 'rc 0 && has "^kernel.numa_balancing_filter_pid = 2$" && [ ! -e "$TMP/-" ]'
echo "kernel.numa_balancing_filter_pid = 1" | "$BIN" --sysroot "$R" filter --restore - > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
t "filter --restore -: from stdin" eval 'rc 0 && sysctl_is "$R" pid 1'
nx "$P" report 4242 -d 0 --no-trace -w -
t "report -w -: to stdout" eval 'rc 0 && has "^Report:"'

# --- the filter rollback gap ------------------------------------------------------------
R=$(copy patched)
rm "$R/proc/sys/kernel/numa_balancing_filter_cpuset"; mkdir "$R/proc/sys/kernel/numa_balancing_filter_cpuset"
nx "$R" filter scan_delay=0 cpuset=0
t "filter with an unreadable old value: refused before any write" eval 'rc 2 && sysctl_is "$R" scan_delay 1 && has "filter_cpuset: the current value is unreadable" err'
R=$(copy patched); echo garbage > "$R/proc/sys/kernel/numa_balancing_filter_pid"
nx "$R" filter scan_delay=0 pid=1
t "filter with a malformed old value: refused, nothing written" eval 'rc 2 && sysctl_is "$R" scan_delay 1 && [ "$(cat "$R/proc/sys/kernel/numa_balancing_filter_pid")" = garbage ]'

# --- conventions: bpftool, lsblk, numastat --------------------------------------------
nx "$P" help vmas; cp "$TMP/out" "$TMP/h1"
nx "$P" vmas help
t "numabctl help vmas and numabctl vmas help: the command's help" eval 'rc 0 && has "^Usage: numabctl vmas" && cmp -s "$TMP/h1" "$TMP/out"'
nx "$P" vmas --list-columns; cp "$TMP/out" "$TMP/cols"
ncols=$(wc -l < "$TMP/cols")
t "--list-columns: every column of --help, PID and one per node, one a line" eval 'rc 0 && (for c in $("$BIN" vmas --help | sed -n "/^Available output columns/,\$p" | awk "NR > 1 && NF && \$1 !~ /,\$/ { print \$1 }") PID N0 N1; do grep -q "^ *$c  " "$TMP/cols" || { echo "# $c"; exit 1; }; done)'
nx "$P" vmas -H
t "-H is --list-columns" eval 'rc 0 && cmp -s "$TMP/out" "$TMP/cols"'
nx "$P" vmas --output-all -r 4242
t "--output-all: every column" eval 'rc 0 && [ "$(head -1 "$TMP/out" | wc -w)" = $ncols ] && has "^PID START END SIZE PERMS NAME FAST SLOW SLOW% N0 N1 FILTER STATE SEQS PSEQS START_SEQ .* VERDICT WHY"'
nx "$P" vmas -x NAME -r -n -o NAME 4242
t "-x COL: ascending by any column" eval 'rc 0 && [ "$(head -1 "$TMP/out")" = "/memfd:big\\x20(deleted)" ] && [ "$(tail -1 "$TMP/out")" = "anon" ]'
nx "$P" vmas -P -o START,VERDICT 4242
t "-P: NAME=\"value\" pairs" eval 'rc 0 && has "^START=\"55d0c0a00000\" VERDICT=\"skipped:shared_ro\"$"'
nx "$P" filter -x VALUE -r -n -o NAME
t "-x COL not shown: sorts by it, hidden (lsblk)" eval 'rc 0 && [ "$(head -1 "$TMP/out")" = promo_slowdown ] && [ "$(tail -1 "$TMP/out")" = shared_folio ]'
nx "$P" filter -x VALUE -J -o NAME
t "-x COL not shown: not in JSON either" eval 'rc 0 && json "d[\"filters\"][0] == {\"name\": \"promo_slowdown\"}"'

# --- completion: +COL, -x COL ------------------------------------------------------------
COMP=$(pwd)/bash-completion/numabctl
mkdir -p "$TMP/bin"; ln -sf "$BIN" "$TMP/bin/numabctl"
if [ -r /usr/share/bash-completion/bash_completion ]; then
	PATH="$TMP/bin:$PATH" bash -c '. /usr/share/bash-completion/bash_completion; . "$1"
		COMP_WORDS=(numabctl vmas -o +FA); COMP_CWORD=3; COMP_LINE="numabctl vmas -o +FA"; COMP_POINT=${#COMP_LINE}
		_numabctl; printf "%s\n" "${COMPREPLY[@]}"
		COMP_WORDS=(numabctl vmas -o +FAST,VER); COMP_CWORD=3; COMP_LINE="numabctl vmas -o +FAST,VER"; COMP_POINT=${#COMP_LINE}
		_numabctl; printf "%s\n" "${COMPREPLY[@]}"
		COMP_WORDS=(numabctl status -x US); COMP_CWORD=3; COMP_LINE="numabctl status -x US"; COMP_POINT=${#COMP_LINE}
		_numabctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" > "$TMP/out" 2>&1
	t "bash completion: -o +COL and +COL,COL complete, -x takes the command's columns" eval 'has "^+FAST$" && has "^+FAST,VERDICT$" && has "^USED%$"'
else
	skip "bash completion: -o +COL" "bash-completion is not installed (scripts/deps installs it)"
fi

# --- numastat: per-node columns, several processes, patterns, self, zero rows ----------
nx "$P" vmas -N -r 4242
t "vmas -N: a column per node after SLOW%" eval 'rc 0 && has "^START SIZE NAME FAST SLOW SLOW% N0 N1 FILTER" && has "^7f3a00000000 1G /memfd:big\\\\x20(deleted) 781M 243M 23.7 781M 243M "'
nx "$P" vmas -r -n -o START,N1 4242
t "vmas -o N1: the bytes on node 1" eval 'rc 0 && has "^7f3a40000000 128M$" && has "^55d0c2000000 0B$"'
nx "$P" vmas -z -r -n -o START 4242
t "vmas -z: VMAs with nothing resident left out" eval 'rc 0 && lines 8 && hasnt ffffffffff600000'
R=$(copy patched); cp -a "$R/proc/4242" "$R/proc/4244"; echo other-job > "$R/proc/4244/comm"; sed -i "s/^\(Tgid\|Pid\):.*/\1:\t4244/" "$R/proc/4244/status"
nx "$R" vmas -r -n -o PID,START 4242 4244
t "vmas PID PID: one table, a PID column" eval 'rc 0 && lines 18 && [ "$(grep -c "^4242 " "$TMP/out")" = 9 ] && [ "$(grep -c "^4244 " "$TMP/out")" = 9 ]'
nx "$R" vmas -p "^tiered" -r -n -o PID,START
t "vmas -p PATTERN: the processes whose name matches" eval 'rc 0 && lines 9 && hasnt "^4244 "'
nx "$R" vmas -p "job|bench" -J -o PID
t "vmas -p: several matches, PID in JSON" eval 'rc 0 && json "sorted(set(r[\"pid\"] for r in d[\"vmas\"])) == [4242, 4244]"'
nx "$R" vmas -p nomatch
t "vmas -p without a match: exit 5, said" eval 'rc 5 && has "no process with an address space matches" err'
nx "$R" vmas -r -n -o PID,START 4242 31337
t "vmas with a gone process among others: the others printed, exit 5" eval 'rc 5 && lines 9 && has "31337" err'
# self: the process /proc/self names (not live here: numa_maps of an ASan
# process walks its terabytes of shadow mappings)
R=$(copy patched); rm -rf "$R/proc/self"; ln -s 4242 "$R/proc/self"
nx "$R" vmas -r -n -o START self
t "vmas self: the process /proc/self names" eval 'rc 0 && lines 9 && has "^7f3a40000000$"'

# --- trace through libtracefs: a private instance, created and removed ---------------------
# tracefs is mounted for the test if it is not (as root), and unmounted after
tfs=
[ "$(id -u)" = 0 ] && knobs_tracefs && tfs=$KNOBS_TRACEFS
if [ "$(id -u)" = 0 ] && [ -n "$tfs" ] && [ -e "$tfs/events/sched/sched_skip_vma_numa/format" ] && [ -d "$tfs/instances" ]; then
	L=$TMP/live; mkdir -p "$L/sys/kernel"; ln -s /proc "$L/proc"; ln -s "$tfs" "$L/sys/kernel/tracing"; ln -s /sys/devices "$L/sys/devices"
	sleep 30 & SP=$!
	"$BIN" --sysroot "$L" trace -d 0.3 -r -n $SP > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
	kill $SP 2> /dev/null; wait $SP 2> /dev/null
	t "trace (libtracefs): records in its own instance and removes it" eval 'rc 0 && [ -z "$(ls "$tfs/instances" | grep "^numabctl-")" ] && has "no VMA of $SP was skipped" err'
else
	skip "trace (libtracefs) on the running kernel" "$([ "$(id -u)" = 0 ] || echo "not root: tracefs needs root")$([ "$(id -u)" = 0 ] && { [ -n "$tfs" ] && echo "this kernel ($(uname -r)) has no sched_skip_vma_numa tracepoint" || echo "tracefs could not be mounted"; })"
fi

# the man page's status -J excerpt is a piece of the current output (cpus: false)
nx "$P" status -J
awk '$0 == "   $ numabctl status -J   # excerpt" { on = 1; next } on && /^$/ { exit } on { sub(/^   /, ""); print }' "$(pwd)/Documentation/numabctl.rst" > "$TMP/doc"
t "man page: the status -J excerpt is current output, cpus false for node 1" eval 'grep -q "\"cpus\": false" "$TMP/doc" && python3 -c "import sys; sys.exit(open(sys.argv[1]).read() not in open(sys.argv[2]).read())" "$TMP/doc" "$TMP/out"'

# --- a thread ID names its process, as /proc/TID does --------------------------
# the fixtures' /proc/4250 is a thread of 4242 (status: Tgid 4242), not
# listed in /proc; every command takes it as 4242
nx "$P" vmas 4242; cp "$TMP/out" "$TMP/vmas.4242"
nx "$P" vmas 4250
t "vmas TID (a thread of 4242): the table of its process" eval 'rc 0 && cmp -s "$TMP/out" "$TMP/vmas.4242" || { diag "$TMP/err"; false; }'
nx "$P" vmas -r -n -o PID 4250 4242
t "vmas TID PID of the same process: one process, PID its Tgid" eval 'rc 0 && [ "$(sort -u "$TMP/out")" = 4242 ]'
nx "$P" vmas -p 4250 -r -n -o PID
t "vmas -p TID: its process" eval 'rc 0 && [ "$(sort -u "$TMP/out")" = 4242 ]'
nx "$P" report 4250 -d 0 --no-trace -J
t "report TID: its process's report" eval 'rc 0 && json "{r[\"key\"]: r[\"value\"] for r in d[\"report\"]}[\"pid\"] == 4242"'
nx "$P" watch 4250 -i 0.05 -n 1 -J
t "watch TID: its process" eval 'rc 0 && json "d[\"rows\"][0][\"pid\"] == 4242"'
nx "$P" export 4250
t "export TID: the metrics of its process" eval 'rc 0 && has "^numab_process_memory_bytes{pid=\"4242\"" && hasnt "pid=\"4250\""'
nx "$FIX/per-process" filter --pid 4242; cp "$TMP/out" "$TMP/pf.4242"
nx "$FIX/per-process" filter --pid 4250
t "filter --pid TID: its process's overrides" eval 'rc 0 && cmp -s "$TMP/out" "$TMP/pf.4242" || { diag "$TMP/err"; false; }'

# --- the sources: each shared piece has one owner ------------------------------
if command -v python3 > /dev/null; then
	python3 tests/deps.py > "$TMP/deps" 2>&1; drc=$?
	t "sources: no two .c files use each other (dependencies go one way)" eval '[ $drc = 0 ] || { cat "$TMP/deps"; false; }'
else
	skip "sources: dependencies go one way" "python3 is not installed"
fi
