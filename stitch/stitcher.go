package stitch

import (
	"unsafe"

	"github.com/perfstitch/perfstitch/decode"
)

// Options configure a [Stitcher].
type Options struct {
	// NoMerge passes samples and CALLCHAIN_DEFERRED records through
	// unjoined, in source order (perf script --no-merge-callchains).
	// Deferred samples are delivered in state Unmerged.
	NoMerge bool

	// MaxPending bounds the number of items held back to keep time order:
	// deferred samples waiting for their record plus every record queued
	// behind the oldest of them. When the bound is exceeded the oldest
	// waiting sample is released as NoRecord (counted in
	// Stats.NoRecordCap). 0 means unbounded, as in perf.
	MaxPending int

	// MaxPendingBytes bounds, like MaxPending, the memory of what is held
	// back behind the oldest waiting sample, as ItemBytes estimates it
	// for each record read since (the sample included): past it that
	// sample is released as NoRecord (counted in Stats.NoRecordCap). It
	// bounds what MaxPending cannot: a few large samples (copied user
	// stacks) cost as much as many small ones. 0 means unbounded.
	MaxPendingBytes int64

	// ItemBytes estimates the memory that holding a record back costs:
	// the Stitcher's copy in TimeOrder, or, in the other orders, the
	// consumer's when it restores time order behind the Stitcher. nil
	// means the record's size plus the Stitcher's entry.
	ItemBytes func(decode.Record) int64

	// Lenient treats a sample whose callchain ends in the deferred marker
	// as deferred even when its event lacks defer_callchain. perf 6.19
	// treats such a sample as an ordinary one, and so does the Stitcher
	// without Lenient. Samples of unknown events are always examined.
	Lenient bool

	// CookieOnly matches cookie-ABI records that carry no thread id (their
	// event lacks sample_id_all, so they have no sample_id at all) by their
	// cookie alone, which the kernel makes unique per CPU and kernel entry.
	// Such records carry no time either: the decoder delivers them as they
	// are read, possibly before samples of the same entry that still sit in
	// its round queue, so the Stitcher remembers the last 4096 of them for
	// samples that come later. perf 6.19 matches nothing without a thread
	// id, and neither does the Stitcher without CookieOnly.
	CookieOnly bool

	// Order says where deferred samples are delivered: TimeOrder (the
	// zero value), PerfOrder or ArrivalOrder.
	Order Order
}

// Order is where a [Stitcher] delivers the deferred samples it completes.
type Order uint8

// Delivery orders.
const (
	// TimeOrder delivers every sample in its own (time) position: a
	// deferred sample holds back everything behind it until its record
	// arrives, its thread exits, the input ends or Options.MaxPending
	// releases it. Side-band records between a sample and its record
	// therefore come after the sample.
	TimeOrder Order = iota

	// PerfOrder delivers as perf 7.3.4 does (perf-format.md §8, and
	// tools/perf/util/session.c): nothing but the deferred samples is
	// held back. A CALLCHAIN_DEFERRED record delivers every waiting
	// sample of its thread, oldest first, in its place (joined when the
	// cookie matches, CookieMismatch otherwise); a thread's EXIT releases
	// nothing; the samples still waiting at the end come last, oldest
	// first (NoRecord). The records that come between a sample and its
	// deferred record are delivered before the sample, so a consumer that
	// keeps a process model sees the sample with the model of its
	// record's time, as perf resolves it.
	PerfOrder

	// ArrivalOrder is PerfOrder for consumers that put the samples back
	// in time order themselves (with Event.Seq and Event.Low): samples
	// are delivered as soon as they are complete, so a thread's EXIT
	// releases its waiting samples (before the EXIT itself), and so do
	// records without a thread id when no record has one.
	ArrivalOrder
)

// cookieOnlyMemory is how many thread-less records Options.CookieOnly
// remembers for samples that come after them.
const cookieOnlyMemory = 4096

// Stitcher joins deferred user callchains onto their samples. It reads a
// time-ordered [Source] (decode.TimeOrder) and delivers every record of it,
// except the CALLCHAIN_DEFERRED records it consumed. In TimeOrder it
// delivers them in the same order, with deferred samples completed in
// place: the output is what the kernel would have written without
// deferral. In PerfOrder and ArrivalOrder a completed sample is delivered
// where perf 7.3.4 delivers it, when its record arrives (see [Order]).
//
// Matching follows perf 6.19 (tools/perf/util/session.c): a record joins
// the waiting samples of its thread (tid) with its cookie (in the seed
// ABI, which has no cookie, all of them); waiting samples
// of the same thread with another cookie are delivered without their user
// part (CookieMismatch); samples still waiting at the end are delivered
// without it too (NoRecord). Records are never matched by event id or CPU.
// Samples are indexed per thread, so a record
// costs time proportional to its thread's waiting samples.
type Stitcher struct {
	src  Source
	opts Options

	// held sums Options.ItemBytes over the records read (with
	// MaxPendingBytes); heldAt is the sum before the record read last.
	held, heldAt uint64

	q        ring
	pending  map[int32]*waitList // per tid
	npending int
	// recent caches wait lists by tid modulo its size: a thread's samples
	// and record come close together, among those of a few other threads.
	recent [waitCacheSize]*waitList

	// Options.CookieOnly: user PCs of thread-less records by cookie, and
	// their cookies oldest first.
	early     map[uint64][]uint64
	earlyQ    []uint64 // a ring once full; earlyHead is the oldest
	earlyHead int

	// noTID is set while every record read had no thread id: then nothing
	// can ever match (perf 6.19), so waiting samples are released at once
	// instead of at the end. tidRecords counts records with a thread id.
	noTID      bool
	tidRecords uint64

	free []*entry // recycled entries, with their sample buffers
	last *entry   // delivered by the previous Next, recycled by the next

	// PerfOrder and ArrivalOrder: q holds every entry not yet delivered
	// (and the delivered ones behind an older waiting sample), in source
	// order; out the complete entries to deliver next, in order. seq is
	// the position of the next source record.
	out ring
	seq uint64

	cur     Sample // the sample delivered straight from the source
	ev      Event
	srcDone bool
	err     error
	stats   Stats
}

// waitList holds the waiting samples of one thread, oldest first, and
// the cookie of the thread's last matching record. It stays in the map
// (keeping its storage) until the thread exits.
type waitList struct {
	tid        int32
	e          []*entry
	lastCookie uint64 // cookie ABI; in the seed ABI a hash of its user PCs
	hasLast    bool
	// nABI counts the entries of e per DeferredABI, so that a record
	// skips a list holding only samples of the other ABI (which it could
	// not join): stitching stays linear when seed-ABI samples wait and
	// cookie-ABI records arrive for their thread.
	nABI [3]int
}

// add appends e to the list.
func (wl *waitList) add(e *entry) {
	wl.e = append(wl.e, e)
	wl.nABI[e.smp.ABI%3]++
}

// dropFront removes the oldest entry without moving the rest (a copy
// would make a long wait list under the cap quadratic); append reclaims
// the space.
func (wl *waitList) dropFront() {
	wl.nABI[wl.e[0].smp.ABI%3]--
	wl.e[0] = nil
	wl.e = wl.e[1:]
}

// reset empties the list, keeping its storage.
func (wl *waitList) reset() {
	clear(wl.e)
	wl.e = wl.e[:0]
	wl.nABI = [3]int{}
}

// waitCacheSize is the number of wait lists Stitcher.recent caches.
const waitCacheSize = 64

// entry is one held item: a sample (buf, copied from the source) or
// another record (rec, cloned).
type entry struct {
	smp   Sample
	buf   decode.Sample
	rec   decode.Record
	klen  int // length of the kernel part of a deferred sample's chain
	tid   int32
	ready bool // complete; may be delivered once everything before it was

	seq uint64 // position in the source (PerfOrder, ArrivalOrder)
	pos uint64 // position in Stitcher.q (ring.end when it was pushed)
	at  uint64 // Stitcher.held before this record (MaxPendingBytes)
}

// Causes of a NoRecord release.
const (
	causeExit = iota
	causeEnd
	causeCap
	causeNoTID
)

// New returns a Stitcher reading src.
func New(src Source, opts Options) *Stitcher {
	return &Stitcher{
		src:     src,
		opts:    opts,
		pending: make(map[int32]*waitList),
	}
}

// Next advances to the next event and reports whether there is one. It
// returns false at the end of the source or when the source failed (see
// [Stitcher.Err]); samples still waiting then have been delivered as
// NoRecord.
func (s *Stitcher) Next() bool {
	if s.opts.Order != TimeOrder {
		return s.nextArrival()
	}
	if s.last != nil {
		s.recycle(s.last)
		s.last = nil
	}
	for {
		if s.q.n > 0 {
			if e := s.q.front(); e.ready {
				s.q.pop()
				s.deliver(e)
				return true
			}
		}
		if s.srcDone {
			if s.q.n == 0 {
				return false
			}
			s.releaseAll(causeEnd)
			continue
		}
		if !s.pull() {
			continue
		}
		if s.feed(s.src.Record()) {
			return true
		}
	}
}

// pull advances the source, and at its end records that it ended and
// why (s.srcDone, s.err); it reports whether a record was read.
func (s *Stitcher) pull() bool {
	if s.src.Next() {
		if s.opts.MaxPendingBytes > 0 {
			s.heldAt = s.held
			s.held += uint64(s.itemBytes(s.src.Record()))
		}
		return true
	}
	s.srcDone = true
	s.err = s.src.Err()
	return false
}

// Event returns the current event. It is valid until the next call to
// Next.
func (s *Stitcher) Event() Event { return s.ev }

// Err returns the source's error, if it ended with one.
func (s *Stitcher) Err() error { return s.err }

// Stats returns the counts so far; they are complete once Next returned
// false.
func (s *Stitcher) Stats() *Stats { return &s.stats }

// feed takes one source record. It reports true when the record is
// delivered as it is (s.ev is set), false when it was consumed or queued.
func (s *Stitcher) feed(r decode.Record) bool {
	switch rec := r.(type) {
	case *decode.Sample:
		abi, cookie, klen := s.classify(rec)
		if s.opts.NoMerge {
			s.cur = Sample{Sample: rec, ABI: abi, Cookie: cookie, State: NotDeferred}
			if abi != decode.DeferredNone {
				s.cur.State = Unmerged
			}
			s.stats.Samples[s.cur.State]++
			s.ev = Event{Sample: &s.cur}
			return true
		}
		if abi == decode.DeferredNone {
			if s.q.n == 0 {
				s.cur = Sample{Sample: rec}
				s.stats.Samples[NotDeferred]++
				s.ev = Event{Sample: &s.cur}
				return true
			}
			e := s.alloc()
			rec.CopyTo(&e.buf)
			e.smp = Sample{Sample: &e.buf}
			e.ready = true
			s.push(e)
			return false
		}
		if s.noTID {
			// No record can match: deliver it as it is.
			s.stats.NoRecordNoTID++
			if s.q.n == 0 {
				s.cur = Sample{Sample: rec, ABI: abi, Cookie: cookie, State: NoRecord}
				s.stats.Samples[NoRecord]++
				s.ev = Event{Sample: &s.cur}
				return true
			}
			e := s.alloc()
			rec.CopyTo(&e.buf)
			e.smp = Sample{Sample: &e.buf, ABI: abi, Cookie: cookie, State: NoRecord}
			e.ready = true
			s.push(e)
			return false
		}
		e := s.deferred(rec, abi, cookie, klen)
		if !s.joinEarly(e) {
			s.wait(e)
		}
		s.push(e)
		return false
	case *decode.CallchainDeferred:
		return s.feedRecord(r, rec)
	case *decode.Exit:
		if !s.opts.NoMerge {
			s.release(rec.TID, causeExit)
		}
	}
	if s.q.n == 0 {
		s.ev = Event{Record: r}
		return true
	}
	e := s.alloc()
	e.rec = r.Clone()
	e.ready = true
	s.push(e)
	return false
}

// feedRecord takes a deferred callchain record, the same in both delivery
// orders: delivered as it is under Options.NoMerge, else matched against
// the waiting samples and consumed.
func (s *Stitcher) feedRecord(r decode.Record, rec *decode.CallchainDeferred) bool {
	if s.opts.NoMerge {
		s.stats.Records[rec.ABI%3]++
		s.ev = Event{Record: r}
		return true
	}
	s.record(rec)
	return false
}

// deferred copies a sample that waits for its user callchain into a new
// entry.
func (s *Stitcher) deferred(rec *decode.Sample, abi decode.DeferredABI, cookie uint64, klen int) *entry {
	e := s.alloc()
	rec.CopyTo(&e.buf)
	e.smp = Sample{Sample: &e.buf, ABI: abi, Cookie: cookie}
	e.klen = klen
	e.tid = sampleTID(rec)
	e.at = s.heldAt
	return e
}

// joinEarly stitches e at once when its thread-less record came first
// (Options.CookieOnly), and reports whether it did.
func (s *Stitcher) joinEarly(e *entry) bool {
	if s.early == nil || e.smp.ABI != decode.DeferredCookie {
		return false
	}
	ips, ok := s.early[e.smp.Cookie]
	if !ok {
		return false
	}
	s.join(e, ips)
	s.stats.CookieOnlyStitched++
	return true
}

// wait puts e on its thread's wait list.
func (s *Stitcher) wait(e *entry) {
	s.waitList(e.tid, true).add(e)
	s.npending++
	if s.npending > s.stats.PendingHighWater {
		s.stats.PendingHighWater = s.npending
	}
}

// classify reports whether sample r deferred its user callchain, in which
// ABI, with which cookie, and how long the kernel part of its chain is.
func (s *Stitcher) classify(r *decode.Sample) (abi decode.DeferredABI, cookie uint64, klen int) {
	if r.Format&decode.SampleCallchain == 0 {
		return decode.DeferredNone, 0, 0
	}
	if !s.opts.Lenient && r.Attr != nil && !r.Attr.DeferCallchain() {
		return decode.DeferredNone, 0, 0
	}
	ch := r.Callchain
	n := len(ch)
	switch {
	case n >= 2 && ch[n-2] == decode.ContextUserDeferred:
		return decode.DeferredCookie, ch[n-1], n - 2
	case n >= 1 && ch[n-1] == decode.ContextUserDeferred:
		return decode.DeferredSeed, 0, n - 1
	}
	return decode.DeferredNone, 0, 0
}

func sampleTID(r *decode.Sample) int32 {
	if r.Format&decode.SampleTID == 0 {
		return -1
	}
	return r.TID
}

// record joins a CALLCHAIN_DEFERRED record to the waiting samples of its
// thread.
func (s *Stitcher) record(rec *decode.CallchainDeferred) {
	s.stats.Records[rec.ABI%3]++
	if rec.Format&decode.SampleTID == 0 || rec.TID == -1 {
		s.stats.UnknownTIDRecords++
		if s.opts.CookieOnly && rec.ABI == decode.DeferredCookie {
			s.matchCookie(rec)
		} else if s.tidRecords == 0 {
			s.noTID = true
			s.releaseAll(causeNoTID)
		}
		return
	}
	s.tidRecords++
	s.noTID = false
	tid := rec.TID
	var list []*entry
	wl := s.waitList(tid, false)
	if wl != nil && wl.nABI[rec.ABI%3] > 0 {
		list = wl.e
	}
	matched := uint64(0)
	keep := list[:0]
	for _, e := range list {
		switch {
		case rec.ABI == decode.DeferredCookie && e.smp.ABI == decode.DeferredCookie:
			if e.smp.Cookie == rec.Cookie {
				s.join(e, rec.IPs)
				matched++
			} else {
				e.smp.State = CookieMismatch
				s.complete(e)
			}
		case rec.ABI == decode.DeferredSeed && e.smp.ABI == decode.DeferredSeed:
			// No cookie: a record joins every waiting sample of its
			// thread, whichever event took it and whichever event the
			// record came through (the seed-era perf did the same).
			s.join(e, rec.IPs)
			matched++
		default:
			keep = append(keep, e)
			continue
		}
		s.npending--
		wl.nABI[e.smp.ABI%3]--
	}
	clear(list[len(keep):])
	if wl != nil && list != nil {
		wl.e = keep
	}
	key := rec.Cookie
	if rec.ABI == decode.DeferredSeed {
		key = hashIPs(rec.IPs)
	}
	switch {
	case matched > 0:
		s.stats.SamplesPerRecord.Add(matched)
		wl.lastCookie, wl.hasLast = key, true
	case wl != nil && wl.hasLast && wl.lastCookie == key:
		s.stats.DuplicateRecords++
	default:
		s.stats.OrphanRecords++
	}
}

// hashIPs is FNV-1a over user PCs: a seed-ABI record that repeats the
// user PCs of the one just matched for its thread (written through
// another deferring event) counts as a duplicate.
func hashIPs(ips []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, ip := range ips {
		for range 8 {
			h ^= ip & 0xff
			h *= 1099511628211
			ip >>= 8
		}
	}
	return h
}

// matchCookie joins a thread-less cookie-ABI record to every waiting
// sample with its cookie, whatever its thread, and remembers it for
// samples still to come (Options.CookieOnly). It scans all waiting
// samples.
func (s *Stitcher) matchCookie(rec *decode.CallchainDeferred) {
	for _, wl := range s.pending {
		keep := wl.e[:0]
		for _, e := range wl.e {
			if e.smp.ABI == decode.DeferredCookie && e.smp.Cookie == rec.Cookie {
				s.join(e, rec.IPs)
				s.npending--
				wl.nABI[e.smp.ABI%3]--
				s.stats.CookieOnlyStitched++
				continue
			}
			keep = append(keep, e)
		}
		clear(wl.e[len(keep):])
		wl.e = keep
	}
	if s.early == nil {
		s.early = make(map[uint64][]uint64)
	}
	if _, ok := s.early[rec.Cookie]; !ok {
		if len(s.earlyQ) < cookieOnlyMemory {
			s.earlyQ = append(s.earlyQ, rec.Cookie)
		} else {
			delete(s.early, s.earlyQ[s.earlyHead])
			s.earlyQ[s.earlyHead] = rec.Cookie
			s.earlyHead = (s.earlyHead + 1) % cookieOnlyMemory
		}
	}
	s.early[rec.Cookie] = append([]uint64(nil), rec.IPs...)
}

// waitList returns the wait list of tid, making it if create is set.
func (s *Stitcher) waitList(tid int32, create bool) *waitList {
	slot := &s.recent[uint32(tid)%waitCacheSize]
	if wl := *slot; wl != nil && wl.tid == tid {
		return wl
	}
	wl := s.pending[tid]
	if wl == nil {
		if !create {
			return nil
		}
		wl = &waitList{tid: tid}
		s.pending[tid] = wl
	}
	*slot = wl
	return wl
}

// join completes a waiting sample with the user PCs of its record: the
// chain becomes the kernel part, PERF_CONTEXT_USER and the PCs, as the
// kernel writes it without deferral.
func (s *Stitcher) join(e *entry, ips []uint64) {
	old := len(e.buf.Callchain)
	ch := append(e.buf.Callchain[:e.klen], decode.ContextUser)
	ch = append(ch, ips...)
	e.buf.Callchain = ch
	if size := int(e.buf.Size) + 8*(len(ch)-old); size > 0 && size <= 0xffff {
		e.buf.Size = uint16(size)
	}
	e.smp.State = Stitched
	s.complete(e)
}

// release delivers the waiting samples of tid without user part.
func (s *Stitcher) release(tid int32, cause int) {
	wl, ok := s.pending[tid]
	if !ok {
		return
	}
	for _, e := range wl.e {
		s.noRecord(e, cause)
	}
	wl.reset()
	if cause == causeExit {
		delete(s.pending, tid)
		if slot := &s.recent[uint32(tid)%waitCacheSize]; *slot == wl {
			*slot = nil
		}
	}
}

// releaseAll delivers every waiting sample without user part.
func (s *Stitcher) releaseAll(cause int) {
	if s.opts.Order != TimeOrder {
		s.releaseAllInOrder(cause)
		return
	}
	for tid := range s.pending {
		s.release(tid, cause)
	}
}

func (s *Stitcher) noRecord(e *entry, cause int) {
	e.smp.State = NoRecord
	s.complete(e)
	s.npending--
	switch cause {
	case causeExit:
		s.stats.NoRecordAtExit++
	case causeEnd:
		s.stats.NoRecordAtEnd++
	case causeCap:
		s.stats.NoRecordCap++
	case causeNoTID:
		s.stats.NoRecordNoTID++
	}
}

// push queues e and enforces Options.MaxPending: the oldest waiting sample
// is always at the front of the queue (a complete front is delivered before
// the next record is read), and of its thread's list.
func (s *Stitcher) push(e *entry) {
	s.q.push(e)
	if s.q.n > s.stats.QueueHighWater {
		s.stats.QueueHighWater = s.q.n
	}
	if s.opts.MaxPending <= 0 && s.opts.MaxPendingBytes <= 0 {
		return
	}
	front := s.q.front()
	if front.ready || !s.overCap(uint64(s.q.n), front) { // a held record is ready too
		return
	}
	s.capFront(front)
}

// overCap reports whether front, the oldest waiting sample, with span
// items held behind it (itself included), passes Options.MaxPending or
// Options.MaxPendingBytes.
func (s *Stitcher) overCap(span uint64, front *entry) bool {
	return s.opts.MaxPending > 0 && span > uint64(s.opts.MaxPending) ||
		s.opts.MaxPendingBytes > 0 && s.held-front.at > uint64(s.opts.MaxPendingBytes)
}

// entryBytes is what the Stitcher's entry costs besides the record's
// bytes, the default of Options.ItemBytes.
const entryBytes = int64(unsafe.Sizeof(entry{}))

// itemBytes estimates what holding r back costs (Options.ItemBytes).
func (s *Stitcher) itemBytes(r decode.Record) int64 {
	if s.opts.ItemBytes != nil {
		return max(s.opts.ItemBytes(r), 0)
	}
	if c := r.Common(); c != nil {
		return entryBytes + int64(c.Size)
	}
	return entryBytes
}

// capFront delivers front, the oldest waiting sample, without user part
// because Options.MaxPending is exceeded, and reports whether it did.
func (s *Stitcher) capFront(front *entry) bool {
	wl := s.pending[front.tid]
	if wl == nil || len(wl.e) == 0 || wl.e[0] != front {
		return false // cannot happen: the front is its thread's oldest
	}
	s.noRecord(front, causeCap)
	wl.dropFront()
	return true
}

func (s *Stitcher) deliver(e *entry) {
	if e.rec != nil {
		s.ev = Event{Record: e.rec}
	} else {
		s.stats.Samples[e.smp.State]++
		s.ev = Event{Sample: &e.smp}
	}
	s.last = e
}

func (s *Stitcher) alloc() *entry {
	if n := len(s.free); n > 0 {
		e := s.free[n-1]
		s.free = s.free[:n-1]
		return e
	}
	return new(entry)
}

// recycle keeps e's sample buffers for the next held sample. The free list
// never grows beyond the queue's high-water mark.
func (s *Stitcher) recycle(e *entry) {
	e.rec = nil
	e.smp = Sample{}
	e.ready = false
	s.free = append(s.free, e)
}

// ring is a FIFO of entries.
type ring struct {
	buf    []*entry
	head   int
	n      int
	popped uint64 // entries popped so far: the position of the front
}

func (r *ring) front() *entry { return r.buf[r.head] }

// end is the position the next entry pushed gets.
func (r *ring) end() uint64 { return r.popped + uint64(r.n) }

// clear empties the slot at position pos, if it is still in the ring.
func (r *ring) clear(pos uint64) {
	if pos >= r.popped && pos < r.end() {
		r.buf[(r.head+int(pos-r.popped))%len(r.buf)] = nil
	}
}

// at returns the i-th entry from the front.
func (r *ring) at(i int) *entry { return r.buf[(r.head+i)%len(r.buf)] }

func (r *ring) push(e *entry) {
	if r.n == len(r.buf) {
		nb := make([]*entry, max(16, 2*len(r.buf)))
		k := copy(nb, r.buf[r.head:])
		copy(nb[k:], r.buf[:r.head])
		r.buf, r.head = nb, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = e
	r.n++
}

func (r *ring) pop() *entry {
	e := r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	r.popped++
	return e
}
