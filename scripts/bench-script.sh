#!/bin/sh
# bench-script.sh: time `perfstitch script` against `perf script` on a large
# recording, for text and collapsed output, and print the ratios and the
# peak RSS of each. Not part of CI: it records ~200 MB once (needs perf and
# permission to record; the file is kept for later runs) and takes minutes.
#
# Usage: scripts/bench-script.sh            (from any directory)
# Environment:
#   BENCH_DIR      where the recording and outputs live (default /tmp/perfstitch-bench)
#   BENCH_SECONDS  recording length in seconds (default 50)
#   BENCH_FREQ     sampling frequency (default 15000)
#   STACKCOLLAPSE  path of FlameGraph's stackcollapse-perf.pl (optional; else
#                  looked up in PATH) for the collapsed comparison
set -eu

DIR=${BENCH_DIR:-/tmp/perfstitch-bench}
SECS=${BENCH_SECONDS:-50}
FREQ=${BENCH_FREQ:-15000}
mkdir -p "$DIR"
DATA=$DIR/perf.data

# The workload: four multi-threaded programs in parallel loops for SECS
# seconds (each run capped at 5 s, so the recording ends on time).
cat >"$DIR/workload.sh" <<WORKLOAD
end=\$(( \$(date +%s) + $SECS ))
loop() { while [ "\$(date +%s)" -lt "\$end" ]; do timeout 5 "\$@" >/dev/null 2>&1; done; }
loop perf bench sched messaging -g 4 -l 2000 &
loop perf bench futex hash -t 4 -r 3 &
loop perf bench mem memcpy -s 64MB -l 20 &
loop sh -c 'head -c 100000000 /dev/urandom | xz -T2 -1' &
wait
WORKLOAD

if [ ! -s "$DATA" ]; then
	echo "recording $SECS s at $FREQ Hz into $DATA (once; delete it to re-record)" >&2
	perf record -e cpu-clock -F "$FREQ" -g --sample-cpu -o "$DATA" -- sh "$DIR/workload.sh" \
		2>"$DIR/record.log" || { cat "$DIR/record.log" >&2; exit 1; }
fi
ls -l "$DATA" >&2

echo "building perfstitch" >&2
(cd "$(dirname "$0")/.." && go build -o "$DIR/perfstitch" .)

# run NAME CMD...: time CMD (stdout to $DIR/NAME.out, or to /dev/null when
# NAME ends in _null); prints "NAME wall user+sys maxrss_kB".
run() {
	name=$1
	shift
	out=$DIR/$name.out
	case $name in *_null) out=/dev/null ;; esac
	/usr/bin/time -f "%e %U %S %M" -o "$DIR/$name.time" "$@" >"$out" 2>"$DIR/$name.err" || {
		echo "$name failed:" >&2
		cat "$DIR/$name.err" >&2
		return 1
	}
	read -r wall user sys rss <"$DIR/$name.time"
	cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
	printf '%-28s wall %7.2f s  cpu %7.2f s  peak RSS %8d kB  output %s bytes\n' "$name" "$wall" "$cpu" "$rss" "$(wc -c <"$out")"
	eval "${name}_wall=$wall ${name}_cpu=$cpu ${name}_rss=$rss"
}

# ratio LABEL A B: how many times faster B ran than A, by wall and by CPU
# time (user+sys; the better measure on a busy machine).
ratio() {
	eval "aw=\$${2}_wall ac=\$${2}_cpu bw=\$${3}_wall bc=\$${3}_cpu"
	awk -v l="$1" -v aw="$aw" -v ac="$ac" -v bw="$bw" -v bc="$bc" \
		'BEGIN { printf "%s: %.1fx faster by wall time, %.1fx by CPU time\n", l, aw / bw, ac / bc }'
}

# The same environment for both: no build-id cache, C locale.
export LC_ALL=C
run perf_text perf script -i "$DATA"
run stitch_text "$DIR/perfstitch" script "$DATA"
if cmp -s "$DIR/perf_text.out" "$DIR/stitch_text.out"; then
	echo "text outputs: identical"
else
	echo "text outputs: differ at $(cmp "$DIR/perf_text.out" "$DIR/stitch_text.out" 2>&1 | sed 's/.*differ: //')"
fi
ratio "text: perfstitch script vs perf script (target >= 5x)" perf_text stitch_text
# The same without the cost of storing 1-2 GB of text (both to /dev/null).
run perf_text_null perf script -i "$DATA"
run stitch_text_null "$DIR/perfstitch" script "$DATA"
ratio "text to /dev/null: perfstitch script vs perf script" perf_text_null stitch_text_null

SC=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
run stitch_collapsed "$DIR/perfstitch" script --format collapsed "$DATA"
if [ -n "$SC" ]; then
	run perf_collapsed sh -c "perf script -i '$DATA' | perl '$SC'"
	if cmp -s "$DIR/perf_collapsed.out" "$DIR/stitch_collapsed.out"; then
		echo "collapsed outputs: identical"
	else
		echo "collapsed outputs: differ"
	fi
	ratio "collapsed: perfstitch vs perf script | stackcollapse-perf.pl (target >= 20x)" perf_collapsed stitch_collapsed
else
	echo "collapsed: stackcollapse-perf.pl not found (set STACKCOLLAPSE) - no comparison"
fi
awk -v a="$perf_text_rss" -v b="$stitch_text_rss" 'BEGIN { printf "peak RSS: perf script %d kB, perfstitch script %d kB\n", a, b }'
