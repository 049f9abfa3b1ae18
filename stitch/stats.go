package stitch

import "math/bits"

// Stats counts what a [Stitcher] did. Every sample the source delivered is
// counted in exactly one state, so the sum of Samples equals the number of
// samples read.
type Stats struct {
	// Samples counts delivered samples per provenance state (index by
	// [State]).
	Samples [numStates]uint64

	// NoRecordAtExit, NoRecordAtEnd, NoRecordCap and NoRecordNoTID split
	// Samples[NoRecord] by cause: the thread's EXIT was delivered, the
	// input ended, the MaxPending cap released the sample, or the
	// recording's records carry no thread id, so none can match (released
	// at once; see Options.CookieOnly).
	NoRecordAtExit, NoRecordAtEnd, NoRecordCap, NoRecordNoTID uint64

	// Records counts CALLCHAIN_DEFERRED records read, per ABI (index by
	// decode.DeferredABI; DeferredNone stays 0).
	Records [3]uint64
	// DuplicateRecords counts records that repeated the tid and cookie of
	// the record just matched for that thread (defer_output on several
	// events) and so found nothing to join; in the seed ABI, the tid and
	// user PCs (each deferring event wrote its own record).
	DuplicateRecords uint64
	// OrphanRecords counts records that found no waiting sample of their
	// thread (and were not duplicates): another session's unwind, or
	// samples lost or released before the record came.
	OrphanRecords uint64
	// UnknownTIDRecords counts records without a thread id (tid -1, or no
	// PERF_SAMPLE_TID in their sample_id): they can match nothing.
	UnknownTIDRecords uint64

	// SamplesPerRecord is the histogram of how many samples each matching
	// record completed (all samples of one kernel entry share a record).
	// Samples joined by cookie alone (Options.CookieOnly) are not in it.
	SamplesPerRecord Histogram
	// CookieOnlyStitched counts the stitched samples whose record had no
	// thread id and was matched by cookie alone (Options.CookieOnly).
	CookieOnlyStitched uint64

	// PendingHighWater is the largest number of deferred samples held at
	// once; QueueHighWater the largest number of held items (those samples
	// plus everything queued behind them to keep time order).
	PendingHighWater, QueueHighWater int
}

// Total returns the number of samples delivered.
func (st *Stats) Total() uint64 {
	var n uint64
	for _, c := range st.Samples {
		n += c
	}
	return n
}

// Count returns the number of samples delivered in state s.
func (st *Stats) Count(s State) uint64 {
	if s >= numStates {
		return 0
	}
	return st.Samples[s]
}

// Deferred returns the number of samples that deferred their user
// callchain (every state but NotDeferred).
func (st *Stats) Deferred() uint64 { return st.Total() - st.Samples[NotDeferred] }

// HistogramBuckets is the number of buckets of a [Histogram].
const HistogramBuckets = 8

// Histogram is a small histogram of positive counts with power-of-two
// buckets: 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64 and 65 or more.
type Histogram struct {
	N        uint64 // number of observations
	Sum      uint64 // sum of the observed values
	Min, Max uint64 // 0 when N == 0
	Buckets  [HistogramBuckets]uint64
}

// Add records one observation of v (v >= 1; 0 is counted in the first
// bucket).
func (h *Histogram) Add(v uint64) {
	if h.N == 0 || v < h.Min {
		h.Min = v
	}
	if v > h.Max {
		h.Max = v
	}
	h.N++
	h.Sum += v
	h.Buckets[bucketOf(v)]++
}

// Mean returns the mean observed value, 0 without observations.
func (h *Histogram) Mean() float64 {
	if h.N == 0 {
		return 0
	}
	return float64(h.Sum) / float64(h.N)
}

// BucketRange returns the smallest and largest value counted in bucket i;
// hi is 0 for the last, open-ended bucket.
func BucketRange(i int) (lo, hi uint64) {
	switch {
	case i <= 0:
		return 1, 1
	case i >= HistogramBuckets-1:
		return 1<<(HistogramBuckets-2) + 1, 0
	}
	return 1<<(i-1) + 1, 1 << i
}

func bucketOf(v uint64) int {
	if v <= 1 {
		return 0
	}
	b := bits.Len64(v - 1) // 2 -> 1, 3..4 -> 2, 5..8 -> 3, ...
	if b > HistogramBuckets-1 {
		b = HistogramBuckets - 1
	}
	return b
}
