#!/bin/sh
# goldens.sh: regenerate the report goldens of testdata/srcline: perf 6.1's
# (the host perf, hermetic as in ../goldens.sh) as report-NAME.txt and perf
# 7.3.4's (../../../shared/tools/perf7, or $PERF7) as perf7/report-NAME.txt.
# Every variant is "perf report -i perf.data --symfs symfs --kallsyms
# kallsyms --stdio" plus the options listed below. Needs root.
set -eu
cd "$(dirname "$0")"
PERF7=${PERF7:-../../../shared/tools/perf7}
G="--symfs symfs --kallsyms kallsyms --stdio"

perf61() {
	unshare -m -p -f --mount-proc sh -c 'mount -t tmpfs none /usr/share/doc/linux-perf && "$@"' sh \
		env -i PATH=/usr/bin:/bin HOME="$(mktemp -d)" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"
}

# NAME OPTIONS (one variant a line)
variants() {
	cat <<'LIST'
sort-symbol --no-children --sort symbol -g none
sort-srcline --no-children --sort srcline,sym -g none
sort-srcline-full --no-children --sort srcline --full-source-path -g none
sort-srcfile --no-children --sort srcfile,sym -g none
sort-cpu --no-children --sort cpu,comm -g none
sort-parent --no-children --sort parent,sym -g none
sort-sizes --no-children --sort dso_size,symbol_size,dso,sym -g none
sort-time --no-children --sort time -g none
sort-time-ns --no-children --sort time --ns -g none
sort-time-quantum --no-children --sort time,sym --time-quantum 250ms -g none
sort-period --no-children --sort sample,period,sym -g none
nr-samples --no-children -n --show-total-period -g none
children-n --children -n -g none
quiet -q --no-children -g none
hide-unresolved --no-children -U -g none
g-function --no-children -g graph,0.5,caller,function,percent
g-period --no-children -g graph,0.5,period --percent-limit 5
g-count --no-children -g fractal,count,callee --percent-limit 5
g-fractal-callee --no-children -g fractal,callee --percent-limit 5
g-callee-address --no-children -g graph,0.5,callee,address --percent-limit 5
g-caller-address -g graph,0.5,caller,address --percent-limit 20
g-address-full --no-children -g flat,address --full-source-path --percent-limit 5
g-flat-period --no-children -g flat,period --percent-limit 5
field-sep --no-children -t , -g none
field-sep-n --no-children -t , -n --sort sym,srcline -g none
field-sep-children --children -t , -g none
max-stack --no-children --max-stack 3
inline --no-children --inline
threads --no-children -g none -T
threads-quiet --no-children -g none -T -q
hierarchy --no-children -g none --hierarchy
hierarchy-srcline --no-children -g none --hierarchy --sort dso,srcline
LIST
}

variants | while read -r name opts; do
	# shellcheck disable=SC2086
	perf61 report -i perf.data $G $opts > "report-$name.txt" 2>/dev/null || true
	# shellcheck disable=SC2086
	"$PERF7" report -i perf.data $G $opts > "perf7/report-$name.txt" 2>/dev/null || true
done
