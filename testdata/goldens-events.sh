#!/bin/sh
# goldens-events.sh: regenerate the goldens of perf script's
# --show-round-events, --show-bpf-events and --show-text-poke-events with
# perf 6.1 (the host's perf) and perf 7.3.4 (../shared/tools/perf7, root;
# hermetic, see goldens-perf7.sh):
#   bpf/*.txt, bpf/perf7/*.txt      testdata/bpf (bpf/README.md)
#   textpoke/*.txt, textpoke/perf7/*.txt
#                                   testdata/textpoke (made by
#                                   go run ./testdata/textpoke/gen)
#   ../cmd/testdata/show-events.sha256
#                                   SHA-256 of perf script --show-round-events
#                                   (with and without -G) of every corpus case
#                                   (perf 6.1 and 7.3.4) and every real
#                                   deferred recording of ../shared/kernel
#                                   (perf 7.3.4), 1-3 MB each
# Usage: testdata/goldens-events.sh
set -eu
T=$(cd "$(dirname "$0")" && pwd)
PERF7=${PERF7:-$T/../../shared/tools/perf7}
PERF6=${PERF6:-perf}
SHARED=${SHARED:-$T/../../shared}
export TZ=UTC LC_ALL=C

# both OUT ARGS...: perf 6.1 ARGS > OUT and perf 7.3.4 ARGS > perf7/OUT, in
# the current folder.
both() {
	out=$1
	shift
	"$PERF6" "$@" > "$out" 2> /dev/null
	"$PERF7" "$@" > "perf7/$out" 2> /dev/null
}

cd "$T/bpf"
mkdir -p perf7
G="--symfs symfs --kallsyms ../kallsyms"

both script-bpf-G.txt script -i perf.data $G -G --show-bpf-events
both script-round.txt script -i perf.data $G --max-stack 2 --show-round-events
both script-round-events.txt script -i perf.data $G -G --show-round-events --show-bpf-events --show-task-events --show-mmap-events

cd "$T/textpoke"
mkdir -p perf7
G="--symfs ../fp/symfs --kallsyms ../kallsyms"
both script-text-poke.txt script -i perf.data $G -G --show-text-poke-events
both script-text-poke-G.txt script -i perf.data $G -G --show-text-poke-events --show-bpf-events --show-round-events

# sum DIALECT CASE ARGS...: one line of the sha256 list.
# perf 7.3.4 reads the inline frames of a DSO without build id (the Go
# binary) at its recorded path: PERF7_HOST_PATHS=/opt/perfstitch-corpus
# shows the workloads there, as on the recording machine. Where that
# folder is absent it is made for the run from the cases' symfs copies.

if [ ! -d /opt/perfstitch-corpus ]; then

	mkdir -p /opt/perfstitch-corpus
	for d in "$SHARED"/corpus/*/symfs/opt/perfstitch-corpus "$SHARED"/kernel/*/symfs/opt/perfstitch-corpus; do
		cp -rn "$d"/. /opt/perfstitch-corpus/
	done
	trap 'rm -rf /opt/perfstitch-corpus' EXIT
fi
S=$T/../cmd/testdata/show-events.sha256
: > "$S.new"
[ -n "${SKIP_SHA:-}" ] && exit 0
for d in "$SHARED"/corpus/*/; do
	n=$(basename "$d")
	cd "$d"
	for a in "" "-G"; do
		h6=$("$PERF6" script -i perf.data --symfs symfs --kallsyms ../kallsyms --show-round-events $a 2>/dev/null | sha256sum | cut -d' ' -f1)
		h7=$(PERF7_HOST_PATHS=/opt/perfstitch-corpus "$PERF7" script -i perf.data --symfs symfs --kallsyms ../kallsyms --show-round-events $a 2>/dev/null | sha256sum | cut -d' ' -f1)
		echo "6.1 corpus/$n ${a:-.} $h6" >> "$S.new"
		echo "7.3 corpus/$n ${a:-.} $h7" >> "$S.new"
	done
done
for d in "$SHARED"/kernel/*/; do
	n=$(basename "$d")
	cd "$d"
	for a in "" "-G"; do
		h7=$(PERF7_HOST_PATHS=/opt/perfstitch-corpus "$PERF7" script -i perf.data --symfs symfs --kallsyms ../kallsyms --show-round-events $a 2>/dev/null | sha256sum | cut -d' ' -f1)
		echo "7.3 kernel/$n ${a:-.} $h7" >> "$S.new"
	done
done
mv "$S.new" "$S"
