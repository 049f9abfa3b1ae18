package output

import (
	"io"
	"maps"
	"math"
	"sync"

	"github.com/perfstitch/perfstitch/symbolize"
)

// Batch is a run of consecutive samples and records, in order, that
// may be read on another goroutine (a session.Batch): item i is a sample
// (Event non-nil) or a record. Release gives it back to its source once
// it is no longer read.
type Batch interface {
	Len() int
	Event(i int) *symbolize.Event
	Record(i int) *Record
	Release()
}

// forker is a sink whose formatting can run on several goroutines at
// once: fork returns a copy that formats into w, sharing nothing that
// changes (nil if the sink's output for a sample depends on the samples
// before it), and dest is the sink's own writer.
type forker interface {
	fork(w *asyncWriter) RecordSink
	dest() *asyncWriter
}

// Parallel formats batches of samples for a text or JSON sink on
// several worker goroutines, each into a buffer of its own (one per
// batch, recycled), and a writer goroutine writes the buffers to the
// sink's destination in batch order: the output is byte for byte the
// sink's. Batches in flight are bounded (two per worker, plus one), so
// a slow destination holds the session back. Flush joins the goroutines.
//
// A formatting error ends the output where the sink would have stopped:
// what the batch formatted before the failing item is written, then
// nothing more, and Add and Flush return the error, as they do the
// destination's first write error.
type Parallel struct {
	w    io.Writer
	own  *asyncWriter // the sink's writer, flushed first
	work chan *job
	done chan *job
	free chan *job
	seq  uint64

	workers sync.WaitGroup
	written chan struct{} // closed when the writer goroutine ends

	mu  sync.Mutex
	err error // the first formatting or write error
}

// job is one batch to format, its sequence number and its output.
type job struct {
	seq uint64
	b   Batch
	buf []byte
	err error // the formatting error that ended buf, if any
}

// NewParallel returns the parallel formatter of sink with the given
// number of workers, or nil if sink cannot format on several goroutines
// (sinks other than [Text] and [JSON]; --reltime and --deltatime, whose
// times depend on the samples before). Nothing may be added to sink
// itself until Flush returns.
func NewParallel(sink Sink, workers int) *Parallel {
	f, ok := sink.(forker)
	if !ok || workers < 1 {
		return nil
	}
	forks := make([]RecordSink, workers)
	bufs := make([]*asyncWriter, workers)
	for i := range forks {
		// A writer that never writes: its buffer grows to the batch.
		bufs[i] = &asyncWriter{size: math.MaxInt}
		if forks[i] = f.fork(bufs[i]); forks[i] == nil {
			return nil
		}
	}
	n := 2*workers + 1
	p := &Parallel{
		w:       f.dest().w,
		own:     f.dest(),
		work:    make(chan *job, n),
		done:    make(chan *job, n),
		free:    make(chan *job, n),
		written: make(chan struct{}),
	}
	for range n {
		p.free <- &job{}
	}
	for i := range forks {
		p.workers.Add(1)
		go p.format(forks[i], bufs[i])
	}
	go p.write(n)
	return p
}

// Add hands b to a worker; it waits while every buffer is in flight. An
// error is that of an earlier batch (b is then released unread).
func (p *Parallel) Add(b Batch) error {
	if err := p.failed(); err != nil {
		b.Release()
		return err
	}
	if p.seq == 0 {
		// Whatever the sink buffered before goes first.
		if err := p.own.Flush(); err != nil {
			b.Release()
			return err
		}
	}
	j := <-p.free
	j.seq, j.b = p.seq, b
	p.seq++
	p.work <- j
	return nil
}

// Flush waits until every batch added is formatted and written, ends
// the goroutines and returns the first error.
func (p *Parallel) Flush() error {
	close(p.work)
	p.workers.Wait()
	close(p.done)
	<-p.written
	return p.failed()
}

func (p *Parallel) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *Parallel) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

// format is a worker: it formats each batch with its own copy of the
// sink into the job's buffer, through w.
func (p *Parallel) format(sink RecordSink, w *asyncWriter) {
	defer p.workers.Done()
	for j := range p.work {
		w.cur, j.err = j.buf[:0], nil
		if p.failed() == nil { // nothing is written after an error
			for i := range j.b.Len() {
				var err error
				if ev := j.b.Event(i); ev != nil {
					err = sink.Add(ev)
				} else {
					err = sink.AddRecord(j.b.Record(i))
				}
				if err != nil {
					j.err = err
					break
				}
			}
		}
		j.buf, w.cur = w.cur, nil
		j.b.Release()
		j.b = nil
		p.done <- j
	}
}

// write is the writer: it writes the formatted batches in sequence
// order, n at most in flight, and recycles their jobs.
func (p *Parallel) write(n int) {
	defer close(p.written)
	pending := make([]*job, n)
	next := uint64(0)
	for j := range p.done {
		pending[j.seq%uint64(n)] = j
		for {
			k := next % uint64(n)
			j := pending[k]
			if j == nil || j.seq != next {
				break
			}
			pending[k] = nil
			next++
			if p.failed() == nil {
				if len(j.buf) > 0 {
					if _, err := p.w.Write(j.buf); err != nil {
						p.fail(err)
					}
				}
				if j.err != nil {
					p.fail(j.err)
				}
			}
			p.free <- j
		}
	}
}

// fork returns a copy of t that formats into w (forker); nil with
// --reltime or --deltatime, whose times depend on the records before.
func (t *Text) fork(w *asyncWriter) RecordSink {
	if t.opts.RelTime || t.opts.DeltaTime {
		return nil
	}
	return &Text{w: w, opts: t.opts, attrs: t.attrs, set: t.set.clone(), buf: make([]byte, 0, 4096)}
}

func (t *Text) dest() *asyncWriter { return t.w }

// fork returns a copy of j that formats into w (forker).
func (j *JSON) fork(w *asyncWriter) RecordSink {
	return &JSON{w: w, opts: j.opts, attrs: j.attrs, buf: make([]byte, 0, 4096)}
}

func (j *JSON) dest() *asyncWriter { return j.w }

// clone returns a copy of s whose caches are its own. The configs of
// the events known so far are resolved first, on the caller's
// goroutine, so every copy prints them alike (the event name column is
// as wide as the longest name known when the first is resolved).
func (s *eventSet) clone() eventSet {
	_ = s.checkAll() // an error is returned again by config, per sample
	c := *s
	c.byAttr, c.byType = maps.Clone(s.byAttr), maps.Clone(s.byType)
	return c
}
