package decode

import (
	"fmt"
	"unsafe"
)

// Limits bound the memory and work one file can cost, so that a hostile
// or unusual input (no FINISHED_ROUND records, a decompression bomb) is
// cut short and reported instead of taking the machine's memory. The zero
// value means the defaults; a negative field means no limit.
type Limits struct {
	// QueueBytes is the time-order queue's memory budget: past it the
	// oldest queued records are delivered early, as perf's ordered-events
	// queue does past its own limit, and Stats.QueueFlushes counts it.
	// 0 means DefaultQueueBytes.
	QueueBytes int64
	// DecompressRatio bounds the decompressed bytes of COMPRESSED
	// records to this many times the compressed bytes read so far (plus
	// one MiB). 0 means DefaultDecompressRatio.
	DecompressRatio int64
	// DecompressBytes bounds the decompressed bytes absolutely. 0 means
	// DefaultDecompressBytes.
	DecompressBytes int64
}

// Default limits.
const (
	DefaultQueueBytes      = 64 << 20
	DefaultDecompressRatio = 200
	DefaultDecompressBytes = 16 << 30
)

// decompressSlack is allowed beyond the ratio, so that a small file's
// first frames are never refused.
const decompressSlack = 1 << 20

// qItemCost is what a queued record costs besides its bytes.
const qItemCost = int64(unsafe.Sizeof(qItem{}))

func pick(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

func (l Limits) queueBytes() int64      { return pick(l.QueueBytes, DefaultQueueBytes) }
func (l Limits) decompressRatio() int64 { return pick(l.DecompressRatio, DefaultDecompressRatio) }
func (l Limits) decompressBytes() int64 { return pick(l.DecompressBytes, DefaultDecompressBytes) }

// recordCost is what queueing a record of n bytes costs.
func recordCost(n int) int64 { return int64((n+7)&^7) + qItemCost }

// overBudget delivers the oldest queued records early when the queue
// passes its budget: down to half of it, as perf's ordered-events flushes
// half its queue when it runs out of memory.
func (rs *Records) overBudget() {
	limit := rs.f.Limits.queueBytes()
	if limit < 0 || rs.queueBytes <= limit {
		return
	}
	if rs.d.stats.QueueFlushes == 0 {
		rs.d.warn(&FormatError{Offset: rs.lastOff, Err: fmt.Errorf(
			"time-order queue passed its budget of %d bytes (no FINISHED_ROUND in time): oldest records delivered early (--queue-limit)", limit)})
	}
	rs.d.stats.QueueFlushes++
	for rs.q.len() > 0 && rs.queueBytes > limit/2 {
		it := rs.q.pop()
		rs.queueBytes -= recordCost(int(it.n))
		rs.ready = append(rs.ready, it)
		rs.lastFlush = it.time
	}
	// Later rounds release up to the newest time seen before this flush.
	if rs.nextFlush < rs.lastFlush {
		rs.nextFlush = rs.lastFlush
	}
}

// decompressLimit is the most decompressed bytes allowed after in
// compressed bytes.
func (z *zstream) decompressLimit() int64 {
	l := z.rs.f.Limits
	limit := int64(-1)
	if r := l.decompressRatio(); r >= 0 {
		limit = r*z.inTotal + decompressSlack
	}
	if a := l.decompressBytes(); a >= 0 && (limit < 0 || a < limit) {
		limit = a
	}
	return limit
}

// maxIDs bounds the sample ids of all events of a file: perf writes one
// per event and CPU (thousands), and each costs about 48 bytes here (the
// array and the lookup map), so 2^20 of them stay within the default
// 64 MiB budget. Ids beyond it are dropped with a warning; records
// carrying them count as unknown ids.
const maxIDs = 1 << 20

func (d *decoder) idsLeft() uint64 {
	if d.nids >= maxIDs {
		return 0
	}
	return maxIDs - d.nids
}

func (d *decoder) warnIDs(off int64, have, kept uint64) {
	rt := RecordType(0)
	if off < 0 {
		off, rt = 0, RecordTypeHeaderAttr
	}
	d.warn(&FormatError{Offset: off, Record: rt, Field: "attr.ids", Err: fmt.Errorf(
		"%d sample ids, more than the %d all events may have: %d kept", have, maxIDs, kept)})
}
