package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func noEnv(string) string { return "" }

// TestLiftsPastLiveHeap checks that the limit applies while the live heap
// is under LiftAt and is lifted once more is live, and that stop restores
// the runtime's limit.
func TestLiftsPastLiveHeap(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	beforeGC := debug.SetGCPercent(-1)
	debug.SetGCPercent(beforeGC)
	stop := Start(Policy{Limit: 1 << 40, LiftAt: 8 << 20, LimitOnly: true}, noEnv)
	defer stop()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Fatalf("limit %d while the live heap is small, want %d", got, int64(1)<<40)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GC percentage %d under LimitOnly, want -1 (off)", got)
	}
	keep := make([]byte, 32<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	runtime.GC() // the live heap is what the last collection found
	deadline := time.Now().Add(5 * time.Second)
	for !lifted() && time.Now().Before(deadline) {
		runtime.GC() // the check runs after a collection
		time.Sleep(time.Millisecond)
	}
	runtime.KeepAlive(keep)
	if !lifted() {
		t.Fatalf("limit %d with 32 MiB live, want it lifted", debug.SetMemoryLimit(-1))
	}
	if got := debug.SetGCPercent(beforeGC); got != beforeGC {
		t.Fatalf("GC percentage %d once lifted, want %d back", got, beforeGC)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("limit %d after stop, want %d", got, before)
	}
}

// TestEnvironmentChooses checks that GOMEMLIMIT or GOGC in the
// environment leave the runtime alone.
func TestEnvironmentChooses(t *testing.T) {
	for _, name := range []string{"GOMEMLIMIT", "GOGC"} {
		env := func(k string) string {
			if k == name {
				return "100"
			}
			return ""
		}
		stop := Start(Policy{Limit: 1 << 30, LiftAt: 1 << 40}, env)
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("%s set: limit %d, want none", name, got)
		}
		stop()
	}
}

// lifted reports whether the runtime has no soft memory limit (its
// default), as after the policy lifted it.
func lifted() bool { return debug.SetMemoryLimit(-1) == math.MaxInt64 }
