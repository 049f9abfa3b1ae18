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
)

// held is a yielded item kept back to restore time order: a resolved
// sample with a copy of the stitched sample it points to, or a record.
// Held items are recycled with their storage.
type held struct {
	seq      uint64
	isSample bool
	hidden   bool
	ev       symbolize.Event
	smp      stitch.Sample
	buf      decode.Sample
	rec      symbolize.Record
	frames   []symbolize.Frame // storage of rec.Frames
}

// reorder is a min-heap of held items by source position.
type reorder struct {
	h    []*held
	free []*held
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
	h.rec = symbolize.Record{}
	h.ev.Sample = nil
	r.free = append(r.free, h)
}

// push adds h to the heap.
func (r *reorder) push(h *held) {
	r.h = append(r.h, h)
	i := len(r.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if r.h[p].seq <= h.seq {
			break
		}
		r.h[i] = r.h[p]
		i = p
	}
	r.h[i] = h
}

// pop removes and returns the item with the lowest source position if it
// is below low: nothing still to come can precede it.
func (r *reorder) pop(low uint64) *held {
	if len(r.h) == 0 || r.h[0].seq >= low {
		return nil
	}
	top := r.h[0]
	n := len(r.h) - 1
	last := r.h[n]
	r.h[n] = nil
	r.h = r.h[:n]
	if n > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			if c+1 < n && r.h[c+1].seq < r.h[c].seq {
				c++
			}
			if last.seq <= r.h[c].seq {
				break
			}
			r.h[i] = r.h[c]
			i = c
		}
		r.h[i] = last
	}
	return top
}

// holdSample keeps a copy of stitched sample smp, to be resolved into the
// returned item (so that its Event points to storage of its own).
func (r *reorder) holdSample(smp *stitch.Sample, seq uint64) *held {
	h := r.get()
	h.seq, h.isSample = seq, true
	smp.Sample.CopyTo(&h.buf)
	if n := len(h.buf.Callchain) + 8; cap(h.ev.Frames) < n {
		// Once, instead of growing while resolving: a new item is made
		// for each held item beyond the high-water mark.
		h.ev.Frames = make([]symbolize.Frame, 0, n)
	}
	h.smp = *smp
	h.smp.Sample = &h.buf
	return h
}

// holdRecord keeps a copy of record rec.
func (r *reorder) holdRecord(rec *symbolize.Record, seq uint64) *held {
	h := r.get()
	h.seq, h.isSample, h.hidden = seq, false, false
	h.frames = append(h.frames[:0], rec.Frames...)
	h.rec = symbolize.Record{Record: rec.Record.Clone(), Comm: rec.Comm, Frames: h.frames}
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
		n += int64(len(s.Callchain)+8) * int64(unsafe.Sizeof(symbolize.Frame{}))
	}
	return n
}
