#!/bin/sh
# dump-corpus.sh: the SHA-256 sums of perf's raw dumps (perf script -D,
# perf report -D) of every ../shared/corpus case, by the machine's perf
# 6.1 and by perf 7.3.4 (../shared/tools/perf7, with
# PERF7_HOST_PATHS=/opt/perfstitch-corpus as the corpus goldens were
# made), hermetic (empty HOME, no config, C locale, UTC), into
# dump-corpus.sha256: "SUM  CASE DIALECT VERB BYTES". The dumps are 0.3 to
# 4 MB each, so only their sums are kept (TestScriptDumpCorpus, cmd).
# Usage: cmd/testdata/dump-corpus.sh   (root)
set -eu
T=$(cd "$(dirname "$0")" && pwd)
C=$T/../../../shared/corpus
PERF7=${PERF7:-$C/../tools/perf7}
H=$(mktemp -d)
out=$T/dump-corpus.sha256.new
: > "$out"
for c in c-nopie c-pie-so c-pthreads cpp-templates dwarf go-goroutines no-callchain pipe-mode two-events zstd; do
	cd "$C/$c"
	G="--symfs symfs --kallsyms ../kallsyms"
	for d in 7.3 6.1; do
		for v in script report; do
			if [ $d = 6.1 ]; then
				env -i PATH=/usr/bin:/bin HOME="$H" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf $v -D -i perf.data $G 2>/dev/null > "$H/dump"
			else
				PERF7_HOST_PATHS=/opt/perfstitch-corpus "$PERF7" $v -D -i perf.data $G 2>/dev/null > "$H/dump"
			fi
			echo "$(sha256sum < "$H/dump" | cut -d' ' -f1)  $c $d $v $(wc -c < "$H/dump")" >> "$out"
		done
	done
done
mv "$out" "$T/dump-corpus.sha256"
rm -rf "$H"
