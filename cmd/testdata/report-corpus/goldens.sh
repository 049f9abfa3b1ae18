#!/bin/sh
# goldens.sh: perf's report goldens of the corpus cases (../../../../shared/corpus,
# or $CORPUS) for report options that need no DWARF: perf 6.1's (the host
# perf, hermetic as in testdata/goldens.sh) as CASE/report-NAME.txt and perf
# 7.3.4's (../shared/tools/perf7, or $PERF7) as CASE/perf7/report-NAME.txt.
# Every variant is "perf report -i perf.data --symfs symfs --kallsyms
# ../kallsyms --stdio" run in the case folder, plus the options below.
# Needs root.
set -eu
OUT=$(cd "$(dirname "$0")" && pwd)
CORPUS=${CORPUS:-$OUT/../../../../shared/corpus}
PERF7=${PERF7:-$CORPUS/../tools/perf7}
G="--symfs symfs --kallsyms ../kallsyms --stdio"

perf61() {
	unshare -m -p -f --mount-proc sh -c 'mount -t tmpfs none /usr/share/doc/linux-perf && "$@"' sh \
		env -i PATH=/usr/bin:/bin HOME="$(mktemp -d)" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"
}

# NAME OPTIONS (one variant a line)
variants() {
	cat <<'LIST'
sort-cpu --no-children --sort cpu,pid -g none
sort-time --no-children --sort time,comm -g none
sort-sizes --no-children --sort dso_size,symbol_size,dso,sym -g none
sort-prefixes --no-children --sort co,d,sym -g none
nr-samples --no-children -n --show-total-period -g none
field-sep --no-children -t ; -n -g none
hide-unresolved --no-children -U -g none
parent --no-children -p ^leaf -x -g none
relative --no-children --comms wk-reader,wk-rec-a --percentage relative -g none
relative-dso --no-children --dsos prog_f --percentage relative --sort sym -g none
absolute --no-children --comms wk-reader,wk-rec-a -g none
quiet -q --no-children -g none
hierarchy --no-children -g none --hierarchy
hierarchy-pid --no-children -g none --hierarchy --sort pid,dso,sym --percent-limit 1
LIST
}

for c in c-nopie c-pthreads two-events; do
	mkdir -p "$OUT/$c/perf7"
	variants | while read -r name opts; do
		# shellcheck disable=SC2086
		(cd "$CORPUS/$c" && perf61 report -i perf.data $G $opts) > "$OUT/$c/report-$name.txt" 2>/dev/null || true
		# shellcheck disable=SC2086
		(cd "$CORPUS/$c" && PERF7_HOST_PATHS=/opt/perfstitch-corpus "$PERF7" report -i perf.data $G $opts) > "$OUT/$c/perf7/report-$name.txt" 2>/dev/null || true
	done
done
