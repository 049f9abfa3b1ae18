package session

import (
	"context"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// batchSize is the number of stitched items per hand-over. Decode is
// bursty (a round is parsed, then released at once), so the hand-over
// needs depth: 3 batches of 2048 ran /tmp/pb in 0.45 s where 3 of 512
// took 0.57 s (1024 x 6 was as good, 128 and 8192 worse).
const batchSize = 2048

// numBatches is the number of batches in circulation.
const numBatches = 3

// producer runs decode and stitch on its own goroutine, so that they
// overlap with symbolization and formatting on the caller's. Items are
// copied into recycled batches (the stitcher reuses its storage); a batch
// goes back to the producer when the consumer moves past it, so every
// item stays valid until the next call of next, as the stitcher's own
// items do. The goroutine is bound to a context and joined by stop.
//
// In pipe mode the decoder changes the recording's state (events, their
// names and ids, feature data) as it reads, and the consumer reads that
// state while it processes items. quiesce, which the decoder calls just
// before each change, hands over the items stitched so far and waits
// until the consumer is through with all of them; the consumer reads the
// state only between calls of next, so it is then blocked in next, and
// every item is processed with the state it had when the stitcher
// delivered it, as on one goroutine.
type producer struct {
	st      *stitch.Stitcher
	ctx     context.Context
	batches chan *batch
	free    chan *batch
	done    chan struct{}
	quit    chan struct{} // closed by stop
	cancel  context.CancelFunc

	filling *batch // the batch the producer fills; nil once sent

	// The consumer's side.
	cur *batch
	pos int
}

// batch is a run of stitched items. last marks the last batch, and err
// is what ended the stitcher.
type batch struct {
	items [batchSize]item
	n     int
	last  bool
	err   error
	// chains holds the callchains of the batch's samples back to back,
	// so that the consumer reads them as one sequential stream (one
	// allocation per item made it miss the cache on every sample).
	chains []uint64
	// ends holds the end of each sample's chain in chains, until seal.
	ends [batchSize]int32
}

// item is one stitched item: a sample (stored in sample) or a record.
type item struct {
	smp      stitch.Sample
	sample   decode.Sample
	rec      decode.Record
	seq, low uint64
}

// newProducer makes the producer of f's records, to be started with
// the stitcher of them; it must be called before f's Records.
func newProducer(ctx context.Context, f *decode.File) *producer {
	ctx, cancel := context.WithCancel(ctx)
	pr := &producer{
		ctx:     ctx,
		batches: make(chan *batch, numBatches-1),
		free:    make(chan *batch, numBatches),
		done:    make(chan struct{}),
		quit:    make(chan struct{}),
		cancel:  cancel,
	}
	for range numBatches {
		pr.free <- &batch{}
	}
	f.BeforeApply(pr.quiesce)
	return pr
}

// start starts reading st on a goroutine.
func (pr *producer) start(st *stitch.Stitcher) {
	pr.st = st
	go pr.run()
}

func (pr *producer) run() {
	defer close(pr.done)
	defer close(pr.batches)
	for {
		if pr.filling == nil {
			select {
			case pr.filling = <-pr.free:
				pr.filling.reset()
			case <-pr.ctx.Done():
				return
			}
		}
		pr.fill()
		b := pr.filling
		if b == nil {
			return
		}
		b.last = b.n < batchSize
		if b.last {
			b.err = pr.st.Err()
		}
		if !pr.send() || b.last {
			return
		}
	}
}

// send seals the batch being filled and hands it to the consumer (then
// none is being filled); it reports false if the context ended first.
func (pr *producer) send() bool {
	b := pr.filling
	b.seal()
	select {
	case pr.batches <- b:
		pr.filling = nil
		return true
	case <-pr.ctx.Done():
		return false
	}
}

// fill copies items of the stitcher into the batch being filled until it
// is full or the stitcher ends. The batch may change under it, in
// quiesce, which st.Next can call; if quiesce leaves none, fill stops.
func (pr *producer) fill() {
	for pr.filling.n < batchSize && pr.st.Next() {
		b := pr.filling
		if b == nil {
			return
		}
		e := pr.st.Event()
		it := &b.items[b.n]
		it.seq, it.low = e.Seq, e.Low
		if e.Sample != nil {
			src := e.Sample.Sample
			cc := src.Callchain
			b.chains = append(b.chains, cc...)
			// CopyTo without the chain, which lives in b.chains.
			src.Callchain = nil
			src.CopyTo(&it.sample)
			src.Callchain = cc
			it.smp = *e.Sample
			it.smp.Sample = &it.sample
			it.rec = nil
		} else {
			it.rec = e.Record.Clone()
		}
		b.ends[b.n] = int32(len(b.chains))
		b.n++
	}
}

// quiesce is the decoder's BeforeApply function: it hands over the
// items filled so far and waits until the consumer has given back every
// batch, and so is through with every item, then takes a fresh batch to
// fill. It runs on the producer's goroutine, inside st.Next in fill.
// Once the context has ended it still waits, for the batches or for stop
// (the consumer may be reading the state the decoder is about to change
// until it gives its batch back), and then leaves no batch to fill, which
// ends the goroutine.
func (pr *producer) quiesce(decode.Record) {
	if pr.filling.n > 0 {
		pr.send()
	}
	var got []*batch
	if pr.filling != nil {
		got = append(got, pr.filling)
	}
	for len(got) < numBatches {
		select {
		case b := <-pr.free:
			got = append(got, b)
		case <-pr.quit:
			pr.filling = nil
			return
		}
	}
	pr.filling = nil
	if pr.ctx.Err() != nil {
		return
	}
	pr.filling = got[0]
	pr.filling.reset()
	for _, b := range got[1:] {
		pr.free <- b
	}
}

// reset empties b for filling.
func (b *batch) reset() {
	b.n, b.last, b.err = 0, false, nil
	b.chains = b.chains[:0]
}

// seal points the batch's samples at their callchains in b.chains, which
// may have moved while growing.
func (b *batch) seal() {
	start := int32(0)
	for i := range b.n {
		it := &b.items[i]
		if it.rec == nil {
			if end := b.ends[i]; end > start {
				it.sample.Callchain = b.chains[start:end:end]
			}
		}
		start = b.ends[i]
	}
}

// next returns the next item; at the end ok is false and err is what
// ended the stitcher (or the context's error), and the goroutine has
// finished.
func (pr *producer) next() (e stitch.Event, ok bool, err error) {
	for pr.cur == nil || pr.pos >= pr.cur.n {
		if pr.cur != nil {
			last := pr.cur.last
			err = pr.cur.err
			pr.free <- pr.cur
			pr.cur = nil
			if last {
				<-pr.done
				return stitch.Event{}, false, err
			}
		}
		b, open := <-pr.batches
		if !open {
			<-pr.done
			return stitch.Event{}, false, context.Canceled
		}
		pr.cur, pr.pos = b, 0
	}
	it := &pr.cur.items[pr.pos]
	pr.pos++
	if it.rec != nil {
		return stitch.Event{Record: it.rec, Seq: it.seq, Low: it.low}, true, nil
	}
	return stitch.Event{Sample: &it.smp, Seq: it.seq, Low: it.low}, true, nil
}

// stop cancels the goroutine and waits for it.
func (pr *producer) stop() {
	close(pr.quit)
	pr.cancel()
	for range pr.batches {
	}
	<-pr.done
}
