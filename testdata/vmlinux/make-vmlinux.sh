#!/usr/bin/env bash
# make-vmlinux.sh: builds vmlinux, a stand-in for the recording kernel's
# vmlinux (there is none on this machine), from ../kallsyms with binutils:
# an ELF executable whose .text (NOBITS, so the file stays small) starts at
# _text = 0xffffffff81000000 and whose .symtab has a function symbol at each
# kallsyms address (T global, t local), with the build id the fp recording
# names for [kernel.kallsyms], so that perf accepts it for fp/perf.data.
# It differs from kallsyms where a vmlinux can: symbol sizes (each symbol
# ends at the next, but pvm_irq_enable is 0x10 bytes long, so its +0x19
# addresses lie outside it), and two names are mangled, as C++ and Rust
# kernel code would have them: do_anonymous_page as _ZN6kernel2mm17do_anonymous_pageEv
# and __handle_mm_fault as the Rust v0 _RNvNtCs1234_6kernel2mm15handle_mm_fault.
set -euo pipefail
cd "$(dirname "$0")"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 - ../kallsyms "$T/vmlinux.s" "$T/locals" <<'PY'
import sys
src, out, locs = sys.argv[1:]
base = 0xffffffff81000000
rename = {"do_anonymous_page": "_ZN6kernel2mm17do_anonymous_pageEv",
          "__handle_mm_fault": "_RNvNtCs1234_6kernel2mm15handle_mm_fault"}
size = {"pvm_irq_enable": 0x10}
syms, seen = [], set()
for line in open(src):
    a, t, n = line.split()[:3]
    if n in seen:
        continue
    seen.add(n)
    syms.append((int(a, 16), t, rename.get(n, n), size.get(n)))
syms.sort(key=lambda s: s[0])
lines = ['\t.section .ktext,"ax",@nobits']
local = []
for i, (a, t, n, sz) in enumerate(syms):
    lines.append('\t.org 0x%x' % (a - base))
    lines.append('\t.globl %s' % n)
    if n not in ("_text", "_stext"):
        lines.append('\t.type %s,@function' % n)
    lines.append('%s:' % n)
    nxt = next((b for b, *_ in syms[i + 1:] if b > a), a + 16)
    if n not in ("_text", "_stext"):
        lines.append('\t.size %s,%d' % (n, sz if sz is not None else nxt - a))
    if t.islower():
        local.append(n)
lines.append('\t.org 0x%x' % (syms[-1][0] - base + 16))
open(out, 'w').write('\n'.join(lines) + '\n')
open(locs, 'w').write(''.join('--localize-symbol=%s\n' % n for n in local))
PY
printf 'SECTIONS { .text 0xffffffff81000000 : { *(.ktext) } }\n' >"$T/vmlinux.lds"
as -o "$T/vmlinux.o" "$T/vmlinux.s"
ld -o "$T/vmlinux" -T "$T/vmlinux.lds" -e 0 --build-id=0x85c7e4e2ed76f4417e8aaad7c6b040d2bb897a26 "$T/vmlinux.o"

# shellcheck disable=SC2046
objcopy $(cat "$T/locals") "$T/vmlinux" vmlinux
objcopy -R .note.gnu.build-id vmlinux vmlinux-nobuildid
