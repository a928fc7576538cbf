#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a timed test): one 'numabctl export' of a host with P
# processes (default 200) holding V VMAs in all (default 100000): P
# copies of tests/many.c (comm nxbench), each with V/P VMAs in all: one-page
# mappings and the PROT_NONE gaps between them.  Each command runs
# RUNS times (default 5), interleaved, its output to /dev/null; printed:
# the median wall time and CPU time (user + system, from wait4) of the
# export of those processes (-p) with the scan state from the BPF backend
# (root) or numa_vmas, the same with --backend none (residency only), and
# of the whole host (every process, these and the others), next to 'cat
# maps numa_maps' of the P processes.  The load average is printed before
# and after.
# Usage: tests/bench-export.sh NUMABCTL [P] [V] [RUNS]   (make bench-export)
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") P=${2:-200} V=${3:-100000} RUNS=${4:-5}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/numab-bench-export.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
# tests/many.c, named nxbench (its comm)
cc -O2 -o "$TMP/nxbench" "$(dirname "$0")/many.c" || exit 1
for i in $(seq 1 "$P"); do
	"$TMP/nxbench" $((V / P)) > "$TMP/ready.$i" &
	pids+=($!)
done
for i in $(seq 1 "$P"); do
	for _ in $(seq 1 100); do grep -q ready "$TMP/ready.$i" 2>/dev/null && break; sleep 0.1; done
done
vmas=0
for p in "${pids[@]}"; do vmas=$((vmas + $(wc -l < /proc/$p/maps))); done
echo "processes: $P (nxbench), VMAs in them: $vmas; processes on the host: $(ls -d /proc/[0-9]* | wc -l); kernel $(uname -r); $(nproc) cores; $RUNS runs each, interleaved"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$(dirname "$0")" "$BIN" "$RUNS" "${pids[@]}" <<'EOF'
import statistics, subprocess, sys
sys.path.insert(0, sys.argv[1])
from interleave import interleave
nx, runs, pids = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
cat = ["cat"] + [f"/proc/{p}/{f}" for p in pids for f in ("maps", "numa_maps")]
cmds = {
    "cat maps numa_maps (the P processes)": cat,
    "numabctl export -p nxbench": [nx, "export", "-p", "^nxbench$"],
    "numabctl export -p nxbench --backend none": [nx, "export", "-p", "^nxbench$", "--backend", "none"],
    "numabctl export (every process of the host)": [nx, "export"],
}
out = subprocess.run([nx, "export", "-p", "^nxbench$"], capture_output=True, text=True).stdout
be = sorted({l.split('backend="')[1].split('"')[0] for l in out.splitlines() if 'backend="' in l})
print(f"scan state of nxbench: {', '.join(be) or '?'}")
wall, cpu = interleave(cmds, runs)
for k in cmds:
    print(f"{k:46s} wall median {statistics.median(wall[k]) * 1000:8.1f} ms  "
          f"cpu median {statistics.median(cpu[k]) * 1000:8.1f} ms  "
          f"[wall min {min(wall[k]) * 1000:.1f}, max {max(wall[k]) * 1000:.1f}]")
EOF
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
