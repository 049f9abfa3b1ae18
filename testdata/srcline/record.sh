#!/bin/sh
# record.sh: build src/prog.c with DWARF line tables and re-record this case
# (root + perf 6.1). Run goldens.sh afterwards.
set -eu
T=$(cd "$(dirname "$0")" && pwd)
BIN=/opt/perfstitch-testdata/bin
mkdir -p "$BIN"
gcc -g -O1 -fno-omit-frame-pointer -fno-inline-functions -ffreestanding -fno-stack-protector \
	-fno-pie -no-pie -static -nostdlib -o "$BIN/prog" "$T/src/prog.c"
cd "$T"
rm -rf maps symfs perf.data
mkdir -p maps "symfs$BIN"
cp "$BIN/prog" "symfs$BIN/prog"
env -i PATH=/usr/bin:/bin perf record -e cpu-clock -F 2000 -g -o perf.data -- "$BIN/prog" 800 "$T/maps/prog.maps" 2> record.log
rm -rf .debug
pid=$(perf script -i perf.data -F pid 2>/dev/null | head -1 | tr -d ' ')
mv maps/prog.maps "maps/$pid.maps"
# the kernel symbols the samples hit, from the live kernel's
cp /proc/kallsyms /tmp/kallsyms.full
{ perf script -i perf.data -F ip; perf script -i perf.data -F ip,addr -G; } 2>/dev/null |
	python3 ../trim-kallsyms.py /tmp/kallsyms.full > kallsyms
