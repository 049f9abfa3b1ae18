#!/usr/bin/env bash
# goldens.sh: the goldens of TestVmlinux (cmd): perf 6.1's (host perf) as
# NAME.txt and perf 7.3.4's (../../../shared/tools/perf7) as perf7/NAME.txt,
# of ../fp/perf.data with the kernel symbols of make-vmlinux.sh's vmlinux
# (-k vmlinux under --symfs ., where opt/ links to fp's workload binary).
# Run in testdata/vmlinux as root; hermetic: empty HOME, no config, LC_ALL=C.
set -euo pipefail
cd "$(dirname "$0")"
P7=${PERF7:-../../../shared/tools/perf7}
H=$(mktemp -d)
# perf 6.1 with its tips.txt hidden (report's last line), as ../srcline/goldens.sh.
p61() {
	unshare -m -p -f --mount-proc sh -c 'mount -t tmpfs none /usr/share/doc/linux-perf && "$@"' sh \
		env -i PATH=/usr/bin:/bin HOME="$H" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"
}
G="-i ../fp/perf.data --symfs ."
R="report --stdio --no-children --sort comm,dso,sym"
# name, then the perf command line
sets=(
	"script script -k vmlinux"
	"script-demangle script -k vmlinux --demangle-kernel --time 603.7,603.8 -F comm,tid,ip,sym,symoff"
	"script-kernel-path script -k vmlinux --show-kernel-path --time 603.7,603.8 -F comm,tid,ip,sym,dso"
	"script-nobuildid script -k vmlinux-nobuildid --time 603.7,603.8 -F tid,ip,sym,dso"
	"script-kallsyms-wins script -k vmlinux --kallsyms ../kallsyms --time 603.7,603.8 -F tid,ip,sym"
	"report $R -k vmlinux"
	"report-demangle $R -k vmlinux --demangle-kernel"
	"report-children report --stdio --children -g none -k vmlinux --demangle-kernel"
)
mkdir -p perf7
for s in "${sets[@]}"; do
	read -r name args <<<"$s"
	# shellcheck disable=SC2086
	p61 $args $G > "$name.txt"
	# shellcheck disable=SC2086
	"$P7" $args $G > "perf7/$name.txt"
done
