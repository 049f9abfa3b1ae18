#!/bin/sh
# Rebuilds the FuzzELFSymbols seeds in fuzz/FuzzELFSymbols: a tiny PIE
# (src/tiny.c: a weak, a zero-size and a PLT symbol, build id), the shared
# library it calls (src/tinylib.c), the program stripped with a
# .gnu_debuglink and its debug file, and truncated copies. A few KB each,
# so the fuzzer spends its time mutating, not minimising. Run in
# symbolize/testdata with gcc, binutils and go.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
F="-Os -nostdlib -fno-asynchronous-unwind-tables -Wl,-z,noseparate-code -Wl,--build-id -Wl,-z,norelro -Wl,--hash-style=gnu"
gcc $F -shared -fPIC -o "$tmp/libtiny.so" src/tinylib.c
gcc $F -fPIE -pie -o "$tmp/tiny" src/tiny.c -L"$tmp" -ltiny
objcopy --only-keep-debug "$tmp/tiny" "$tmp/tiny.debug"
strip --strip-all -o "$tmp/tiny-stripped" "$tmp/tiny"
(cd "$tmp" && objcopy --add-gnu-debuglink=tiny.debug tiny-stripped)
O=fuzz/FuzzELFSymbols
rm -rf $O && mkdir -p $O
for f in tiny libtiny.so tiny-stripped tiny.debug; do
	go run mkseed.go $O/$f "$tmp/$f"
done
# Truncated: without the last section header (at the end of the file), and
# cut inside the sections.
size=$(wc -c < "$tmp/tiny")
go run mkseed.go $O/tiny-short-shdrs "$tmp/tiny" $((size - 64))
go run mkseed.go $O/tiny-half "$tmp/tiny" $((size / 2))
