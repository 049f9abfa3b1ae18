package symbolize

import "testing"

// TestReasonNames checks that every Reason has a description and a JSON
// name, and what a value past the last one prints.
func TestReasonNames(t *testing.T) {
	tests := []struct {
		r          Reason
		desc, name string
	}{
		{Resolved, "resolved", "resolved"},
		{NoMap, "address outside any map", "no-map"},
		{NotFound, "file not found", "dso-not-found"},
		{BuildIDMismatch, "build-id mismatch", "build-id-mismatch"},
		{NoSymbols, "no symbols", "no-symbol"},
		{NoKallsyms, "no kallsyms", "no-kallsyms"},
		{Special, "not an address", "special"},
		{BadFile, "not ELF, truncated or corrupt", "dso-bad-file"},
		{BadFile + 1, "unknown reason", "unknown"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.desc {
			t.Errorf("Reason(%d).String() = %q, want %q", tt.r, got, tt.desc)
		}
		if got := tt.r.Name(); got != tt.name {
			t.Errorf("Reason(%d).Name() = %q, want %q", tt.r, got, tt.name)
		}
	}
}
