package decode

// qItem is one queued record of the time-ordering queue: its key and
// where its bytes are.
type qItem struct {
	time  uint64
	seq   uint64 // insertion order: equal times keep file order, as in perf
	off   int64  // file offset of the record (of its container if inner >= 0)
	inner int64  // offset in the decompressed stream, or -1
	ch    *chunk
	pos   uint32 // the record's bytes are ch.buf[pos : pos+n]
	n     uint32
}

// bytes returns the record's bytes.
func (it *qItem) bytes() []byte { return it.ch.buf[it.pos : it.pos+it.n : it.pos+it.n] }

// chunkSize is the size of an arena chunk; every record (at most 64 KiB)
// fits in one.
const chunkSize = 256 << 10

// arena holds the bytes of queued records in chunks. Records are written
// one after the other into the current chunk; a chunk is reused once every
// record in it has been delivered. Records leave in time order, not in the
// order they were written, so a chunk lives until its last record is gone:
// at most two rounds later, as a round flushes everything up to the
// previous round's newest time. Memory thus follows the records of two
// rounds, not the file size.
type arena struct {
	cur     *chunk
	free    []*chunk
	chunks  int // allocated chunks, free or in use
	maxFree int // emptied chunks kept for reuse (0: defaultFreeChunks)
}

// chunk is one block of an arena. live counts the records in it not yet
// released.
type chunk struct {
	buf  []byte
	live int
}

// defaultFreeChunks is how many emptied chunks an arena keeps for reuse
// unless told otherwise: after a drain past the memory budget the queue
// keeps the chunks of half its budget, since it fills them again.
const defaultFreeChunks = 4

// store copies rec into the arena and returns where it is. Records start
// on 8-byte boundaries, so a callchain can be read in place.
func (a *arena) store(rec []byte) (*chunk, uint32) {
	n := (len(rec) + 7) &^ 7
	if a.cur == nil || len(a.cur.buf)+n > cap(a.cur.buf) {
		if a.cur != nil && a.cur.live == 0 {
			a.putFree(a.cur)
		}
		a.cur = a.get()
	}
	c := a.cur
	pos := len(c.buf)
	c.buf = c.buf[:pos+n]
	copy(c.buf[pos:], rec)
	c.live++
	return c, uint32(pos)
}

func (a *arena) get() *chunk {
	if n := len(a.free); n > 0 {
		c := a.free[n-1]
		a.free = a.free[:n-1]
		return c
	}
	a.chunks++
	return &chunk{buf: make([]byte, 0, chunkSize)}
}

func (a *arena) putFree(c *chunk) {
	c.buf = c.buf[:0]
	if len(a.free) < max(a.maxFree, defaultFreeChunks) {
		a.free = append(a.free, c)
	} else {
		a.chunks-- // left to the garbage collector
	}
}

// release drops a record stored in c. An emptied chunk is reused: the
// current one from its start, any other through the free list (or the
// garbage collector, beyond its maximum).
func (a *arena) release(c *chunk) {
	c.live--
	if c.live > 0 {
		return
	}
	if c == a.cur {
		c.buf = c.buf[:0]
		return
	}
	a.putFree(c)
}

// recHeap is a binary min-heap of qItem ordered by (time, seq). It is
// written out rather than using container/heap to avoid the interface
// boxing per push/pop.
type recHeap struct{ a []qItem }

func (h *recHeap) len() int    { return len(h.a) }
func (h *recHeap) top() *qItem { return &h.a[0] }

func less(x, y *qItem) bool {
	return x.time < y.time || x.time == y.time && x.seq < y.seq
}

func (h *recHeap) push(it qItem) {
	h.a = append(h.a, it)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(&h.a[i], &h.a[p]) {
			break
		}
		h.a[i], h.a[p] = h.a[p], h.a[i]
		i = p
	}
}

func (h *recHeap) pop() qItem {
	it := h.a[0]
	n := len(h.a) - 1
	h.a[0] = h.a[n]
	h.a[n] = qItem{}
	h.a = h.a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&h.a[r], &h.a[l]) {
			m = r
		}
		if !less(&h.a[m], &h.a[i]) {
			break
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
	return it
}

// timeQueue is the ordered-events queue. Records mostly arrive in time
// order (each ring buffer is sorted), so those that are not older than
// the newest queued one go to a sorted run in O(1); the others go to a
// heap. The smallest of the two heads comes out first.
type timeQueue struct {
	run     []qItem
	runHead int
	h       recHeap
}

func (q *timeQueue) len() int { return len(q.run) - q.runHead + q.h.len() }

func (q *timeQueue) push(it qItem) {
	if n := len(q.run); n == q.runHead || !less(&it, &q.run[n-1]) {
		q.run = append(q.run, it)
		return
	}
	q.h.push(it)
}

// top returns the smallest queued item; the queue must not be empty.
func (q *timeQueue) top() *qItem {
	if q.runHead == len(q.run) {
		return q.h.top()
	}
	r := &q.run[q.runHead]
	if q.h.len() > 0 && less(q.h.top(), r) {
		return q.h.top()
	}
	return r
}

// trim gives back the arrays' capacity beyond a quarter more than their
// length when a drain past the memory budget left them less than a
// quarter full (a queue that fills again keeps its arrays).
func (q *timeQueue) trim() {
	if q.runHead > 0 {
		n := copy(q.run, q.run[q.runHead:])
		clear(q.run[n:])
		q.run, q.runHead = q.run[:n], 0
	}
	q.run = shrink(q.run)
	q.h.a = shrink(q.h.a)
}

// shrink returns a with a quarter more capacity than its length if it
// holds less than a quarter of its capacity (small arrays are kept).
func shrink(a []qItem) []qItem {
	if cap(a) <= 1024 || cap(a) <= 4*len(a) {
		return a
	}
	return append(make([]qItem, 0, len(a)+len(a)/4), a...)
}

func (q *timeQueue) pop() qItem {
	if q.runHead < len(q.run) && (q.h.len() == 0 || !less(q.h.top(), &q.run[q.runHead])) {
		it := q.run[q.runHead]
		q.run[q.runHead] = qItem{}
		q.runHead++
		if q.runHead == len(q.run) {
			q.run, q.runHead = q.run[:0], 0
		} else if q.runHead >= 4096 && q.runHead*2 >= len(q.run) {
			n := copy(q.run, q.run[q.runHead:])
			clear(q.run[n:])
			q.run, q.runHead = q.run[:n], 0
		}
		return it
	}
	return q.h.pop()
}
