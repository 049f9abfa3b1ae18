#!/bin/sh
# Rebuilds the FuzzCFI seeds in fuzz/FuzzCFI from src/seed.c: the call
# frame information gcc and ld give a small program, whole and cut into
# single entries. Run in symbolize/cfi/testdata with gcc, binutils and go.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -fomit-frame-pointer -o "$tmp/o2" src/seed.c
gcc -O0 -fno-omit-frame-pointer -o "$tmp/o0" src/seed.c
gcc -O0 -g -fno-asynchronous-unwind-tables -o "$tmp/dbg" src/seed.c
objcopy --dump-section .eh_frame="$tmp/o2.eh" "$tmp/o2" "$tmp/junk"
objcopy --dump-section .eh_frame="$tmp/o0.eh" "$tmp/o0" "$tmp/junk"
objcopy --dump-section .debug_frame="$tmp/dbg.df" "$tmp/dbg" "$tmp/junk"
O=fuzz/FuzzCFI
mkdir -p $O
go run mkseed.go $O/eh-frame-O2 true "$tmp/o2.eh"
go run mkseed.go $O/eh-frame-O0 true "$tmp/o0.eh"
go run mkseed.go $O/debug-frame-O0 false "$tmp/dbg.df"
# Entry offsets as readelf --debug-dump=frames shows them for the O2 build:
# the CIE of the PLT and its FDEs (the PLT's CFA is an expression), and
# the signal trampoline's zRS CIE and FDE (DW_CFA_expression rules).
go run mkseed.go $O/eh-frame-plt true "$tmp/o2.eh" 0x30 0x88
go run mkseed.go $O/eh-frame-signal true "$tmp/o2.eh" 0x88 0xcc
