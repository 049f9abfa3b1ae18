package symbolize

// reasonNames has, for every Reason, its description and its name in
// perfstitch's JSON output (docs/json.md).
var reasonNames = [...]struct{ desc, name string }{
	Resolved:        {"resolved", "resolved"},
	NoMap:           {"address outside any map", "no-map"},
	NotFound:        {"file not found", "dso-not-found"},
	BuildIDMismatch: {"build-id mismatch", "build-id-mismatch"},
	NoSymbols:       {"no symbols", "no-symbol"},
	NoKallsyms:      {"no kallsyms", "no-kallsyms"},
	Special:         {"not an address", "special"},
	BadFile:         {"not ELF, truncated or corrupt", "dso-bad-file"},
}

// String returns a short lowercase description of the reason.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r].desc
	}
	return "unknown reason"
}

// Name returns the reason's name in perfstitch's JSON output ("no-map"),
// "unknown" for a value that is no Reason.
func (r Reason) Name() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r].name
	}
	return "unknown"
}

// DSODiagnostic says how well one DSO resolved. The pseudo-DSO
// "[unknown]" collects the addresses outside every map.
type DSODiagnostic struct {
	DSO     string // as perf prints it
	BuildID string // recorded build id in hex, "" if none
	// Path is the file the symbols were read from ("" if none).
	Path string
	// Reason is Resolved when the DSO's symbols were loaded, else why not
	// (NotFound, BadFile, BuildIDMismatch, NoSymbols, NoKallsyms, NoMap).
	Reason Reason
	// Mismatches counts candidate files rejected for another build id.
	Mismatches int
	// Frames counts the frames (and sample IPs) that fell in this DSO;
	// Unresolved those left without a symbol.
	Frames, Unresolved uint64
	// UnresolvedWeight sums the period of the samples with at least one
	// unresolved frame (or IP) in this DSO.
	UnresolvedWeight uint64
}

// Diagnostics returns one entry per DSO that any resolved address fell
// in, in order of first use, then "[unknown]" if any address had no map.
func (s *Symbolizer) Diagnostics() []DSODiagnostic {
	var out []DSODiagnostic
	add := func(d *dso) {
		if d.frames == 0 {
			return
		}
		out = append(out, DSODiagnostic{
			DSO: d.name, BuildID: d.buildIDHex, Path: d.path, Reason: d.reason,
			Mismatches: d.mismatches, Frames: d.frames, Unresolved: d.unresolved,
			UnresolvedWeight: d.weight,
		})
	}
	for _, d := range s.dsoOrder {
		add(d)
	}
	add(&s.unknown)
	return out
}
