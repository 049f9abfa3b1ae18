package cmd

import (
	"context"
	"os"
	"testing"

	"github.com/perfstitch/perfstitch/internal/iostreams"
)

// TestOnInputGetsSize checks that script, report and stats tell the
// Factory's OnInput the input's size once it is open (Main's memory
// policy hangs on it), and a pipe's as -1.
func TestOnInputGetsSize(t *testing.T) {
	const data = "../testdata/demo/perf.data"
	st, err := os.Stat(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"script", "-i", data},
		{"report", "-i", data, "--stdio"},
		{"stats", "-i", data},
	} {
		f, _, errOut := testFactory()
		var sizes []int64
		f.OnInput = func(n int64) { sizes = append(sizes, n) }
		if code := Run(context.Background(), f, args); code != ExitOK {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, code, errOut)
		}
		if len(sizes) != 1 || sizes[0] != st.Size() {
			t.Errorf("%v: OnInput got %v, want [%d]", args, sizes, st.Size())
		}
	}
	pipe, err := os.ReadFile("../testdata/pipe/perf.data")
	if err != nil {
		t.Fatal(err)
	}
	ios, in, _, errOut := iostreams.Test()
	in.Write(pipe)
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }}
	var sizes []int64
	f.OnInput = func(n int64) { sizes = append(sizes, n) }
	if code := Run(context.Background(), f, []string{"script", "-i", "-"}); code != ExitOK {
		t.Fatalf("pipe: exit %d, stderr:\n%s", code, errOut)
	}
	if len(sizes) != 1 || sizes[0] != -1 {
		t.Errorf("pipe: OnInput got %v, want [-1]", sizes)
	}
}
