#!/usr/bin/env bash
# Makes the stderr goldens of the warning tests (TestPerfWarningGoldens, cmd): perf 6.1's
# (host perf) as NAME.txt and perf 7.3.4's (../../shared/tools/perf7) as perf7/NAME.txt,
# for lost/ (a recording with a LOST record) and fp/ without --kallsyms and --symfs.
# Run from testdata/lost as root; hermetic: empty HOME, no config, LC_ALL=C.
set -euo pipefail
cd "$(dirname "$0")"
P7=${PERF7:-../../../shared/tools/perf7}
H=$(mktemp -d)
p61() { env -i PATH=/usr/bin:/bin HOME="$H" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"; }
mkdir -p perf7 ../fp/perf7
for tool in p61 "$P7"; do
	out=.; [ "$tool" = p61 ] || out=perf7
	$tool script -i perf.data --symfs . --kallsyms /dev/null 2>"$out/stderr-script.txt" >/dev/null
	$tool report --stdio -i perf.data --symfs . --kallsyms /dev/null 2>"$out/stderr-report.txt" >/dev/null
	$tool report -q --stdio -i perf.data --symfs . --kallsyms /dev/null 2>"$out/stderr-report-q.txt" >/dev/null
	(cd ../fp && $tool script -i perf.data 2>"$out/stderr-nokallsyms-script.txt" >/dev/null)
	(cd ../fp && $tool report --stdio -i perf.data 2>"$out/stderr-nokallsyms-report.txt" >/dev/null)
done
