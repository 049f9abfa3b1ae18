#!/bin/sh
# record.sh: rebuild the workload and re-record every testdata case (needs root and perf).
# Usage: testdata/record.sh   (run from anywhere; writes into testdata/)
# Re-recording changes perf.data, so run goldens.sh afterwards.
set -eu
T=$(cd "$(dirname "$0")" && pwd)
BIN=/opt/perfstitch-testdata/bin
mkdir -p "$BIN"
gcc -O2 -fno-omit-frame-pointer -fno-inline-functions -ffreestanding -fno-stack-protector \
    -fno-pie -no-pie -static -nostdlib -g0 -o "$BIN/spin" "$T/src/spin.c"

# record NAME MODE PERF-OPTIONS...   (MODE: file or pipe)
record() {
	name=$1 mode=$2
	shift 2
	d="$T/$name"
	rm -rf "$d"
	mkdir -p "$d/maps" "$d/symfs$BIN"
	cp "$BIN/spin" "$d/symfs$BIN/spin"
	cd "$d"
	if [ "$mode" = pipe ]; then
		env -i PATH=/usr/bin:/bin perf record "$@" -o - -- "$BIN/spin" 500 "$d/maps/spin.maps" > perf.data 2> record.log
	else
		env -i PATH=/usr/bin:/bin perf record "$@" -o perf.data -- "$BIN/spin" 500 "$d/maps/spin.maps" 2> record.log
	fi
	rm -rf .debug
	# maps/ is named by PID as in the corpus
	pid=$(perf script -i perf.data -F pid 2>/dev/null | head -1 | tr -d ' ')
	mv "$d/maps/spin.maps" "$d/maps/$pid.maps"
}

record fp         file -e cpu-clock -F 400 -g --sample-cpu
record pipe       pipe -e cpu-clock -F 400 -g --sample-cpu
record zstd       file -e cpu-clock -F 400 -g --sample-cpu -z
record zstd19     file -e cpu-clock -F 400 -g --sample-cpu -z --compression-level=19
record zstd22     file -e cpu-clock -F 400 -g --sample-cpu -z --compression-level=22
record two-events file -e cpu-clock,task-clock -F 200 -g --sample-cpu
