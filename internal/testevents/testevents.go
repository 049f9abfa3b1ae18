// Package testevents holds hand-made resolved samples for the tests of the
// report and stats aggregation: a program "app" (pid 10, threads 10 and
// 11) calling through libc into the kernel, with unresolved libc frames,
// an address outside every map, and a second event.
package testevents

import (
	"path/filepath"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// The two events of the samples.
var (
	CPUClock  = &decode.EventAttr{Name: "cpu-clock", Index: 0, SampleType: decode.SampleTID | decode.SamplePeriod | decode.SampleCallchain}
	TaskClock = &decode.EventAttr{Name: "task-clock", Index: 1, SampleType: decode.SampleTID | decode.SamplePeriod | decode.SampleCallchain}
)

// KFrame returns a resolved kernel frame at addr.
func KFrame(sym string, addr, off uint64) symbolize.Frame {
	return symbolize.Frame{Addr: addr, MapAddr: addr, Symbol: sym, Offset: off, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}
}

// UFrame returns a frame of dso mapped at base, at the map address rel;
// sym "" leaves it unresolved (no symbols).
func UFrame(dso, sym string, base, rel, off uint64) symbolize.Frame {
	f := symbolize.Frame{Addr: base + rel, MapAddr: rel, Symbol: sym, Offset: off, DSO: dso, DSOShort: filepath.Base(dso)}
	if sym == "" {
		f.Reason = symbolize.NoSymbols
	}
	return f
}

// The program and its C library.
const (
	AppPath  = "/usr/bin/app"
	LibcPath = "/usr/lib/libc.so.6"
	LibcBase = 0x7f0000000000
)

// The frames of the samples: the program's functions, two unresolved
// libc addresses and libc's read, three kernel functions, and an address
// outside every map. DSOOrder is the order the DSOs were mapped in.
var (
	Main     = UFrame(AppPath, "main", 0, 0x1100, 0x20)
	Work     = UFrame(AppPath, "work", 0, 0x1200, 0x10)
	Leaf     = UFrame(AppPath, "leaf", 0, 0x1300, 0x8)
	Leaf2    = UFrame(AppPath, "leaf", 0, 0x1310, 0x18)
	Start    = UFrame(LibcPath, "", LibcBase, 0x2724a, 0)
	Read     = UFrame(LibcPath, "read", LibcBase, 0x11000, 0x12)
	Qsort    = UFrame(LibcPath, "", LibcBase, 0x3fbc2, 0)
	Sys      = KFrame("do_syscall_64", 0xffffffff81000100, 0x40)
	Entry    = KFrame("entry_SYSCALL_64", 0xffffffff81000200, 0x30)
	Zero     = KFrame("read_zero", 0xffffffff81000300, 0x77)
	NoMap    = symbolize.Frame{Addr: 0xdeadbeef, MapAddr: 0xdeadbeef, DSO: "[unknown]", DSOShort: "[unknown]", Reason: symbolize.NoMap}
	DSOOrder = []string{"[kernel.kallsyms]_text", AppPath, LibcPath}
)

// Event returns a sample of attr by thread tid with the given period and
// frames, leaf first; the first frame is the sampled IP.
func Event(attr *decode.EventAttr, tid int32, comm string, period uint64, frames ...symbolize.Frame) *symbolize.Event {
	s := &decode.Sample{Period: period}
	s.Attr = attr
	s.PID, s.TID = 10, tid
	s.Format = attr.SampleType
	s.Misc = uint16(decode.CPUModeUser)
	if frames[0].Kernel {
		s.Misc = uint16(decode.CPUModeKernel)
	}
	return &symbolize.Event{Sample: &stitch.Sample{Sample: s}, Comm: comm, IP: frames[0], Frames: frames}
}

// Events returns the 108 samples the report and stats goldens are made
// from.
func Events() []*symbolize.Event {
	var evs []*symbolize.Event
	add := func(n int, ev *symbolize.Event) {
		for range n {
			evs = append(evs, ev)
		}
	}
	add(30, Event(CPUClock, 10, "app", 1000, Leaf, Work, Main, Start))
	add(10, Event(CPUClock, 10, "app", 1000, Leaf2, Work, Work, Main, Start))
	add(25, Event(CPUClock, 10, "app", 1000, Zero, Sys, Entry, Read, Work, Main, Start))
	add(20, Event(CPUClock, 11, "app-worker", 1000, Qsort, Work, Main, Start))
	add(12, Event(CPUClock, 11, "app-worker", 1000, Sys, Entry, Read, Leaf, Work, Main, Start))
	add(2, Event(CPUClock, 11, "app-worker", 1000, NoMap, Work, Main, Start))
	add(1, Event(CPUClock, 10, "app", 1000, Main, Start))
	add(5, Event(TaskClock, 10, "app", 2000, Leaf, Work, Main, Start))
	add(3, Event(TaskClock, 11, "app-worker", 2000, Zero, Sys, Entry, Read, Leaf, Main, Start))
	return evs
}
