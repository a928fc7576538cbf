#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a timed test): 'numabctl vmas' with the BPF backend on a
# process of this machine with N VMAs (default 20000 in all: one-page
# mappings and the gaps between them, tests/many.c), against 'cat maps
# numa_maps' of the same process.  The commands run interleaved, RUNS
# times each (default 11), their output to /dev/null; it prints the median
# wall time of each, the ratio of the medians (the goal: numabctl within
# 2x of cat) and the CPU time (user + system, from wait4) of each.  Also:
# vmas -J and --backend none, for comparison, and the first run after the
# BPF cache of this boot is dropped (NUMABCTL_BPF_CACHE, bpfprog.c).
# Needs root (BPF).
# Usage: tests/bench-bpf.sh NUMABCTL [N] [RUNS]      (make bench-bpf)
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") N=${2:-20000} RUNS=${3:-11}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/numab-bench-bpf.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" = 0 ] || { echo "bench-bpf: needs root (the BPF backend)" >&2; exit 1; }
"$BIN" status 2>/dev/null | grep -qE "^ *bpf_backend +yes" ||
	{ echo "bench-bpf: numabctl cannot use its BPF backend here" >&2; exit 1; }
cc -O2 -o "$TMP/many" "$(dirname "$0")/many.c" || exit 1
[ "$(cat /proc/sys/vm/max_map_count)" -gt $((N + 1000)) ] ||
	{ echo "bench-bpf: vm.max_map_count is below $N VMAs" >&2; exit 1; }
"$TMP/many" "$N" > "$TMP/ready" &
pid=$!
for i in $(seq 1 100); do grep -q ready "$TMP/ready" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$TMP/ready" || { echo "bench-bpf: the test process did not start" >&2; exit 1; }
echo "VMAs: $(wc -l < /proc/$pid/maps) (process $pid); kernel $(uname -r); $RUNS runs each, interleaved"
python3 - "$(dirname "$0")" "$BIN" "$pid" "$RUNS" <<'EOF'
import os, statistics, sys
sys.path.insert(0, sys.argv[1])
from interleave import interleave, run
nx, pid, runs = sys.argv[2], sys.argv[3], int(sys.argv[4])
cmds = {
    "cat maps numa_maps": ["cat", f"/proc/{pid}/maps", f"/proc/{pid}/numa_maps"],
    "numabctl vmas (BPF)": [nx, "vmas", pid],
    "numabctl vmas -J (BPF)": [nx, "vmas", "-J", pid],
    "numabctl vmas --backend none": [nx, "vmas", "--backend", "none", pid],
}
# the first run after the boot's BPF cache is dropped (a private cache file)
env = dict(os.environ, NUMABCTL_BPF_CACHE=os.path.join(os.environ.get("TMPDIR", "/tmp"), f"numab-bench-{os.getpid()}.bpf"))
first = run(cmds["numabctl vmas (BPF)"], env)[0]
second = run(cmds["numabctl vmas (BPF)"], env)[0]
if os.path.exists(env["NUMABCTL_BPF_CACHE"]):
    os.unlink(env["NUMABCTL_BPF_CACHE"])
wall, cpu = interleave(cmds, runs)
base = statistics.median(wall["cat maps numa_maps"])
basec = statistics.median(cpu["cat maps numa_maps"])
for k in cmds:
    m, c = statistics.median(wall[k]), statistics.median(cpu[k])
    print(f"{k:30s} median {m * 1000:7.1f} ms (ratio {m / base:4.2f})  "
          f"cpu {c * 1000:6.1f} ms (ratio {c / basec:4.2f})  "
          f"[min {min(wall[k]) * 1000:.1f}, max {max(wall[k]) * 1000:.1f}]")
print(f"numabctl vmas (BPF), cache dropped: first run {first * 1000:.1f} ms, "
      f"the next {second * 1000:.1f} ms")
print(f"goal: numabctl vmas (BPF) within 2x of cat maps numa_maps: "
      f"{statistics.median(wall['numabctl vmas (BPF)']) / base:.2f}x")
EOF
