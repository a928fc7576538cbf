#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a timed test): 'numabctl vmas PID' on processes of this
# host, one per VMA shape (tests/many.c): many small (one-page) VMAs that
# are anonymous, file-backed, shmem or a mix of the three, and a few large
# (32 MiB) ones of each kind, against 'cat /proc/PID/maps
# /proc/PID/numa_maps': the two files numabctl reads per VMA (the scan
# state comes from numa_vmas or the BPF iterator, which cat cannot read;
# the rest it reads is a few small files per process or host).
# Per shape the commands run interleaved, RUNS times each (default 11),
# their output to /dev/null, after one warm-up run each.  Per command: the
# median wall time (min..max), the ratio to cat per run (the command's
# time over the cat run beside it: median and min..max), the same ratio
# of CPU times (user + system, from wait4; what a loaded machine changes
# least), and the peak RSS of one more run (GNU time's %M: Python's own
# ru_maxrss would count Python's memory).  Commands: vmas PID (the default
# backend: BPF as root on a kernel with BTF, numa_vmas on the series),
# vmas -p PID, vmas --backend none PID; and vmas -p PID over vmas PID.
# numabctl's BPF cache is a private one (NUMABCTL_BPF_CACHE), filled by
# the warm-up, so that another numabctl on the host cannot replace it
# between runs.  Prints a table and a "BENCH h1 ..." line per shape and
# command (scripts/bench H1 reads them); the load average before and after.
# Usage: tests/bench-host.sh NUMABCTL [RUNS]        (make bench-host)
# Environment: BENCH_HOST_SHAPES (default all: anon file shmem mix
# anon-large file-large shmem-large), BENCH_HOST_VMAS (default 20000, the
# many-small shapes).
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") RUNS=${2:-11}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/numab-bench-host.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
export NUMABCTL_BPF_CACHE=$TMP/bpf.cache
cc -O2 -o "$TMP/many" "$(dirname "$0")/many.c" || exit 1
N=${BENCH_HOST_VMAS:-20000}
[ "$(cat /proc/sys/vm/max_map_count)" -gt $((N + 1000)) ] ||
	{ echo "bench-host: vm.max_map_count is below $N VMAs" >&2; exit 1; }
backend=$("$BIN" status 2>/dev/null | awk '$1 == "scan_state" { print $2 }')
load0=$(cut -d' ' -f1 /proc/loadavg)
echo "kernel $(uname -r); $(nproc) cores; $RUNS runs each, interleaved; scan state of 'vmas PID': ${backend:-?}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "BENCH host kernel=$(uname -r) cpus=$(nproc) runs=$RUNS backend=${backend:-unknown} load_start=$load0"
python3 - "$BIN" "$RUNS" "$TMP" "$N" "${BENCH_HOST_SHAPES:-}" "$(dirname "$0")" <<'EOF'
import statistics, subprocess, sys
nx, runs, tmp, n, only = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5].split()
sys.path.insert(0, sys.argv[6])
from interleave import interleave, run
# name: many.c's arguments (VMAs in all, shape, pages per mapping)
shapes = {
    "anon": [n, "anon", "1"], "file": [n, "file", "1"], "shmem": [n, "shmem", "1"],
    "mix": [n, "mix", "1"],
    "anon-large": ["64", "anon", "8192"], "file-large": ["64", "file", "8192"],
    "shmem-large": ["64", "shmem", "8192"],
}
def maxrss(argv):
    try:
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        return int(r.stderr.split()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return 0
def spread(xs, f="%.2f"):
    return (f + " (" + f + ".." + f + ")") % (statistics.median(xs), min(xs), max(xs))
worst = 0
print(f"{'shape':11s} {'VMAs':>5s} {'command':23s} {'wall ms (min..max)':>21s} "
      f"{'ratio to cat':>17s} {'CPU ratio':>17s} {'peak RSS':>9s}")
for name, args in shapes.items():
    if only and name not in only:
        continue
    p = subprocess.Popen([f"{tmp}/many"] + args, stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        sys.exit(f"bench-host: the {name} process did not start")
    pid = str(p.pid)
    with open(f"/proc/{pid}/maps") as f:
        vmas = sum(1 for _ in f)
    cmds = {
        "cat": ["cat", f"/proc/{pid}/maps", f"/proc/{pid}/numa_maps"],
        "vmas PID": [nx, "vmas", pid],
        "vmas -p PID": [nx, "vmas", "-p", pid],
        "vmas --backend none PID": [nx, "vmas", "--backend", "none", pid],
    }
    for k, argv in cmds.items():	# warm-up: page cache, the BPF cache
        if run(argv)[2]:
            sys.exit(f"bench-host: {' '.join(argv)} failed")
    wall, cpu = interleave(cmds, runs)
    rss = {k: maxrss(argv) for k, argv in cmds.items()}
    p.kill()
    p.wait()
    for k in cmds:
        ratio = [a / b for a, b in zip(wall[k], wall["cat"])]
        cratio = [a / b for a, b in zip(cpu[k], cpu["cat"]) if b > 0]
        ms = [x * 1000 for x in wall[k]]
        if k == "vmas PID":
            worst = max(worst, statistics.median(ratio))
        print(f"{name:11s} {vmas:5d} {k:23s} {spread(ms, '%.1f'):>21s} {spread(ratio):>17s} "
              f"{spread(cratio) if cratio else '-':>17s} "
              f"{(f'{rss[k] / 1024:.1f} MiB' if rss[k] else '-'):>9s}")
        key = k.replace("vmas --backend none PID", "none").replace("vmas -p PID", "p") \
               .replace("vmas PID", "pid")
        print(f"BENCH h1 shape={name} vmas={vmas} cmd={key} median_ms={statistics.median(ms):.2f} "
              f"min_ms={min(ms):.2f} max_ms={max(ms):.2f} x_cat={statistics.median(ratio):.2f} "
              f"x_cat_min={min(ratio):.2f} x_cat_max={max(ratio):.2f} "
              f"cpu_x_cat={statistics.median(cratio) if cratio else 0:.2f} "
              f"cpu_ms={statistics.median(cpu[k]) * 1000:.2f} maxrss_kb={rss[k]}")
    pr = [a / b for a, b in zip(wall["vmas -p PID"], wall["vmas PID"])]
    print(f"{name:11s} {'':5s} {'vmas -p PID / vmas PID':23s} {'':>21s} {spread(pr):>17s}")
    print(f"BENCH h1 shape={name} vmas={vmas} cmd=p_over_pid x={statistics.median(pr):.2f} "
          f"x_min={min(pr):.2f} x_max={max(pr):.2f}")
print(f"goal: vmas PID within 2x of cat for every shape: worst median {worst:.2f}x")
EOF
rc=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "BENCH host_end load_end=$(cut -d' ' -f1 /proc/loadavg)"
exit $rc
