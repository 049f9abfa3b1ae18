#!/bin/sh
# gen.sh: regenerate the perf 6.1 goldens of TestScriptDwarfFlags from the
# corpus case ../shared/corpus/dwarf (--call-graph dwarf; run from this
# folder, with perf 6.1 and binutils' addr2line installed). Each golden is
# named by its flags; the same list is in cmd/script_dwarf_test.go.
set -eu
D=$(cd "$(dirname "$0")/../../../../shared/corpus/dwarf" && pwd)
out=$(cd "$(dirname "$0")" && pwd)
h=$(mktemp -d)
while IFS='|' read -r name args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	(cd "$D" && env -i PATH=/usr/bin:/bin HOME="$h" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC \
		perf script -i perf.data --symfs symfs --kallsyms ../kallsyms $args) >"$out/$name.txt"
done <<LIST
ip-dso-max-stack-4|-F ip,dso --max-stack 4
ip-sym-symoff-max-stack-1|-F ip,sym,symoff --max-stack 1
ip-dso-no-inline-max-stack-6|-F ip,dso --no-inline --max-stack 6
LIST
rm -rf "$h"
