#!/bin/sh
# goldens-perf7.sh: regenerate the perf 7.3.4 goldens of the testdata cases,
# CASE/perf7/*, with ../shared/tools/perf7 (hermetic: empty HOME, no config,
# C locale, UTC, fresh PID namespace, tips.txt hidden; root). perf7 sees only
# paths relative to the working directory, so every command runs in CASE/.
# Usage: testdata/goldens-perf7.sh [CASE...]   (default: every case)
# PERF7 overrides the tool's path; STACKCOLLAPSE names stackcollapse-perf.pl
# (FlameGraph 41fee1f) for collapsed.txt, which is skipped when it is unset.
set -eu
T=$(cd "$(dirname "$0")" && pwd)
PERF7=${PERF7:-$T/../../shared/tools/perf7}
[ -x "$PERF7" ] || { echo "goldens-perf7.sh: no perf7 at $PERF7 (set PERF7)" >&2; exit 2; }
[ $# -gt 0 ] || set -- fp pipe zstd two-events demo

# p7 OUT ARGS...: perf7 ARGS > perf7/OUT, its stderr kept as perf7/OUT.stderr
# only when not empty.
p7() {
	out=$1
	shift
	"$PERF7" "$@" > "perf7/$out" 2> "perf7/$out.stderr"
	[ -s "perf7/$out.stderr" ] || rm -f "perf7/$out.stderr"
}

for c in "$@"; do
	cd "$T/$c"
	mkdir -p perf7
	touch -d @1796083200 perf.data   # header.txt '# captured on' is perf.data's mtime
	case $c in
	demo)
		# A real deferred recording cut from ../shared/kernel (demo/README.md):
		# merged and unmerged script, -G, report, stats, collapsed (report
		# --children is left out: 250 KB for 200 samples).
		G="--symfs symfs --kallsyms kallsyms"
		p7 script.txt script -i perf.data $G
		p7 script-nomerge.txt script -i perf.data $G --no-merge-callchains
		p7 script-G.txt script -i perf.data $G -G
		p7 report.txt report -i perf.data $G --stdio --no-children --sort comm,dso,sym
		p7 stats.txt report -i perf.data $G --stats
		;;
	*)
		G="--symfs symfs --kallsyms ../kallsyms"
		p7 script.txt script -i perf.data $G
		p7 script-G.txt script -i perf.data $G -G
		p7 script-F.txt script -i perf.data $G -F comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period
		p7 script-events.txt script -i perf.data $G -G --show-task-events --show-mmap-events
		p7 report.txt report -i perf.data $G --stdio --no-children --sort comm,dso,sym
		p7 stats.txt report -i perf.data $G --stats
		p7 header.txt report -i perf.data --header-only
		;;
	esac
	if [ -n "${STACKCOLLAPSE:-}" ]; then
		perl "$STACKCOLLAPSE" < perf7/script.txt > perf7/collapsed.txt
	fi
done
