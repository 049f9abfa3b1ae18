#!/usr/bin/env bash
# goldens.sh: the stderr goldens of TestPerfWarningGoldens (cmd) for
# warnings/perf.data (gen.go: lost samples over 5%, out-of-order records) and
# for lost/ with --show-lost-events: perf 6.1's (host perf) as NAME.txt, perf
# 7.3.4's (../../../shared/tools/perf7) as perf7/NAME.txt, and the script
# run's stdout as script.txt (the out-of-order samples' place).
# Run in testdata/warnings as root; hermetic: empty HOME, no config, LC_ALL=C.
set -euo pipefail
cd "$(dirname "$0")"
P7=${PERF7:-../../../shared/tools/perf7}
H=$(mktemp -d)
p61() { env -i PATH=/usr/bin:/bin HOME="$H" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"; }
G="--symfs ../fp/symfs --kallsyms ../kallsyms"
mkdir -p perf7 ../lost/perf7
for tool in p61 "$P7"; do
	out=.; [ "$tool" = p61 ] || out=perf7
	# shellcheck disable=SC2086
	$tool script -i perf.data $G 2>"$out/stderr-script.txt" >"$out/script.txt"
	# shellcheck disable=SC2086
	$tool report --stdio -i perf.data $G 2>"$out/stderr-report.txt" >/dev/null
	# shellcheck disable=SC2086
	$tool report -q --stdio -i perf.data $G 2>"$out/stderr-report-q.txt" >/dev/null
	(cd ../lost && $tool script -i perf.data --symfs . --kallsyms /dev/null --show-lost-events 2>"$out/stderr-script-show-lost.txt" >/dev/null)
done
