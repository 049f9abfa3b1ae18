// Package output turns resolved events into perf script text, JSON Lines
// and collapsed stacks, one sample at a time, and the formats people look with:
// pprof profiles (pprof.go) and flame graphs drawn from the collapsed stacks
// (flamegraph*.go). It never decodes and never
// symbolizes: it consumes [symbolize.Event] values and the side-band
// records the pipeline hands it as [Record] values. The aggregations that
// consume the same stream are its subpackages: output/report (perf
// report's histogram) and output/stats (the cross-stage audit).
//
// The text format follows tools/perf/builtin-script.c of perf 6.1
// (perf_sample__fprintf_start, process_event, the output[] defaults per
// event type, perf_event__fprintf for side-band records) and
// tools/perf/util/evsel_fprintf.c (sample__fprintf_callchain,
// sample__fprintf_sym); the deferred-callchain lines of
// --no-merge-callchains follow perf 6.19. The collapsed format is the
// output of `perf script | stackcollapse-perf.pl` (FlameGraph commit
// 41fee1f9), computed without the text round trip.
//
// Writers buffer their output and write it in large blocks; none of them
// holds more than one sample (text, JSON) or one entry per distinct stack
// (collapsed) in memory.
package output
