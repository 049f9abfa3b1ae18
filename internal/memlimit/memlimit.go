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
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// SmallInput is the largest recording, in bytes, the policy is for: where
// the fixed costs (kallsyms, DWARF, buffers) are most of the memory.
const SmallInput = 16 << 20

// Policy is when the limit applies.
type Policy struct {
	// Limit is the soft memory limit of the Go runtime (its heap, stacks
	// and metadata; see [debug.SetMemoryLimit]).
	Limit int64
	// LiftAt is the live heap, in bytes, past which the limit is lifted.
	LiftAt uint64
	// Every is how often the live heap is read.
	Every time.Duration
}

// Default returns perfstitch's policy: a process under 64 MiB of resident
// memory (the limit plus the binary's own pages) while it keeps under
// 40 MiB live.
func Default() Policy {
	return Policy{Limit: 56 << 20, LiftAt: 40 << 20, Every: 10 * time.Millisecond}
}

// Start applies p and returns the function that ends it (and restores
// the runtime's limit). It does nothing when the environment (getenv)
// sets GOMEMLIMIT or GOGC: who sets those has chosen for the run.
func Start(p Policy, getenv func(string) string) (stop func()) {
	if getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" || p.Limit <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(p.Limit)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(p.Every)
		defer t.Stop()
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(live)
			if live[0].Value.Kind() != metrics.KindUint64 || live[0].Value.Uint64() > p.LiftAt {
				debug.SetMemoryLimit(prev)
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			debug.SetMemoryLimit(prev)
		})
	}
}

// Lifted reports whether the runtime has no soft memory limit (its
// default), as after the policy lifted it.
func Lifted() bool { return debug.SetMemoryLimit(-1) == math.MaxInt64 }
