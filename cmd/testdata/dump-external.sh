#!/bin/sh
# dump-external.sh: the SHA-256 sums of perf's raw dumps (perf script -D,
# perf report -D) of the smaller ../shared/external recordings, by the
# machine's perf 6.1 and by perf 7.3.4 (../shared/tools/perf7), run as
# their other goldens were (--symfs an empty folder, --kallsyms
# /dev/null), hermetic (empty HOME, no config, C locale, UTC), into
# dump-external.sha256: "SUM  CASE DIALECT VERB BYTES" (TestScriptDumpExternal, cmd).
# Usage: cmd/testdata/dump-external.sh   (root)
set -eu
T=$(cd "$(dirname "$0")" && pwd)
X=$T/../../../shared/external
PERF7=${PERF7:-$X/../tools/perf7}
H=$(mktemp -d)
mkdir "$H/symfs"
out=$T/dump-external.sha256.new
: > "$out"
for c in quipper/ctx_switch_namespaces-4.14 quipper/group_desc-4.14 quipper/branch-4.14 quipper/branch_stack_spec \
	quipper/lost_samples-4.4 quipper/singleprocess-3.8 quipper/remmap-3.2 quipper/proc.map.timeout-3.18 \
	quipper/piped.ctx_switch_namespaces-4.14 quipper/piped.header_features-4.16 quipper/piped.target.throttled-3.4 \
	linux-perf-data/sleep.compressed.pipe; do
	cd "$X/$c"
	for d in 7.3 6.1; do
		for v in script report; do
			if [ $d = 6.1 ]; then
				env -i PATH=/usr/bin:/bin HOME="$H" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf $v -D -i perf.data --symfs "$H/symfs" --kallsyms /dev/null 2>/dev/null > "$H/dump" || true
			else
				# perf7 sees relative paths only: an empty folder under $H, reached from here.
				"$PERF7" $v -D -i perf.data --symfs "$(realpath --relative-to=. "$H/symfs")" --kallsyms /dev/null 2>/dev/null > "$H/dump" || true
			fi
			echo "$(sha256sum < "$H/dump" | cut -d' ' -f1)  $c $d $v $(wc -c < "$H/dump")" >> "$out"
		done
	done
done
mv "$out" "$T/dump-external.sha256"
rm -rf "$H"
