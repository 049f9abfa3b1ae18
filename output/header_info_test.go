package output

import "testing"

// TestHeaderInfoFormats: the number formats of the -I sections, as perf's
// unit_number__scnprintf and cpu map printing give them.
func TestHeaderInfoFormats(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{
		{0, "0B"}, {1024, "1024B"}, {2048, "2K"}, {4 << 30, "4G"}, {24 << 30, "24G"}, {3 << 29, "1536M"},
	} {
		if got := unitNumber(c.n); got != c.want {
			t.Errorf("unitNumber(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0-1", "0-1"}, {"0", "0"}, {"3,1,2,7", "1-3,7"}, {"0-3,2-5,9", "0-5,9"}, {"x", "x"}, {"5-2", "5-2"},
	} {
		if got := cpuList(c.in); got != c.want {
			t.Errorf("cpuList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
