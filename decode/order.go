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
