#!/bin/sh
# goldens-dump.sh: regenerate the raw-dump goldens (perf script -D, perf
# report -D) of the testdata cases, gzipped (gzip -9n) since a dump is
# ten times the recording: CASE/dump-{script,report}.txt.gz by the
# machine's perf 6.1 and CASE/perf7/dump-{script,report}.txt.gz by
# ../shared/tools/perf7 (perf 7.3.4), both hermetic (empty HOME, no
# config, C locale, UTC). perf7 sees only paths relative to the working
# directory, so every command runs in CASE/. demo: perf 7.3.4 only (perf
# 6.1 cannot read a deferred recording). Where CASE/dump.txt (perf 6.1's
# script -D, goldens.sh) exists it is the 6.1 script golden. lost has no
# binaries (--symfs .) and its dumps are 1.5 MB each: only their SHA-256
# sums are kept, in lost/dump.sha256.
# Usage: testdata/goldens-dump.sh [CASE...]   (root; TestScriptDump and
# TestScriptDumpFilters, cmd)
set -eu
T=$(cd "$(dirname "$0")" && pwd)
PERF7=${PERF7:-$T/../../shared/tools/perf7}
[ $# -gt 0 ] || set -- fp pipe zstd zstd19 two-events lost switch namespaces demo
H=$(mktemp -d)
p61() { env -i PATH=/usr/bin:/bin HOME="$H" PERF_CONFIG=/dev/null LC_ALL=C TZ=UTC perf "$@"; }
p73() { "$PERF7" "$@"; } # hermetic by itself
for c in "$@"; do
	cd "$T/$c"
	case $c in
	demo) G="--symfs symfs --kallsyms kallsyms" ;;
	lost) G="--symfs . --kallsyms /dev/null" ;;
	*) G="--symfs symfs --kallsyms ../kallsyms" ;;
	esac
	mkdir -p perf7
	for tool in p61 p73; do
		out=.
		if [ $tool = p73 ]; then out=perf7; elif [ $c = demo ]; then continue; fi
		for verb in script report; do
			[ $tool = p61 ] && [ $verb = script ] && [ -f dump.txt ] && continue
			if [ $c = lost ]; then
				sum=$($tool $verb -D -i perf.data $G 2>/dev/null | sha256sum | cut -d' ' -f1)
				echo "$sum  $out/dump-$verb.txt" >> dump.sha256.new
			else
				$tool $verb -D -i perf.data $G 2>/dev/null | gzip -9n > "$out/dump-$verb.txt.gz"
			fi
		done
	done
	[ ! -f dump.sha256.new ] || mv dump.sha256.new dump.sha256
done
# fp with filters, which perf applies after the dump and the thread and
# DSO lines: the sums only, in fp/dump-filters.sha256 ("SUM  DIALECT VERB
# FLAG VALUE").
if [ -d "$T/fp" ]; then
	cd "$T/fp"
	G="--symfs symfs --kallsyms ../kallsyms"
	: > dump-filters.sha256.new
	for f in "--pid 1" "--tid 15809" "--comms foo" "--dsos foo" "-C 1" "--symbols walk_a" "--time 603.8,603.9"; do
		for tool in p73 p61; do
			d=7.3; [ $tool = p73 ] || d=6.1
			for verb in script report; do
				sum=$($tool $verb -D -i perf.data $G $f 2>/dev/null | sha256sum | cut -d' ' -f1)
				echo "$sum  $d $verb $f" >> dump-filters.sha256.new
			done
		done
	done
	mv dump-filters.sha256.new dump-filters.sha256
fi
rm -rf "$H"
