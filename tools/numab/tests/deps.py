#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The dependencies between numabctl's source files go one way: no two .c
files use each other's functions or variables (each shared piece has one
owner).  A file "uses" another when it names an nx_ or cmd_ symbol the
other defines (not static).  Prints each pair that does, and exits 1.
Usage: python3 tests/deps.py   (from tools/numab)
"""
import glob
import itertools
import re
import sys

files = sorted(glob.glob("*.c"))
defs = {}	# symbol: the file that defines it
src = {}
for f in files:
    s = open(f).read()
    s = re.sub(r"/\*.*?\*/", "", s, flags=re.S)	# comments
    s = re.sub(r'"(\\.|[^"\\])*"', '""', s)	# strings
    src[f] = s
    # functions: "type nx_name(...) {" at the start of a line, not static
    for m in re.finditer(r"^(?!static)[A-Za-z][^\n;=]*?\b(nx_\w+|cmd_\w+)\s*\([^;]*?\)\s*\{",
                         s, flags=re.M | re.S):
        defs.setdefault(m.group(1), f)
    # variables: "type nx_name;" or "= ..." at the start of a line
    for m in re.finditer(r"^(?!static|extern)[A-Za-z][\w \*]*?\b(nx_\w+)\s*(?:=|;|\[)", s, flags=re.M):
        defs.setdefault(m.group(1), f)

uses = {f: {} for f in files}
for f, s in src.items():
    for m in re.finditer(r"\b(nx_\w+|cmd_\w+)\b", s):
        d = defs.get(m.group(1))
        if d and d != f:
            uses[f].setdefault(d, set()).add(m.group(1))

bad = 0
for a, b in itertools.combinations(files, 2):
    if b in uses[a] and a in uses[b]:
        print(f"# {a} <-> {b}: {a} uses {sorted(uses[a][b])}; {b} uses {sorted(uses[b][a])}")
        bad += 1
sys.exit(1 if bad else 0)
