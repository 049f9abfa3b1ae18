#!/usr/bin/env python3
"""trim-kallsyms.py FULL_KALLSYMS < addresses > trimmed

Keeps from a /proc/kallsyms snapshot only what perf needs to resolve the
given kernel addresses exactly as with the full file: every symbol at the
start address of the symbol containing an address, every symbol at the next
higher address (perf computes a symbol's end from its successor), and the
_text/_stext/_etext/_sinittext/_einittext/_end markers. Output keeps the
original line order.
"""
import bisect
import sys

MARKERS = {"_text", "_stext", "_etext", "_sinittext", "_einittext", "_end"}

lines = open(sys.argv[1]).read().splitlines()
syms = []  # (addr, line index)
for i, line in enumerate(lines):
    f = line.split()
    if len(f) >= 3:
        syms.append((int(f[0], 16), i))
starts = sorted({a for a, _ in syms})
keep_addrs = set()
for tok in sys.stdin.read().split():
    try:
        a = int(tok, 16)
    except ValueError:
        continue
    if a < 0xffff800000000000:
        continue
    k = bisect.bisect_right(starts, a) - 1
    if k < 0:
        continue
    keep_addrs.add(starts[k])
    if k + 1 < len(starts):
        keep_addrs.add(starts[k + 1])
for a, i in syms:
    name = lines[i].split()[2]
    if a in keep_addrs or name in MARKERS:
        print(lines[i])
