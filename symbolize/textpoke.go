package symbolize

import "github.com/perfstitch/perfstitch/decode"

// ResolveKernel fills f with what the kernel address space holds at addr,
// as perf looks up a TEXT_POKE record's address for perf script
// --show-text-poke-events (perf_event__fprintf_text_poke: the kernel's
// maps, the BPF programs of KSYMBOL records among them). Unlike a sample's
// frame it counts in no diagnostics.
func (s *Symbolizer) ResolveKernel(f *Frame, addr uint64) {
	d, ok := s.resolveAddrSlow(f, addr, decode.CPUModeKernel, 0, 0)
	// Take back what resolveAddrSlow counted (count, with no period).
	d.frames--
	if !ok {
		d.unresolved--
	}
}
