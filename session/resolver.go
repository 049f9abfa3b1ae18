package session

import (
	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// BatchSize is the number of items in a full [Batch]. A batch is the
// unit handed from the symbolizing goroutine to the consumer, so one
// channel operation is paid per BatchSize items; 256 resolved samples
// with their frames are about 1 MiB on the bench recording (92 frames
// per sample at most 127), and the batches in circulation stay a few
// MiB.
const BatchSize = 256

// Batch is a run of up to [BatchSize] consecutive items of a session:
// resolved samples and shown records, in the order Next yields them,
// each a copy that the batch owns (the frames and callchains in arenas
// of the batch, the stitched sample in the batch's own storage), so the
// symbolizer can go on while the batch is read, on any goroutine. A
// batch is recycled by [Batch.Release]; its items are valid until then.
//
// The copy of a sample leaves out the user stack copy (StackUser of
// --call-graph dwarf recordings), which symbolization has consumed.
type Batch struct {
	items  [BatchSize]resolved
	n      int
	frames []symbolize.Frame // the items' Frames, back to back
	chains []uint64          // the items' callchains, back to back

	// last marks the session's last batch and err is what ended it;
	// offset is the input offset reached, for the progress bar.
	last   bool
	err    error
	offset int64

	free chan<- *Batch // where Release puts it
}

// resolved is one item of a batch: a sample (ev, pointing at smp and
// sample) or a record (rec).
type resolved struct {
	isSample bool
	hidden   bool
	ev       symbolize.Event
	smp      stitch.Sample
	sample   decode.Sample
	rec      symbolize.Record
}

// Len returns the number of items in b.
func (b *Batch) Len() int { return b.n }

// Event returns item i if it is a sample, else nil.
func (b *Batch) Event(i int) *symbolize.Event {
	if it := &b.items[i]; it.isSample {
		return &it.ev
	}
	return nil
}

// Record returns item i if it is a record, else nil.
func (b *Batch) Record(i int) *symbolize.Record {
	if it := &b.items[i]; !it.isSample {
		return &it.rec
	}
	return nil
}

// Hidden reports whether item i is a sample a thread or symbol filter
// hides (see Options.CountHidden).
func (b *Batch) Hidden(i int) bool { return b.items[i].hidden }

// Release gives b back to its session for reuse; it may be called on
// any goroutine, once, when b's items are no longer read.
func (b *Batch) Release() {
	for i := range b.n {
		b.items[i].rec = symbolize.Record{} // no record kept alive
	}
	select {
	case b.free <- b:
	default: // a batch beyond the ones kept
	}
}

// reset empties b for filling.
func (b *Batch) reset() {
	b.n, b.last, b.err, b.offset = 0, false, nil, 0
	b.frames, b.chains = b.frames[:0], b.chains[:0]
}

// add copies the session's current item into b.
func (b *Batch) add(s *Session) {
	it := &b.items[b.n]
	b.n++
	it.isSample, it.hidden = s.isSample, s.hidden
	if !s.isSample {
		r := s.record()
		it.rec = *r // a record is a clone nobody changes (producer.fill)
		if r.Frames != nil {
			it.rec.Frames = b.appendFrames(r.Frames)
		}
		return
	}
	ev := s.event()
	src := ev.Sample.Sample
	cc, su := src.Callchain, src.StackUser
	// CopyTo without the chain, which lives in b.chains, and without
	// the stack copy.
	src.Callchain, src.StackUser = nil, nil
	src.CopyTo(&it.sample)
	src.Callchain, src.StackUser = cc, su
	if cc != nil {
		start := len(b.chains)
		b.chains = append(b.chains, cc...)
		it.sample.Callchain = b.chains[start:len(b.chains):len(b.chains)]
	}
	it.smp = *ev.Sample
	it.smp.Sample = &it.sample
	it.ev = *ev
	it.ev.Sample = &it.smp
	if fs := ev.Frames; len(fs) > 0 && cap(b.frames) > len(b.frames) && &fs[0] == &b.frames[:len(b.frames)+1][len(b.frames)] {
		// Resolved in place, into the arena's free tail (fill).
		b.frames = b.frames[:len(b.frames)+len(fs)]
		it.ev.Frames = fs[:len(fs):len(fs)]
	} else if fs != nil {
		it.ev.Frames = b.appendFrames(fs)
	}
}

// frameTail returns the free part of b's frame arena, for the
// symbolizer to resolve the next sample's frames into; add then takes
// them without a copy.
func (b *Batch) frameTail() []symbolize.Frame {
	if b.frames == nil {
		b.frames = make([]symbolize.Frame, 0, BatchSize*16)
	}
	return b.frames[len(b.frames):len(b.frames):cap(b.frames)]
}

// appendFrames copies fs into b's frame arena and returns the copy. When
// the arena grows, the items before keep the old array, which is not
// written again until the batch is reset.
func (b *Batch) appendFrames(fs []symbolize.Frame) []symbolize.Frame {
	start := len(b.frames)
	b.frames = append(b.frames, fs...)
	return b.frames[start:len(b.frames):len(b.frames)]
}

// resolver runs the session's symbolizing loop (Session.step: filters,
// process model, Resolve, time order) on a goroutine of its own, between
// the producer (decode and stitch) and the consumer, into recycled
// batches. The symbolizer stays on that one goroutine: it owns the
// process model, which side-band records change in order, and its
// caches. The goroutine is joined by the consumer at the last batch, or
// by stop.
type resolver struct {
	s    *Session
	out  chan *Batch // filled batches, in order
	free chan *Batch
	quit chan struct{} // closed by stop
	done chan struct{}

	// The consumer's side: the batch read by Next and its position, and
	// the error that ended the session.
	cur *Batch
	pos int
	err error
}

// newResolver makes the resolver of s with n batches in circulation.
func newResolver(s *Session, n int) *resolver {
	r := &resolver{
		s:    s,
		out:  make(chan *Batch, n),
		free: make(chan *Batch, n),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range n {
		r.free <- &Batch{free: r.free}
	}
	return r
}

func (r *resolver) run() {
	defer close(r.done)
	for {
		var b *Batch
		select {
		case b = <-r.free:
		case <-r.quit:
			return
		}
		r.s.fill(b)
		select {
		case r.out <- b:
		case <-r.quit:
			return
		}
		if b.last {
			return
		}
	}
}

// fill fills b with the session's next items, on the goroutine that runs
// the symbolizer.
func (s *Session) fill(b *Batch) {
	b.reset()
	for {
		s.ev.Frames = b.frameTail()
		s.arena = s.ev.Frames // for a held sample's frames (step)
		if b.n == BatchSize || !s.step() {
			break
		}
		b.add(s)
	}
	s.ev.Frames, s.arena = nil, nil // not the arena, which the consumer reads
	b.offset = s.offset
	if b.last = b.n < BatchSize; b.last {
		b.err = s.err
	}
}

// nextBatch returns the next filled batch, nil at the end (then r.err is
// what ended the session and the goroutine has finished). It calls the
// progress function on the consumer's goroutine.
func (r *resolver) nextBatch() *Batch {
	if r.out == nil {
		return nil
	}
	b := <-r.out
	if b.last {
		<-r.done
		r.out, r.err = nil, b.err
	}
	if b.offset > 0 && r.s.opts.Progress != nil {
		r.s.opts.Progress(b.offset)
	}
	return b
}

// next advances the consumer to the next item.
func (r *resolver) next() bool {
	for r.cur == nil || r.pos >= r.cur.n {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		if r.cur = r.nextBatch(); r.cur == nil {
			return false
		}
		r.pos = 0
	}
	r.pos++
	return true
}

// item returns the consumer's current item.
func (r *resolver) item() *resolved { return &r.cur.items[r.pos-1] }

// stop tells the goroutine to end; the session then stops the producer
// (for a goroutine waiting for its items) and waits for r.done.
func (r *resolver) stop() { close(r.quit) }
