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
type producer struct {
	st      *stitch.Stitcher
	batches chan *batch
	free    chan *batch
	done    chan struct{}
	cancel  context.CancelFunc

	cur *batch
	pos int
}

// batch is a run of stitched items; a batch shorter than batchSize is
// the last one, and err is what ended the stitcher.
type batch struct {
	items [batchSize]item
	n     int
	err   error
	// chains holds the callchains of the batch's samples back to back,
	// so that the consumer reads them as one sequential stream (one
	// allocation per item made it miss the cache on every sample).
	chains []uint64
}

// item is one stitched item: a sample (stored in sample) or a record.
type item struct {
	smp      stitch.Sample
	sample   decode.Sample
	rec      decode.Record
	seq, low uint64
}

// startProducer starts reading st on a goroutine.
func startProducer(ctx context.Context, st *stitch.Stitcher) *producer {
	ctx, cancel := context.WithCancel(ctx)
	pr := &producer{
		st:      st,
		batches: make(chan *batch, numBatches-1),
		free:    make(chan *batch, numBatches),
		done:    make(chan struct{}),
		cancel:  cancel,
	}
	for range numBatches {
		pr.free <- &batch{}
	}
	go pr.run(ctx)
	return pr
}

func (pr *producer) run(ctx context.Context) {
	defer close(pr.done)
	defer close(pr.batches)
	for {
		var b *batch
		select {
		case b = <-pr.free:
		case <-ctx.Done():
			return
		}
		b.fill(pr.st)
		last := b.n < batchSize
		if last {
			b.err = pr.st.Err()
		}
		select {
		case pr.batches <- b:
		case <-ctx.Done():
			return
		}
		if last {
			return
		}
	}
}

// fill copies up to batchSize items of st into b.
func (b *batch) fill(st *stitch.Stitcher) {
	b.n, b.err = 0, nil
	b.chains = b.chains[:0]
	var ends [batchSize]int32 // end of each sample's chain in b.chains
	for b.n < batchSize && st.Next() {
		e := st.Event()
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
		ends[b.n] = int32(len(b.chains))
		b.n++
	}
	// b.chains may have moved while growing: slice it only now.
	start := int32(0)
	for i := range b.n {
		it := &b.items[i]
		if it.rec == nil {
			if end := ends[i]; end > start || it.sample.Callchain != nil {
				it.sample.Callchain = b.chains[start:end:end]
			}
		}
		start = ends[i]
	}
}

// next returns the next item; at the end ok is false and err is what
// ended the stitcher (or the context's error), and the goroutine has
// finished.
func (pr *producer) next() (e stitch.Event, ok bool, err error) {
	for pr.cur == nil || pr.pos >= pr.cur.n {
		if pr.cur != nil {
			if pr.cur.n < batchSize {
				err = pr.cur.err
				pr.free <- pr.cur
				pr.cur = nil
				<-pr.done
				return stitch.Event{}, false, err
			}
			pr.free <- pr.cur
			pr.cur = nil
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
	pr.cancel()
	for range pr.batches {
	}
	<-pr.done
}
