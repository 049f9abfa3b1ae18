package iostreams

import (
	"bytes"
	"fmt"
	"os/exec"
	"testing"
)

// TestStartPager: output reaches the terminal through the pager, and only
// when stdout is a terminal and the pager is not "cat".
func TestStartPager(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skipf("no sh: %v", err)
	}
	tests := []struct {
		name     string
		terminal bool
		command  string
		want     string
		paged    bool
	}{
		{"not a terminal", false, "sed s/^/paged:/", "row\n", false},
		{"cat", true, "cat", "row\n", false},
		{"pager", true, "sed s/^/paged:/", "paged:row\n", true},
	}
	for _, tt := range tests {
		s, _, out, _ := Test()
		s.OutIsTerminal = tt.terminal
		p := s.StartPager(tt.command)
		if (p != nil) != tt.paged {
			t.Fatalf("%s: StartPager = %v, want paged %v", tt.name, p, tt.paged)
		}
		fmt.Fprint(s.Out, "row\n")
		if p != nil {
			if err := p.Stop(); err != nil {
				t.Fatalf("%s: Stop: %v", tt.name, err)
			}
		}
		if out.String() != tt.want {
			t.Errorf("%s: terminal got %q, want %q", tt.name, out, tt.want)
		}
		if _, ok := s.Out.(*bytes.Buffer); !ok {
			t.Errorf("%s: s.Out not restored: %T", tt.name, s.Out)
		}
	}
}

func TestPagerFails(t *testing.T) {
	s, _, _, _ := Test()
	s.OutIsTerminal = true
	p := s.StartPager("exit 3")
	if p == nil {
		t.Fatal("StartPager returned nil for a pager that starts")
	}
	if err := p.Stop(); err == nil {
		t.Error("Stop of a pager that exited 3 succeeded, want an error")
	}
}
