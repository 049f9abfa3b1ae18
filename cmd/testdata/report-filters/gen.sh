#!/bin/sh
# gen.sh: regenerate the perf 6.1 goldens of TestReportFilters from the
# corpus case c-pthreads (../shared/corpus; run from this folder, with perf
# 6.1 installed). Each golden is named by its flags; the same list is in
# cmd/report_filters_test.go. perf's random "Tip:" line is replaced by the
# line it prints when it finds no tips, as in the corpus goldens.
set -eu
D=$(cd "$(dirname "$0")/../../../../shared/corpus/c-pthreads" && pwd)
out=$(cd "$(dirname "$0")" && pwd)
h=$(mktemp -d)
while IFS='|' read -r name args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	(cd "$D" && env -i PATH=/usr/bin:/bin HOME="$h" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC \
		perf report -i perf.data --symfs symfs --kallsyms ../kallsyms --stdio $args) |
		sed 's/^# (Tip: .*)$/# (Cannot load tips.txt file, please install perf!)/' >"$out/$name.txt"
done <<LIST
comm-one|--no-children --sort comm,dso,sym --comms wk-rec-a
comm-two-children|--children --comms wk-rec-a,wk-rec-b
tid-dso|--no-children --sort dso --tid 2621
tid-children|--children --tid 2620 -g none
comm-pid-sym|--no-children --sort pid,sym --comms wk-reader
dso-one|--no-children --dsos prog_f
dsos-children|--children --dsos libc.so.6,prog_f
symbol-dso|--no-children --sort dso -S leaf_compute,thr_descend
all-elided|--no-children --comms wk-rec-a --dsos prog_f -S leaf_compute
LIST
rm -rf "$h"
