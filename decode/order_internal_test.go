package decode

import (
	"math/rand"
	"slices"
	"testing"
)

// TestTimeQueue checks the queue against a reference on random mixes of
// in-order and out-of-order pushes with pops interleaved: every pop must
// return the smallest (time, seq) queued at that moment.
func TestTimeQueue(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		var q timeQueue
		var ref []qItem
		seq := uint64(0)
		base := uint64(1000)
		for i := 0; i < 500 || q.len() > 0; i++ {
			r := rng.Intn(10)
			if i >= 500 {
				r = 9
			}
			switch {
			case r < 6:
				base += uint64(rng.Intn(3))
				seq++
				q.push(qItem{time: base, seq: seq})
				ref = append(ref, qItem{time: base, seq: seq})
			case r < 8:
				seq++
				it := qItem{time: base - uint64(rng.Intn(50)), seq: seq}
				q.push(it)
				ref = append(ref, it)
			default:
				if q.len() == 0 {
					continue
				}
				top := *q.top()
				it := q.pop()
				m := 0
				for j := range ref {
					if less(&ref[j], &ref[m]) {
						m = j
					}
				}
				if it != top || it != ref[m] {
					t.Fatalf("round %d: pop %v, top %v, want %v", round, it, top, ref[m])
				}
				ref = slices.Delete(ref, m, m+1)
			}
			if q.len() != len(ref) {
				t.Fatalf("len %d, want %d", q.len(), len(ref))
			}
		}
	}
}

// TestTimeQueueOrder pushes everything, then pops: the result is sorted by
// (time, seq).
func TestTimeQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var q timeQueue
	for i := 0; i < 10000; i++ {
		q.push(qItem{time: uint64(rng.Intn(100) + i/10), seq: uint64(i)})
	}
	var last qItem
	for i := 0; q.len() > 0; i++ {
		it := q.pop()
		if i > 0 && less(&it, &last) {
			t.Fatalf("pop %d: %v after %v", i, it, last)
		}
		last = it
	}
}
