// Package session runs a recording through the pipeline, which is its
// one job: it opens the input (a perf.data file, or a pipe-mode stream),
// decodes it in time order and stitches the deferred user callchains back
// on (on a producer goroutine), keeps the process model
// current, symbolizes the samples that perf's filters keep and yields
// them, with the side-band records asked for, to whatever consumes them
// (the output package's sinks, in perfstitch).
//
// A session is a cursor like the stages under it:
//
//	s, err := session.Open(ctx, session.Options{Input: "perf.data"})
//	if err != nil { … }
//	defer s.Close()
//	for s.Next() {
//		if ev := s.Event(); ev != nil { … } else { r := s.Record(); … }
//	}
//	if err := s.Err(); err != nil { … }
package session

import (
	"context"
	"io"
	"runtime"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// checkEvery is how many stitched items pass between context checks and
// progress reports.
const checkEvery = 4096

// Options configure a [Session].
type Options struct {
	// Input is the recording's path; "-" reads a pipe-mode stream from
	// Stdin. "" is perf.data, or the stream on Stdin when Stdin is a
	// named pipe (as perf: `perf record -o - | perfstitch script`).
	Input string
	// Stdin is the standard input, for Input "-" or "".
	Stdin io.Reader

	// Symbolize configures the symbolizer; Open sets its Meta to the
	// recording's.
	Symbolize symbolize.Options
	// Stitch configures the stitcher; Open sets its Order from Ordering.
	Stitch stitch.Options
	// Ordering is where deferred samples are yielded: in time order (the
	// zero value) or where perf 7.3.4 prints them.
	Ordering Ordering
	// FileOrder delivers the records in file order, as perf does when its
	// ordered-events queue is off (perf script --show-round-events), with
	// the FINISHED_ROUND records among them; deferred samples come where
	// perf 7.3.4 prints them (Ordering is then AsPerf).
	FileOrder bool
	// Decode bounds the decoder's memory and work (decode.Limits).
	Decode decode.Limits
	// Filter selects the samples Next yields.
	Filter Filter

	// Show lists the types of the records Next yields besides samples
	// (each after the process model has seen it, except EXIT, which perf
	// shows first). A CALLCHAIN_DEFERRED record is shown only if the
	// filters keep it as they would a sample of its thread, with its user
	// frames resolved.
	Show []decode.RecordType

	// CountHidden makes Next also yield the samples that the thread and
	// symbol filters (PIDs, TIDs, Comms, DSOs, Symbols) hide, with
	// [Session.Hidden] reporting them: perf report counts them in its
	// totals (the header and the percentages) without showing them. The
	// CPUs, Time and Event filters drop samples outright, as in perf.
	CountHidden bool

	// Raw, if set, is called with every record the decoder delivers, in
	// the order perf delivers them (time order; perf-tool records where
	// they are read), with its bytes as in the file (decode.Records.Raw),
	// before the items made from it are yielded: perf's -D dump. The
	// session then decodes and stitches on the caller's goroutine, and
	// yields in perf's order (Ordering AsPerf), so that the calls and
	// Next's items interleave as perf prints them.
	Raw func(r decode.Record, raw []byte)

	// Progress, if set, is called on the caller's goroutine every few
	// thousand items with the input offset reached (see [Session.Size]).
	Progress func(offset int64)

	// Jobs is how many goroutines the run may keep busy; 0 means
	// GOMAXPROCS. With 1, or for a pipe-mode stream, symbolization runs
	// on the caller's goroutine, in Next. With 2 or more it runs on a
	// goroutine of its own (the symbolizer's state is never shared),
	// 2*Jobs+2 batches of [BatchSize] items ahead of the caller at most,
	// and Next hands out copies from them ([Batch]); so do NextBatch's
	// batches, which other goroutines may read (the formatting workers
	// of perfstitch script). Either way the items are the same and in
	// the same order. Decode and stitch run on the producer goroutine in
	// both cases.
	Jobs int
}

// maxBatches bounds the number of batches in circulation.
const maxBatches = 34

// Session is one run of a recording through decode, stitch and
// symbolize. Next yields, in time order (or perf's, see Options.Ordering), every sample that passes the
// filters (resolved, as a *symbolize.Event) and the records asked for
// with Options.Show (as a *symbolize.Record); everything else only updates the
// process model. A Session is not safe for concurrent use.
type Session struct {
	ctx    context.Context
	opts   Options
	file   *decode.File
	size   int64
	recs   *decode.Records
	st     *stitch.Stitcher
	sym    *symbolize.Symbolizer
	filter filter
	show   map[decode.RecordType]bool

	ev       symbolize.Event
	rec      symbolize.Record
	deferred []symbolize.Frame // storage of rec.Frames
	isSample bool
	hidden   bool
	n        int
	err      error
	stopped  bool // the context ended the iteration

	// ByTime: the items held back until nothing earlier can come (the
	// stitcher's low mark), and the one yielded from there.
	ro    reorder
	low   uint64
	ended bool
	cur   *held
	// arena is fill's batch's free frame space, where step gives a held
	// sample its frames back (nil outside fill).
	arena []symbolize.Frame

	// Decode and stitch run in a producer goroutine that hands copies
	// of their items over in batches (see producer).
	prod *producer

	// Concurrent sessions (Options.Jobs): symbolization runs in step on
	// the resolver's goroutine, and offset is the input offset reached,
	// which the consumer reports.
	res    *resolver
	offset int64

	// NextBatch's recycled batches in a session that is not concurrent.
	batches      chan *Batch
	batchesEnded bool
}

// Open opens the input opts names and sets up stitching and
// symbolization; decoding starts with the first call to Next, and stops
// when ctx is done. The caller must Close the session.
func Open(ctx context.Context, opts Options) (*Session, error) {
	f, size, err := openInput(opts.Input, opts.Stdin)
	if err != nil {
		return nil, err
	}
	s := &Session{ctx: ctx, opts: opts, file: f, size: size, show: map[decode.RecordType]bool{}, batches: make(chan *Batch, 2)}
	if err := s.setup(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) setup() error {
	f := s.file
	fl, err := newFilter(s.opts.Filter, f)
	if err != nil {
		return err
	}
	s.filter = fl
	for _, t := range s.opts.Show {
		s.show[t] = true
	}
	so := s.opts.Symbolize
	so.Meta = &f.Meta
	sym, err := symbolize.New(so)
	if err != nil {
		return err
	}
	s.sym = sym
	if s.opts.Raw != nil {
		s.opts.Ordering = AsPerf
	} else {
		s.prod = newProducer(s.ctx, f) // before Records: it hooks the decoder
	}
	f.Limits = s.opts.Decode
	order := decode.TimeOrder
	if s.opts.FileOrder {
		order = decode.FileOrder
		s.opts.Ordering = AsPerf
	}
	s.recs = f.Records(order)
	stOpts := s.opts.Stitch
	stOpts.Order = stitch.ArrivalOrder
	if s.opts.Ordering == AsPerf {
		stOpts.Order = stitch.PerfOrder
	}
	if stOpts.ItemBytes == nil {
		stOpts.ItemBytes = heldBytes
	}
	if s.opts.Raw != nil {
		s.st = stitch.New(&rawTap{rs: s.recs, fn: s.opts.Raw}, stOpts)
		return nil
	}
	s.st = stitch.New(s.recs, stOpts)
	s.prod.start(s.st)
	jobs := s.opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	// In pipe mode the decoder changes the attrs while it reads (see
	// producer.quiesce), which only a consumer on the symbolizer's
	// goroutine is sure to have finished with.
	if jobs > 1 && !f.Header.Pipe {
		s.res = newResolver(s, min(2*jobs+2, maxBatches))
		go s.res.run()
	}
	return nil
}

// Concurrent reports whether symbolization runs on a goroutine of its
// own (Options.Jobs), so that batches from NextBatch may be read on
// other goroutines while the session goes on.
func (s *Session) Concurrent() bool { return s.res != nil }

// Next advances to the next sample or shown record; see [Session.step].
// A session is read either by Next or by NextBatch, not both.
func (s *Session) Next() bool {
	if s.res != nil {
		return s.res.next()
	}
	return s.step()
}

// NextBatch returns the next run of items (samples and shown records, as
// Next yields them one by one), or nil at the end (then Err says why).
// The caller gives each batch back with [Batch.Release]; a batch of a
// [Session.Concurrent] session may be read, and released, on any
// goroutine while the session goes on, and holding batches holds the
// session back. In a session that is not concurrent the batch is filled
// on the caller's goroutine, and it must be released before the next
// call.
func (s *Session) NextBatch() *Batch {
	if s.res != nil {
		return s.res.nextBatch()
	}
	if s.batchesEnded {
		return nil
	}
	var b *Batch
	select {
	case b = <-s.batches:
	default:
		b = &Batch{free: s.batches}
	}
	s.fill(b)
	s.batchesEnded = b.last
	if b.n == 0 {
		b.Release()
		return nil
	}
	return b
}

// step advances to the next sample or shown record, running the
// symbolizer.
//
// The stitcher delivers a completed deferred sample when its record
// arrives (stitch.ArrivalOrder or PerfOrder), and the sample is resolved
// then, with the process model of that moment, as perf resolves it. By
// time (Options.Ordering), the items that must follow a sample still
// waiting in the stitcher are held, resolved, until it comes.
func (s *Session) step() bool {
	if s.cur != nil {
		s.ro.put(s.cur)
		s.cur = nil
	}
	for {
		if h := s.ro.pop(s.low); h != nil {
			s.ro.restore(h, s.arena)
			s.cur, s.isSample, s.hidden = h, h.isSample, h.hidden
			return true
		}
		if s.stopped || s.ended {
			return false
		}
		e, ok := s.next()
		if !ok {
			// Whatever ended the input, the held items go out first.
			s.ended, s.low = true, ^uint64(0)
			continue
		}
		if s.n++; s.n%checkEvery == 0 {
			if err := s.ctx.Err(); err != nil {
				s.err, s.stopped = err, true
				return false
			}
			s.progress(e)
		}
		s.low = e.Low
		direct := s.opts.Ordering != ByTime || (s.ro.len() == 0 && e.Seq < e.Low)
		if e.Sample != nil {
			c := &e.Sample.Sample.RecordCommon
			if !s.filter.keepSample(c) {
				continue
			}
			hidden := !s.filter.keepThread(c)
			if hidden && !s.opts.CountHidden {
				continue
			}
			ev := &s.ev
			s.sym.Resolve(e.Sample, ev)
			if !s.filter.keepResolved(ev) {
				if !s.opts.CountHidden {
					continue
				}
				hidden = true
			}
			if !direct {
				h := s.ro.holdSample(ev, e.Seq)
				h.hidden = hidden
				s.ro.push(h)
				continue
			}
			s.isSample, s.hidden = true, hidden
			return true
		}
		if s.yieldRecord(e.Record) {
			if !direct {
				s.ro.push(s.ro.holdRecord(&s.rec, e.Seq))
				continue
			}
			s.isSample = false
			return true
		}
	}
}

// yieldRecord feeds r to the process model and reports whether it is to
// be shown; then s.rec holds it.
func (s *Session) yieldRecord(r decode.Record) bool {
	typ := r.Type()
	if !s.show[typ] || !s.filter.keepCPU(r.Common().CPU) {
		s.sym.Observe(r)
		return false
	}
	c := r.Common()
	s.rec = symbolize.Record{Record: r}
	switch rr := r.(type) {
	case *decode.Exit:
		s.rec.Comm = s.sym.Comm(c.PID, c.TID) // perf prints EXIT before processing it
		s.sym.Observe(r)
	case *decode.Lost:
		s.sym.Observe(r)
		s.rec.Comm = s.sym.Comm(c.TrailerPID, c.TrailerTID)
	case *decode.CallchainDeferred:
		// perf 6.19 filters the record like a sample of its thread.
		s.rec.Comm = s.sym.Comm(c.PID, c.TID)
		if !s.filter.keepSample(c) || !s.filter.keepThread(c) || !s.filter.keepComm(s.rec.Comm) {
			return false
		}
		s.deferred = s.sym.ResolveDeferred(s.deferred[:0], rr)
		s.rec.Frames = s.deferred
	case *decode.TextPoke:
		// perf script prints the poked address's kernel symbol.
		s.sym.Observe(r)
		s.rec.Comm = s.sym.Comm(c.PID, c.TID)
		s.deferred = append(s.deferred[:0], symbolize.Frame{})
		s.sym.ResolveKernel(&s.deferred[0], rr.Addr)
		s.rec.Frames = s.deferred
	default:
		s.sym.Observe(r)
		s.rec.Comm = s.sym.Comm(c.PID, c.TID)
	}
	return true
}

// Hidden reports whether the current sample is one a thread or symbol
// filter hides (see Options.CountHidden).
func (s *Session) Hidden() bool {
	if s.res != nil {
		return s.res.cur != nil && s.res.item().hidden
	}
	return s.hidden
}

// Event returns the current sample, or nil if the current item is a
// record. It is valid until the next call to Next.
func (s *Session) Event() *symbolize.Event {
	if s.res != nil {
		if s.res.cur == nil {
			return nil
		}
		return s.res.cur.Event(s.res.pos - 1)
	}
	if !s.isSample {
		return nil
	}
	return s.event()
}

// event returns step's current sample.
func (s *Session) event() *symbolize.Event {
	if s.cur != nil {
		return &s.cur.ev
	}
	return &s.ev
}

// Record returns the current record, or nil if the current item is a
// sample. It is valid until the next call to Next.
func (s *Session) Record() *symbolize.Record {
	if s.res != nil {
		if s.res.cur == nil {
			return nil
		}
		return s.res.cur.Record(s.res.pos - 1)
	}
	if s.isSample {
		return nil
	}
	return s.record()
}

// record returns step's current record.
func (s *Session) record() *symbolize.Record {
	if s.cur != nil {
		return &s.cur.rec.rec
	}
	return &s.rec
}

// Err returns the error that ended the iteration.
func (s *Session) Err() error {
	if s.res != nil {
		return s.res.err
	}
	return s.err
}

// File returns the open recording (attrs, header, feature data).
func (s *Session) File() *decode.File { return s.file }

// Size returns the size of the input file, or -1 for a stream.
func (s *Session) Size() int64 { return s.size }

// Attrs returns the recording's events so far (pipe mode adds to them).
func (s *Session) Attrs() []*decode.EventAttr { return s.file.Attrs }

// ThreadComm returns the command thread tid has in the process model so
// far: at the end of the input, its last one. In a concurrent session
// (Options.Jobs) call it only once Next has returned false: the model
// belongs to the symbolizer's goroutine until then.
func (s *Session) ThreadComm(tid int32) string { return s.sym.Comm(-1, tid) }

// DecodeStats returns the decoder's counts; call it once Next has
// returned false (decode may run on another goroutine until then).
func (s *Session) DecodeStats() *decode.Stats { return s.recs.Stats() }

// StitchStats returns the stitcher's counts; call it once Next has
// returned false.
func (s *Session) StitchStats() *stitch.Stats { return s.st.Stats() }

// Symbolizer returns the symbolizer (for its diagnostics). In a
// concurrent session it runs on a goroutine of its own until Next has
// returned false; a consumer that asks it about a sample as the sample
// comes (source lines, mapping sizes) needs Options.Jobs 1.
func (s *Session) Symbolizer() *symbolize.Symbolizer { return s.sym }

// Close stops the goroutines and closes the input.
func (s *Session) Close() error {
	if s.res != nil {
		s.res.stop()
	}
	if s.prod != nil {
		s.prod.stop()
	}
	if s.res != nil {
		<-s.res.done
	}
	return s.file.Close()
}

// next returns the next stitched item from the producer; at the end it
// sets s.err.
func (s *Session) next() (stitch.Event, bool) {
	if s.prod == nil { // Options.Raw: on this goroutine
		if s.st.Next() {
			return s.st.Event(), true
		}
		s.err = s.st.Err()
		return stitch.Event{}, false
	}
	e, ok, err := s.prod.next()
	if !ok {
		s.err = err
	}
	return e, ok
}

func (s *Session) progress(e stitch.Event) {
	if s.opts.Progress == nil {
		return
	}
	var off int64
	if e.Sample != nil {
		off = e.Sample.Offset
	} else if e.Record != nil {
		off = e.Record.Common().Offset
	}
	if off > 0 {
		if s.res != nil {
			s.offset = off // the consumer reports it (resolver.nextBatch)
			return
		}
		s.opts.Progress(off)
	}
}

var _ io.Closer = (*Session)(nil)
