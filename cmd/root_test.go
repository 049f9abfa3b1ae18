package cmd

import (
	"bytes"
	"context"
	"testing"
)

// TestSharedFlagsBeforeCommand: the flags script, report and stats share
// (--symfs, --kallsyms, -i, filters, ...) read the same before the command
// name as after it, the way a root's persistent flags would.
func TestSharedFlagsBeforeCommand(t *testing.T) {
	args := demoArgs(t) // --symfs S --kallsyms K DATA
	shared, data := args[:len(args)-1], args[len(args)-1]
	for _, command := range []string{"script", "report", "stats"} {
		t.Run(command, func(t *testing.T) {
			run := func(argv ...string) []byte {
				f, out, errOut := testFactory()
				if code := Run(context.Background(), f, argv); code != ExitOK {
					t.Fatalf("%q: exit %d: %s", argv, code, errOut)
				}
				return out.Bytes()
			}
			after := run(append(append([]string{command}, shared...), "--pid", "217", "-i", data)...)
			before := run(append(append(append([]string{}, shared...), "--pid", "217", "-i", data), command)...)
			if len(after) == 0 || !bytes.Equal(before, after) {
				t.Errorf("flags before %q print %d bytes, after it %d; want the same non-empty output", command, len(before), len(after))
			}
		})
	}
}

// TestUsageErrors: usage mistakes exit 2 and point at the help of the
// command that was mistaken, not the root's.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args     []string
		wantHelp string
	}{
		{[]string{"bogus"}, "perfstitch --help"},
		{[]string{"script", "--bogus"}, "perfstitch script --help"},
		{[]string{"report", "a", "b"}, "perfstitch report --help"},
		{[]string{"stats", "--format", "bogus", "x"}, "perfstitch stats --help"},
		{[]string{"completion", "tcsh"}, "perfstitch completion --help"},
		{[]string{"completion"}, "perfstitch completion --help"},
	}
	for _, tt := range tests {
		f, out, errOut := testFactory()
		code := Run(context.Background(), f, tt.args)
		want := "Run '" + tt.wantHelp + "' for usage.\n"
		if code != ExitUsage || !bytes.HasSuffix(errOut.Bytes(), []byte(want)) || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q; want exit %d, nothing on stdout and a stderr ending %q",
				tt.args, code, out.Len(), errOut, ExitUsage, want)
		}
	}
	f, out, _ := testFactory()
	if code := Run(context.Background(), f, []string{"completion", "bash"}); code != ExitOK || out.Len() == 0 {
		t.Errorf("completion bash: exit %d, %d bytes; want 0 and a script", code, out.Len())
	}
}
