#!/bin/sh
# memory-check.sh: issue 16's limits for small inputs. Runs script (both
# dialects), report, stats and collapsed over every perf.data under 10 MB
# of the shared data (../shared) and testdata/, with /usr/bin/time, and
# prints the slowest run and the largest peak RSS under 1 MB and under
# 10 MB, and every run over the limits: under 1 MB, 1 s and 64 MiB; under
# 10 MB, 128 MiB. Exit 1 if any run is over. Not part of CI (timings need
# a quiet machine); the runs take about a minute.
#
# Usage: scripts/memory-check.sh      (from any directory)
# Environment: BENCH_BIN  the perfstitch binary (default: built from the repository)
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
P=${BENCH_BIN:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ -z "$P" ]; then
	P=$TMP/perfstitch
	(cd "$REPO" && go build -o "$P" .)
fi
out=$TMP/runs
: >"$out"
for f in $(find "$REPO/../shared" "$REPO/testdata" -name perf.data -type f -size -10240k 2>/dev/null | sort); do
	d=$(dirname "$f")
	k=""
	for kk in "$d/kallsyms" "$d/../kallsyms" "$d/../../kallsyms"; do
		if [ -f "$kk" ]; then k="--kallsyms $kk"; break; fi
	done
	s=""
	[ -d "$d/symfs" ] && s="--symfs $d/symfs"
	size=$(wc -c <"$f")
	for cmd in "script" "script --compat 6.1" "report" "stats" "script --format collapsed"; do
		# shellcheck disable=SC2086 # the options are words
		/usr/bin/time -f "%e %M" -o "$TMP/t" "$P" $cmd -i "$f" $k $s >/dev/null 2>&1 || true
		echo "$(tail -1 "$TMP/t") $size $cmd ${d#"$REPO/"}" >>"$out"
	done
done
echo "# $(wc -l <"$out") runs (wall s, peak RSS KiB, input bytes, command, case)"
echo "under 1 MB, slowest:     $(awk '$3 < 1048576' "$out" | sort -n | tail -1)"
echo "under 1 MB, largest RSS: $(awk '$3 < 1048576' "$out" | sort -k2 -n | tail -1)"
echo "under 10 MB, largest RSS: $(sort -k2 -n "$out" | tail -1)"
over=$(awk '($3 < 1048576 && ($1 >= 1 || $2 > 65536)) || $2 > 131072' "$out")
if [ -n "$over" ]; then
	echo "over the limits:"
	echo "$over"
	exit 1
fi
echo "every run within the limits"
