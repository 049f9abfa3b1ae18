package stitch

import "github.com/perfstitch/perfstitch/decode"

// This file is the delivery of PerfOrder and ArrivalOrder: only deferred
// samples are held (in s.q, in source order, and in their thread's wait
// list); everything else is delivered as it is read, and a completed
// sample goes to s.out, which is drained before the next source record is
// read. A delivered entry leaves a nil slot in s.q (until the slots before
// it are gone too, so that s.q's length is still the span a consumer
// restoring time order holds) and is recycled at once: only the samples
// still waiting keep their copies.

// complete marks a held sample complete; outside TimeOrder it is then
// delivered next.
func (s *Stitcher) complete(e *entry) {
	e.ready = true
	if s.opts.Order != TimeOrder {
		s.out.push(e)
	}
}

// nextArrival is Next in PerfOrder and ArrivalOrder.
func (s *Stitcher) nextArrival() bool {
	if e := s.last; e != nil {
		s.last = nil
		s.recycle(e)
	}
	for {
		if s.out.n > 0 {
			e := s.out.pop()
			s.deliver(e)
			s.q.clear(e.pos)
			s.popDone()
			s.ev.Seq, s.ev.Low = e.seq, s.low()
			return true
		}
		if s.srcDone {
			if s.npending == 0 {
				return false
			}
			s.releaseAll(causeEnd)
			continue
		}
		if !s.pull() {
			continue
		}
		seq := s.seq
		s.seq++
		if s.feedArrival(s.src.Record(), seq) {
			s.ev.Seq, s.ev.Low = seq, s.low()
			return true
		}
		s.capSpan()
	}
}

// low is the lowest source position a later event can have: that of the
// oldest entry not yet delivered, else the next source record's.
func (s *Stitcher) low() uint64 {
	if s.q.n > 0 {
		return s.q.front().seq
	}
	return s.seq
}

// popDone drops the slots of delivered entries from the front of s.q, so
// that its front is the oldest entry not yet delivered.
func (s *Stitcher) popDone() {
	for s.q.n > 0 && s.q.front() == nil {
		s.q.pop()
	}
}

// hold puts a new entry read at source position seq in s.q.
func (s *Stitcher) hold(e *entry, seq uint64) {
	e.seq, e.pos = seq, s.q.end()
	s.q.push(e)
	if s.q.n > s.stats.QueueHighWater {
		s.stats.QueueHighWater = s.q.n
	}
}

// feedArrival takes one source record read at position seq. It reports
// true when the record is delivered as it is (s.ev is set), false when it
// was consumed or held.
func (s *Stitcher) feedArrival(r decode.Record, seq uint64) bool {
	switch rec := r.(type) {
	case *decode.Sample:
		abi, cookie, klen := s.classify(rec)
		state := NotDeferred
		switch {
		case abi == decode.DeferredNone:
		case s.opts.NoMerge:
			state = Unmerged
		case s.noTID && s.opts.Order == ArrivalOrder:
			// No record can match: deliver it as it is.
			s.stats.NoRecordNoTID++
			state = NoRecord
		default:
			e := s.deferred(rec, abi, cookie, klen)
			s.hold(e, seq)
			if !s.joinEarly(e) {
				s.wait(e)
			}
			return false
		}
		s.cur = Sample{Sample: rec, ABI: abi, Cookie: cookie, State: state}
		s.stats.Samples[state]++
		s.ev = Event{Sample: &s.cur}
		return true
	case *decode.CallchainDeferred:
		return s.feedRecord(r, rec)
	case *decode.Exit:
		if s.opts.Order == ArrivalOrder && !s.opts.NoMerge {
			if wl := s.pending[rec.TID]; wl != nil && len(wl.e) > 0 {
				// The waiting samples first, resolved while the thread
				// is still known, then the EXIT.
				s.release(rec.TID, causeExit)
				e := s.alloc()
				e.rec = r.Clone()
				e.ready = true
				s.hold(e, seq)
				s.out.push(e)
				return false
			}
		}
	}
	s.ev = Event{Record: r}
	return true
}

// releaseAllInOrder delivers every waiting sample without user part,
// oldest first (PerfOrder, ArrivalOrder).
func (s *Stitcher) releaseAllInOrder(cause int) {
	if cause == causeNoTID && s.opts.Order == PerfOrder {
		return // perf delivers them at the end
	}
	for i := range s.q.n {
		e := s.q.at(i)
		if e != nil && !e.ready { // a held record is ready
			s.noRecord(e, cause)
		}
	}
	for _, wl := range s.pending {
		wl.reset()
	}
}

// capSpan enforces Options.MaxPending and MaxPendingBytes outside
// TimeOrder: the oldest waiting sample is released once more than
// MaxPending records, or records of more than MaxPendingBytes, were read
// after it (what a consumer restoring time order holds behind it).
func (s *Stitcher) capSpan() {
	if s.opts.MaxPending <= 0 && s.opts.MaxPendingBytes <= 0 {
		return
	}
	for s.q.n > 0 {
		front := s.q.front()
		if front.ready || !s.overCap(s.seq-front.seq, front) {
			return
		}
		if !s.capFront(front) {
			return
		}
	}
}
