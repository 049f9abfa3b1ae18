package symbolize

import "github.com/perfstitch/perfstitch/decode"

// frameCacheBits sizes the frame cache: 1<<frameCacheBits entries.
const frameCacheBits = 13

// frameCache is a direct-mapped cache of resolved frames by (address,
// cpumode, process). A hit replaces the map search, the symbol lookup and
// the field copies of resolveAddr with one compare and one copy. Every
// change to an address space or to what a DSO resolves to bumps gen,
// which empties the cache at once (side-band records are rare next to
// samples).
type frameCache struct {
	gen     uint64
	entries [1 << frameCacheBits]frameEntry
}

// frameEntry is one cached resolution: the frame, and the DSO and outcome
// it is counted against in the diagnostics.
type frameEntry struct {
	gen  uint64 // frameCache.gen when filled; 0 never matches
	addr uint64
	pid  int32
	mode decode.CPUMode
	ok   bool
	d    *dso
	f    Frame
}

func newFrameCache() *frameCache { return &frameCache{gen: 1} }

// invalidate drops every cached frame.
func (c *frameCache) invalidate() { c.gen++ }

// slot returns the entry for (addr, mode, pid).
func (c *frameCache) slot(addr uint64, mode decode.CPUMode, pid int32) *frameEntry {
	h := (addr ^ uint64(uint32(pid))<<40 ^ uint64(mode)<<60) * 0x9e3779b97f4a7c15
	return &c.entries[h>>(64-frameCacheBits)]
}

// resolveAddr fills f for address addr seen in cpumode mode by a thread
// of process pid, from the frame cache when it can, and returns the DSO
// the frame lies in (the [unknown] pseudo-DSO when none).
func (s *Symbolizer) resolveAddr(f *Frame, addr uint64, mode decode.CPUMode, pid int32, period uint64) *dso {
	if mode != decode.CPUModeKernel && mode != decode.CPUModeUser {
		d, _ := s.resolveAddrSlow(f, addr, mode, pid, period)
		return d
	}
	if mode == decode.CPUModeKernel {
		pid = 0 // one kernel address space
	}
	e := s.fc.slot(addr, mode, pid)
	if e.gen == s.fc.gen && e.addr == addr && e.pid == pid && e.mode == mode {
		*f = e.f
		s.count(e.d, e.ok, period)
		return e.d
	}
	d, ok := s.resolveAddrSlow(f, addr, mode, pid, period)
	// The slow path may have loaded kallsyms or a snapshot, which
	// invalidates; the entry is filled after, so it stays valid.
	*e = frameEntry{gen: s.fc.gen, addr: addr, pid: pid, mode: mode, ok: ok, d: d, f: *f}
	return d
}
