package symbolize

// Mapping is the memory mapping that covers an address, as formats with
// a mapping table (pprof) describe it.
type Mapping struct {
	// Start and Limit bound the mapping: [Start, Limit).
	Start, Limit uint64
	// Offset is the file offset mapped at Start. For identity mappings
	// (the kernel, modules, JIT and anonymous memory), whose addresses
	// are their own map addresses, it is Start.
	Offset uint64
	// File is the DSO name as frames carry it ("[kernel.kallsyms]", a
	// path, "[vdso]", "/tmp/perf-PID.map").
	File string
	// BuildID is the DSO's build id in hex, "" if unknown.
	BuildID string
}

// MappingAt returns the mapping that covered addr when the last resolved
// sample was taken: in the kernel address space if kernel is set (as
// [Frame.Kernel] says), else in process pid's. It reads the current
// state, so it is meant to be called right after [Symbolizer.Resolve] of
// the sample whose frames are being written.
func (s *Symbolizer) MappingAt(pid int32, addr uint64, kernel bool) (Mapping, bool) {
	var m *mapping
	if kernel {
		m = s.kernelMap(addr)
	} else {
		m = s.userMap(pid, addr)
	}
	if m == nil || m.dso == nil {
		return Mapping{}, false
	}
	out := Mapping{Start: m.start, Limit: m.end, Offset: m.pgoff, File: m.dso.name, BuildID: m.dso.buildIDHex}
	if m.identity {
		out.Offset = m.start
	}
	return out, true
}
