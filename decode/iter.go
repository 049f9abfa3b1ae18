package decode

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
)

// Records iterates over the records of a [File]. The record returned by
// Record is owned by the iterator and is valid until the next call to Next;
// use its Clone method to keep it. This includes its slices: a Sample's
// Callchain, Raw, StackUser and Aux, and the byte fields of other records,
// may point into the iterator's read buffer.
//
// COMPRESSED/COMPRESSED2 containers are delivered themselves (so they are
// counted) and the records decompressed from them follow, through the same
// ordering as uncompressed records.
type Records struct {
	f     *File
	d     *decoder
	order Order
	rec   Record
	err   error
	done  bool

	fr *frameReader
	s  store
	z  *zstream

	// prelude records (pipe mode) still to deliver, and their bytes.
	prelude    []Record
	preludeRaw [][]byte

	// raw is the bytes of the current record (Raw).
	raw []byte

	// Time ordering (perf's ordered-events). Queued records are kept as
	// their bytes, copied into the arena, and parsed when delivered (as
	// perf does): a few hundred bytes each instead of a decoded record,
	// and the record is decoded into memory that is still warm when its
	// consumer reads it.
	q          timeQueue
	arena      arena
	drain      drain  // which queued records are due (taken one by one)
	delivered  *chunk // holds the bytes of the record delivered last
	eof        bool
	pendingErr error
	nextFlush  uint64
	maxTime    uint64
	lastFlush  uint64
	seq        uint64

	lastOff int64 // offset of the record queued last

	// queued reports that nextRaw queued the record instead of returning
	// it (TimeOrder).
	queued bool

	// key of the record last returned by nextRaw.
	key   uint64
	timed bool
}

// Records returns an iterator over the data records in the given order.
// A File has one stream of records; a second call returns an iterator that
// fails at once.
func (f *File) Records(order Order) *Records {
	rs := &Records{f: f, d: &f.dec, order: order}
	if f.started {
		rs.err = errors.New("decode: Records called twice on one File")
		rs.done = true
		return rs
	}
	f.started = true
	if f.fr != nil {
		rs.fr = f.fr
	} else {
		size := frameBufSize
		if f.dataEnd >= 0 {
			// Small files get a small buffer (it grows if a record needs it).
			size = int(min(int64(frameBufSize), max(f.dataEnd-f.base, 4096)))
		}
		rs.fr = newFrameReader(f.data, f.dec.e, f.base, size)
		rs.fr.want = f.dataEnd
	}
	rs.prelude, rs.preludeRaw = f.prelude, f.preludeRaw
	f.prelude, f.preludeRaw = nil, nil
	return rs
}

// All returns an iterator over the records; a final pair carries the error
// that ended the iteration, if any. The records are owned by the iterator
// as with [Records.Record].
func (rs *Records) All() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for rs.Next() {
			if !yield(rs.rec, nil) {
				return
			}
		}
		if rs.err != nil {
			yield(nil, rs.err)
		}
	}
}

// Record returns the current record.
func (rs *Records) Record() Record { return rs.rec }

// Raw returns the bytes of the current record as it is in the file (or
// in its COMPRESSED container's decompressed stream), header included, in
// the file's byte order. They are owned by the iterator and valid until
// the next call to Next.
func (rs *Records) Raw() []byte { return rs.raw }

// Err returns the error that ended the iteration, if any. Records before
// the damage have been delivered.
func (rs *Records) Err() error { return rs.err }

// Stats returns the counts of what was read so far (a snapshot).
func (rs *Records) Stats() *Stats {
	st := *rs.d.stats
	st.Counts = make(map[RecordType]uint64)
	st.Skipped = make(map[RecordType]uint64)
	for t, n := range rs.d.stats.counts {
		if n != 0 {
			st.Counts[RecordType(t)] = n
		}
	}
	for t, n := range rs.d.stats.skipped {
		if n != 0 {
			st.Skipped[RecordType(t)] = n
		}
	}
	maps.Copy(st.Counts, rs.d.stats.countsBig)
	maps.Copy(st.Skipped, rs.d.stats.skippedBig)
	st.Warnings = append([]error(nil), rs.d.stats.Warnings...)
	return &st
}

// Stats counts what the decoder read.
type Stats struct {
	// Counts holds the number of records read per type, including
	// COMPRESSED containers and the records inside them, as perf report
	// --stats counts them.
	Counts map[RecordType]uint64
	// Skipped counts records that could not be parsed and were skipped,
	// per type (they are also in Counts).
	Skipped map[RecordType]uint64
	// UnknownID counts records whose sample id matched no event.
	UnknownID uint64
	// OutOfOrder counts records older than the last flush point (perf's
	// "out of order events"); they are delivered late, not dropped.
	OutOfOrder uint64
	// Untimed counts the samples whose event records the time but whose
	// time is 0 or 2^64-1: in time order they are delivered as read, as
	// perf delivers them.
	Untimed uint64
	// QueueFlushes counts the times the time-order queue passed its
	// memory budget (Limits.QueueBytes) and delivered its oldest records
	// early.
	QueueFlushes uint64
	// Repaired counts records delivered in part, with a warning (a
	// sample whose callchain is longer than the record: the chain cut).
	Repaired uint64
	// Warnings are non-fatal problems (skipped records, bad features),
	// each naming an offset; at most 100 are kept.
	Warnings []error
	// WarningCount is the number of warnings, including those not kept.
	WarningCount uint64

	counts, skipped       [256]uint64
	countsBig, skippedBig map[RecordType]uint64
}

func (s *Stats) count(t RecordType) {
	if t < 256 {
		s.counts[t]++
		return
	}
	if s.countsBig == nil {
		s.countsBig = make(map[RecordType]uint64)
	}
	s.countsBig[t]++
}

func (s *Stats) skip(t RecordType) {
	if t < 256 {
		s.skipped[t]++
		return
	}
	if s.skippedBig == nil {
		s.skippedBig = make(map[RecordType]uint64)
	}
	s.skippedBig[t]++
}

// Next advances to the next record and reports whether there is one.
func (rs *Records) Next() bool {
	if rs.done {
		return false
	}
	if len(rs.prelude) > 0 {
		r := rs.prelude[0]
		rs.prelude = rs.prelude[1:]
		if len(rs.preludeRaw) > 0 {
			rs.raw, rs.preludeRaw = rs.preludeRaw[0], rs.preludeRaw[1:]
		}
		if pe, ok := r.(*prelErr); ok {
			rs.prelude = nil
			rs.rec = nil
			rs.err = pe.err
			rs.done = true
			return false
		}
		rs.rec = r
		return true
	}
	if rs.order == FileOrder {
		r, err := rs.nextRaw()
		if err != nil {
			rs.finish(err)
			return false
		}
		rs.rec = r
		return true
	}
	return rs.nextTimed()
}

func (rs *Records) finish(err error) {
	rs.rec = nil
	rs.done = true
	if err != io.EOF {
		rs.err = err
	}
	if rs.z != nil {
		rs.z.close()
	}
}

// nextTimed implements perf's ordered-events queue (perf-format.md §7).
func (rs *Records) nextTimed() bool {
	if rs.delivered != nil {
		rs.arena.release(rs.delivered)
		rs.delivered = nil
	}
	for {
		if it, ok := rs.due(); ok {
			rec := it.bytes()
			t := RecordType(rs.d.e.u32(rec))
			r, err := rs.d.parse(&rs.s, rec, it.off, it.inner)
			if err != nil {
				rs.arena.release(it.ch)
				rs.d.stats.skip(t)
				rs.d.warn(err)
				continue
			}
			// The record may point into its bytes until the next call.
			rs.delivered = it.ch
			rs.rec, rs.raw = r, rec
			return true
		}
		if rs.eof {
			if rs.q.len() > 0 {
				rs.drain = drain{on: true, timed: true, time: ^uint64(0)}
				continue
			}
			if rs.pendingErr != nil {
				rs.finish(rs.pendingErr)
			} else {
				rs.finish(io.EOF)
			}
			return false
		}
		r, err := rs.nextRaw()
		if err != nil {
			rs.eof = true
			if err != io.EOF {
				rs.pendingErr = err
			}
			continue
		}
		if rs.queued {
			continue
		}
		if r.Type() == RecordTypeFinishedRound {
			// Delivered at once, like every perf-tool record; the records
			// it releases follow (the order perf script -D prints).
			if rs.q.len() > 0 && !rs.f.wholeSort {
				rs.drain = drain{on: true, timed: true, time: rs.nextFlush}
				rs.nextFlush = rs.maxTime
			}
		}
		rs.rec = r
		return true
	}
}

// enqueue copies the bytes of a kernel record with time key into the
// queue.
func (rs *Records) enqueue(rec []byte, off, inner int64, key uint64) {
	if key < rs.lastFlush {
		rs.outOfOrder()
	}
	if key > rs.maxTime {
		rs.maxTime = key
	}
	rs.seq++
	ch, pos := rs.arena.store(rec)
	rs.q.push(qItem{time: key, seq: rs.seq, off: off, inner: inner, ch: ch, pos: pos, n: uint32(len(rec))})
	rs.lastOff = off
	rs.overBudget(RecordType(rs.d.e.u32(rec)))
}

// drain says which queued records are due: while on, those up to time
// (if timed) or, past the memory budget, the oldest until the queue is
// down to bytes. They are taken from the queue one at a time as they are
// delivered, so that no second list of them is built and each record's
// bytes are released as soon as it has been read.
type drain struct {
	on, timed bool
	time      uint64
	bytes     int64
}

// due takes the next due record off the queue; ok is false when none is
// due, which ends the drain.
func (rs *Records) due() (it qItem, ok bool) {
	if !rs.drain.on {
		return qItem{}, false
	}
	if rs.q.len() > 0 {
		top := rs.q.top()
		if rs.drain.timed && top.time <= rs.drain.time || !rs.drain.timed && rs.queueUse() > rs.drain.bytes {
			it := rs.q.pop()
			rs.lastFlush = it.time
			// Later rounds release up to the newest time delivered.
			rs.nextFlush = max(rs.nextFlush, it.time)
			return it, true
		}
	}
	if !rs.drain.timed {
		rs.q.trim()
	}
	rs.drain = drain{}
	return qItem{}, false
}

// nextRaw returns the next record in file order (decompressed records
// right after their container). It sets rs.key/rs.timed to the record's
// ordering timestamp. In TimeOrder it queues a kernel record with a
// timestamp instead (rs.queued, and a nil Record).
func (rs *Records) nextRaw() (Record, error) {
	rs.queued = false
	for {
		if rs.z != nil {
			if r, ok := rs.nextDecompressed(); ok {
				return r, nil
			}
			if rs.z.capErr != nil {
				return nil, rs.z.capErr
			}
		}
		rec, off, err := rs.fr.next()
		if err != nil {
			if err == io.EOF && rs.z != nil && rs.z.leftover() > 0 {
				rs.d.warn(&FormatError{Offset: rs.z.containerOff, Record: RecordTypeCompressed, Field: "data",
					Err: fmt.Errorf("%d bytes of a partial record at the end of the compressed stream: %w", rs.z.leftover(), io.ErrUnexpectedEOF)})
			}
			return nil, err
		}
		t := RecordType(rs.d.e.u32(rec))
		rs.d.stats.count(t)
		if rs.order == TimeOrder && t < 64 {
			if key, ok := rs.d.peekTime(t, rec); ok {
				rs.enqueue(rec, off, -1, key)
				rs.queued = true
				return nil, nil
			}
		}
		r, err := rs.d.parse(&rs.s, rec, off, -1)
		if err == nil {
			switch t {
			case RecordTypeHeaderTracingData:
				r, err = rs.d.tracingPayload(rs.fr, r.(*TracingData), rec, off)
			case RecordTypeAuxtrace:
				_, err = rs.fr.extra(r.(*Auxtrace).AuxSize, false, nil)
				if err != nil {
					return nil, formatErr(off, t, "aux data", err)
				}
			}
		}
		if err != nil {
			if t == RecordTypeHeaderTracingData || t == RecordTypeAuxtrace {
				// The payload size is unknown or truncated: the stream
				// cannot be resynchronised.
				return nil, err
			}
			rs.d.stats.skip(t)
			rs.d.warn(err)
			continue
		}
		if c, ok := r.(*Compressed); ok {
			if rs.z == nil {
				rs.z = newZstream(rs)
			}
			rs.z.feed(c.Data, off)
		}
		rs.setKey(r)
		if rs.order == TimeOrder && t < 64 && rs.timed {
			// A timed record peekTime could not place (it mirrors
			// setKey for well-formed records only): queue it all the
			// same.
			rs.enqueue(rec, off, -1, rs.key)
			rs.queued = true
			return nil, nil
		}
		rs.raw = rec
		return r, nil
	}
}

// nextDecompressed is nextRaw for the records of the compressed stream:
// ok is false when the stream has no whole record ready (the caller reads
// on), else r is the next record (nil with rs.queued when it went to the
// time-order queue).
func (rs *Records) nextDecompressed() (r Record, ok bool) {
	for {
		if len(rs.z.pendingOuter) > 0 {
			r := rs.z.pendingOuter[0]
			rs.z.pendingOuter = rs.z.pendingOuter[1:]
			rs.timed, rs.raw = false, nil
			return r, true
		}
		rec, off, inner, ok := rs.z.nextInner(rs.d)
		if !ok {
			return nil, false
		}
		t := RecordType(rs.d.e.u32(rec))
		rs.d.stats.count(t)
		if rs.order == TimeOrder && t < 64 {
			if key, ok := rs.d.peekTime(t, rec); ok {
				rs.enqueue(rec, off, inner, key)
				rs.queued = true
				return nil, true
			}
		}
		r, err := rs.d.parse(&rs.s, rec, off, inner)
		if err != nil {
			rs.d.stats.skip(t)
			rs.d.warn(err)
			continue
		}
		rs.setKey(r)
		if rs.order == TimeOrder && t < 64 && rs.timed {
			rs.enqueue(rec, off, inner, rs.key)
			rs.queued = true
			return nil, true
		}
		rs.raw = rec
		return r, true
	}
}

func (rs *Records) setKey(r Record) {
	rs.timed = false
	if r.Type() >= 64 {
		return
	}
	c := r.Common()
	// perf orders by the sample_id time (FORK/EXIT: not the body's).
	t := c.TrailerTime
	if c.Format&SampleTime != 0 && t != 0 && t != ^uint64(0) {
		rs.key, rs.timed = t, true
		return
	}
	if s, ok := r.(*Sample); ok && rs.order == TimeOrder && c.Format&SampleTime != 0 {
		rs.untimedSample(s)
	}
}

// tracingPayload reads the trace-cmd blob that follows a TRACING_DATA
// record outside its size.
func (d *decoder) tracingPayload(fr *frameReader, td *TracingData, rec []byte, off int64) (Record, error) {
	if len(rec) < 12 {
		return nil, formatErr(off, RecordTypeHeaderTracingData, "size", io.ErrUnexpectedEOF)
	}
	n := d.e.u32(rec[8:])
	data, err := fr.extra(uint64(n), true, td.Data[:0])
	if err != nil {
		return nil, formatErr(off, RecordTypeHeaderTracingData, "data", err)
	}
	td.Data = data
	return td, nil
}
