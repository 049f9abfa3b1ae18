// Package stitch joins deferred user callchains (PERF_RECORD_CALLCHAIN_DEFERRED)
// back onto the kernel samples they belong to, in both on-disk ABIs (the
// original patch series without a cookie, and the cookie ABI of Linux/perf
// 6.19), and delivers complete samples with their provenance.
//
// See perf-format.md §8 and tools/perf/util/session.c (perf 6.19,
// "perf tools: Merge deferred user callchains").
//
// The API is not yet stable.
package stitch

import (
	"strconv"

	"github.com/perfstitch/perfstitch/decode"
)

// State is the provenance of a delivered sample.
type State uint8

// Sample provenance states.
const (
	// NotDeferred: the sample carried its user callchain in line (or has
	// none); it is delivered as recorded.
	NotDeferred State = iota
	// Stitched: the sample's deferred user callchain was found and joined.
	Stitched
	// CookieMismatch: a deferred record for the same thread with another
	// cookie arrived first; the sample is delivered without its user part
	// (perf 6.19 does the same).
	CookieMismatch
	// NoRecord: no deferred record ever came (the thread exited, the input
	// ended, or the pending cap released it); delivered without user part.
	NoRecord
	// Unmerged: with Options.NoMerge, a deferred sample delivered as
	// recorded, without looking for its record (perf script
	// --no-merge-callchains); the CALLCHAIN_DEFERRED records are delivered
	// as records.
	Unmerged

	numStates
)

var stateNames = [numStates]string{"not-deferred", "stitched", "cookie-mismatch", "no-record", "unmerged"}

// String returns the state's name as used in statistics and JSON
// ("not-deferred", "stitched", "cookie-mismatch", "no-record", "unmerged").
func (s State) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Sample is a complete sample as delivered by the [Stitcher].
type Sample struct {
	// Sample is the decoded sample. For a Stitched sample its Callchain
	// is rewritten to what the kernel would have recorded without deferral:
	// the kernel part, then decode.ContextUser and the user PCs. For
	// CookieMismatch, NoRecord and Unmerged samples the Callchain is the recorded one,
	// still ending in decode.ContextUserDeferred (and the cookie in the
	// cookie ABI), so output can show the cookie the way perf does.
	*decode.Sample

	State  State
	ABI    decode.DeferredABI // DeferredNone for samples that did not defer
	Cookie uint64             // if ABI == decode.DeferredCookie
}

// Source is a stream of time-ordered records; *decode.Records is one.
type Source interface {
	Next() bool
	Record() decode.Record
	Err() error
}

// Event is one item delivered by the [Stitcher]: exactly one of Sample
// and Record is set. Record carries every non-sample record passed through
// unchanged (MMAP, COMM, FORK, EXIT, ... and, with Options.NoMerge,
// CALLCHAIN_DEFERRED). Both are valid until the next call to Next.
//
// In PerfOrder and ArrivalOrder, Seq is the item's position in the source
// (how many records were read before it) and Low the lowest Seq an event
// delivered after this one can have, so that a consumer can put events
// back in source order: an event with a Seq below Low has nothing before
// it still to come. Both are 0 in TimeOrder, which delivers in source
// order.
type Event struct {
	Sample *Sample
	Record decode.Record

	Seq, Low uint64
}
