package session

import (
	"unsafe"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// Ordering is where a [Session] yields the deferred samples the stitcher
// completes.
type Ordering uint8

// Orderings.
const (
	// ByTime yields every sample in sample time order (the zero value).
	// The samples are still resolved where perf resolves them, with the
	// process model (comm, maps) of the time their CALLCHAIN_DEFERRED
	// record arrives; a bounded reorder stage then puts them back in
	// place. A thread's exit releases its waiting samples (perf holds
	// them to the end of the input).
	ByTime Ordering = iota
	// AsPerf yields them where perf 7.3.4's perf script prints them: a
	// merged sample at its record, the samples whose record never came at
	// the end of the input (stitch.PerfOrder).
	AsPerf
	// AsArrived yields each sample as ByTime resolves it, when its record
	// arrives (and the waiting samples of an exiting thread at its exit),
	// without putting it back in time order: for consumers whose result
	// does not depend on the order of the samples (perfstitch stats'
	// counts), which then hold nothing back.
	AsArrived
)

// held is a yielded item kept back to restore time order: a resolved
// sample with a copy of the stitched sample it points to, or a record.
// Held items are recycled with their storage.
type held struct {
	seq      uint64
	isSample bool
	hidden   bool
	ev       symbolize.Event // its IP and Frames only once yielded (restore)
	smp      stitch.Sample
	buf      decode.Sample
	rec      *heldRecord // a record's, kept with the item once made
	// A sample's IP and frames while it is held: indexes into table ep.
	ep   *frameEpoch
	refs []uint32
}

// heldRecord is a held record (rare, so kept out of held).
type heldRecord struct {
	rec    symbolize.Record
	frames []symbolize.Frame // storage of rec.Frames
}

// reorder holds the held items by source position, in a ring indexed by
// position: the items come nearly in order (a late sample just below the
// others), and a source position is never below the low mark of an item
// that came before it, so the ring spans only the positions from that
// mark on, and push and pop cost O(1).
type reorder struct {
	ring []*held // by seq modulo its (power of two) length
	base uint64  // no item has a lower position
	hi   uint64  // no item has this position or a higher one
	n    int     // items in the ring
	free []*held

	frames frameStore
}

// heldChunk is how many held items are allocated at once.
const heldChunk = 32

// get returns a recycled (or new) held item.
func (r *reorder) get() *held {
	if len(r.free) == 0 {
		chunk := make([]held, heldChunk)
		for i := range chunk {
			r.free = append(r.free, &chunk[i])
		}
	}
	n := len(r.free)
	h := r.free[n-1]
	r.free = r.free[:n-1]
	return h
}

// put recycles h, keeping its storage.
func (r *reorder) put(h *held) {
	if h.rec != nil {
		h.rec.rec = symbolize.Record{}
	}
	h.ev = symbolize.Event{}
	if h.ep != nil {
		r.frames.release(h.ep)
		h.ep = nil
	}
	r.free = append(r.free, h)
}

// len returns the number of items held.
func (r *reorder) len() int { return r.n }

// push adds h; its position is at least the low mark last passed to pop.
func (r *reorder) push(h *held) {
	if r.n == 0 || h.seq >= r.hi {
		r.hi = h.seq + 1
	}
	r.base = min(r.base, h.seq) // a no-op but for a broken low mark
	if r.hi-r.base > uint64(len(r.ring)) {
		r.regrow(r.hi - r.base)
	}
	r.ring[h.seq&uint64(len(r.ring)-1)] = h
	r.n++
}

// regrow makes the ring hold at least span positions from base on,
// placing the items again.
func (r *reorder) regrow(span uint64) {
	size := max(1024, len(r.ring))
	for uint64(size) < span {
		size *= 2
	}
	old := r.ring
	r.ring = make([]*held, size)
	for _, h := range old {
		if h != nil {
			r.ring[h.seq&uint64(size-1)] = h
		}
	}
}

// pop removes and returns the item with the lowest source position if it
// is below low: nothing still to come can precede it.
func (r *reorder) pop(low uint64) *held {
	for r.n > 0 && r.base < low {
		i := r.base & uint64(len(r.ring)-1)
		r.base++
		if h := r.ring[i]; h != nil {
			r.ring[i] = nil
			r.n--
			return h
		}
	}
	if r.n == 0 && low > r.base && low != ^uint64(0) {
		r.base = low
	}
	return nil
}

// holdSample keeps a copy of resolved sample ev, its frames as indexes
// into the frame tables (restore gives them back).
func (r *reorder) holdSample(ev *symbolize.Event, seq uint64) *held {
	h := r.get()
	h.seq, h.isSample = seq, true
	ev.Sample.Sample.CopyTo(&h.buf)
	h.smp = *ev.Sample
	h.smp.Sample = &h.buf
	h.ev = *ev
	h.ev.Sample, h.ev.IP, h.ev.Frames = &h.smp, symbolize.Frame{}, nil
	h.ep, h.refs = r.frames.compact(&ev.IP, ev.Frames, h.refs[:0])
	return h
}

// restore gives held sample h, about to be yielded, its IP and frames
// back: appended to dst[:0] (a batch's free frame space), or with dst
// nil in storage valid until the next restore.
func (r *reorder) restore(h *held, dst []symbolize.Frame) {
	if h.isSample {
		h.ev.IP, h.ev.Frames = r.frames.expand(h.ep, h.refs, dst)
	}
}

// holdRecord keeps a copy of record rec.
func (r *reorder) holdRecord(rec *symbolize.Record, seq uint64) *held {
	h := r.get()
	h.seq, h.isSample, h.hidden = seq, false, false
	if h.rec == nil {
		h.rec = new(heldRecord)
	}
	hr := h.rec
	hr.frames = append(hr.frames[:0], rec.Frames...)
	hr.rec = symbolize.Record{Record: rec.Record.Clone(), Comm: rec.Comm, Frames: hr.frames}
	return h
}

// heldBytes estimates what holding record r back costs the reorder stage
// (stitch.Options.ItemBytes, for MaxPendingBytes): a held item, the copy
// of the record and, for a sample, the frames it is resolved into.
func heldBytes(r decode.Record) int64 {
	n := int64(unsafe.Sizeof(held{}))
	if c := r.Common(); c != nil {
		n += int64(c.Size)
	}
	if s, ok := r.(*decode.Sample); ok {
		// Held frames are 4-byte indexes into tables of distinct
		// frames (heldframes.go); a new distinct frame is counted as
		// one in 16 entries.
		n += int64(len(s.Callchain)+1) * (4 + int64(unsafe.Sizeof(symbolize.Frame{}))/16)
	}
	return n
}
