// Package inject rewrites a recording with deferred user callchains into
// the one the kernel would have written without deferral, which every
// perf.data reader understands: perf before 6.19, hotspot, samply,
// perf_data_converter, Perfetto.
//
// [Rewrite] drives decode (time order) → stitch → encode. Every deferred
// sample that stitch completes is written with its whole callchain (the
// kernel part, PERF_CONTEXT_USER and the user PCs of its
// PERF_RECORD_CALLCHAIN_DEFERRED); the CALLCHAIN_DEFERRED records are left
// out; defer_callchain and defer_output are cleared in every event; every
// other record, event, sample id and feature section is written again as
// it was. Nothing is symbolized.
//
// Records keep the round (the span between two FINISHED_ROUND records) in
// which the recording has them, and within a round the timed records are
// written in time order, after the round's untimed ones. A reader that
// orders records the way perf does (flushing at each FINISHED_ROUND up to
// the previous round's newest time) therefore delivers the output in the
// same order as the input, and a reader that does not reorder at all sees
// every round sorted. See docs/stitching.md.
//
// Memory does not grow with the input: decode holds about two rounds,
// stitch the samples waiting for their records (bounded by
// stitch.Options.MaxPending), and Rewrite the rounds not yet complete, as
// their encoded bytes.
//
// The API is not yet stable.
package inject
