#!/bin/sh
# goldens.sh: regenerate the golden outputs of every testdata case with the
# machine's perf 6.1, hermetically (needs root for unshare and the tmpfs).
# Usage: testdata/goldens.sh [CASE...]   (default: every case; demo: only
# when named, it needs go and ../shared/kernel)
set -eu
T=$(cd "$(dirname "$0")" && pwd)
cd "$T"
[ $# -gt 0 ] || set -- fp pipe zstd two-events

# hperf ARGS...: perf in a private mount+PID namespace, empty environment,
# no config, no build-id cache, C locale, UTC, tips.txt hidden.
hperf() {
	h=$(mktemp -d)
	unshare -m -p -f --mount-proc sh -c 'mount -t tmpfs none /usr/share/doc/linux-perf && "$@"' sh \
		env -i PATH=/usr/bin:/bin HOME="$h" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"
	rm -rf "$h"
}

for c in "$@"; do
	cd "$T/$c"
	if [ "$c" = demo ]; then
		# perf 6.1 cannot read a deferred recording: its golden is perf 6.1's
		# script of the same cut with every user callchain put back into its
		# sample (internal/cut -inline; demo/README.md).
		tmp=$(mktemp -d)
		(cd "$T/.." && go run ./internal/cut -samples 200 -i ../shared/kernel/c-threads/perf.data \
			-o "$tmp/cut.data" -inline "$tmp/inline.data") 2>/dev/null
		cmp "$tmp/cut.data" perf.data
		hperf script -i "$tmp/inline.data" --symfs symfs --kallsyms kallsyms > script.txt
		rm -rf "$tmp"
		continue
	fi
	touch -d @1796083200 perf.data   # header.txt '# captured on' is perf.data's mtime
	G="--symfs symfs --kallsyms ../kallsyms"
	hperf script -i perf.data $G > script.txt
	hperf script -i perf.data $G -G > script-G.txt
	hperf script -i perf.data $G -F comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period > script-F.txt
	hperf script -i perf.data $G -G --show-task-events --show-mmap-events > script-events.txt
	hperf report -i perf.data $G --stdio --no-children --sort comm,dso,sym > report.txt
	hperf report -i perf.data $G --stats > stats.txt
	hperf report -i perf.data --header-only > header.txt
	hperf script -i perf.data $G -D > dump.txt
	# drop empty stderr captures
	for f in *.stderr; do [ -s "$f" ] || rm -f "$f"; done 2>/dev/null || true
done
