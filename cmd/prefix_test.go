package cmd

import (
	"slices"
	"strings"
	"testing"
)

// TestExpandPrefixes: unique prefixes of long options become the full
// names, as perf's parser takes them; exact names, values, shorthand
// values and everything after "--" stay as written.
func TestExpandPrefixes(t *testing.T) {
	f, _, _ := testFactory()
	root := NewCmdRoot(f)
	for _, tc := range []struct {
		args []string
		want []string
		err  string
	}{
		{args: []string{"script", "--comm", "a"}, want: []string{"script", "--comms", "a"}},
		{args: []string{"script", "--show-task", "--show-mm"}, want: []string{"script", "--show-task-events", "--show-mmap-events"}},
		{args: []string{"script", "--hide-c=true", "x.data"}, want: []string{"script", "--hide-call-graph=true", "x.data"}},
		{args: []string{"script", "--ns"}, want: []string{"script", "--ns"}},             // exact name beats --no-inline etc.
		{args: []string{"script", "-i", "--sh"}, want: []string{"script", "-i", "--sh"}}, // a value, not an option
		{args: []string{"script", "--symf", "--kall", "k"}, want: []string{"script", "--symfs", "--kall", "k"}},
		{args: []string{"script", "-Gi", "--comm"}, want: []string{"script", "-Gi", "--comm"}},
		{args: []string{"script", "--", "--comm"}, want: []string{"script", "--", "--comm"}},
		{args: []string{"report", "--sor", "dso"}, want: []string{"report", "--sort", "dso"}},
		{args: []string{"script", "--nosuch"}, want: []string{"script", "--nosuch"}},
		{args: []string{"script", "--show"}, err: "ambiguous option --show: could be --show-"},
		{args: []string{"stats", "--s"}, err: "ambiguous option --s: could be --"},
	} {
		got, err := expandPrefixes(root, tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
}
