package symbolize

import "github.com/perfstitch/perfstitch/decode"

// ResolveDeferred appends to frames the user frames of a
// CALLCHAIN_DEFERRED record shown on its own (perf 6.19
// --no-merge-callchains), leaf first, and returns them: the record's IPs
// resolved as a user callchain of its thread, at most Options.MaxStack
// addresses. As with [Symbolizer.Resolve], the side-band records up to the
// record's time must have been passed to [Symbolizer.Observe] first, the
// thread becomes known to the process model, and the frames count in the
// diagnostics, with no weight (the record has no period).
func (s *Symbolizer) ResolveDeferred(frames []Frame, r *decode.CallchainDeferred) []Frame {
	s.seq++
	t := s.thread(r.PID, r.TID)
	frames, _ = s.appendChain(frames, r.IPs, spaceOf(t, r.PID), 0, false)
	return frames
}
