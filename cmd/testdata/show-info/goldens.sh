#!/bin/sh
# goldens.sh: regenerate the -I/--show-info goldens of this folder with perf
# 6.1 (the host's perf) and perf 7.3.4 (../../../../shared/tools/perf7; run
# as root). Each recording is copied to a temporary folder and given the
# modification time its header's '# captured on' line shows (perf prints
# the input's mtime), so the goldens do not depend on when the repository
# was checked out; perf runs there with relative paths (perf7 sees only
# the working directory).
#   CASE.header-I.txt        perf report -i perf.data --header-only -I     (6.1)
#   CASE.perf7.header-I.txt  the same by perf 7.3.4
#   corpus-NAME.perf7.header-I.txt  perf 7.3.4 on ../shared/corpus/NAME
#                            (perf 6.1's is the corpus' own header-I.txt)
#   pipe.script-I.txt, pipe.perf7.script-I.txt
#                            perf script -I -G on testdata/pipe (no --header:
#                            perf prints a pipe's features as they arrive)
#   kernel-NAME.perf7.header.txt  perf 7.3.4 report --header-only (no -I) on
#                            ../shared/kernel/NAME
#   pipe.header-I-G.txt, pipe.perf7.header-I-G.txt
#                            perf script --header -I -G on testdata/pipe
# Usage: cmd/testdata/show-info/goldens.sh   (TZ=UTC is set here)
set -eu
export TZ=UTC LC_ALL=C
H=$(cd "$(dirname "$0")" && pwd)
R=$H/../../..
PERF7=${PERF7:-$R/../shared/tools/perf7}
PERF6=${PERF6:-perf}
CORPUS=${CORPUS:-$R/../shared/corpus}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# stage SRC EPOCH: copy the recording SRC (a file, or a --threads directory)
# to $T/perf.data with its data file's mtime set to EPOCH.
stage() {
	rm -rf "$T/perf.data"
	cp -r "$1" "$T/perf.data"
	if [ -d "$T/perf.data" ]; then
		touch -d "@$2" "$T/perf.data/data"
	else
		touch -d "@$2" "$T/perf.data"
	fi
}

for c in fp pipe zstd two-events switch namespaces threads; do
	stage "$R/testdata/$c/perf.data" 1796083200
	(cd "$T" && "$PERF6" report -i perf.data --header-only -I) > "$H/$c.header-I.txt"
	(cd "$T" && "$PERF7" report -i perf.data --header-only -I) > "$H/$c.perf7.header-I.txt"
done

stage "$R/testdata/pipe/perf.data" 1796083200
cp -r "$R/testdata/pipe/symfs" "$T/symfs"
cp "$R/testdata/kallsyms" "$T/kallsyms"
G="--symfs symfs --kallsyms kallsyms"
(cd "$T" && "$PERF6" script -i perf.data $G -I -G) > "$H/pipe.script-I.txt"
(cd "$T" && "$PERF7" script -i perf.data $G -I -G) > "$H/pipe.perf7.script-I.txt"
(cd "$T" && "$PERF6" script -i perf.data $G --header -I -G) > "$H/pipe.header-I-G.txt"
(cd "$T" && "$PERF7" script -i perf.data $G --header -I -G) > "$H/pipe.perf7.header-I-G.txt"
rm -rf "$T/symfs" "$T/kallsyms"

for d in "$CORPUS"/*/; do
	n=$(basename "$d")
	e=$(sed -n 's/^touch -d @\([0-9]*\) perf\.data.*/\1/p' "$d/README.md")
	[ -n "$e" ] || continue
	stage "$d/perf.data" "$e"
	(cd "$T" && "$PERF7" report -i perf.data --header-only -I) > "$H/corpus-$n.perf7.header-I.txt"
done

# kernel-NAME.perf7.header.txt: perf 7.3.4's --header-only (without -I) of
# the real deferred recordings ../shared/kernel/NAME (their sections of perf
# 6.19 and later: cpu pmu capabilities, CPU_DOMAIN_INFO, e_machine,
# cacheline size), captured at the time their header-I.txt shows.
KERNEL=${KERNEL:-$R/../shared/kernel}
for d in "$KERNEL"/*/; do
	n=$(basename "$d")
	e=$(date -u -d "$(sed -n 's/^# captured on    : //p' "$d/header-I.txt")" +%s)
	stage "$d/perf.data" "$e"
	(cd "$T" && "$PERF7" report -i perf.data --header-only) > "$H/kernel-$n.perf7.header.txt"
done
