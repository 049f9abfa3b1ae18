package decode

// qItem is one queued record of the time-ordering queue.
type qItem struct {
	time uint64
	seq  uint64 // insertion order: equal times keep file order, as in perf
	rec  Record
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
