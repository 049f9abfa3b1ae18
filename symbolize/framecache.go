package symbolize

import "github.com/perfstitch/perfstitch/decode"

// frameCacheBits sizes the frame cache: 1<<frameCacheBits entries.
const frameCacheBits = 13

// pidGenBits sizes the table of per-process generations: 1<<pidGenBits
// slots, processes sharing a slot (pids equal modulo its size) are
// invalidated together.
const pidGenBits = 10

// frameCache is a direct-mapped cache of resolved frames by (address,
// cpumode, process). A hit replaces the map search, the symbol lookup and
// the field copies of resolveAddr with one compare and one copy. A change
// to one process's address space (its MMAP, its FORK) bumps that
// process's generation, which drops its user frames; any other change to
// what an address resolves to (the kernel's maps, a KSYMBOL, a build id,
// kallsyms or a maps snapshot loaded) bumps gen, which empties the cache
// at once. Recordings of programs that fork a lot carry thousands of
// MMAP records; emptying the whole cache at each of them made one frame
// in ten a miss.
type frameCache struct {
	gen     uint64
	pidGen  [1 << pidGenBits]uint32
	entries [1 << frameCacheBits]frameEntry
}

// frameEntry is one cached resolution: the frame, and the DSO and outcome
// it is counted against in the diagnostics, and the names of the inline
// frames perf 7 expands it to (rowsRead: looked up; see
// [Symbolizer.inlineRows]).
type frameEntry struct {
	gen      uint64 // frameCache.gen when filled; 0 never matches
	pgen     uint32 // the process's frameCache.pidGen when filled
	addr     uint64
	pid      int32
	mode     decode.CPUMode
	ok       bool
	rowsRead bool
	d        *dso
	rows     []string
	f        Frame
}

func newFrameCache() *frameCache { return &frameCache{gen: 1} }

// invalidate drops every cached frame.
func (c *frameCache) invalidate() { c.gen++ }

// invalidatePID drops the cached user frames of process pid (and of the
// processes sharing its slot).
func (c *frameCache) invalidatePID(pid int32) { c.pidGen[uint32(pid)%(1<<pidGenBits)]++ }

// pgen returns the generation of process pid.
func (c *frameCache) pgen(pid int32) uint32 { return c.pidGen[uint32(pid)%(1<<pidGenBits)] }

// valid reports whether e holds the frame of (addr, mode, pid).
func (c *frameCache) valid(e *frameEntry, addr uint64, mode decode.CPUMode, pid int32) bool {
	return e.gen == c.gen && e.addr == addr && e.pid == pid && e.mode == mode && e.pgen == c.pgen(pid)
}

// slot returns the entry for (addr, mode, pid).
func (c *frameCache) slot(addr uint64, mode decode.CPUMode, pid int32) *frameEntry {
	h := (addr ^ uint64(uint32(pid))<<40 ^ uint64(mode)<<60) * 0x9e3779b97f4a7c15
	return &c.entries[h>>(64-frameCacheBits)]
}

// lookup returns the valid entry for (addr, mode, pid), or nil.
func (c *frameCache) lookup(addr uint64, mode decode.CPUMode, pid int32) *frameEntry {
	if mode == decode.CPUModeKernel {
		pid = 0
	} else if mode != decode.CPUModeUser {
		return nil
	}
	if e := c.slot(addr, mode, pid); c.valid(e, addr, mode, pid) {
		return e
	}
	return nil
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
	if s.fc.valid(e, addr, mode, pid) {
		*f = e.f
		s.count(e.d, e.ok, period)
		return e.d
	}
	d, ok := s.resolveAddrSlow(f, addr, mode, pid, period)
	// The slow path may have loaded kallsyms or a snapshot, which
	// invalidates; the entry is filled after, so it stays valid.
	*e = frameEntry{gen: s.fc.gen, pgen: s.fc.pgen(pid), addr: addr, pid: pid, mode: mode, ok: ok, d: d, f: *f}
	return d
}

// appendInlined appends the frame of callchain address addr to frames,
// expanded to its inline frames as perf 6.19+ expands every callchain
// entry (append_inlines), and returns frames. The inline names are kept
// in the frame cache with the frame, so that an address seen again costs
// one cache lookup.
func (s *Symbolizer) appendInlined(frames []Frame, addr uint64, mode decode.CPUMode, pid int32, period uint64) []Frame {
	n := len(frames)
	frames = append(frames, Frame{})
	var rows []string
	if e := s.fc.lookup(addr, mode, pid); e != nil && e.rowsRead {
		frames[n] = e.f
		s.count(e.d, e.ok, period)
		rows = e.rows
	} else {
		d := s.resolveAddr(&frames[n], addr, mode, pid, period)
		rows = s.inlineRows(d, &frames[n])
		if e := s.fc.lookup(addr, mode, pid); e != nil {
			e.rows, e.rowsRead = rows, true
		}
	}
	if len(rows) == 0 {
		return frames
	}
	f := frames[n]
	return appendRows(frames[:n], &f, rows)
}
