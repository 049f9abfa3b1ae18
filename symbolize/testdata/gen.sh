#!/bin/sh
# Rebuilds the ELF fixtures of symbolize/testdata from src/ and the perf
# 6.1 oracles (*.perf-probe-F.txt: `perf probe -x BIN -F`, the names perf
# gives every symbol after demangling; for fix-stripped they come from the
# debug file perf finds through the .gnu_debuglink). Run from symbolize/testdata with
# gcc, g++, rustc, binutils and perf installed:  sh gen.sh
# (or `go generate ./symbolize`). The outputs are committed so tests need
# no compiler.
set -eu
CFLAGS="-O1 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -g0"
gcc $CFLAGS -shared -fPIC -Wl,-z,separate-code -o libfixlib.so src/fixlib.c
gcc $CFLAGS -fPIE -pie -o fix-pie src/fix.c -L. -lfixlib -Wl,-rpath,'$ORIGIN'
gcc $CFLAGS -no-pie -o fix-nopie src/fix.c -L. -lfixlib -Wl,-rpath,'$ORIGIN'
# Stripped binary whose symbols live in a debug file named by its
# .gnu_debuglink, next to it under .debug/.
gcc $CFLAGS -fPIE -pie -o fix-stripped src/fix.c -L. -lfixlib -Wl,-rpath,'$ORIGIN'
mkdir -p .debug
objcopy --only-keep-debug fix-stripped .debug/fix-stripped.debug
strip --strip-all fix-stripped
objcopy --add-gnu-debuglink=.debug/fix-stripped.debug fix-stripped
g++ -O1 -fno-omit-frame-pointer -g0 -o fix-cpp src/fix.cpp
strip --strip-debug fix-cpp
# rustc 1.95 needs -Z unstable-options to choose the mangling explicitly.
for m in legacy v0; do
	RUSTC_BOOTSTRAP=1 rustc -C opt-level=1 -C prefer-dynamic -C strip=debuginfo \
		-Z unstable-options -C symbol-mangling-version=$m -o fix-rust-$m src/fix.rs
done
for b in fix-pie fix-nopie libfixlib.so fix-stripped fix-cpp fix-rust-legacy fix-rust-v0; do
	HOME=/nonexistent PERF_CONFIG=/dev/null perf probe -x "$b" -F > "$b.perf-probe-F.txt"
done
