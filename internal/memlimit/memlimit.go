// Package memlimit keeps a small run small: it gives the Go runtime a
// soft memory limit while the live heap is small, and lifts it once the
// live heap has grown past what the limit holds without collecting all
// the time.
//
// With the runtime's default (GOGC=100) the heap grows to twice what was
// live after the last collection before the next one starts. A run over a
// small recording keeps 30 to 40 MiB live for the whole run (kallsyms, a
// library's DWARF, the pipeline's buffers) and so peaks at 70 to 80 MiB
// although it needs half of that. Under the limit the collector starts
// earlier, when the process's Go memory nears the limit, which costs a
// few more collections of a small heap. A run whose live heap is larger
// (report's call graphs, a long recording's many DSOs) would collect
// without pause under the same limit; the limit is lifted for it, and it
// runs as it would without this package.
package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// SmallInput is the largest recording, in bytes, [For] gives [Small]
// to: where the fixed costs (kallsyms, DWARF, buffers) are most of the
// memory.
const SmallInput = 16 << 20

// Policy is when the limit applies.
type Policy struct {
	// Limit is the soft memory limit of the Go runtime (its heap, stacks
	// and metadata; see [debug.SetMemoryLimit]).
	Limit int64
	// LiftAt is the live heap, in bytes, past which the limit is lifted.
	LiftAt uint64
	// LimitOnly turns the proportional collector off while the limit
	// applies (GOGC=off), so that the limit alone starts collections;
	// lifting the limit turns it back on.
	LimitOnly bool
}

// Small is the policy of a small recording: a process under 64 MiB of
// resident memory (the limit plus the binary's own pages) while it keeps
// under 40 MiB live, collected only as it nears the limit. Start-up
// (kallsyms, symbol tables, DWARF: 20 to 40 MiB in a few milliseconds)
// otherwise runs half a dozen collections of a growing heap, a quarter of
// a small recording's time.
func Small() Policy {
	return Policy{Limit: 56 << 20, LiftAt: 40 << 20, LimitOnly: true}
}

// Large is the policy of any other input (a pipe's too): a process under
// 128 MiB while it keeps under 80 MiB live. Runs that keep less live
// never reach the limit (the heap grows to twice the live part), so it
// acts only where the time-order queue of a recording without rounds,
// or an aggregate, has grown the heap.
func Large() Policy {
	return Policy{Limit: 120 << 20, LiftAt: 80 << 20}
}

// For returns the policy of an input of size bytes (-1: a pipe).
func For(size int64) Policy {
	if size >= 0 && size <= SmallInput {
		return Small()
	}
	return Large()
}

// Start applies p and returns the function that ends it (and restores
// the runtime's limit). It does nothing when the environment (getenv)
// sets GOMEMLIMIT or GOGC: who sets those has chosen for the run.
//
// The live heap is read after each collection (the limit acts through
// collections, so nothing can change in between), from a cleanup that
// the collection runs and that arms the next: no goroutine polls.
func Start(p Policy, getenv func(string) string) (stop func()) {
	if getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" || p.Limit <= 0 {
		return func() {}
	}
	w := &watch{liftAt: p.LiftAt, prev: debug.SetMemoryLimit(p.Limit), prevGC: noGC}
	if p.LimitOnly {
		w.prevGC = debug.SetGCPercent(-1)
	}
	w.arm()
	return w.stop
}

// noGC marks a watch that left the collector's percentage alone.
const noGC = math.MinInt

// watch lifts the limit once a collection finds more than liftAt live.
type watch struct {
	liftAt uint64
	prev   int64 // the runtime's limit before
	prevGC int   // its GC percentage before, if LimitOnly changed it (else noGC)
	mu     sync.Mutex
	ended  bool
	live   [1]metrics.Sample
}

// sentinel is the object whose cleanup runs after the collection that
// finds it unreachable; larger than the tiny allocator's 16 bytes, whose
// blocks are shared and may outlive it.
type sentinel struct{ _ [32]byte }

// arm makes the next collection call check, and arm again.
func (w *watch) arm() {
	runtime.AddCleanup(&sentinel{}, func(w *watch) {
		if w.check() {
			w.arm()
		}
	}, w)
}

// check lifts the limit if the live heap is past liftAt and reports
// whether to go on watching.
func (w *watch) check() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return false
	}
	w.live[0].Name = "/gc/heap/live:bytes"
	metrics.Read(w.live[:])
	if v := w.live[0].Value; v.Kind() != metrics.KindUint64 || v.Uint64() > w.liftAt {
		w.restore()
		return false
	}
	return true
}

func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ended {
		w.restore()
	}
}

// restore gives the runtime its settings back; w.mu is held.
func (w *watch) restore() {
	w.ended = true
	if w.prevGC != noGC {
		debug.SetGCPercent(w.prevGC)
	}
	debug.SetMemoryLimit(w.prev)
}
