# SPDX-License-Identifier: GPL-2.0
"""
The runner of the benchmarks (bench-bpf.sh, bench-export.sh,
bench-host.sh): each run a fresh process with its output to /dev/null,
the commands in turn, round after round, so that a change of the
machine's load falls on all of them alike.
"""
import os
import subprocess
import threading
import time

_null = open(os.devnull, "w")


def run(argv, env=None, timeout=60):
    """
    One run: wall seconds, CPU seconds (user + system, from wait4), wait
    status. A run still going after @timeout seconds is killed (SIGKILL)
    and counts as it ended; the timer is a thread, so that waiting costs
    the run no polling.
    """
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=_null, stderr=_null, env=env)
    watchdog = threading.Timer(timeout, p.kill)
    watchdog.start()
    try:
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        watchdog.cancel()
    p.returncode = status   # reaped here: Popen must not wait for it again
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime, status


def interleave(cmds, runs):
    """{name: argv}, @runs rounds: ({name: [wall s]}, {name: [CPU s]})."""
    wall = {k: [] for k in cmds}
    cpu = {k: [] for k in cmds}
    for _ in range(runs):
        for k, argv in cmds.items():
            w, c, _ = run(argv)
            wall[k].append(w)
            cpu[k].append(c)
    return wall, cpu
