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

// Default limits. DefaultQueueBytes keeps a whole run on a real 200 MB
// file without FINISHED_ROUND records under 128 MiB: the garbage
// collector lets the heap grow to about twice what is live, the queue
// included. It still holds seconds of a busy system-wide recording, far
// more than a round.
const (
	DefaultQueueBytes      = 24 << 20
	DefaultDecompressRatio = 200
	DefaultDecompressBytes = 16 << 30
)

// decompressSlack is allowed beyond the ratio, so that a small file's
// first frames are never refused.
const decompressSlack = 1 << 20

// qItemCost is the size of one item of the queue's arrays.
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

// queueFootprint is the memory the time-order queue holds: its arena's
// chunks in use, whether full or partly delivered, and the capacity of
// its item arrays. This, not the bytes of the records queued, is what the
// budget bounds: a chunk is freed only when its last record has been
// delivered. (Emptied chunks kept for reuse are not counted: they are
// filled again before any chunk is allocated, so chunks in use and free
// together stay within the budget too.)
func (rs *Records) queueFootprint() int64 {
	return int64(rs.arena.chunks-len(rs.arena.free))*chunkSize + int64(cap(rs.q.run)+cap(rs.q.h.a))*qItemCost
}

// queueUse is queueFootprint with the items counted instead of the
// arrays' capacity: what a drain gives back.
func (rs *Records) queueUse() int64 {
	return int64(rs.arena.chunks-len(rs.arena.free))*chunkSize + int64(rs.q.len())*qItemCost
}

// overBudget starts delivering the oldest queued records early when the
// queue passes its budget: down to half of it, as perf's ordered-events
// flushes half its queue when it runs out of memory.
func (rs *Records) overBudget(t RecordType) {
	limit := rs.f.Limits.queueBytes()
	if limit < 0 || rs.queueFootprint() <= limit {
		return
	}
	if rs.d.stats.QueueFlushes == 0 {
		rs.d.warn(&FormatError{Offset: rs.lastOff, Record: t, Err: fmt.Errorf(
			"time-order queue passed its budget of %d bytes (no FINISHED_ROUND in time): oldest records delivered early (--queue-limit)", limit)})
	}
	rs.d.stats.QueueFlushes++
	rs.drain = drain{on: true, bytes: limit / 2}
	rs.arena.maxFree = int(limit / 2 / chunkSize)
}

// outOfOrder counts a record queued with a time older than the last
// flush point (it is delivered late, at the next flush, as perf's
// ordered events deliver it). The count is reported in perf's own words
// at the end of the run ("N out of order events recorded.", cmd's
// perfWarnings) and in stats, so it is not warned of here as well.
func (rs *Records) outOfOrder() {
	rs.d.stats.OutOfOrder++
}

// untimedSample warns of a sample whose time is 0 or 2^64-1 in time
// order: as perf does, it is not queued but delivered as it is read, so
// out of time order.
func (rs *Records) untimedSample(s *Sample) {
	rs.d.stats.Untimed++
	rs.d.warn(&FormatError{Offset: s.Offset, Record: RecordTypeSample, Field: "time", Err: fmt.Errorf(
		"%d is no time: delivered as read, not in time order (as perf)", s.Time)})
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
