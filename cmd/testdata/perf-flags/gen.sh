#!/bin/sh
# gen.sh: regenerate the perf 6.1 goldens of TestScriptPerfFlags from
# testdata/fp (run from this folder, with perf 6.1 installed). Each golden
# is named by its flags; the same list is in cmd/script_flags_test.go.
set -eu
D=$(cd "$(dirname "$0")/../../../testdata/fp" && pwd)
out=$(cd "$(dirname "$0")" && pwd)
h=$(mktemp -d)
while IFS='|' read -r name args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	(cd "$D" && env -i PATH=/usr/bin:/bin HOME="$h" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC \
		perf script -i perf.data --symfs symfs --kallsyms ../kallsyms $args) >"$out/$name.txt"
done <<LIST
ns-max-stack-2|--ns --max-stack 2
max-stack-3|--max-stack 3
reltime-events|--reltime -G --show-task-events --show-mmap-events
task-events|--show-task-events --max-stack 1
time-percent-slice|--time 10%/2
time-percent-ranges|--time 0%-5%,50%-55%
time-abs|--time 603.8,603.85
fields-plus-pid-G|-F +pid -G
fields-minus-dso-cpu|-F -dso,-cpu --max-stack 1
fields-ip-sym-symoff|-F ip,sym,symoff --max-stack 2
fields-G|-F comm,pid,tid,ip,sym,dso -G
tid|--tid 15809 -G
comm-none|-c nosuchcomm
dsos-kernel|--dsos [kernel.kallsyms] -G
symbols-leaf|-S leaf_mmap,0x4011c4 --max-stack 2
LIST
rm -rf "$h"
