#!/bin/sh
# Rebuilds the fixtures of symbolize/testdata (see README.md). Run in
# symbolize/testdata as root with gcc, g++, rustc, binutils and perf 6.1
# installed:  sh gen.sh   (or `go generate ./symbolize`).
#
# The binaries are built into symfs/opt/perfstitch-symfix/, the path they
# are recorded under; the *.perf-probe-F.txt oracles are `perf probe -x BIN
# -F` (the symbols perf keeps, with the names it prints; for fix-stripped
# they come from the debug file its .gnu_debuglink names); rec/ is a real
# recording of fix-stripped with perf script goldens.
set -eu
D=symfs/opt/perfstitch-symfix
mkdir -p "$D/.debug"
CFLAGS="-O1 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -g0"
gcc $CFLAGS -shared -fPIC -Wl,-z,separate-code -o $D/libfixlib.so src/fixlib.c
gcc $CFLAGS -fPIE -pie -o $D/fix-pie src/fix.c -L$D -lfixlib -Wl,-rpath,'$ORIGIN'
gcc $CFLAGS -no-pie -o $D/fix-nopie src/fix.c -L$D -lfixlib -Wl,-rpath,'$ORIGIN'
# Stripped binary whose symbols live in a debug file named by its
# .gnu_debuglink, next to it under .debug/.
gcc $CFLAGS -fPIE -pie -o $D/fix-stripped src/fix.c -L$D -lfixlib -Wl,-rpath,'$ORIGIN'
objcopy --only-keep-debug $D/fix-stripped $D/.debug/fix-stripped.debug
strip --strip-all $D/fix-stripped
(cd $D && objcopy --add-gnu-debuglink=.debug/fix-stripped.debug fix-stripped)
gcc $CFLAGS -o $D/fix-jit src/jit.c
g++ -O1 -fno-omit-frame-pointer -g0 -o $D/fix-cpp src/fix.cpp
strip --strip-debug $D/fix-cpp
# rustc 1.95 needs -Z unstable-options to choose the mangling explicitly.
for m in legacy v0; do
	RUSTC_BOOTSTRAP=1 rustc -C opt-level=1 -C prefer-dynamic -C strip=debuginfo \
		-Z unstable-options -C symbol-mangling-version=$m -o $D/fix-rust-$m src/fix.rs
done
for b in fix-pie fix-nopie libfixlib.so fix-stripped fix-cpp fix-rust-legacy fix-rust-v0; do
	HOME=/nonexistent PERF_CONFIG=/dev/null perf probe -x "$D/$b" -F > "$b.perf-probe-F.txt"
done

# A user-only recording of the stripped binary, run from its recorded path.
rm -rf /opt/perfstitch-symfix && mkdir -p /opt && cp -a $D /opt/perfstitch-symfix
rm -rf rec && mkdir -p rec
(cd rec && env -i PATH=/usr/bin:/bin perf record -e cpu-clock:u -F 2000 -g -o perf.data \
	-- /opt/perfstitch-symfix/fix-stripped 150000 > record.log 2>&1 && rm -rf .debug)
# A JIT run: perf reads /tmp/perf-PID.map itself (not below --symfs); the
# map is then kept as symfs/tmp/perf-PID.map.
find symfs/tmp -name 'perf-*.map' ! -name perf-4.map -delete 2>/dev/null || true
rm -rf rec-jit && mkdir -p rec-jit
(cd rec-jit && env -i PATH=/usr/bin:/bin perf record -e cpu-clock:u -F 2000 -g -o perf.data \
	-- /opt/perfstitch-symfix/fix-jit 5000 > record.log 2>&1 && rm -rf .debug)
rm -rf /opt/perfstitch-symfix
for r in rec rec-jit; do
	for g in "script.txt" "script-G.txt -G"; do
		set -- $g
		out=$1; shift
		(cd $r && env -i PATH=/usr/bin:/bin HOME=/nonexistent PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC \
			perf script -i perf.data --symfs ../symfs --kallsyms /dev/null "$@" > "$out")
	done
done
mkdir -p symfs/tmp
pid=$(awk 'NR == 1 { print $2 }' rec-jit/script.txt)
mv "/tmp/perf-$pid.map" symfs/tmp/
