#!/usr/bin/env bash
# goldens.sh: the goldens of TestScriptFields (cmd), perf 6.1's (host perf)
# as NAME.txt and perf 7.3.4's (../../../shared/tools/perf7) as perf7/NAME.txt,
# for the encoder-written recordings of gen.go (perf.data, weight.data).
# Run in testdata/fields as root; hermetic: empty HOME, no config, LC_ALL=C,
# TZ=UTC. perf 6.1 knows neither cgroup nor retire_lat: those sets are
# perf 7.3.4's only.
set -euo pipefail
cd "$(dirname "$0")"
P7=${PERF7:-../../../shared/tools/perf7}
H=$(mktemp -d)
p61() { env -i PATH=/usr/bin:/bin HOME="$H" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"; }
G="--symfs ../fp/symfs --kallsyms ../kallsyms"
ALL=comm,tid,time,event,flags,data_src,weight,ins_lat,ip,sym,dso,phys_addr,data_page_size,code_page_size,tod
# name, input, options (one word list, split on spaces)
sets=(
	"script-mem perf.data -F $ALL"
	"script-mem-G perf.data -G -F $ALL,callindent"
	"script-tod-ns perf.data -G --ns -F +tod --show-task-events --show-mmap-events"
	"script-weight weight.data -G -F comm,tid,time,weight"
)
sets7=(
	"script-cgroup perf.data -G -F comm,tid,time,cgroup,retire_lat,ins_lat,weight"
)
mkdir -p perf7
for s in "${sets[@]}" "${sets7[@]}"; do
	read -r name in args <<<"$s"
	if [[ " ${sets7[*]} " != *" $s "* ]]; then
		# shellcheck disable=SC2086
		p61 script -i "$in" $G $args > "$name.txt"
	fi
	# shellcheck disable=SC2086
	"$P7" script -i "$in" $G $args > "perf7/$name.txt"
done
