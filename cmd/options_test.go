package cmd

import (
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// TestBuildIDDir checks which build-id cache is used: --buildid-dir, else
// the symfs's own .debug (as perf, which skips the local cache when given
// a symfs), else $HOME/.debug.
func TestBuildIDDir(t *testing.T) {
	home := func(string) string { return "/home/u" }
	tests := []struct {
		name string
		o    CommonOptions
		want string
	}{
		{"home", CommonOptions{Getenv: home}, "/home/u/.debug"},
		{"no home", CommonOptions{Getenv: func(string) string { return "" }}, ""},
		{"symfs", CommonOptions{Getenv: home, Symfs: "/sym"}, "/sym/.debug"},
		{"flag wins", CommonOptions{Getenv: home, Symfs: "/sym", BuildIDDir: "/cache"}, "/cache"},
	}
	for _, tt := range tests {
		if got := buildIDDir(&tt.o); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCPUSampled checks when -C can filter: the first event of every
// event type must sample the CPU, as perf_session__cpu_bitmap requires.
func TestCPUSampled(t *testing.T) {
	ev := func(typ decode.AttrType, st decode.SampleFormat) *decode.EventAttr {
		return &decode.EventAttr{Type: typ, SampleType: st}
	}
	cpu := decode.SampleIP | decode.SampleCPU
	tests := []struct {
		name  string
		attrs []*decode.EventAttr
		want  bool
	}{
		{"one event with cpu", []*decode.EventAttr{ev(1, cpu)}, true},
		{"one event without", []*decode.EventAttr{ev(1, decode.SampleIP)}, false},
		{"only the first of a type counts", []*decode.EventAttr{ev(1, cpu), ev(1, decode.SampleIP)}, true},
		{"every type's first", []*decode.EventAttr{ev(1, cpu), ev(0, decode.SampleIP)}, false},
	}
	for _, tt := range tests {
		if got := cpuSampled(tt.attrs); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
